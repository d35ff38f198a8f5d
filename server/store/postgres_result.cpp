#include "server/store/postgres_result.hpp"

namespace gofish::server {

std::string PostgresStore::Result::one_line(const char* message) {
  std::string out;
  bool space = false;
  for (const char* c = message ? message : ""; *c != '\0'; ++c) {
    if (*c == '\n' || *c == '\r' || *c == '\t' || *c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(*c);
  }
  return out;
}

void PostgresStore::Result::raise(PGconn* conn, const std::string& state, const std::string& text) {
  if (state.starts_with("22") || state.starts_with("23")) throw RecordsRefused(text);
  if (conn == nullptr || PQstatus(conn) == CONNECTION_BAD || state.starts_with("08") || state.starts_with("57")) {
    throw StoreUnreachable(text);
  }
  throw StoreError(text);
}

PostgresStore::Result PostgresStore::Result::checked(PGconn* conn, PGresult* raw, const std::string& what) {
  PostgresStore::Result result(raw);
  const auto status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* state = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
    Result::raise(conn, state ? state : "",
                  what + ": " + Result::one_line(raw ? PQresultErrorMessage(raw) : PQerrorMessage(conn)) +
                      (state ? std::string(" (SQLSTATE ") + state + ")" : std::string()));
  }
  return result;
}

}  // namespace gofish::server
