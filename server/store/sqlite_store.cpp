#include "server/store/sqlite_store.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <type_traits>
#include <unordered_map>

#include "server/store/token.hpp"

namespace gofish::server {

namespace {

// Each step takes the schema from version i to i + 1; a step is never edited
// once released, only new ones appended.
constexpr const char* kMigrations[] = {
    // 0 -> 1: the first schema.
    R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE rooms(
  code TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  created_ms INTEGER NOT NULL);
CREATE TABLE seats(
  room TEXT NOT NULL,
  seat INTEGER NOT NULL,
  state TEXT NOT NULL,
  token_hash BLOB,
  PRIMARY KEY(room, seat));
CREATE TABLE games(
  game_id TEXT PRIMARY KEY,
  room TEXT,
  game INTEGER NOT NULL,
  setup TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  transcript TEXT,
  finished_ms INTEGER);
CREATE INDEX games_by_room ON games(room, game);
CREATE INDEX games_by_finish ON games(finished_ms) WHERE finished_ms IS NOT NULL;
CREATE TABLE decisions(
  game_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  decision TEXT NOT NULL,
  PRIMARY KEY(game_id, seq));
)sql",
    // 1 -> 2: each room's event version, so a restored room carries on
    // numbering its events where its players left off.
    R"sql(
ALTER TABLE rooms ADD COLUMN v INTEGER NOT NULL DEFAULT 0;
)sql",
    // 2 -> 3: a room the server cannot rebuild is set aside (why, and when)
    // instead of stopping the start; load_open_rooms skips it.
    R"sql(
ALTER TABLE rooms ADD COLUMN set_aside TEXT;
ALTER TABLE rooms ADD COLUMN set_aside_ms INTEGER;
)sql",
    // 3 -> 4: decisions are appended in commit order (the rowid) with no
    // other index, so a batch of actions from many rooms writes the table's
    // last page or two instead of one index page per room; a game finds its
    // decisions from its first one's rowid (games.first_decision). A
    // decision may carry its room's event version (v), so an action writes
    // one row instead of also rewriting its room's row.
    R"sql(
CREATE TABLE decisions_appended(
  id INTEGER PRIMARY KEY,
  game_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  decision TEXT NOT NULL,
  v INTEGER);
INSERT INTO decisions_appended(game_id, seq, decision)
  SELECT game_id, seq, decision FROM decisions ORDER BY game_id, seq;
DROP TABLE decisions;
ALTER TABLE decisions_appended RENAME TO decisions;
ALTER TABLE games ADD COLUMN first_decision INTEGER;
CREATE INDEX migrating_decisions ON decisions(game_id);
UPDATE games SET first_decision = (SELECT min(id) FROM decisions WHERE decisions.game_id = games.game_id);
DROP INDEX migrating_decisions;
)sql",
    // 4 -> 5: a finished game's transcript is no longer written (it is its
    // set-up and decisions, played again when asked for); the game keeps
    // where its decisions end (the last rowid when it finished), so they
    // are read from first_decision to last_decision. Games finished before
    // keep their transcript and no last_decision.
    R"sql(
ALTER TABLE games ADD COLUMN last_decision INTEGER;
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

// The records' fault (a key written twice, a value SQLite will not take),
// which the same records would meet again; anything else is the store's
// (a full disk, an I/O error, a file system made read-only, a lock), and the
// same write may work once the store does (StoreWriter tries it again).
bool records_fault(sqlite3* db) {
  switch (db ? sqlite3_errcode(db) & 0xff : SQLITE_NOMEM) {  // the primary code of an extended one
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE: return true;
    default: return false;
  }
}

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  const std::string text = what + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
  if (records_fault(db)) throw RecordsRefused(text);
  throw StoreError(text);
}

// A decision we can use: a JSON object.
bool whole_decision(const std::string& text) {
  if (text.empty() || text.front() != '{') return false;
  return nlohmann::json::accept(text);
}

// A NULL parameter.
struct Null {};

}  // namespace

class SqliteStore::Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
      fail(db, std::string("preparing \"") + sql + "\"");
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds the arguments in order (1-based), runs to completion.
  template <class... Args>
  void run(const Args&... args) {
    Use use(*this, args...);
    for (;;) {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) fail(db_, "writing");
    }
  }

  // Binds the arguments, calls `row(stmt)` for each row.
  template <class Row, class... Args>
  void each(Row&& row, const Args&... args) {
    Use use(*this, args...);
    for (;;) {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) fail(db_, "reading");
      row(stmt_);
    }
  }

 private:
  // Binds on construction, resets and clears on destruction (also on throw).
  struct Use {
    template <class... Args>
    Use(Statement& statement, const Args&... args) : s(statement) {
      int index = 0;
      (s.bind(++index, args), ...);
    }
    ~Use() {
      sqlite3_reset(s.stmt_);
      sqlite3_clear_bindings(s.stmt_);
    }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    Statement& s;
  };

  // Not copied: the text outlives the statement's use (Use unbinds it
  // before run() or each() returns).
  void bind(int index, const std::string& text) {
    check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC));
  }
  void bind(int index, std::int64_t value) { check(sqlite3_bind_int64(stmt_, index, value)); }
  void bind(int index, int value) { check(sqlite3_bind_int64(stmt_, index, value)); }
  void bind(int index, Null) { check(sqlite3_bind_null(stmt_, index)); }
  void check(int rc) {
    if (rc != SQLITE_OK) fail(db_, "binding");
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

namespace {

std::string column_text(sqlite3_stmt* stmt, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
  return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, column))) : std::string();
}

std::string column_blob(sqlite3_stmt* stmt, int column) {
  const auto* blob = static_cast<const char*>(sqlite3_column_blob(stmt, column));
  return blob ? std::string(blob, static_cast<std::size_t>(sqlite3_column_bytes(stmt, column))) : std::string();
}

// A room from a row of (code, settings, created_ms, v), with no seats or game yet.
StoredRoom room_of(sqlite3_stmt* stmt) {
  StoredRoom room;
  room.room = column_text(stmt, 0);
  room.settings = column_text(stmt, 1);
  room.created_ms = sqlite3_column_int64(stmt, 2);
  room.v = sqlite3_column_int64(stmt, 3);
  return room;
}

// A seat from a row of (seat, state, token_hash).
StoredSeat seat_of(sqlite3_stmt* stmt) {
  return StoredSeat{sqlite3_column_int(stmt, 0), column_text(stmt, 1), column_blob(stmt, 2)};
}

// A game's row, its first six columns as in finished_game_, without its
// decisions.
StoredGame game_of(sqlite3_stmt* stmt) {
  StoredGame game;
  game.game_id = column_text(stmt, 0);
  game.game = sqlite3_column_int64(stmt, 1);
  game.setup = column_text(stmt, 2);
  game.started_ms = sqlite3_column_int64(stmt, 3);
  if (sqlite3_column_type(stmt, 4) != SQLITE_NULL) game.transcript = column_text(stmt, 4);
  game.finished = sqlite3_column_type(stmt, 5) != SQLITE_NULL;
  return game;
}

}  // namespace

SqliteStore::SqliteStore(const std::filesystem::path& file, SyncMode sync, MissingTokenKey missing_key)
    : file_(file), missing_key_(missing_key) {
  try {
    open_and_check(file, sync);
    migrate();
    prepare_statements();
  } catch (...) {
    close_statements();
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

SqliteStore::~SqliteStore() {
  // Statements first: sqlite3_close needs them finalized.
  close_statements();
  if (sqlite3_close(db_) != SQLITE_OK) {
    spdlog::error("storage: closing {}: {}", file_.string(), sqlite3_errmsg(db_));
  }
}

void SqliteStore::close_statements() {
  for (auto* statement :
       {&insert_room_, &update_settings_, &upsert_seat_, &delete_seat_, &insert_game_, &insert_decision_,
        &first_decision_, &finish_game_, &update_version_, &close_room_, &finished_game_,
        &finished_decisions_}) {
    statement->reset();
  }
}

void SqliteStore::exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    if (records_fault(db_)) throw RecordsRefused(text);
    throw StoreError(text);
  }
}

void SqliteStore::open_and_check(const std::filesystem::path& file, SyncMode sync) {
  const std::string where = file.string();
  if (sqlite3_open_v2(where.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    fail(db_, "cannot open the database " + where);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);
  // The first read of the header tells a non-database file apart.
  try {
    exec("PRAGMA schema_version");
  } catch (const StoreError& error) {
    throw StoreError(where + " is not a usable SQLite database (" + error.what() +
                     "); refusing to start rather than lose rooms. Move it aside to start empty.");
  }
  int version = 0;
  Statement user_version(db_, "PRAGMA user_version");
  user_version.each([&](sqlite3_stmt* stmt) { version = sqlite3_column_int(stmt, 0); });
  if (version > kSchemaVersion) {
    throw StoreError(where + " has schema version " + std::to_string(version) + ", newer than this server's " +
                     std::to_string(kSchemaVersion) + "; refusing to start. Run a newer gofish-server.");
  }
  std::string check;
  try {
    Statement quick_check(db_, "PRAGMA quick_check(1)");
    quick_check.each([&](sqlite3_stmt* stmt) { check = column_text(stmt, 0); });
  } catch (const StoreError& error) {
    check = error.what();
  }
  if (check != "ok") {
    throw StoreError(where + " is damaged (" + check + "); refusing to start rather than lose rooms.");
  }
  // A new database gets 1 KiB pages: each commit writes the decision log's
  // last page whole, however little it added, so a smaller page writes less
  // per commit. (An existing database keeps its page size; WAL mode cannot
  // change it.)
  exec("PRAGMA page_size=1024");
  std::string mode;
  Statement journal(db_, "PRAGMA journal_mode=WAL");
  journal.each([&](sqlite3_stmt* stmt) { mode = column_text(stmt, 0); });
  if (mode != "wal") throw StoreError(where + ": cannot use WAL mode (got " + mode + ")");
  exec(sync == SyncMode::kFull ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
}

void SqliteStore::migrate() {
  int version = 0;
  {
    Statement user_version(db_, "PRAGMA user_version");
    user_version.each([&](sqlite3_stmt* stmt) { version = sqlite3_column_int(stmt, 0); });
  }
  for (; version < kSchemaVersion; ++version) {
    exec("BEGIN IMMEDIATE");
    try {
      exec(kMigrations[version]);
      exec(("PRAGMA user_version=" + std::to_string(version + 1)).c_str());
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    spdlog::info("storage: {} migrated to schema version {}", file_.string(), version + 1);
  }
}

void SqliteStore::prepare_statements() {
  insert_room_ = std::make_unique<Statement>(db_, "INSERT INTO rooms(code, settings, created_ms) VALUES(?, ?, ?)");
  update_settings_ = std::make_unique<Statement>(db_, "UPDATE rooms SET settings = ? WHERE code = ?");
  upsert_seat_ = std::make_unique<Statement>(
      db_, "INSERT OR REPLACE INTO seats(room, seat, state, token_hash) VALUES(?, ?, ?, NULLIF(CAST(? AS BLOB), x''))");
  delete_seat_ = std::make_unique<Statement>(db_, "DELETE FROM seats WHERE room = ? AND seat = ?");
  insert_game_ = std::make_unique<Statement>(
      db_, "INSERT INTO games(game_id, room, game, setup, started_ms) VALUES(?, ?, ?, ?, ?)");
  insert_decision_ =
      std::make_unique<Statement>(db_, "INSERT INTO decisions(game_id, seq, decision, v) VALUES(?, ?, ?, ?)");
  // A rowid is never below one still in the table, so a game's later
  // decisions all come after its first.
  first_decision_ = std::make_unique<Statement>(db_, "UPDATE games SET first_decision = ? WHERE game_id = ?");
  finish_game_ = std::make_unique<Statement>(
      db_, "UPDATE games SET finished_ms = ?, last_decision = (SELECT max(id) FROM decisions) WHERE game_id = ?");
  update_version_ = std::make_unique<Statement>(db_, "UPDATE rooms SET v = ? WHERE code = ?");
  // Unfinished games die with their room; finished ones stay, detached.
  close_room_ = std::make_unique<Statement>(
      db_,
      "DELETE FROM decisions WHERE id >= (SELECT ifnull(min(first_decision), 1 << 62) FROM games "
      "WHERE room = ?1 AND finished_ms IS NULL) AND game_id IN "
      "(SELECT game_id FROM games WHERE room = ?1 AND finished_ms IS NULL)");
  finished_game_ = std::make_unique<Statement>(
      db_,
      "SELECT game_id, game, setup, started_ms, transcript, finished_ms, first_decision, last_decision FROM games "
      "WHERE game_id = ? AND finished_ms IS NOT NULL");
  finished_decisions_ = std::make_unique<Statement>(
      db_, "SELECT decision FROM decisions WHERE id BETWEEN ?1 AND ifnull(?2, 1 << 62) AND game_id = ?3 ORDER BY id");
}

void SqliteStore::apply(const Record& record) {
  std::visit(
      [this](const auto& r) {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, record::RoomCreated>) {
          insert_room_->run(r.room, r.settings, r.created_ms);
        } else if constexpr (std::is_same_v<R, record::RoomSettingsChanged>) {
          update_settings_->run(r.settings, r.room);
        } else if constexpr (std::is_same_v<R, record::SeatTaken>) {
          upsert_seat_->run(r.room, r.seat, r.state, r.token_hash);
        } else if constexpr (std::is_same_v<R, record::SeatFreed>) {
          delete_seat_->run(r.room, r.seat);
        } else if constexpr (std::is_same_v<R, record::GameStarted>) {
          insert_game_->run(r.game_id, r.room, r.game, r.setup, r.started_ms);
          // New (its id is the table's key): no decision yet, so its first
          // does not look for earlier ones in the table.
          batch_.started(r.game_id);
        } else if constexpr (std::is_same_v<R, record::DecisionAccepted>) {
          // No index keeps a game's decisions unique: the sequence is checked
          // here, so a decision written twice or out of order fails its batch.
          sequences_.accept(batch_, r.game_id, r.seq, [this](const std::string& game_id) { return next_seq(game_id); });
          if (r.v) {
            insert_decision_->run(r.game_id, r.seq, r.decision, *r.v);
          } else {
            insert_decision_->run(r.game_id, r.seq, r.decision, Null{});
          }
          if (r.seq == 0) first_decision_->run(static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_)), r.game_id);
        } else if constexpr (std::is_same_v<R, record::GameFinished>) {
          finish_game_->run(r.finished_ms, r.game_id);
          batch_.ended(r.game_id);
        } else if constexpr (std::is_same_v<R, record::RoomVersion>) {
          update_version_->run(r.v, r.room);
        } else if constexpr (std::is_same_v<R, record::RoomClosed>) {
          Statement open_games(db_, "SELECT game_id FROM games WHERE room = ? AND finished_ms IS NULL");
          open_games.each([&](sqlite3_stmt* stmt) { batch_.ended(column_text(stmt, 0)); }, r.room);
          close_room_->run(r.room);
          Statement games(db_, "DELETE FROM games WHERE room = ? AND finished_ms IS NULL");
          games.run(r.room);
          Statement detach(db_, "UPDATE games SET room = NULL WHERE room = ?");
          detach.run(r.room);
          Statement seats(db_, "DELETE FROM seats WHERE room = ?");
          seats.run(r.room);
          Statement rooms(db_, "DELETE FROM rooms WHERE code = ?");
          rooms.run(r.room);
        }
      },
      record);
}

void SqliteStore::commit(const std::vector<Record>& records) {
  if (records.empty()) return;
  commit_with([&] {
    for (const auto& record : records) apply(record);
  });
}

// The writer's batch, applied where it lies (the default commit_rooms would
// copy every record into one list first).
std::vector<std::string> SqliteStore::commit_rooms(const std::vector<RoomRecords>& batch) {
  if (std::all_of(batch.begin(), batch.end(), [](const RoomRecords& room) { return room.records.empty(); })) return {};
  commit_with([&] {
    for (const RoomRecords& room : batch) {
      for (const Record& record : room.records) apply(record);
    }
  });
  return {};
}

void SqliteStore::commit_with(const std::function<void()>& apply_records) {
  std::lock_guard lock(mutex_);
  batch_ = {};
  exec("BEGIN IMMEDIATE");
  try {
    apply_records();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    batch_ = {};
    throw;
  }
  // Committed: what the batch moved is now so.
  sequences_.land(batch_);
}

std::int64_t SqliteStore::next_seq(const std::string& game_id) {
  // A game this process has not written yet: its decisions since its first.
  std::int64_t next = 0;
  Statement last(db_,
                 "SELECT ifnull(max(seq) + 1, 0) FROM decisions WHERE id >= "
                 "ifnull((SELECT first_decision FROM games WHERE game_id = ?1), 1 << 62) AND game_id = ?1");
  last.each([&](sqlite3_stmt* stmt) { next = sqlite3_column_int64(stmt, 0); }, game_id);
  return next;
}

void SqliteStore::truncate_locked(const std::string& game_id, std::int64_t keep) {
  // Clients have seen the versions the cut decisions carried: the room keeps
  // the highest, so it never numbers two events alike.
  Statement keep_version(db_,
                         "UPDATE rooms SET v = max(v, ifnull((SELECT max(v) FROM decisions WHERE id >= "
                         "(SELECT first_decision FROM games WHERE game_id = ?1) AND game_id = ?1 AND seq >= ?2), 0)) "
                         "WHERE code = (SELECT room FROM games WHERE game_id = ?1)");
  keep_version.run(game_id, keep);
  Statement cut(db_,
                "DELETE FROM decisions WHERE id >= (SELECT first_decision FROM games WHERE game_id = ?1) "
                "AND game_id = ?1 AND seq >= ?2");
  cut.run(game_id, keep);
  if (keep == 0) {
    Statement none(db_, "UPDATE games SET first_decision = NULL WHERE game_id = ?");
    none.run(game_id);
  }
}

void SqliteStore::truncate_decisions(const std::string& game_id, std::int64_t keep) {
  std::lock_guard lock(mutex_);
  sequences_.forget(game_id);
  truncate_locked(game_id, keep);
}

std::vector<StoredRoom> SqliteStore::load_open_rooms() {
  std::lock_guard lock(mutex_);
  return load_rooms_locked(std::nullopt);
}

std::optional<StoredRoom> SqliteStore::load_room(const std::string& code) {
  std::lock_guard lock(mutex_);
  auto rooms = load_rooms_locked(code);
  if (rooms.empty()) return std::nullopt;
  return std::move(rooms.front());
}

std::optional<std::string> SqliteStore::room_of_token(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  std::optional<std::string> code;
  Statement find(db_,
                 "SELECT seats.room FROM seats JOIN rooms ON rooms.code = seats.room "
                 "WHERE seats.token_hash = CAST(? AS BLOB) AND rooms.set_aside IS NULL LIMIT 1");
  find.each([&](sqlite3_stmt* stmt) { code = column_text(stmt, 0); }, token_hash);
  return code;
}

std::vector<StoredRoom> SqliteStore::waiting_rooms(std::size_t limit) {
  std::lock_guard lock(mutex_);
  std::vector<StoredRoom> rooms;
  Statement room_rows(db_,
                      "SELECT code, settings, created_ms, v FROM rooms WHERE set_aside IS NULL AND NOT EXISTS "
                      "(SELECT 1 FROM games WHERE games.room = rooms.code) ORDER BY created_ms DESC, code LIMIT ?");
  room_rows.each([&](sqlite3_stmt* stmt) { rooms.push_back(room_of(stmt)); }, static_cast<std::int64_t>(limit));
  Statement seat_rows(db_, "SELECT seat, state, token_hash FROM seats WHERE room = ? ORDER BY seat");
  for (auto& room : rooms) {
    seat_rows.each([&](sqlite3_stmt* stmt) { room.seats.push_back(seat_of(stmt)); }, room.room);
  }
  return rooms;
}

std::vector<StoredRoom> SqliteStore::load_rooms_locked(const std::optional<std::string>& code) {
  std::vector<StoredRoom> rooms;
  const auto take_room = [&](sqlite3_stmt* stmt) { rooms.push_back(room_of(stmt)); };
  if (code) {
    Statement room_row(db_, "SELECT code, settings, created_ms, v FROM rooms WHERE set_aside IS NULL AND code = ?");
    room_row.each(take_room, *code);
  } else {
    Statement room_rows(db_,
                        "SELECT code, settings, created_ms, v FROM rooms WHERE set_aside IS NULL "
                        "ORDER BY created_ms, code");
    room_rows.each(take_room);
  }
  Statement seat_rows(db_, "SELECT seat, state, token_hash FROM seats WHERE room = ? ORDER BY seat");
  Statement game_rows(db_,
                      "SELECT game_id, game, setup, started_ms, transcript, finished_ms, first_decision FROM games "
                      "WHERE room = ? ORDER BY game DESC LIMIT 1");
  // Each latest game by its id, and where the first of their decisions is.
  std::unordered_map<std::string, StoredRoom*> by_game;
  std::optional<std::int64_t> first;
  for (auto& room : rooms) {
    seat_rows.each([&](sqlite3_stmt* stmt) { room.seats.push_back(seat_of(stmt)); }, room.room);
    game_rows.each(
        [&](sqlite3_stmt* stmt) {
          StoredGame game = game_of(stmt);
          if (sqlite3_column_type(stmt, 6) != SQLITE_NULL) {
            const std::int64_t id = sqlite3_column_int64(stmt, 6);
            first = first ? std::min(*first, id) : id;
          }
          room.game = std::move(game);
        },
        room.room);
    if (room.game) by_game.emplace(room.game->game_id, &room);
  }
  if (!first) return rooms;
  // One pass over the decisions appended since the oldest of these games
  // began; they come in commit order, which is each game's sequence.
  std::unordered_map<std::string, bool> torn;
  Statement decision_rows(db_, "SELECT game_id, seq, decision, v FROM decisions WHERE id >= ? ORDER BY id");
  decision_rows.each(
      [&](sqlite3_stmt* stmt) {
        const auto found = by_game.find(column_text(stmt, 0));
        if (found == by_game.end()) return;
        StoredRoom& room = *found->second;
        if (sqlite3_column_type(stmt, 3) != SQLITE_NULL)
          room.v = std::max<std::int64_t>(room.v, sqlite3_column_int64(stmt, 3));
        StoredGame& game = *room.game;
        bool& cut = torn[game.game_id];
        if (cut) return;
        const auto seq = sqlite3_column_int64(stmt, 1);
        auto text = column_text(stmt, 2);
        if (seq != static_cast<std::int64_t>(game.decisions.size()) || !whole_decision(text)) {
          cut = true;
          return;
        }
        game.decisions.push_back(std::move(text));
      },
      *first);
  for (const auto& [game_id, cut] : torn) {
    if (!cut) continue;
    const StoredRoom& room = *by_game.at(game_id);
    spdlog::warn("storage: room {} game {}: the decision log is torn; cut back to its {} whole decisions", room.room,
                 game_id, room.game->decisions.size());
    truncate_locked(game_id, static_cast<std::int64_t>(room.game->decisions.size()));
    sequences_.forget(game_id);
  }
  return rooms;
}

void SqliteStore::set_aside(const std::string& room, const std::string& reason, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  Statement mark(db_, "UPDATE rooms SET set_aside = ?, set_aside_ms = ? WHERE code = ?");
  mark.run(reason, now_ms, room);
}

std::vector<SetAsideRoom> SqliteStore::set_aside_rooms() {
  std::lock_guard lock(mutex_);
  std::vector<SetAsideRoom> rooms;
  Statement rows(db_,
                 "SELECT code, set_aside_ms, set_aside FROM rooms WHERE set_aside IS NOT NULL "
                 "ORDER BY set_aside_ms, code");
  rows.each([&](sqlite3_stmt* stmt) {
    rooms.push_back(SetAsideRoom{column_text(stmt, 0), sqlite3_column_int64(stmt, 1), column_text(stmt, 2)});
  });
  return rooms;
}

bool SqliteStore::restore_set_aside(const std::string& room) {
  std::lock_guard lock(mutex_);
  Statement clear(db_,
                  "UPDATE rooms SET set_aside = NULL, set_aside_ms = NULL WHERE code = ? AND set_aside IS NOT NULL");
  clear.run(room);
  return sqlite3_changes(db_) > 0;
}

std::optional<std::string> SqliteStore::latest_finished_game(const std::string& room) {
  std::lock_guard lock(mutex_);
  std::optional<std::string> id;
  Statement latest(db_,
                   "SELECT game_id FROM games WHERE room = ? AND finished_ms IS NOT NULL ORDER BY game DESC LIMIT 1");
  latest.each([&](sqlite3_stmt* stmt) { id = column_text(stmt, 0); }, room);
  return id;
}

std::optional<StoredGame> SqliteStore::finished_game(const std::string& game_id) {
  std::lock_guard lock(mutex_);
  std::optional<StoredGame> game;
  std::optional<std::int64_t> first, last;
  finished_game_->each(
      [&](sqlite3_stmt* stmt) {
        game = game_of(stmt);
        if (sqlite3_column_type(stmt, 6) != SQLITE_NULL) first = sqlite3_column_int64(stmt, 6);
        if (sqlite3_column_type(stmt, 7) != SQLITE_NULL) last = sqlite3_column_int64(stmt, 7);
      },
      game_id);
  if (!game || !first) return game;
  const auto take = [&](sqlite3_stmt* stmt) { game->decisions.push_back(column_text(stmt, 0)); };
  if (last) {
    finished_decisions_->each(take, *first, *last, game_id);
  } else {
    finished_decisions_->each(take, *first, Null{}, game_id);
  }
  return game;
}

std::size_t SqliteStore::prune_finished(std::int64_t before_ms) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    // A set-aside room keeps everything, for whoever looks into it.
    constexpr const char* kOld =
        "finished_ms IS NOT NULL AND finished_ms < ? AND "
        "(room IS NULL OR room NOT IN (SELECT code FROM rooms WHERE set_aside IS NOT NULL))";
    Statement games(db_, (std::string("DELETE FROM games WHERE ") + kOld).c_str());
    games.run(before_ms);
    const auto removed = static_cast<std::size_t>(sqlite3_changes(db_));
    // Decisions have no index by game: every one appended before the first
    // decision of the oldest game still kept belongs to a game gone (pruned,
    // or dropped with its room), so they go by rowid, a page at a time. The
    // decisions of a game gone that sit among those of games still kept wait
    // until the oldest kept game goes.
    Statement decisions(db_,
                        "DELETE FROM decisions WHERE id < (SELECT ifnull(min(first_decision), 1 << 62) FROM games "
                        "WHERE first_decision IS NOT NULL)");
    decisions.run();
    exec("COMMIT");
    return removed;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::array<std::uint64_t, 4> SqliteStore::token_key() {
  std::lock_guard lock(mutex_);
  std::array<std::uint64_t, 4> key{};
  std::string stored;
  Statement read(db_, "SELECT value FROM meta WHERE key = 'token_key'");
  read.each([&](sqlite3_stmt* stmt) { stored = column_blob(stmt, 0); });
  if (stored.size() == sizeof(key)) {
    std::memcpy(key.data(), stored.data(), sizeof(key));
    return key;
  }
  if (holds_rooms_or_games()) {
    // Stored seat tokens are hashed with the lost key: a new key would stop
    // every one of them without a word.
    const std::string what =
        stored.empty() ? "is missing"
                       : "has " + std::to_string(stored.size()) + " bytes instead of " + std::to_string(sizeof(key));
    if (missing_key_ == MissingTokenKey::kRefuse) {
      throw StoreError(file_.string() + " holds rooms or games, but its seat-token key (meta.token_key) " + what +
                       ", so no stored seat token could resume its seat; refusing to start. Restore the database "
                       "from a backup, or start once with --new-token-key to make a new key (every seat token "
                       "stored before then stops working).");
    }
    spdlog::warn(
        "storage: {}: the seat-token key {}; a new one is made (--new-token-key), so no seat token stored "
        "before resumes its seat",
        file_.string(), what);
  }
  std::array<std::uint8_t, sizeof(key)> bytes{};
  os_random_bytes(bytes);
  std::memcpy(key.data(), bytes.data(), sizeof(key));
  Statement write(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES('token_key', CAST(? AS BLOB))");
  write.run(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return key;
}

bool SqliteStore::holds_rooms_or_games() {
  bool used = false;
  Statement any(db_, "SELECT EXISTS(SELECT 1 FROM rooms) OR EXISTS(SELECT 1 FROM games)");
  any.each([&](sqlite3_stmt* stmt) { used = sqlite3_column_int(stmt, 0) != 0; });
  return used;
}

}  // namespace gofish::server
