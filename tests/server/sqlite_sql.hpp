// A test's own hand on a SQLite store's file, as a host's would be: for
// the tests that set up what a crash or a hand-made change leaves behind.
#pragma once

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace gofish::server::testing {

// One statement on the database file, as a host's hand would run it; the
// first column of every row, as text.
inline std::vector<std::string> sql(const std::filesystem::path& file, const std::string& statement,
                                    const std::vector<std::string>& args = {}) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.string().c_str(), &db) == SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE_MESSAGE(sqlite3_prepare_v2(db, statement.c_str(), -1, &stmt, nullptr) == SQLITE_OK, sqlite3_errmsg(db));
  for (std::size_t i = 0; i < args.size(); ++i) {
    sqlite3_bind_text(stmt, static_cast<int>(i + 1), args[i].c_str(), -1, SQLITE_TRANSIENT);
  }
  std::vector<std::string> rows;
  int rc = 0;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    rows.emplace_back(text ? text : "");
  }
  CHECK_MESSAGE(rc == SQLITE_DONE, sqlite3_errmsg(db));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

}  // namespace gofish::server::testing
