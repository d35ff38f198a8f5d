// A statement's result in the PostgreSQL store (PostgresStore::Result), and
// how a failed one is thrown.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <string>
#include <utility>

#include "server/store/postgres_store.hpp"

namespace gofish::server {

// Owns a PGresult. Values of results asked for in binary are raw bytes
// (text, bytea) or big-endian integers.
class PostgresStore::Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}
  ~Result() { PQclear(result_); }
  Result(Result&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  int rows() const { return PQntuples(result_); }
  int columns() const { return PQnfields(result_); }
  bool null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
  std::string bytes(int row, int column) const {
    return {PQgetvalue(result_, row, column), static_cast<std::size_t>(PQgetlength(result_, row, column))};
  }
  // A binary boolean, smallint, integer or bigint.
  std::int64_t integer(int row, int column) const {
    const auto* data = reinterpret_cast<const unsigned char*>(PQgetvalue(result_, row, column));
    const int length = PQgetlength(result_, row, column);
    std::uint64_t value = 0;
    for (int i = 0; i < length; ++i) value = (value << 8) | data[i];
    switch (length) {
      case 2: return static_cast<std::int16_t>(value);
      case 4: return static_cast<std::int32_t>(value);
      default: return static_cast<std::int64_t>(value);
    }
  }
  // Rows an INSERT, UPDATE or DELETE touched.
  std::size_t changed() const {
    const char* text = PQcmdTuples(result_);
    return text && *text ? static_cast<std::size_t>(std::stoull(text)) : 0;
  }

  // Throws unless `raw` says the statement ran (`what` names it).
  static Result checked(PGconn* conn, PGresult* raw, const std::string& what);
  // Throws `text` as what its SQLSTATE (or a lost connection) makes it: the
  // records' fault (class 22, data exception; 23, integrity constraint
  // violation), a database that cannot be reached (08, connection exception;
  // 57, operator intervention, a shutdown among them; a connection lost), or
  // any other failure of the store (a full disk, 53; an I/O error, 58; ...),
  // which a write may meet no more once the store works again.
  [[noreturn]] static void raise(PGconn* conn, const std::string& state, const std::string& text);
  // libpq's messages end in a newline and may span lines; a log line is one.
  static std::string one_line(const char* message);

 private:
  PGresult* result_;
};

}  // namespace gofish::server
