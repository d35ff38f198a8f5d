// PostgresStore: the connection and its retries. The rest of the store is
// in server/store/: postgres_schema.cpp (migrations, prepared statements),
// postgres_commit.cpp (the fenced commit), postgres_leases.cpp (leases and
// handovers), postgres_reads.cpp (reads and upkeep); the statements are in
// postgres_statements.hpp, and how records become them in
// postgres_batching.cpp.
#include "server/store/postgres_store.hpp"

#include <libpq-fe.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <string>

#include "server/store/postgres_result.hpp"
#include "server/store/postgres_step.hpp"

namespace gofish::server {

namespace {

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

// The sentence for a connection that failed: libpq's own words (they name
// the host and port, never the password) and what to check.
std::string connect_failure(const std::string& message) {
  if (contains(message, "authentication") || contains(message, "password") || contains(message, "pg_hba.conf") ||
      contains(message, "role \"")) {
    return "PostgreSQL refused the login (" + message +
           "); refusing to start. Check the user and password in --postgres-url (GOFISH_POSTGRES_URL) or the "
           "password file (~/.pgpass, PGPASSFILE).";
  }
  if (contains(message, "database \"") && contains(message, "does not exist")) {
    return "the PostgreSQL database does not exist (" + message +
           "); refusing to start. Create it first (createdb, or CREATE DATABASE), owned by the user "
           "gofish-server connects as.";
  }
  return "cannot connect to PostgreSQL (" + message +
         "); refusing to start rather than run without its rooms. Check --postgres-url (GOFISH_POSTGRES_URL) and "
         "that the database server is running and reachable.";
}

}  // namespace

PostgresStore::PostgresStore(const std::string& url, MissingTokenKey missing_key)
    : url_(url),
      missing_key_(missing_key),
      fence_(std::make_shared<Fence>()),
      sequences_(std::make_shared<DecisionSequences>()) {
  open(true);
}

// The parent has checked and migrated the schema already.
PostgresStore::PostgresStore(const PostgresStore& parent, Role role)
    : url_(parent.url_),
      missing_key_(parent.missing_key_),
      fence_(parent.fence_),
      sequences_(parent.sequences_),
      listens_(role == Role::kListener) {
  open(false);
  try {
    listen();
  } catch (...) {
    PQfinish(conn_);
    conn_ = nullptr;
    throw;
  }
}

void PostgresStore::open(bool migrate) {
  try {
    connect();
    if (migrate) check_and_migrate();
    prepare_statements();
  } catch (...) {
    PQfinish(conn_);
    conn_ = nullptr;
    throw;
  }
}

std::unique_ptr<PostgresStore> PostgresStore::open_writer() const {
  return std::unique_ptr<PostgresStore>(new PostgresStore(*this, Role::kWriter));
}

PostgresStore::~PostgresStore() { PQfinish(conn_); }

void PostgresStore::connect() {
  // Earlier entries are defaults the URL may override; later ones are not.
  // A database that does not answer is found out in seconds, not left to
  // the kernel's TCP timeouts (a quarter of an hour): 3 s to connect, then
  // (over TCP) keepalives after 5 s idle and 5 s for sent data to be
  // acknowledged.
  const char* const keys[] = {"fallback_application_name",
                              "connect_timeout",
                              "keepalives_idle",
                              "keepalives_interval",
                              "keepalives_count",
                              "tcp_user_timeout",
                              "dbname",
                              "client_encoding",
                              nullptr};
  const char* const values[] = {"gofish-server", "3", "5", "2", "2", "5000", url_.c_str(), "UTF8", nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (conn_ == nullptr) throw StoreError("cannot connect to PostgreSQL: out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string message = Result::one_line(PQerrorMessage(conn_));
    const std::string sentence = connect_failure(message);
    // A login refused or a database missing is final; a server down or
    // starting may be waited for.
    if (sentence.starts_with("cannot connect")) throw StoreUnreachable(sentence);
    throw StoreError(sentence);
  }
  // The server's notices and warnings (and the last words of a session it
  // ends) go to the log rather than stderr.
  PQsetNoticeProcessor(
      conn_,
      [](void*, const char* message) { spdlog::warn("storage: PostgreSQL says: {}", Result::one_line(message)); },
      nullptr);
}

std::string PostgresStore::where() const {
  std::lock_guard lock(mutex_);
  return describe();
}

std::string PostgresStore::describe() const {
  return std::string("database ") + PQdb(conn_) + " on " + PQhost(conn_) + ":" + PQport(conn_) + " as " + PQuser(conn_);
}

PostgresStore::Result PostgresStore::exec(const char* sql) { return Result::checked(conn_, PQexec(conn_, sql), sql); }

PostgresStore::Result PostgresStore::run(const Step& step) {
  const std::vector<const char*> values = step.pointers();
  const std::vector<int> lengths = step.lengths();
  if (PQsendQueryPrepared(conn_, step.name, static_cast<int>(values.size()), values.data(), lengths.data(),
                          step.formats.data(), 1) != 1) {
    return Result::checked(conn_, nullptr, step.name);
  }
  // As PQexecPrepared, but a database that stops answering is given up on.
  const auto deadline = std::chrono::steady_clock::now() + kStatementTimeout;
  PGresult* last = nullptr;
  for (;;) {
    await_input(deadline);
    PGresult* next = PQgetResult(conn_);
    if (next == nullptr) break;
    PQclear(last);
    last = next;
  }
  return Result::checked(conn_, last, step.name);
}

void PostgresStore::await_input(std::chrono::steady_clock::time_point deadline, bool drop_at_deadline) {
  while (!connection_lost() && PQisBusy(conn_) == 1) {
    const int socket = PQsocket(conn_);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (socket < 0) return;
    if (left.count() <= 0) {
      if (!drop_at_deadline) return;
      // Taken for lost, as if the database had dropped it: what follows
      // reads an error, and the connection is made again before its next use.
      spdlog::warn("storage: PostgreSQL did not answer in time; dropping the connection");
      ::shutdown(socket, SHUT_RDWR);
      PQconsumeInput(conn_);
      return;
    }
    pollfd wait{socket, POLLIN, 0};
    ::poll(&wait, 1, static_cast<int>(left.count()));
    if (PQconsumeInput(conn_) != 1) return;
  }
}

void PostgresStore::rollback() {
  if (!connection_lost()) PQclear(PQexec(conn_, "ROLLBACK"));
}

bool PostgresStore::connection_lost() const { return PQstatus(conn_) == CONNECTION_BAD; }

void PostgresStore::reconnect_if_lost() {
  // Takes in what the server sent while the connection was idle: a server
  // shutting down, or ending this session, says so (a notice) and closes
  // the socket, which marks the connection lost.
  pollfd idle{PQsocket(conn_), POLLIN, 0};
  while (!connection_lost() && idle.fd >= 0 && ::poll(&idle, 1, 0) > 0 && PQconsumeInput(conn_) == 1) {
    PQisBusy(conn_);  // parses it
  }
  if (!connection_lost()) return;
  PQreset(conn_);
  if (connection_lost()) {
    throw StoreUnreachable("the connection to PostgreSQL was lost and cannot be made again: " +
                           Result::one_line(PQerrorMessage(conn_)));
  }
  prepare_statements();
  listen();
  spdlog::warn("storage: the connection to PostgreSQL was lost; connected again");
}

}  // namespace gofish::server
