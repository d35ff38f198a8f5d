#include "server/store/sqlite_statement.hpp"

namespace gofish::server {

namespace sqlite_statement {

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

std::string column_text(sqlite3_stmt* stmt, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
  return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, column))) : std::string();
}

std::string column_blob(sqlite3_stmt* stmt, int column) {
  const auto* blob = static_cast<const char*>(sqlite3_column_blob(stmt, column));
  return blob ? std::string(blob, static_cast<std::size_t>(sqlite3_column_bytes(stmt, column))) : std::string();
}

}  // namespace sqlite_statement

SqliteStore::Statement::Statement(sqlite3* db, const char* sql) : db_(db) {
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
    sqlite_statement::fail(db, std::string("preparing \"") + sql + "\"");
  }
}

SqliteStore::Statement::~Statement() { sqlite3_finalize(stmt_); }

// Not copied: the text outlives the statement's use (Use unbinds it
// before run() or each() returns).
void SqliteStore::Statement::bind(int index, const std::string& text) {
  check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC));
}
void SqliteStore::Statement::bind(int index, std::int64_t value) { check(sqlite3_bind_int64(stmt_, index, value)); }
void SqliteStore::Statement::bind(int index, int value) { check(sqlite3_bind_int64(stmt_, index, value)); }
void SqliteStore::Statement::bind(int index, sqlite_statement::Null) { check(sqlite3_bind_null(stmt_, index)); }

void SqliteStore::Statement::check(int rc) {
  if (rc != SQLITE_OK) sqlite_statement::fail(db_, "binding");
}

}  // namespace gofish::server
