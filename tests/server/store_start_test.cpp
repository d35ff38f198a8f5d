// gofish-server itself, started on a damaged data directory: a file that is
// not SQLite, a schema newer than the server's and a room that cannot be
// rebuilt each stop the start with a clear message and exit code 3 (the
// first two leave the file untouched).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "server/sqlite_store.hpp"
#include "temp_dir.hpp"

extern char** environ;

namespace gofish::server {
namespace {

using testing::TempDir;

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string output;
};

// Runs the server on `data_dir` to its exit (it is expected to refuse to
// start, so it never listens); its stdout and stderr go to a file.
Outcome run_server(const fs::path& data_dir) {
  const auto log = data_dir.parent_path() / (data_dir.filename().string() + ".log");
  std::vector<std::string> args = {GOFISH_SERVER_BINARY, "--port",     "0",          "--bind",
                                   "127.0.0.1",          "--data-dir", data_dir.string(), "--web-root",
                                   GOFISH_SOURCE_DIR "/clients/web"};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  Outcome outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  std::ifstream in(log);
  outcome.output.assign(std::istreambuf_iterator<char>(in), {});
  fs::remove(log);
  return outcome;
}

std::string file_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_CASE("start: a data file that is not SQLite refuses to start and is left alone") {
  TempDir dir("gofish-start");
  const auto data = dir.path / "data";
  fs::create_directories(data);
  const auto file = data / "gofish.sqlite";
  {
    std::ofstream garbage(file, std::ios::binary);
    std::mt19937 random(7);
    for (int i = 0; i < 8192; ++i) garbage.put(static_cast<char>(random()));
  }
  const auto before = file_bytes(file);
  const auto outcome = run_server(data);
  CHECK(outcome.exit_code == 3);
  CHECK(outcome.output.find("not a usable SQLite database") != std::string::npos);
  CHECK(outcome.output.find("refusing to start") != std::string::npos);
  CHECK(outcome.output.find("listening on") == std::string::npos);
  CHECK(file_bytes(file) == before);
}

TEST_CASE("start: a schema newer than the server's refuses to start") {
  TempDir dir("gofish-start");
  const auto data = dir.path / "data";
  fs::create_directories(data);
  const auto file = data / "gofish.sqlite";
  { SqliteStore store(file, SyncMode::kNormal); }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  const auto sql = "PRAGMA user_version=" + std::to_string(kSchemaVersion + 1);
  REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  const auto outcome = run_server(data);
  CHECK(outcome.exit_code == 3);
  CHECK(outcome.output.find("newer than this server's") != std::string::npos);
}

TEST_CASE("start: a room that cannot be rebuilt refuses to start and names the room") {
  TempDir dir("gofish-start");
  const auto data = dir.path / "data";
  fs::create_directories(data);
  const auto file = data / "gofish.sqlite";
  {
    SqliteStore store(file, SyncMode::kNormal);
    store.commit({record::RoomCreated{"QWERT", "these are not settings", 1}});
  }
  const auto outcome = run_server(data);
  CHECK(outcome.exit_code == 3);
  CHECK(outcome.output.find("room QWERT") != std::string::npos);
  CHECK(outcome.output.find("refusing to start") != std::string::npos);
}

}  // namespace
}  // namespace gofish::server
