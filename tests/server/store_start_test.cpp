// gofish-server itself, started on a damaged data directory: a file that is
// not SQLite, a schema newer than the server's and a room that cannot be
// rebuilt each stop the start with a clear message and exit code 3 (the
// first two leave the file untouched).
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "server/sqlite_store.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"

namespace gofish::server {
namespace {

using testing::Outcome;
using testing::run_server_to_exit;
using testing::TempDir;

namespace fs = std::filesystem;

// Runs the server on `data_dir` to its exit (it is expected to refuse to
// start, so it never listens).
Outcome run_server(const fs::path& data_dir) {
  return run_server_to_exit({"--port", "0", "--bind", "127.0.0.1", "--data-dir", data_dir.string(), "--web-root",
                             GOFISH_SOURCE_DIR "/clients/web"});
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
