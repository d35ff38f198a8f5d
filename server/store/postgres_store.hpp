// The shared store: the same tables and records as SqliteStore, in a
// PostgreSQL database reached with libpq's C API (`--storage postgres`).
//
// Readings chosen:
// - One connection, owned by the store, behind one mutex: HTTP threads read
//   transcripts, the start loads rooms, the lease keeper renews leases. The
//   writer commits through connections of its own (open_writer(), one per
//   lane of the ShardedWriter, sharded_writer.hpp), so neither waits for
//   the other. No threads of its own.
// - commit() is one transaction per call, sent in pipeline mode: every
//   statement, then a Sync that commits them all (or none, after an error),
//   in one round trip whatever the batch's size. A connection the database
//   dropped (a restart, a terminated session) is made again before the next
//   call; a commit that lost its connection before the Sync was sent is run
//   again on the new one (the database rolled it back). One that lost it
//   afterwards is reported failed: PostgreSQL may or may not have committed
//   it, and nothing can tell.
// - Every statement is prepared once per connection from one table
//   (server/store/postgres_statements.hpp): each record's SQL sits in one
//   place, steps_for() (server/store/postgres_batching.cpp),
//   so a later change of what rooms write, or a fencing condition, is one
//   edit. Parameters go in binary (text and bytea as their bytes, so the
//   token hash needs no escaping and a NUL byte is refused rather than cut
//   off), integers as decimal text; results come back in binary.
// - The schema is versioned: meta('schema_version') holds the version, and
//   a list of steps (server/store/migrations/postgres/NNNN_*.sql, compiled
//   in) migrates it forward in one transaction, under an
//   advisory lock so servers starting together migrate once. A version
//   newer than this program's is refused with a StoreError, as are an
//   unreachable database, a refused login and a database whose encoding is
//   not UTF8 (the records are UTF-8 text).
// - Leases (schema version 2): room_lease(code, node, epoch, expires_at)
//   says which node owns a room. A node takes a room with one upsert (the
//   epoch goes up when it takes over an expired lease), renews all of its
//   leases with one statement, and a commit's records are guarded by two
//   statements at its start: the node's advisory lock, shared, held until
//   the batch commits; then a check that node_fence still counts as many
//   leases taken from the node as it knows of (schema version 7; 2 to 6
//   checked each room's epoch, in the end with gofish_fenced_out). If the
//   count moved, gofish_node_lost_lease raises (SQLSTATE GF002), and the
//   node reads the count again with every room of its own it lost at the
//   epoch it holds, in one snapshot, forgets those, and sends the batch
//   again: the rooms it lost come back to the writer as fenced.
//   Taking a lease over from a node takes that node's lock and adds one to
//   its count (a trigger on room_lease, schema versions 5 and 7; before,
//   the guard locked each lease row FOR SHARE): so a takeover waits for the
//   batches in flight, and a batch that starts after it waits for its
//   commit; the check, a statement of its own, then reads the new count,
//   and nothing is written under the old epoch.
//   A node asks another to hand a room over with NOTIFY on the owner's
//   channel (gofish_handover_<node>).
// - Durability of a commit is PostgreSQL's: with synchronous_commit on (its
//   default) COMMIT returns once the WAL is flushed, so a commit survives a
//   crash of the database machine, and always a crash of this process. The
//   setting is the database's (ALTER DATABASE / ROLE, or `options` in the
//   URL), not a flag of ours.
// - A torn decision tail and the seat-token key are handled as in
//   SqliteStore (sqlite_store.hpp); the key is written with ON CONFLICT DO
//   NOTHING and read back, so servers starting together on a new database
//   agree on one key.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "server/store/decision_sequences.hpp"
#include "server/store/store.hpp"

struct pg_conn;

namespace gofish::server {

namespace postgres_statements {
struct Sql;
}

// The schema version this program writes (meta.schema_version).
inline constexpr int kPostgresSchemaVersion = 13;

class PostgresStore final : public Store {
 public:
  // Connects with `url` (a libpq connection URI, postgresql://user@host/db,
  // or key=value string; the PG* environment variables and ~/.pgpass fill in
  // what it leaves out), checks and migrates the schema. Throws StoreError
  // with a sentence for the operator; the sentence never holds a password.
  explicit PostgresStore(const std::string& url, MissingTokenKey missing_key = MissingTokenKey::kRefuse);
  ~PostgresStore() override;
  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;

  // "database gofish on 127.0.0.1:5432 as gofish", for the log.
  std::string where() const;
  // The text of the statement every connection prepares as `name`, or
  // nothing: for tests that look at its plan (EXPLAIN) in their own session.
  static std::optional<std::string> statement_text(std::string_view name);

  void commit(const std::vector<Record>& records) override;
  std::vector<std::string> commit_rooms(const std::vector<RoomRecords>& batch) override;
  std::optional<std::vector<std::string>> resolve_uncertain() override;
  void on_slow_commit(std::chrono::milliseconds after, std::function<void()> notice) override;
  std::vector<StoredRoom> load_open_rooms() override;
  std::vector<StoredEvent> load_open_events() override;
  std::optional<StoredEvent> load_open_event(const std::string& code) override;
  std::optional<StoredEvent> load_closed_event(const std::string& code) override;
  std::optional<DailyTally> count_daily_game(const std::string& day, int sets, const std::string& room,
                                             std::int64_t game) override;
  DailyTally daily_tally(const std::string& day) override;
  std::optional<StoredRoom> load_room(const std::string& code) override;
  std::optional<std::string> room_of_token(const std::string& token_hash) override;
  std::optional<std::string> event_of_table(const std::string& room) override;
  std::vector<StoredRoom> waiting_rooms(std::size_t limit) override;

  // Leases (store.hpp). From fence_as(node) on, commit_rooms writes a
  // room's records only under the lease `node` took through this store
  // (take_lease), at that epoch: a room whose lease this store never took,
  // or lost (renew_leases no longer lists it, release_leases let it go), is
  // fenced out. It also listens for other nodes' handover requests (NOTIFY
  // on the node's channel), on a connection of its own that nothing else
  // reads, so that its socket (handover_socket()) is readable exactly when
  // one may have come; handover_requests() collects them. commit() itself
  // stays unfenced (tools, tests).
  void fence_as(const std::string& node);
  // Another connection to the same database for a writer lane: it commits
  // under this store's fence (the node and the epochs of the leases this
  // store takes), knows the same games' decision numbers, neither migrates
  // nor listens, and shares nothing else.
  std::unique_ptr<PostgresStore> open_writer() const;
  bool has_leases() const override { return true; }
  std::optional<std::int64_t> take_lease(const std::string& code, const std::string& node,
                                         std::chrono::milliseconds ttl) override;
  std::vector<std::string> renew_leases(const std::string& node, std::chrono::milliseconds ttl) override;
  void release_leases(const std::string& node, const std::vector<std::string>& codes) override;
  std::optional<std::string> ask_handover(const std::string& code, const std::string& asker,
                                          const std::string& asked_before = "") override;
  std::vector<std::string> handover_requests() override;
  int handover_socket() override;
  void set_aside(const std::string& room, const std::string& reason, std::int64_t now_ms) override;
  std::vector<SetAsideRoom> set_aside_rooms() override;
  bool restore_set_aside(const std::string& room) override;
  std::optional<StoredGame> finished_game(const std::string& game_id) override;
  std::optional<std::string> latest_finished_game(const std::string& room) override;
  std::size_t prune_finished(std::int64_t before_ms) override;
  std::array<std::uint64_t, 4> token_key() override;
  void truncate_decisions(const std::string& game_id, std::int64_t keep) override;

  // A statement's result (server/store/postgres_result.hpp).
  class Result;
  // One prepared statement with its parameters (server/store/postgres_step.hpp).
  struct Step;

 private:
  // Connects, checks and migrates the schema (`migrate`) and prepares the
  // statements; closes the connection again if any of it throws.
  void open(bool migrate);
  void connect();
  std::string describe() const;  // where(), with the mutex held
  void check_and_migrate();
  void prepare_statements();
  // Makes the connection again if the database dropped it.
  void reconnect_if_lost();
  bool connection_lost() const;
  Result exec(const char* sql);
  // One prepared statement, its last result; given up on (the connection
  // dropped, StoreUnreachable) after kStatementTimeout without an answer.
  Result run(const Step& step);
  static constexpr std::chrono::seconds kStatementTimeout{10};
  // A writer's batch, given up on likewise after this.
  static constexpr std::chrono::seconds kCommitTimeout{5};
  // Waits until a result can be read without blocking, or until
  // `deadline`: then the connection is shut down and taken for lost (unless
  // not `drop_at_deadline`: then it only returns).
  void await_input(std::chrono::steady_clock::time_point deadline, bool drop_at_deadline = true);
  // Sends `steps` and a Sync in pipeline mode, which commits them as one
  // implicit transaction, and reads every result: one round trip for the
  // batch. With `track_xid` the transaction's id is read first (xid_).
  // Returns false if the connection was lost before the Sync was sent
  // (nothing was committed); throws CommitUncertain if it was lost after,
  // and RecordsRefused, StoreUnreachable or StoreError on anything else.
  bool pipeline(const std::vector<Step>& steps, bool track_xid);
  // pipeline(), sent once more if the connection was lost before the Sync.
  void commit_steps(const std::vector<Step>& steps, bool track_xid);
  // A batch committed: its decision numbers count, its closed rooms' leases are gone.
  void landed(DecisionSequences::Batch& numbers, const std::vector<std::string>& closed);
  void listen();
  void rollback();
  template <class Work>
  auto with_retry(Work&& work);
  void truncate_locked(const std::string& game_id, std::int64_t keep);
  void fill_locked(StoredRoom& room);
  // A record's statements, onto `steps`, its decision numbers checked and
  // counted in `numbers`.
  void add_steps(const Record& record, DecisionSequences::Batch& numbers, std::vector<Step>& steps);
  static StoredGame game_of(const Result& games);
  // The events of `rows` (kOpenEvents' columns), with their pupils and tables.
  std::vector<StoredEvent> events_of(const Result& rows);
  // The one event `statement` (kOpenEvents' columns) finds by its code.
  std::optional<StoredEvent> event_by_code(const postgres_statements::Sql& statement, const std::string& code);
  static DailyTally daily_tally_of(const Result& rows);
  bool holds_rooms_or_games();
  // After the guard found the node's count of lost leases moved: reads it
  // again, with the rooms of `epochs` lost, and drops those.
  void recheck_fence(const std::string& node);

  // fence_as: this node, and the epoch of each lease it took; shared with
  // the writer connections (open_writer), behind its own mutex.
  struct Fence {
    std::mutex mutex;
    std::string node;
    std::unordered_map<std::string, std::int64_t> epochs;
    // node_fence.losses as of the node's last check: the leases taken from
    // it that `epochs` accounts for. -1 until the first check.
    std::int64_t losses = -1;
  };
  // Another connection beside `parent`: a writer lane's (open_writer), or
  // the one that listens for the node's handover requests (fence_as).
  enum class Role { kWriter, kListener };
  PostgresStore(const PostgresStore& parent, Role role);
  std::shared_ptr<PostgresStore> listener() const;
  // What arrived on this (listening) connection.
  std::vector<std::string> notifications();

  mutable std::mutex mutex_;
  pg_conn* conn_ = nullptr;
  const std::string url_;
  const MissingTokenKey missing_key_;
  // The statement the last failed pipeline failed at, and its SQLSTATE.
  std::optional<std::size_t> failed_step_;
  std::string failed_state_;
  // The last pipeline's transaction id, when it came back.
  std::optional<std::int64_t> xid_;
  // The writer's batch whose commit is uncertain (CommitUncertain), and
  // what it would have done.
  struct Uncertain {
    std::optional<std::int64_t> xid;
    DecisionSequences::Batch numbers;
    std::vector<std::string> fenced;
    std::vector<std::string> closed;
  };
  std::optional<Uncertain> uncertain_;
  // on_slow_commit: told once per pipeline that waits this long.
  std::chrono::milliseconds slow_after_{0};
  std::function<void()> slow_notice_;
  std::shared_ptr<Fence> fence_;
  // Each game's next decision number: shared with the writer connections.
  std::shared_ptr<DecisionSequences> sequences_;
  // Only the listener (fence_as) listens for handover requests.
  const bool listens_ = false;
  std::shared_ptr<PostgresStore> listener_;
};

// Runs `work` once more on a new connection if the database dropped the
// connection under it: PostgreSQL rolls back what a lost connection had
// begun, so `work` must not have sent a COMMIT (commit() handles that case).
template <class Work>
auto PostgresStore::with_retry(Work&& work) {
  reconnect_if_lost();
  try {
    return work();
  } catch (const StoreError&) {
    if (!connection_lost()) throw;
  }
  reconnect_if_lost();
  return work();
}

}  // namespace gofish::server
