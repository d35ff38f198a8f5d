// The embedded store: one SQLite file in the data directory.
//
// Readings chosen:
// - WAL journal, so the writer's commits append to the log and readers (the
//   transcript API) do not block it.
// - PRAGMA synchronous is configurable. NORMAL (the default) syncs the WAL
//   only at checkpoints: a committed transaction survives the process being
//   killed (SIGKILL, a crash), which is what the issue asks, but the last
//   transactions may be lost if the machine loses power. FULL syncs the WAL
//   on every commit and survives power loss too, at one fsync per batch.
// - The schema is versioned with PRAGMA user_version and migrated forward by
//   a list of steps (server/store/migrations/sqlite/NNNN_*.sql, compiled in); a version newer than this program knows, a file that is
//   not SQLite, or a database that fails quick_check is refused with a
//   StoreError (the server exits rather than run without its rooms).
// - Decisions are appended in commit order (schema version 4): the table
//   has its rowid and no other index, so a batch of actions from many rooms
//   writes its last page or two; a game finds its decisions from its first
//   one's rowid (games.first_decision), a start reads every room's in one
//   pass from the oldest, and the sequence within a game is checked on write
//   (a decision written twice, or after a gap, fails its batch). A new file
//   gets 1 KiB pages, since a commit writes the log's last page whole. A
//   finished game keeps the highest rowid when it ended (schema version 5:
//   games.last_decision), so its decisions are read between the two.
// - A "torn" decision tail: SQLite commits are atomic, so a torn record is
//   one we cannot use: a decision whose text is empty or not a JSON object,
//   or a gap in a game's sequence numbers. The game is cut back to the last
//   whole decision before it, with a warning naming the room. A decision the
//   engine refuses on replay is cut back by the room layer the same way.
// - The seat-token hash key lives in the meta table: without it the stored
//   hashes would name no seat after a restart. The database is the secret
//   either way (it holds the games), so keeping the key beside the hashes
//   loses nothing a plain SHA-256 would keep, and keeps the constant-time
//   keyed lookup the rooms already use. A brand-new database (no rooms, no
//   games) makes its key; a used one whose key is missing or of the wrong
//   size is refused (StoreError), since a new key would silently stop every
//   stored seat token, unless the operator asked for a new key.
// - A room the server cannot rebuild is set aside (rooms.set_aside holds the
//   reason, rooms.set_aside_ms the time): kept whole, skipped on load, its
//   finished games kept past their retention, its code not handed out again.
//
// Thread-safe: one mutex around the connection (the writer thread commits,
// HTTP threads read transcripts).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "server/store/decision_sequences.hpp"
#include "server/store/store.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace gofish::server {

enum class SyncMode { kNormal, kFull };

// The schema version this program writes (PRAGMA user_version).
inline constexpr int kSchemaVersion = 10;

class SqliteStore final : public Store {
 public:
  // Opens (creating if missing) `file`, checks and migrates it. Throws
  // StoreError with a sentence for the operator.
  SqliteStore(const std::filesystem::path& file, SyncMode sync, MissingTokenKey missing_key = MissingTokenKey::kRefuse);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  void commit(const std::vector<Record>& records) override;
  std::vector<std::string> commit_rooms(const std::vector<RoomRecords>& batch) override;
  std::vector<StoredRoom> load_open_rooms() override;
  std::optional<StoredRoom> load_room(const std::string& code) override;
  std::optional<std::string> room_of_token(const std::string& token_hash) override;
  std::vector<StoredRoom> waiting_rooms(std::size_t limit) override;
  std::vector<StoredEvent> load_open_events() override;
  std::optional<StoredEvent> load_open_event(const std::string& code) override;
  std::optional<StoredEvent> load_closed_event(const std::string& code) override;
  std::optional<DailyTally> count_daily_game(const std::string& day, int sets, const std::string& room,
                                             std::int64_t game) override;
  DailyTally daily_tally(const std::string& day) override;
  void set_aside(const std::string& room, const std::string& reason, std::int64_t now_ms) override;
  std::vector<SetAsideRoom> set_aside_rooms() override;
  bool restore_set_aside(const std::string& room) override;
  std::optional<StoredGame> finished_game(const std::string& game_id) override;
  std::optional<std::string> latest_finished_game(const std::string& room) override;
  std::size_t prune_finished(std::int64_t before_ms) override;
  std::array<std::uint64_t, 4> token_key() override;
  void truncate_decisions(const std::string& game_id, std::int64_t keep) override;

  // A statement prepared once and reset after each use
  // (server/store/sqlite_statement.hpp).
  class Statement;

 private:
  void exec(const char* sql);
  void open_and_check(const std::filesystem::path& file, SyncMode sync);
  void migrate();
  void prepare_statements();
  void apply(const Record& record);
  // One transaction around `apply_records` (which calls apply()); the
  // sequence numbers it moved are kept only once it has committed.
  void commit_with(const std::function<void()>& apply_records);
  void truncate_locked(const std::string& game_id, std::int64_t keep);
  std::vector<StoredRoom> load_rooms_locked(const std::optional<std::string>& code);
  // The events `condition` (SQL on the events table, with `code` bound to
  // its one parameter when given) selects, with their pupils and tables.
  std::vector<StoredEvent> events_where(const char* condition, const std::optional<std::string>& code);
  bool holds_rooms_or_games();

  std::mutex mutex_;
  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
  const MissingTokenKey missing_key_;
  // Each game's next decision number, as committed, and as the batch being
  // written moves it.
  DecisionSequences sequences_;
  DecisionSequences::Batch batch_;
  void close_statements();
  // The number a game's next decision must have, read from the file.
  std::int64_t next_seq(const std::string& game_id);

  std::unique_ptr<Statement> insert_room_, update_settings_, upsert_seat_, delete_seat_, insert_game_, insert_decision_,
      first_decision_, finish_game_, update_version_, close_room_, finished_game_,
      finished_decisions_;
};

}  // namespace gofish::server
