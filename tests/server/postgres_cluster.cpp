#include "postgres_cluster.hpp"

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <mutex>
#include <vector>

extern char** environ;

namespace gofish::server::testing {

namespace fs = std::filesystem;

namespace {

// Runs scripts/pg-throwaway.sh ACTION STATE to its end; its messages go to
// this process's stderr.
void throwaway(const std::string& action, const fs::path& state) {
  std::string script = GOFISH_SOURCE_DIR "/scripts/pg-throwaway.sh";
  std::string state_arg = state.string();
  std::string action_arg = action;
  std::vector<char*> argv = {script.data(), action_arg.data(), state_arg.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, script.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    throw std::runtime_error("cannot run " + script);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(script + " " + action + " failed (see its messages above)");
  }
}

std::string random_suffix() {
  std::random_device random;
  return std::to_string(::getpid()) + "_" + std::to_string(random());
}

}  // namespace

PostgresCluster& PostgresCluster::shared() {
  static const std::unique_ptr<PostgresCluster> cluster = [] {
    const char* state = std::getenv("GOFISH_TEST_POSTGRES_STATE");
    return state != nullptr && *state != '\0' ? attach(state) : start();
  }();
  return *cluster;
}

std::unique_ptr<PostgresCluster> PostgresCluster::start() {
  std::unique_ptr<PostgresCluster> cluster(new PostgresCluster());
  cluster->state_ = fs::temp_directory_path() / ("gofish-pg-state-" + random_suffix());
  cluster->owned_ = true;
  try {
    throwaway("start", cluster->state_);
    cluster->read_state();
  } catch (...) {
    std::error_code ec;
    if (fs::exists(cluster->state_, ec)) throwaway("stop", cluster->state_);
    cluster->owned_ = false;
    throw;
  }
  return cluster;
}

std::unique_ptr<PostgresCluster> PostgresCluster::attach(const fs::path& state) {
  std::unique_ptr<PostgresCluster> cluster(new PostgresCluster());
  cluster->state_ = state;
  cluster->read_state();
  return cluster;
}

PostgresCluster::~PostgresCluster() {
  if (!owned_) return;
  try {
    throwaway("stop", state_);
  } catch (const std::exception&) {
    // The script has said what went wrong; a destructor cannot do more.
  }
}

void PostgresCluster::read_state() {
  std::ifstream in(state_);
  if (!in) throw std::runtime_error("no PostgreSQL cluster state in " + state_.string());
  std::string line;
  while (std::getline(in, line)) {
    const auto equals = line.find('=');
    if (equals == std::string::npos) continue;
    const auto key = line.substr(0, equals);
    const auto value = line.substr(equals + 1);
    if (key == "port") port_ = static_cast<std::uint16_t>(std::stoi(value));
    if (key == "user") user_ = value;
    if (key == "password") password_ = value;
  }
  if (port_ == 0 || user_.empty() || password_.empty()) {
    throw std::runtime_error(state_.string() + " does not describe a running PostgreSQL cluster");
  }
}

std::string PostgresCluster::url(const std::string& database) const {
  return "postgresql://" + user_ + ":" + password_ + "@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

std::string PostgresCluster::sql_at(const std::string& url, const std::string& statements) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    throw std::runtime_error("connecting to the test cluster: " + message);
  }
  PGresult* result = PQexec(conn, statements.c_str());
  const auto status = PQresultStatus(result);
  std::string value;
  if (status == PGRES_TUPLES_OK && PQntuples(result) > 0) value = PQgetvalue(result, 0, 0);
  const std::string message = PQresultErrorMessage(result);
  PQclear(result);
  PQfinish(conn);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error("running \"" + statements + "\": " + message);
  }
  return value;
}

PostgresDatabase::PostgresDatabase(PostgresCluster& cluster)
    : cluster_(cluster), schema_("gofish_test_" + random_suffix()) {
  cluster_.sql(kDatabase, "CREATE SCHEMA " + schema_);
}

PostgresDatabase::~PostgresDatabase() {
  try {
    cluster_.sql(kDatabase, "DROP SCHEMA " + schema_ + " CASCADE");
  } catch (const std::exception&) {
    // Left behind in a throwaway cluster: harmless.
  }
}

std::string PostgresDatabase::url(const std::string& application_name) const {
  // The URL's options set search_path ("=" spelt %3D in a URI).
  std::string url = cluster_.url(kDatabase) + "?options=-csearch_path%3D" + schema_;
  if (!application_name.empty()) url += "&application_name=" + application_name;
  return url;
}

std::string PostgresDatabase::sql(const std::string& statements) const {
  return PostgresCluster::sql_at(url(), statements);
}

std::string unreachable_postgres_url() {
  // From below the kernel's ephemeral range (as scripts/free_ports.py does):
  // a server of a parallel test started on port 0 cannot land there, and one
  // test opens its relay on this port a second and a half later.
  int ephemeral_low = 32768;
  if (std::ifstream ranges("/proc/sys/net/ipv4/ip_local_port_range"); ranges) ranges >> ephemeral_low;
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> pick(10000, std::max(11000, ephemeral_low - 1));
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int port = pick(random);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    if (free) return "postgresql://gofish:secret@127.0.0.1:" + std::to_string(port) + "/gofish";
  }
  throw std::runtime_error("cannot find a free port on 127.0.0.1");
}

std::uint16_t port_of(const std::string& url) {
  const auto colon = url.rfind(':');
  return static_cast<std::uint16_t>(std::stoi(url.substr(colon + 1)));
}

struct TcpRelay::State {
  int listener = -1;
  std::mutex mutex;
  std::vector<int> sockets;
  std::vector<std::thread> threads;
};

namespace {

void pump(int from, int to) {
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(from, buffer, sizeof buffer);
    if (n <= 0) break;
    for (ssize_t sent = 0; sent < n;) {
      const ssize_t w = ::send(to, buffer + sent, static_cast<std::size_t>(n - sent), MSG_NOSIGNAL);
      if (w <= 0) {
        ::shutdown(from, SHUT_RDWR);
        return;
      }
      sent += w;
    }
  }
  ::shutdown(to, SHUT_RDWR);
}

}  // namespace

TcpRelay::TcpRelay(std::uint16_t from, std::uint16_t to) : state_(std::make_shared<State>()) {
  state_->listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  ::setsockopt(state_->listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(from);
  if (::bind(state_->listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(state_->listener, 64) != 0) {
    ::close(state_->listener);
    throw std::runtime_error("the relay cannot listen on port " + std::to_string(from));
  }
  state_->threads.emplace_back([state = state_, to] {
    for (;;) {
      const int client = ::accept4(state->listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) return;  // closed by the destructor
      const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in target{};
      target.sin_family = AF_INET;
      target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      target.sin_port = htons(to);
      if (::connect(server, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0) {
        ::close(client);
        ::close(server);
        continue;
      }
      std::lock_guard lock(state->mutex);
      state->sockets.push_back(client);
      state->sockets.push_back(server);
      state->threads.emplace_back(pump, client, server);
      state->threads.emplace_back(pump, server, client);
    }
  });
}

TcpRelay::~TcpRelay() {
  ::shutdown(state_->listener, SHUT_RDWR);
  ::close(state_->listener);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(state_->mutex);
    for (const int socket : state_->sockets) ::shutdown(socket, SHUT_RDWR);
    threads.swap(state_->threads);
  }
  // The accepting thread is first; it may add more while the lock is free.
  threads.front().join();
  {
    std::lock_guard lock(state_->mutex);
    for (const int socket : state_->sockets) ::shutdown(socket, SHUT_RDWR);
    for (auto& thread : state_->threads) threads.push_back(std::move(thread));
  }
  for (std::size_t i = 1; i < threads.size(); ++i) threads[i].join();
  for (const int socket : state_->sockets) ::close(socket);
}

}  // namespace gofish::server::testing
