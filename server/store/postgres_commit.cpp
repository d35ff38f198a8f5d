// The PostgreSQL store's writes: a batch of records as one transaction in
// pipeline mode, guarded by the node's leases (the fence), and what follows
// when the connection is lost under it.
#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>

#include "server/store/postgres_store.hpp"
#include "server/store/postgres_batching.hpp"
#include "server/store/postgres_result.hpp"
#include "server/store/postgres_step.hpp"

namespace gofish::server {

using namespace postgres_statements;
using postgres_batching::merge_steps;
using postgres_batching::steps_for;
using postgres_batching::text_array;
using postgres_step::step;

void PostgresStore::commit(const std::vector<Record>& records) {
  if (records.empty()) return;
  std::lock_guard lock(mutex_);
  DecisionSequences::Batch numbers;
  std::vector<Step> steps;
  for (const auto& record : records) add_steps(record, numbers, steps);
  merge_steps(steps);
  commit_steps(steps, false);
  sequences_->land(numbers);
}

void PostgresStore::add_steps(const Record& record, DecisionSequences::Batch& numbers, std::vector<Step>& steps) {
  // No index keeps a game's decisions unique (schema version 8): the
  // numbers are checked here, so a decision written twice or out of order
  // fails its batch.
  if (const auto* started = std::get_if<record::GameStarted>(&record)) {
    numbers.started(started->game_id);
  } else if (const auto* decision = std::get_if<record::DecisionAccepted>(&record)) {
    sequences_->accept(numbers, decision->game_id, decision->seq, [this](const std::string& game_id) {
      reconnect_if_lost();
      return run(step(kNextDecision, game_id)).integer(0, 0);
    });
  } else if (const auto* finished = std::get_if<record::GameFinished>(&record)) {
    numbers.ended(finished->game_id);
  }
  for (auto& one : steps_for(record)) steps.push_back(std::move(one));
}

void PostgresStore::commit_steps(const std::vector<Step>& steps, bool track_xid) {
  reconnect_if_lost();
  if (!pipeline(steps, track_xid) && connection_lost()) {
    // Lost before the Sync went out: the database rolled back what it had
    // of the batch, so it is sent once more on a new connection.
    reconnect_if_lost();
    if (!pipeline(steps, track_xid)) {
      throw StoreUnreachable("writing: the connection to PostgreSQL was lost twice: " +
                             Result::one_line(PQerrorMessage(conn_)));
    }
  }
}

std::vector<std::string> PostgresStore::commit_rooms(const std::vector<RoomRecords>& batch) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> fenced;
  // A node that loses leases one after another while it writes may find
  // its count moved again after each check; past a few rounds the batch
  // fails, and the writer commits its rooms one by one.
  for (int checks = 0;; ++checks) {
    // The rooms this batch writes (those whose lease the node holds) and
    // the count of leases lost that goes with them, read together.
    std::string node;
    std::int64_t losses = -1;
    std::vector<const RoomRecords*> writing;
    {
      std::lock_guard fence(fence_->mutex);
      node = fence_->node;
      losses = fence_->losses;
      for (const RoomRecords& room : batch) {
        if (room.records.empty()) continue;
        if (node.empty() || fence_->epochs.contains(room.room)) {
          writing.push_back(&room);
        } else if (std::find(fenced.begin(), fenced.end(), room.room) == fenced.end()) {
          fenced.push_back(room.room);
        }
      }
    }
    // The guard first, then the records in order: one room's records never
    // depend on another's, and the decisions of rooms side by side merge
    // into one statement.
    std::vector<Step> steps;
    if (!node.empty() && !writing.empty()) {
      steps.push_back(step(kFenceLock, node));
      steps.push_back(step(kFenceNode, node, losses));
    }
    DecisionSequences::Batch numbers;
    for (const RoomRecords* room : writing) {
      for (const Record& record : room->records) add_steps(record, numbers, steps);
    }
    merge_steps(steps);
    if (steps.empty()) return fenced;
    // A closed room's lease is gone with it once this commits: the code
    // may be leased again, by any node, from epoch 1.
    std::vector<std::string> closed;
    for (const RoomRecords* room : writing) {
      if (std::holds_alternative<record::RoomClosed>(room->records.back())) closed.push_back(room->room);
    }
    try {
      commit_steps(steps, true);
    } catch (const CommitUncertain&) {
      // Settled by resolve_uncertain() before the writer writes anything else.
      uncertain_ = Uncertain{xid_, std::move(numbers), std::move(fenced), std::move(closed)};
      throw;
    } catch (const StoreError&) {
      if (failed_state_ != kLostLease || !failed_step_ || *failed_step_ != 1 || checks >= 4) throw;
      recheck_fence(node);
      continue;
    }
    landed(numbers, closed);
    return fenced;
  }
}

void PostgresStore::on_slow_commit(std::chrono::milliseconds after, std::function<void()> notice) {
  std::lock_guard lock(mutex_);
  slow_after_ = after;
  slow_notice_ = std::move(notice);
}

void PostgresStore::landed(DecisionSequences::Batch& numbers, const std::vector<std::string>& closed) {
  sequences_->land(numbers);
  std::lock_guard fence(fence_->mutex);
  for (const std::string& room : closed) fence_->epochs.erase(room);
}

std::optional<std::vector<std::string>> PostgresStore::resolve_uncertain() {
  std::lock_guard lock(mutex_);
  if (!uncertain_) return std::nullopt;
  reconnect_if_lost();  // throws while the database cannot be reached
  if (!uncertain_->xid) {
    // Lost before even the transaction's id came back: nothing after it
    // ran. Its games' numbers are read again from the database when next
    // written, so a batch that committed after all is refused, not doubled.
    spdlog::warn("storage: a batch's transaction id was lost with its connection; it is sent again");
    for (const std::string& game : uncertain_->numbers.games()) sequences_->forget(game);
    uncertain_.reset();
    return std::nullopt;
  }
  const Result status = run(step(kTxidStatus, *uncertain_->xid));
  const std::string state = status.null(0, 0) ? "" : status.bytes(0, 0);
  if (state == "in progress") {
    // The old session is still being ended; asked again at the next try.
    throw StoreError("the transaction of a batch whose connection was lost is still in progress");
  }
  Uncertain settled = std::move(*uncertain_);
  uncertain_.reset();
  // "aborted", or NULL: an id too old for the commit log to remember (it
  // would take hundreds of millions of transactions, and a vacuum, between
  // the loss and this question). Both are sent again; had a forgotten
  // one committed after all, its records would be refused as out of
  // sequence, and the room would stay paused rather than be written twice.
  if (state != "committed") return std::nullopt;
  landed(settled.numbers, settled.closed);
  return std::move(settled.fenced);
}

void PostgresStore::recheck_fence(const std::string& node) {
  std::unordered_map<std::string, std::int64_t> checked;
  {
    std::lock_guard fence(fence_->mutex);
    checked = fence_->epochs;
  }
  std::vector<std::string> codes;
  std::string epochs = "{";
  for (const auto& [code, epoch] : checked) {
    epochs += (codes.empty() ? "" : ",") + std::to_string(epoch);
    codes.push_back(code);
  }
  Step recheck = step(kFenceRecheck);
  recheck.values = {text_array(codes), node, epochs + "}"};
  recheck.formats = {0, 1, 0};
  recheck.nulls = {0, 0, 0};
  // Only reads: on a connection lost meanwhile it is asked again.
  const Result result = with_retry([&] { return run(recheck); });
  std::lock_guard fence(fence_->mutex);
  if (node != fence_->node) return;
  if (!result.null(0, 1)) {
    // Room codes are letters and digits: the list needs no unquoting.
    const std::string lost = result.bytes(0, 1);
    for (std::size_t start = 0; start < lost.size();) {
      const std::size_t end = std::min(lost.find(',', start), lost.size());
      const std::string code = lost.substr(start, end - start);
      start = end + 1;
      // Lost at the epoch checked; a lease taken again since is held at its new one.
      const auto was = checked.find(code);
      const auto held = fence_->epochs.find(code);
      if (was != checked.end() && held != fence_->epochs.end() && held->second == was->second) {
        fence_->epochs.erase(held);
      }
    }
  }
  fence_->losses = result.null(0, 0) ? -1 : result.integer(0, 0);
}

bool PostgresStore::pipeline(const std::vector<Step>& steps, bool track_xid) {
  if (PQenterPipelineMode(conn_) != 1) throw StoreError("writing: " + Result::one_line(PQerrorMessage(conn_)));
  // Statements sent, each a result and then a null to read.
  std::size_t sent = 0;
  bool synced = true;
  xid_.reset();
  if (track_xid) {
    // Asked to answer at once, before the rest runs (a flush request).
    if (PQsendQueryPrepared(conn_, kTxid.name, 0, nullptr, nullptr, nullptr, 1) != 1 ||
        PQsendFlushRequest(conn_) != 1) {
      synced = false;
    } else {
      ++sent;
    }
  }
  for (const auto& step : steps) {
    if (!synced) break;
    const std::vector<const char*> values = step.pointers();
    const std::vector<int> lengths = step.lengths();
    if (PQsendQueryPrepared(conn_, step.name, static_cast<int>(values.size()), values.data(), lengths.data(),
                            step.formats.data(), 1) != 1) {
      synced = false;
      break;
    }
    ++sent;
  }
  if (synced && PQpipelineSync(conn_) != 1) synced = false;
  if (!synced) {
    const std::string error = Result::one_line(PQerrorMessage(conn_));
    if (connection_lost()) return false;
    PQreset(conn_);  // a pipeline half sent on a live connection: start clean
    if (!connection_lost()) prepare_statements();
    throw StoreError("writing: " + error);
  }
  // The results: one per statement (each followed by a null), then the
  // Sync's. After an error the statements behind it come back aborted.
  std::string error;
  std::size_t ends = 0;
  failed_step_.reset();
  failed_state_.clear();
  const std::size_t first_step = track_xid ? 1 : 0;
  const auto sent_at = std::chrono::steady_clock::now();
  const auto deadline = sent_at + kCommitTimeout;
  bool slow = !slow_notice_;  // told already, or nobody to tell
  for (bool done = false; !done;) {
    if (!slow) {
      // Wait first until the commit is slow, and say so, then to the deadline.
      await_input(std::min(deadline, sent_at + slow_after_), false);
      if (PQisBusy(conn_) == 1 && !connection_lost() && std::chrono::steady_clock::now() >= sent_at + slow_after_) {
        slow = true;
        slow_notice_();
      }
    }
    await_input(deadline);
    PGresult* raw = PQgetResult(conn_);
    if (raw == nullptr) {
      if (connection_lost() || ++ends > sent) {
        if (error.empty()) error = Result::one_line(PQerrorMessage(conn_));
        break;
      }
      continue;
    }
    const Result result(raw);
    switch (PQresultStatus(raw)) {
      case PGRES_PIPELINE_SYNC: done = true; break;
      case PGRES_TUPLES_OK:
        if (track_xid && ends == 0 && result.rows() == 1) xid_ = result.integer(0, 0);
        break;
      case PGRES_COMMAND_OK:
      case PGRES_PIPELINE_ABORTED: break;
      default:
        if (error.empty()) {
          const char* state = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
          error = Result::one_line(PQresultErrorMessage(raw)) + (state ? std::string(" (SQLSTATE ") + state + ")" : "");
          if (ends >= first_step) failed_step_ = ends - first_step;  // the statement whose results are being read
          if (state) failed_state_ = state;
        }
    }
  }
  const bool lost = connection_lost();
  if (PQexitPipelineMode(conn_) != 1 && !connection_lost()) {
    PQreset(conn_);
    if (!connection_lost()) prepare_statements();
  }
  if (error.empty()) return true;
  // Lost after the Sync went out, with no statement refused: committed or
  // not, only the database can tell now (resolve_uncertain).
  if (lost && failed_state_.empty())
    throw CommitUncertain("writing: the connection was lost after the commit: " + error);
  Result::raise(conn_, failed_state_, "writing: " + error);
}

}  // namespace gofish::server
