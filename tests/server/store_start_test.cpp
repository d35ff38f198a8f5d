// gofish-server itself, started on a damaged data directory. A database that
// cannot be used as a whole stops the start with a clear message and exit
// code 3, leaving the file alone: a file that is not SQLite, a schema newer
// than the server's, a used database whose seat-token key is lost (unless
// --new-token-key asks for a new one). A room that cannot be rebuilt does
// not: it is set aside, the server starts, --list-set-aside names it and
// --restore-set-aside puts it back. With --storage postgres the same, and a
// PostgreSQL server that is not there or refuses the login is exit code 3 too.
#include <doctest/doctest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

#include "engine/rules.hpp"
#include "postgres_cluster.hpp"
#include "protocol/rules_json.hpp"
#include "server/store/postgres_store.hpp"
#include "server/store/sqlite_store.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"

namespace gofish::server {
namespace {

using testing::Outcome;
using testing::PostgresDatabase;
using testing::run_server_to_exit;
using testing::ServerProcess;
using testing::TempDir;

namespace fs = std::filesystem;

// Runs the server on `data_dir` to its exit (it is expected to refuse to
// start, so it never listens, or to act on the store and exit).
Outcome run_server(const fs::path& data_dir, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"--port",     "0",
                                   "--bind",     "127.0.0.1",
                                   "--data-dir", data_dir.string(),
                                   "--web-root", GOFISH_WEB_ROOT};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_server_to_exit(args);
}

// A room's settings as the room layer writes them.
std::string settings_json(const std::string& preset, int seats) {
  nlohmann::json settings;
  settings["rules"] = protocol::rules_to_json(*engine::preset(preset));
  settings["seats"] = seats;
  settings["turn_timer_seconds"] = 0;
  settings["spectators"] = true;
  settings["listed"] = false;
  settings["chat"] = 0;
  return settings.dump();
}

// A waiting room: its host in seat 0, the other seats empty.
std::vector<Record> a_waiting_room(const std::string& code, const std::string& host_state) {
  return {record::RoomCreated{code, settings_json("classic", 2), 1},
          record::SeatTaken{code, 0, host_state, std::string(16, '\x07')}};
}

void sql(const fs::path& file, const char* statement) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, statement, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

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

// The reason may be a sentence from the room layer (unreadable settings) or
// an exception (a seat whose "host" is not a boolean): either way the room is
// set aside and the others start. `store` opens the server's store beside
// it; `flags` point the server at that store; `dir` holds the data dir and
// the logs.
void set_aside_through_the_binary(const TempDir& dir, const std::function<std::unique_ptr<Store>()>& store,
                                  const std::vector<std::string>& flags) {
  const auto data = dir.path / "data";
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), flags.begin(), flags.end());
    return extra;
  };
  {
    const auto writer = store();
    writer->token_key();
    writer->commit({record::RoomCreated{"QWERT", "these are not settings", 1}});
    writer->commit(a_waiting_room("ZXCVB", R"({"occupant":"human","name":"Ann","host":"yes"})"));
    writer->commit(a_waiting_room("GKDRS", R"({"occupant":"human","name":"Ann","host":true})"));
  }
  {
    ServerProcess server(data, dir.path / "first.log", flags);
    const std::string log = server.log_text();
    CHECK(log.find("[error] room QWERT set aside: unreadable settings") != std::string::npos);
    CHECK(log.find("[error] room ZXCVB set aside: rebuilding it failed: ") != std::string::npos);
    CHECK(log.find("1 rooms restored") != std::string::npos);
    CHECK(log.find("2 rooms set aside") != std::string::npos);
    CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
  }
  const auto listed = run_server(data, with({"--list-set-aside"}));
  CHECK(listed.exit_code == 0);
  CHECK(listed.output.find("QWERT\t") != std::string::npos);
  CHECK(listed.output.find("ZXCVB\t") != std::string::npos);
  CHECK(listed.output.find("unreadable settings") != std::string::npos);
  CHECK(listed.output.find("listening on") == std::string::npos);

  const auto unknown = run_server(data, with({"--restore-set-aside", "NMPQ2"}));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("No room NMPQ2 is set aside") != std::string::npos);
  const auto put_back = run_server(data, with({"--restore-set-aside", "qwert"}));
  CHECK(put_back.exit_code == 0);
  CHECK(put_back.output.find("QWERT is no longer set aside") != std::string::npos);
  const auto after = run_server(data, with({"--list-set-aside"}));
  CHECK(after.output.find("QWERT") == std::string::npos);
  CHECK(after.output.find("ZXCVB\t") != std::string::npos);
  // Still unreadable: the next start sets it aside again, saying why.
  ServerProcess server(data, dir.path / "second.log", flags);
  CHECK(server.log_text().find("room QWERT set aside: unreadable settings") != std::string::npos);
  CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
}

TEST_CASE("start: rooms that cannot be rebuilt are set aside, listed and put back, and the server starts") {
  TempDir dir("gofish-start");
  fs::create_directories(dir.path / "data");
  const auto file = dir.path / "data" / "gofish.sqlite";
  set_aside_through_the_binary(dir, [&] { return std::make_unique<SqliteStore>(file, SyncMode::kNormal); }, {});

  const auto none = run_server_to_exit({"--storage", "none", "--list-set-aside"});
  CHECK(none.exit_code == 2);
  CHECK(none.output.find("need --storage sqlite or postgres") != std::string::npos);
}

TEST_CASE("start with PostgreSQL: rooms that cannot be rebuilt are set aside, listed and put back") {
  TempDir dir("gofish-start");
  PostgresDatabase db;
  set_aside_through_the_binary(dir, [&] { return std::make_unique<PostgresStore>(db.url()); },
                               {"--storage=postgres", "--postgres-url=" + db.url(), "--load-rooms=at-start"});
}

TEST_CASE("start: a used database whose seat-token key is lost refuses to start, and --new-token-key makes a new one") {
  TempDir dir("gofish-start");
  const auto data = dir.path / "data";
  const auto file = data / "gofish.sqlite";
  {
    // A brand-new database makes its key without a word.
    ServerProcess server(data, dir.path / "first.log");
    CHECK(server.log_text().find("seat-token key") == std::string::npos);
    CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
  }
  {
    SqliteStore store(file, SyncMode::kNormal);
    store.commit(a_waiting_room("GKDRS", R"({"occupant":"human","name":"Ann","host":true})"));
  }
  sql(file, "DELETE FROM meta WHERE key = 'token_key'");
  const auto before = file_bytes(file);
  const auto missing = run_server(data);
  CHECK(missing.exit_code == 3);
  CHECK(missing.output.find("seat-token key (meta.token_key) is missing") != std::string::npos);
  CHECK(missing.output.find("refusing to start") != std::string::npos);
  CHECK(missing.output.find("--new-token-key") != std::string::npos);
  CHECK(missing.output.find("listening on") == std::string::npos);
  CHECK(file_bytes(file) == before);

  sql(file, "INSERT INTO meta(key, value) VALUES('token_key', x'00112233')");
  const auto short_key = run_server(data);
  CHECK(short_key.exit_code == 3);
  CHECK(short_key.output.find("has 4 bytes instead of 32") != std::string::npos);

  {
    ServerProcess server(data, dir.path / "second.log", {"--new-token-key"});
    const std::string log = server.log_text();
    CHECK(log.find("[warning] storage: ") != std::string::npos);
    CHECK(log.find("has 4 bytes instead of 32; a new one is made") != std::string::npos);
    CHECK(log.find("1 rooms restored") != std::string::npos);
    CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
  }
  // The new key is kept: the next start needs no flag and says nothing of it.
  ServerProcess server(data, dir.path / "third.log");
  CHECK(server.log_text().find("seat-token key") == std::string::npos);
  CHECK(server.log_text().find("1 rooms restored") != std::string::npos);
  CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
}

// A PostgreSQL database that cannot be used stops the start with exit code
// 3 before the server listens, saying why, and no password is logged.
TEST_CASE("start with PostgreSQL: no server there, a wrong password or a newer schema refuses to start") {
  TempDir dir("gofish-start");
  PostgresDatabase db;
  const auto start_with = [&](const std::string& url) {
    return run_server(dir.path / "data", {"--storage", "postgres", "--postgres-url", url, "--store-connect-wait-ms",
                                          "20000"});
  };
  // Not there at all: waited for, up to --store-connect-wait-ms, then refused.
  const auto waited_from = std::chrono::steady_clock::now();
  const auto absent = run_server(dir.path / "data", {"--storage", "postgres", "--postgres-url",
                                                     testing::unreachable_postgres_url(), "--store-connect-wait-ms",
                                                     "1500"});
  CHECK(std::chrono::steady_clock::now() - waited_from >= std::chrono::milliseconds(1400));
  CHECK(absent.exit_code == 3);
  CHECK(absent.output.find("waiting up to 1500 ms for it") != std::string::npos);
  CHECK(absent.output.find("cannot connect to PostgreSQL") != std::string::npos);
  CHECK(absent.output.find("Connection refused") != std::string::npos);
  CHECK(absent.output.find("listening on") == std::string::npos);
  CHECK(absent.output.find("secret") == std::string::npos);

  // A refused login is not waited for, however long the wait allowed.
  const std::string wrong = "not-" + db.cluster().password();
  const auto refused = start_with("postgresql://" + db.cluster().user() + ":" + wrong + "@127.0.0.1:" +
                                  std::to_string(db.cluster().port()) + "/" + PostgresDatabase::kDatabase);
  CHECK(refused.exit_code == 3);
  CHECK(refused.output.find("PostgreSQL refused the login") != std::string::npos);
  CHECK(refused.output.find("password authentication failed") != std::string::npos);
  CHECK(refused.output.find("listening on") == std::string::npos);
  CHECK(refused.output.find(wrong) == std::string::npos);

  { PostgresStore store(db.url()); }
  db.sql("UPDATE meta SET value = convert_to('" + std::to_string(kPostgresSchemaVersion + 1) +
         "', 'UTF8') WHERE key = 'schema_version'");
  const auto newer = start_with(db.url());
  CHECK(newer.exit_code == 3);
  CHECK(newer.output.find("newer than this server's") != std::string::npos);
  CHECK(newer.output.find("listening on") == std::string::npos);
  // Refused, and left alone.
  CHECK(db.sql("SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'schema_version'") ==
        std::to_string(kPostgresSchemaVersion + 1));
}

// A database starting beside the server (a machine booting, compose bringing
// both up): the server waits for it instead of exiting. Here the database's
// port answers only after a while, through a relay the test opens late.
TEST_CASE("start with PostgreSQL: a database that comes up within --store-connect-wait-ms is waited for") {
  TempDir dir("gofish-start");
  PostgresDatabase db;
  const std::uint16_t late_port = testing::port_of(testing::unreachable_postgres_url());
  // The same database, reached through a port that answers only later.
  std::string url = db.url();
  url.replace(url.find(std::to_string(db.cluster().port())), std::to_string(db.cluster().port()).size(),
              std::to_string(late_port));
  std::unique_ptr<testing::TcpRelay> relay;
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    relay = std::make_unique<testing::TcpRelay>(late_port, db.cluster().port());
  });
  ServerProcess server(dir.path / "data", dir.path / "server.log",
                       {"--storage=postgres", "--postgres-url=" + url, "--store-connect-wait-ms=20000"});
  opener.join();
  const std::string log = server.log_text();
  CHECK(log.find("waiting up to 20000 ms for it") != std::string::npos);
  CHECK(log.find("listening on") != std::string::npos);
  CHECK(server.stop(SIGTERM) == 0);
}

// The URL from the environment, as a container would be given it.
TEST_CASE(
    "start with PostgreSQL from GOFISH_POSTGRES_URL: a lost seat-token key refuses to start, --new-token-key makes "
    "one") {
  TempDir dir("gofish-start");
  PostgresDatabase db;
  struct Environment {
    explicit Environment(const std::string& url) { ::setenv("GOFISH_POSTGRES_URL", url.c_str(), 1); }
    ~Environment() { ::unsetenv("GOFISH_POSTGRES_URL"); }
  } environment(db.url());
  const std::vector<std::string> flags = {"--storage=postgres"};
  {
    ServerProcess server(dir.path / "data", dir.path / "first.log", flags);
    CHECK(server.log_text().find("storage: postgres, database " + std::string(PostgresDatabase::kDatabase)) !=
          std::string::npos);
    CHECK(server.log_text().find(db.cluster().password()) == std::string::npos);
    CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
  }
  PostgresStore(db.url()).commit(a_waiting_room("GKDRS", R"({"occupant":"human","name":"Ann","host":true})"));
  db.sql("DELETE FROM meta WHERE key = 'token_key'");
  const auto missing = run_server(dir.path / "data", {"--storage", "postgres"});
  CHECK(missing.exit_code == 3);
  CHECK(missing.output.find("seat-token key (meta.token_key) is missing") != std::string::npos);
  CHECK(missing.output.find("--new-token-key") != std::string::npos);
  {
    ServerProcess server(dir.path / "data", dir.path / "second.log",
                         {"--storage=postgres", "--new-token-key", "--load-rooms=at-start"});
    CHECK(server.log_text().find("a new one is made") != std::string::npos);
    CHECK(server.log_text().find("1 rooms restored") != std::string::npos);
    CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
  }
  ServerProcess server(dir.path / "data", dir.path / "third.log", {"--storage=postgres", "--load-rooms=at-start"});
  CHECK(server.log_text().find("seat-token key") == std::string::npos);
  CHECK(server.log_text().find("1 rooms restored") != std::string::npos);
  CHECK(exit_code_of(server.stop(SIGTERM)) == 0);
}

}  // namespace
}  // namespace gofish::server
