// SqliteStore's schema: the file opened and checked, migrated (the
// migrations are server/store/migrations/sqlite/*.sql, compiled in), and
// the statements it keeps prepared.
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <iterator>
#include <memory>
#include <string>

#include "gofish/sqlite_migrations.hpp"
#include "server/store/sqlite_store.hpp"
#include "server/store/sqlite_statement.hpp"

namespace gofish::server {

using sqlite_statement::column_text;
using sqlite_statement::fail;

static_assert(std::size(migrations::kSqlite) == kSchemaVersion,
              "one migration a schema version: server/store/migrations/sqlite/NNNN_words.sql");

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
      exec(migrations::kSqlite[version]);
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

}  // namespace gofish::server
