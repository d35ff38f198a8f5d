// A PostgreSQL server for the tests that need one (ctest label cluster), on
// 127.0.0.1 only, made by scripts/pg-throwaway.sh: a new cluster in a
// temporary directory, logins over TCP by password, gone once stopped.
//
// Under ctest one cluster serves every such test: the fixture `postgres`
// (tests/server/CMakeLists.txt) starts it before the first and stops it
// after the last, and GOFISH_TEST_POSTGRES_STATE names the script's state
// file. A test binary run by hand, without that variable, starts a cluster
// of its own on first use and stops it when the process exits. Either way a
// test works in a schema of its own (PostgresDatabase), so tests running at
// once never meet.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gofish::server::testing {

class PostgresCluster {
 public:
  // The cluster of this test process (see above). Throws std::runtime_error
  // if it cannot be started or found.
  static PostgresCluster& shared();
  // A new cluster, stopped and removed by the destructor.
  static std::unique_ptr<PostgresCluster> start();
  // The running cluster `state` describes; the destructor leaves it running.
  static std::unique_ptr<PostgresCluster> attach(const std::filesystem::path& state);
  ~PostgresCluster();
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  std::uint16_t port() const { return port_; }
  const std::string& user() const { return user_; }
  const std::string& password() const { return password_; }
  // The superuser's URL for `database` over TCP.
  std::string url(const std::string& database) const;
  // Runs `statements` (one or more) as the superuser with `url`; throws
  // std::runtime_error with PostgreSQL's message if they fail. Returns the
  // first column of the last statement's first row, "" if none.
  static std::string sql_at(const std::string& url, const std::string& statements);
  // sql_at(url(database), statements).
  std::string sql(const std::string& database, const std::string& statements) const {
    return sql_at(url(database), statements);
  }

 private:
  PostgresCluster() = default;
  void read_state();

  std::filesystem::path state_;
  bool owned_ = false;
  std::uint16_t port_ = 0;
  std::string user_;
  std::string password_;
};

// A place of its own for one test: a schema in the cluster's database gofish
// (much quicker to make than a database), reached through a URL whose
// search_path names it, as an operator may give gofish-server a schema of
// its own. Dropped with everything in it by the destructor.
class PostgresDatabase {
 public:
  explicit PostgresDatabase(PostgresCluster& cluster = PostgresCluster::shared());
  ~PostgresDatabase();
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  static constexpr const char* kDatabase = "gofish";
  const std::string& schema() const { return schema_; }
  // The URL for the schema; `application_name`, if given, names the
  // connections made with it (pg_stat_activity.application_name).
  std::string url(const std::string& application_name = "") const;
  PostgresCluster& cluster() const { return cluster_; }
  // PostgresCluster::sql on this schema.
  std::string sql(const std::string& statements) const;

 private:
  PostgresCluster& cluster_;
  std::string schema_;
};

// A URL of a PostgreSQL server that is not there: a port on 127.0.0.1 that
// was free a moment ago, below the ephemeral range, so connecting is refused at once.
std::string unreachable_postgres_url();
// That URL's port.
std::uint16_t port_of(const std::string& url);

// Forwards every connection to 127.0.0.1:`from` to 127.0.0.1:`to`, both ways,
// from its construction (a database "coming up" on `from`) to its
// destruction, which closes everything.
class TcpRelay {
 public:
  TcpRelay(std::uint16_t from, std::uint16_t to);
  ~TcpRelay();
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace gofish::server::testing
