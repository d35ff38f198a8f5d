#include "server/store/store.hpp"

#include <spdlog/spdlog.h>

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <span>

#include "server/store/store_health.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

// The plain way, for a store with no quicker one: read every open room.
std::optional<StoredRoom> Store::load_room(const std::string& code) {
  for (StoredRoom& room : load_open_rooms()) {
    if (room.room == code) return std::move(room);
  }
  return std::nullopt;
}

std::vector<StoredRoom> Store::waiting_rooms(std::size_t) { return {}; }

void add_event_table(StoredEvent& event, std::int64_t round, StoredEventTable table) {
  if (round == event.round) {
    event.tables.push_back(std::move(table));
    return;
  }
  if (event.earlier_rounds.empty() || event.earlier_rounds.back().round != round) {
    event.earlier_rounds.push_back(StoredEventRound{round, {}});
  }
  event.earlier_rounds.back().tables.push_back(std::move(table));
}

std::optional<std::string> Store::latest_finished_game(const std::string&) { return std::nullopt; }

std::optional<std::string> Store::room_of_token(const std::string& token_hash) {
  for (const StoredRoom& room : load_open_rooms()) {
    for (const StoredSeat& seat : room.seats) {
      if (seat.token_hash == token_hash) return room.room;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Store::event_of_table(const std::string& room) {
  for (const StoredEvent& event : load_open_events()) {
    for (const StoredEventTable& table : event.tables) {
      if (table.room == room) return event.event;
    }
  }
  return std::nullopt;
}

std::vector<std::string> Store::commit_rooms(const std::vector<RoomRecords>& batch) {
  std::vector<Record> records;
  for (const RoomRecords& room : batch) records.insert(records.end(), room.records.begin(), room.records.end());
  commit(records);
  return {};
}

// One node: every room is its own, always at the first epoch.
std::optional<StoredEvent> Store::load_open_event(const std::string& code) {
  for (StoredEvent& event : load_open_events()) {
    if (event.event == code) return std::move(event);
  }
  return std::nullopt;
}

std::optional<std::int64_t> Store::take_lease(const std::string&, const std::string&, std::chrono::milliseconds) {
  return 1;
}
std::vector<std::string> Store::renew_leases(const std::string&, std::chrono::milliseconds) { return {}; }
void Store::release_leases(const std::string&, const std::vector<std::string>&) {}
std::optional<std::string> Store::ask_handover(const std::string&, const std::string&, const std::string&) {
  return std::nullopt;
}
std::vector<std::string> Store::handover_requests() { return {}; }

NullStore::NullStore() {
  std::array<std::uint8_t, sizeof(key_)> bytes{};
  os_random_bytes(bytes);
  std::memcpy(key_.data(), bytes.data(), bytes.size());
}

struct StoreWriter::Results {
  std::vector<std::pair<Done, WriteOutcome>> callbacks;
  std::string error;         // why this round's try failed, if it did
  std::size_t unblocked = 0;  // records written that had waited after a failure
};

StoreWriter::StoreWriter(Store& store, std::optional<std::chrono::seconds> retention,
                         std::chrono::milliseconds prune_period, StoreHealth* health, std::size_t lane)
    : store_(store),
      retention_(retention),
      prune_period_(prune_period),
      health_(health),
      lane_(lane),
      thread_([this] {
        store_.on_slow_commit(kSlowCommit, [this] { commit_is_slow(); });
        run();
      }) {}

StoreWriter::~StoreWriter() { stop(); }

void StoreWriter::submit(std::string room, std::vector<Record>&& records, Done done) {
  {
    std::lock_guard lock(mutex_);
    if (!stopped_) {
      queue_.reserve(queue_.size() + 1);  // what may throw, before the records move
      queue_.push_back(Pending{std::move(room), std::move(records), std::move(done), Clock::now()});
      // The writer waits for the first of a batch; the rest join it.
      if (queue_.size() == 1) wake_.notify_one();
      return;
    }
    // After stop(): a room whose earlier records were given up stays
    // behind them, unwritten.
    for (auto& [code, count] : unwritten_) {
      if (code == room) {
        count += records.size();
        return;
      }
    }
  }
  // Nobody else writes now, so write here, once.
  const std::size_t count = records.size();
  try {
    const auto fenced = store_.commit_rooms({RoomRecords{room, std::move(records)}});
    if (done) done(fenced.empty() ? WriteOutcome::kWritten : WriteOutcome::kFenced);
  } catch (const std::exception& error) {
    spdlog::error("storage: a write of room {} after the writer stopped failed: {}", room, error.what());
    std::lock_guard lock(mutex_);
    unwritten_.emplace_back(room, count);
  }
}

void StoreWriter::flush_now() {
  std::lock_guard lock(mutex_);
  if (queue_.empty() || flush_) return;
  flush_ = true;
  wake_.notify_one();
}

StoreWriter::Unwritten StoreWriter::stop(Clock::time_point deadline) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      stop_deadline_ = deadline;
      wake_.notify_one();
    }
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  stopped_ = true;
  return unwritten_;
}

std::uint64_t StoreWriter::batches() const {
  std::lock_guard lock(mutex_);
  return batches_;
}

void StoreWriter::run() {
  pthread_setname_np(pthread_self(), "store-writer");
  // One vector goes back and forth with queue_, so the queue keeps the
  // capacity of the batches before it: growing it from nothing on every
  // batch, on the rooms' threads, cost reallocations and, at a few KiB,
  // glibc's consolidation of its free lists (perf under bench/run's load).
  std::vector<Pending> fresh;
  for (;;) {
    fresh.clear();
    {
      std::unique_lock lock(mutex_);
      const bool something_waits = !waiting_.empty() || uncertain_.has_value();
      // New submissions are written at once while the store works; while
      // it fails they wait for the next try with what failed.
      const auto work_now = [this] {
        const auto now = Clock::now();
        return (!queue_.empty() && !store_failing_) || retry_due(now) || (uncertain_ && now >= next_retry_);
      };
      auto until = Clock::time_point::max();
      if (something_waits) until = next_retry_;
      // An idle server still lets old games go, once per prune period.
      if (retention_) until = std::min(until, Clock::now() + prune_period_);
      const auto ready = [&] { return stopping_ || work_now(); };
      if (until == Clock::time_point::max()) {
        wake_.wait(lock, ready);
      } else {
        wake_.wait_until(lock, until, ready);
      }
      if (stopping_) {
        if (queue_.empty() && waiting_.empty() && !uncertain_) return;  // everything is written
        if (Clock::now() >= stop_deadline_) {
          give_up();
          return;
        }
        // Until the deadline, what failed is tried again at its pace.
        if (!work_now()) {
          wake_.wait_until(lock, std::min(next_retry_, stop_deadline_));
          continue;
        }
      }
      if (!queue_.empty() && !store_failing_ && commit_delay_.count() > 0) {
        // Group commit: other rooms' records join this batch meanwhile,
        // until the I/O threads have nothing more to do (flush_now).
        wake_.wait_for(lock, commit_delay_, [this] { return stopping_ || flush_; });
      }
      flush_ = false;
      fresh.swap(queue_);
    }
    write_round(fresh);
    maybe_prune();
  }
}

void StoreWriter::give_up() {
  // What waits is never written now, and nothing it held is sent.
  std::vector<const Pending*> left;
  if (uncertain_) {
    for (const Pending& pending : *uncertain_) left.push_back(&pending);
  }
  for (const Pending& pending : waiting_) left.push_back(&pending);
  for (const Pending& pending : queue_) left.push_back(&pending);
  for (const Pending* pending : left) {
    auto it = std::find_if(unwritten_.begin(), unwritten_.end(),
                           [&](const auto& entry) { return entry.first == pending->room; });
    if (it == unwritten_.end()) it = unwritten_.insert(unwritten_.end(), {pending->room, 0});
    it->second += pending->records.size();
  }
  queue_.clear();
}

void StoreWriter::hold(Pending pending, bool front) {
  ++waiting_count_[pending.room];
  if (front) {
    waiting_.insert(waiting_.begin(), std::move(pending));
  } else {
    waiting_.push_back(std::move(pending));
  }
}

void StoreWriter::release(const std::string& room) {
  const auto it = waiting_count_.find(room);
  if (it == waiting_count_.end()) return;
  if (--it->second == 0) {
    waiting_count_.erase(it);
    own_fault_.erase(room);
  }
}

void StoreWriter::write_round(std::vector<Pending>& fresh) {
  Results results;
  if (uncertain_ && !settle_uncertain(results)) {
    // Nothing is written until the uncertain batch is settled.
    for (Pending& pending : fresh) tell_and_hold(std::move(pending), results);
    fresh.clear();
    return finish_round(results);
  }
  const auto now = Clock::now();
  const bool due = retry_due(now);
  std::vector<Pending> batch;
  // Rooms whose own records were refused are tried one by one, each with
  // its later submissions behind.
  std::vector<std::vector<Pending>> alone;
  if (due) {
    std::unordered_map<std::string, std::size_t> alone_of;
    std::vector<Pending> waited;
    waited.swap(waiting_);
    for (Pending& pending : waited) {
      const std::string room = pending.room;
      release(room);
      if (own_fault_.contains(room) || alone_of.contains(room)) {
        auto [it, added] = alone_of.try_emplace(room, alone.size());
        if (added) alone.emplace_back();
        alone[it->second].push_back(std::move(pending));
      } else {
        batch.push_back(std::move(pending));
      }
    }
    for (Pending& pending : fresh) {
      if (const auto it = alone_of.find(pending.room); it != alone_of.end()) {
        alone[it->second].push_back(std::move(pending));
      } else if (waiting_count_.contains(pending.room)) {
        hold(std::move(pending), false);
      } else {
        batch.push_back(std::move(pending));
      }
    }
  } else if (store_failing_) {
    // The store failed at the last try: these wait for the next one.
    for (Pending& pending : fresh) tell_and_hold(std::move(pending), results);
  } else {
    for (Pending& pending : fresh) {
      if (waiting_count_.contains(pending.room)) {
        hold(std::move(pending), false);
      } else {
        batch.push_back(std::move(pending));
      }
    }
  }
  fresh.clear();
  if (!batch.empty()) write(std::move(batch), results);
  for (auto& room : alone) write(std::move(room), results, true);
  finish_round(results);
}

void StoreWriter::write(std::vector<Pending> batch, Results& results, bool alone) {
  if (alone && (uncertain_ || store_failing_)) {
    // The store failed meanwhile: this waits for the next try too.
    for (Pending& pending : batch) tell_and_hold(std::move(pending), results);
    return;
  }
  try {
    const auto fenced = commit(batch);
    written(batch, fenced, results);
    store_failing_ = false;
    if (waiting_.empty()) retry_pause_ = kFirstRetry;
  } catch (const CommitUncertain& error) {
    // Settled before anything else is written (settle_uncertain).
    failed(error.what(), true, results);
    for (Pending& pending : batch) {
      ++waiting_count_[pending.room];
      tell(pending, results);
    }
    uncertain_ = std::move(batch);
  } catch (const RecordsRefused& error) {
    if (batch.size() == 1) {
      // This submission's own records: its room waits on its own (with its
      // later submissions behind), and the others go on.
      const std::string room = batch.front().room;
      spdlog::error("storage: room {}: the store refused its records: {}", room, error.what());
      failed(error.what(), false, results);
      own_fault_.insert(room);
      tell_and_hold(std::move(batch.front()), results);
      return;
    }
    std::vector<std::string> rooms;
    for (const Pending& pending : batch) {
      if (std::find(rooms.begin(), rooms.end(), pending.room) == rooms.end()) rooms.push_back(pending.room);
    }
    if (!alone && rooms.size() > 1) {
      // One room's records must not hold back the others': each room on
      // its own, in the order the rooms came.
      for (const std::string& room : rooms) {
        std::vector<Pending> one;
        for (Pending& pending : batch) {
          if (pending.room == room) one.push_back(std::move(pending));
        }
        write(std::move(one), results, true);
      }
      return;
    }
    // One room's submissions: each on its own, in order, up to the one refused.
    for (Pending& pending : batch) {
      if (uncertain_ || store_failing_ || waiting_count_.contains(pending.room)) {
        tell_and_hold(std::move(pending), results);
        continue;
      }
      std::vector<Pending> one;
      one.push_back(std::move(pending));
      write(std::move(one), results, true);
    }
  } catch (const std::exception& error) {
    failed(error.what(), true, results);
    for (Pending& pending : batch) tell_and_hold(std::move(pending), results);
  }
}

std::vector<std::string> StoreWriter::commit(const std::vector<Pending>& batch) {
  // The records move to the store's batch and back, not copied.
  std::vector<RoomRecords> rooms;
  rooms.reserve(batch.size());
  auto& pending = const_cast<std::vector<Pending>&>(batch);
  for (auto& each : pending) rooms.push_back(RoomRecords{each.room, std::move(each.records)});
  const auto give_back = [&] {
    for (std::size_t i = 0; i < pending.size(); ++i) pending[i].records = std::move(rooms[i].records);
  };
  in_flight_ = &pending;
  try {
    auto fenced = store_.commit_rooms(rooms);
    in_flight_ = nullptr;
    give_back();
    std::lock_guard lock(mutex_);
    ++batches_;
    return fenced;
  } catch (...) {
    in_flight_ = nullptr;
    give_back();
    throw;
  }
}

void StoreWriter::commit_is_slow() {
  if (in_flight_ == nullptr) return;
  Results results;
  for (Pending& pending : *in_flight_) tell(pending, results);
  if (results.callbacks.empty()) return;
  spdlog::warn("storage: a commit has waited {} ms for the store; its {} submissions' rooms are paused meanwhile",
               kSlowCommit.count(), results.callbacks.size());
  deliver(results);
}

void StoreWriter::written(std::vector<Pending>& batch, const std::vector<std::string>& fenced, Results& results) {
  for (const std::string& room : fenced) {
    spdlog::warn("storage: room {} was fenced out: another node holds its lease; its last records are not written",
                 room);
    if (on_fenced_) on_fenced_(room);
  }
  for (Pending& pending : batch) {
    const bool out = std::find(fenced.begin(), fenced.end(), pending.room) != fenced.end();
    if (pending.told) results.unblocked += pending.records.size();
    results.callbacks.emplace_back(std::move(pending.done), out ? WriteOutcome::kFenced : WriteOutcome::kWritten);
  }
}

void StoreWriter::failed(const std::string& error, bool store_failed, Results& results) {
  if (results.error.empty()) results.error = error;
  if (store_failed) store_failing_ = true;
  next_retry_ = Clock::now() + retry_pause_;
  retry_pause_ = std::min(retry_pause_ * 2, std::chrono::milliseconds(kLongestRetry));
}

void StoreWriter::tell(Pending& pending, Results& results) {
  if (pending.told) return;
  pending.told = true;
  if (pending.done) results.callbacks.emplace_back(pending.done, WriteOutcome::kRetrying);
}

void StoreWriter::tell_and_hold(Pending pending, Results& results) {
  tell(pending, results);
  hold(std::move(pending), false);
}

bool StoreWriter::settle_uncertain(Results& results) {
  std::optional<std::vector<std::string>> fenced;
  try {
    fenced = store_.resolve_uncertain();
  } catch (const std::exception& error) {
    failed(error.what(), true, results);
    return false;
  }
  auto batch = std::move(*uncertain_);
  uncertain_.reset();
  if (fenced) {
    spdlog::info("storage: a commit whose answer was lost did commit; its {} submissions are written", batch.size());
    for (const Pending& pending : batch) release(pending.room);
    written(batch, *fenced, results);
    return true;
  }
  spdlog::info("storage: a commit whose answer was lost did not commit; it is sent again");
  // Back in front of each room's later submissions, to be tried now.
  for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
    --waiting_count_[it->room];  // hold() counts it again
    hold(std::move(*it), true);
  }
  next_retry_ = Clock::now();
  return true;
}

void StoreWriter::finish_round(Results& results) {
  if (waiting_.empty() && !uncertain_) {
    // Nothing waits (an uncertain commit settled as written, say): new
    // submissions are written at once again.
    store_failing_ = false;
    retry_pause_ = kFirstRetry;
  }
  if (health_) {
    StoreHealth::Waiting waiting;
    waiting.rooms = waiting_count_.size();
    bool first = true;
    const auto count = [&](const Pending& pending) {
      waiting.records += pending.records.size();
      if (first || pending.since < waiting.oldest) waiting.oldest = pending.since;
      first = false;
    };
    for (const Pending& pending : waiting_) count(pending);
    if (uncertain_) {
      for (const Pending& pending : *uncertain_) count(pending);
    }
    health_->lane_tried(lane_, waiting, results.error, results.unblocked);
  }
  deliver(results);
}

void StoreWriter::deliver(Results& results) {
  if (results.callbacks.empty()) return;
  auto callbacks = std::make_shared<std::vector<std::pair<Done, WriteOutcome>>>(std::move(results.callbacks));
  auto run = [callbacks] {
    for (auto& [done, outcome] : *callbacks) {
      if (done) done(outcome);
    }
  };
  bool hand_over = false;
  {
    std::lock_guard lock(mutex_);
    hand_over = hand_over_ && !stopping_;
  }
  if (hand_over) {
    hand_over_(std::move(run));
  } else {
    run();
  }
}

void StoreWriter::maybe_prune() {
  if (!retention_ || store_failing_) return;
  const auto now = std::chrono::steady_clock::now();
  if (last_prune_ != std::chrono::steady_clock::time_point{} && now - last_prune_ < prune_period_) return;
  last_prune_ = now;
  const auto cutoff = std::chrono::duration_cast<std::chrono::milliseconds>(
                          (std::chrono::system_clock::now() - *retention_).time_since_epoch())
                          .count();
  try {
    if (const auto removed = store_.prune_finished(cutoff); removed > 0) {
      spdlog::info("storage: {} finished games past their retention deleted", removed);
    }
  } catch (const std::exception& error) {
    spdlog::error("storage: deleting old finished games failed: {}", error.what());
  }
}

std::optional<DailyTally> Store::count_daily_game(const std::string& day, int sets, const std::string& /*room*/,
                                                  std::int64_t /*game*/) {
  std::lock_guard lock(daily_mutex_);
  // Only today's and yesterday's are ever asked for: older days go, so
  // memory stays bounded however long the process runs.
  while (daily_.size() > 2 && daily_.begin()->first < day) daily_.erase(daily_.begin());
  DailyTally& tally = daily_[day];
  ++tally[sets];
  return tally;
}

DailyTally Store::daily_tally(const std::string& day) {
  std::lock_guard lock(daily_mutex_);
  const auto it = daily_.find(day);
  return it == daily_.end() ? DailyTally{} : it->second;
}

}  // namespace gofish::server
