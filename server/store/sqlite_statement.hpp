// SQLite's statement wrapper for SqliteStore (SqliteStore::Statement), and
// the helpers around it: how a failure is thrown, and a column's text or
// bytes.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "server/store/sqlite_store.hpp"

namespace gofish::server {

namespace sqlite_statement {

// A NULL parameter.
struct Null {};

// The records' fault (a key written twice, a value SQLite will not take),
// which the same records would meet again; anything else is the store's
// (a full disk, an I/O error, a file system made read-only, a lock), and the
// same write may work once the store does (StoreWriter tries it again).
bool records_fault(sqlite3* db);
// Throws `what` and SQLite's message: RecordsRefused if records_fault, else StoreError.
[[noreturn]] void fail(sqlite3* db, const std::string& what);
// A column's text, or its bytes, "" for NULL.
std::string column_text(sqlite3_stmt* stmt, int column);
std::string column_blob(sqlite3_stmt* stmt, int column);

}  // namespace sqlite_statement

class SqliteStore::Statement {
 public:
  // Prepares `sql`: a statement SQLite refuses throws.
  Statement(sqlite3* db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds the arguments in order (1-based), runs to completion.
  template <class... Args>
  void run(const Args&... args) {
    Use use(*this, args...);
    for (;;) {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) sqlite_statement::fail(db_, "writing");
    }
  }

  // Binds the arguments, calls `row(stmt)` for each row.
  template <class Row, class... Args>
  void each(Row&& row, const Args&... args) {
    Use use(*this, args...);
    for (;;) {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) sqlite_statement::fail(db_, "reading");
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

  // Text is bound without a copy (sqlite_statement.cpp).
  void bind(int index, const std::string& text);
  void bind(int index, std::int64_t value);
  void bind(int index, int value);
  void bind(int index, sqlite_statement::Null);
  void check(int rc);

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace gofish::server
