// The durable store on its own: round trips, the grouped writer, retention,
// the token key, and each damaged-database outcome.
#include "server/store.hpp"
#include "server/transcript_api.hpp"

#include <doctest/doctest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "server/sqlite_store.hpp"
#include "temp_dir.hpp"

namespace gofish::server {
namespace {

using testing::TempDir;

namespace fs = std::filesystem;

std::vector<Record> a_room_with_a_game() {
  return {
      record::RoomCreated{"ABCD", R"({"preset":"authors"})", 1000},
      record::SeatTaken{"ABCD", 0, R"({"name":"Ann"})", std::string(16, '\x01')},
      record::SeatTaken{"ABCD", 1, R"({"bot":"easy"})", ""},
      record::GameStarted{"ABCD", 1, "g-1", R"({"deck":[]})", 2000},
      record::DecisionAccepted{"g-1", 0, R"({"seat":0})"},
      record::DecisionAccepted{"g-1", 1, R"({"seat":1})"},
  };
}

// Runs one statement straight on the file, as damage from outside would.
void tamper(const fs::path& file, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.string().c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

TEST_CASE("store: rooms, seats, games and decisions come back after reopening") {
  TempDir dir("gofish-store");
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    store.commit(a_room_with_a_game());
  }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  const auto rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].room == "ABCD");
  CHECK(rooms[0].settings == R"({"preset":"authors"})");
  CHECK(rooms[0].created_ms == 1000);
  REQUIRE(rooms[0].seats.size() == 2);
  CHECK(rooms[0].seats[0].token_hash == std::string(16, '\x01'));
  CHECK(rooms[0].seats[1].token_hash.empty());
  REQUIRE(rooms[0].game);
  CHECK(rooms[0].game->game_id == "g-1");
  CHECK(rooms[0].game->decisions == std::vector<std::string>{R"({"seat":0})", R"({"seat":1})"});
  CHECK_FALSE(rooms[0].game->transcript);
  CHECK_FALSE(store.finished_transcript("g-1"));
}

TEST_CASE("store: a transcript is served only once its game is over, and kept until pruned") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kFull);
  store.commit(a_room_with_a_game());
  CHECK_FALSE(store.finished_transcript("g-1"));
  store.commit({record::GameFinished{"g-1", R"({"winners":[0]})", 5000}});
  CHECK(store.finished_transcript("g-1") == R"({"winners":[0]})");
  // The room closes: its finished game stays, the code may be used again.
  store.commit({record::RoomClosed{"ABCD"}, record::RoomCreated{"ABCD", "{}", 6000}});
  CHECK(store.finished_transcript("g-1") == R"({"winners":[0]})");
  CHECK(store.load_open_rooms().size() == 1);
  CHECK_FALSE(store.load_open_rooms()[0].game);
  CHECK(store.prune_finished(5000) == 0);
  CHECK(store.prune_finished(5001) == 1);
  CHECK_FALSE(store.finished_transcript("g-1"));
  CHECK_FALSE(store.finished_transcript("no-such-game"));
}

TEST_CASE("store: a failed batch writes nothing") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  store.commit(a_room_with_a_game());
  // A duplicate decision number fails the whole batch.
  CHECK_THROWS(store.commit(
      {record::DecisionAccepted{"g-1", 2, R"({"seat":0})"}, record::DecisionAccepted{"g-1", 1, R"({"seat":0})"}}));
  CHECK(store.load_open_rooms()[0].game->decisions.size() == 2);
}

TEST_CASE("store: the token key is made once and survives reopening") {
  TempDir dir("gofish-store");
  std::array<std::uint64_t, 4> key{};
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    key = store.token_key();
    CHECK(store.token_key() == key);
  }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  CHECK(store.token_key() == key);
  CHECK(NullStore().token_key() != key);
}

// A used database (rooms or games) whose key is gone would otherwise get a
// new key without a word, and no stored seat token would resume its seat.
TEST_CASE("store: a used database whose token key is missing or the wrong size refuses to give a key") {
  TempDir dir("gofish-store");
  std::array<std::uint64_t, 4> key{};
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    key = store.token_key();
    store.commit(a_room_with_a_game());
  }
  tamper(dir.db(), "DELETE FROM meta WHERE key = 'token_key'");
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    try {
      store.token_key();
      FAIL("a missing key of a used database gave a key");
    } catch (const StoreError& error) {
      const std::string message = error.what();
      CHECK(message.find("meta.token_key) is missing") != std::string::npos);
      CHECK(message.find("refusing to start") != std::string::npos);
      CHECK(message.find("backup") != std::string::npos);
      CHECK(message.find("--new-token-key") != std::string::npos);
    }
  }
  tamper(dir.db(), "INSERT INTO meta(key, value) VALUES('token_key', x'0102030405')");
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    try {
      store.token_key();
      FAIL("a 5-byte key of a used database gave a key");
    } catch (const StoreError& error) {
      CHECK(std::string(error.what()).find("has 5 bytes instead of 32") != std::string::npos);
    }
  }
  // Asked for, a new key is made and kept; the old one is not coming back.
  std::array<std::uint64_t, 4> made{};
  {
    SqliteStore store(dir.db(), SyncMode::kNormal, MissingTokenKey::kMakeNew);
    made = store.token_key();
    CHECK(made != key);
  }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  CHECK(store.token_key() == made);
}

// Only finished games left, detached from their closed rooms, still make a
// database used: it is not brand new.
TEST_CASE("store: a database holding only finished games also needs its token key") {
  TempDir dir("gofish-store");
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    store.token_key();
    store.commit(a_room_with_a_game());
    store.commit({record::GameFinished{"g-1", "{}", 5000}, record::RoomClosed{"ABCD"}});
  }
  tamper(dir.db(), "DELETE FROM meta");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  CHECK_THROWS_AS(store.token_key(), StoreError);
}

TEST_CASE("store: a room set aside is kept, skipped on load, listed, and can be put back") {
  TempDir dir("gofish-store");
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    store.commit(a_room_with_a_game());
    store.commit({record::RoomCreated{"EFGH", "{}", 3000}});
    CHECK(store.set_aside_rooms().empty());
    store.set_aside("ABCD", "game g-1: the deck is torn", 7000);
  }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  auto rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].room == "EFGH");
  CHECK(store.set_aside_rooms() == std::vector<SetAsideRoom>{{"ABCD", 7000, "game g-1: the deck is torn"}});
  // Kept whole: its seats, game and decisions come back when put back.
  CHECK_FALSE(store.restore_set_aside("EFGH"));
  CHECK_FALSE(store.restore_set_aside("NOPE"));
  CHECK(store.restore_set_aside("ABCD"));
  CHECK_FALSE(store.restore_set_aside("ABCD"));
  CHECK(store.set_aside_rooms().empty());
  rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 2);
  CHECK(rooms[0].room == "ABCD");
  CHECK(rooms[0].seats.size() == 2);
  REQUIRE(rooms[0].game);
  CHECK(rooms[0].game->decisions.size() == 2);
}

TEST_CASE("store: the finished games of a room set aside outlive their retention") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  store.commit(a_room_with_a_game());
  store.commit({record::GameFinished{"g-1", R"({"winners":[0]})", 5000}});
  store.commit({record::RoomCreated{"EFGH", "{}", 3000}, record::GameStarted{"EFGH", 1, "g-2", "{}", 3000},
                record::GameFinished{"g-2", "{}", 5000}});
  store.set_aside("ABCD", "why", 6000);
  CHECK(store.prune_finished(10'000) == 1);
  CHECK(store.finished_transcript("g-1") == R"({"winners":[0]})");
  CHECK_FALSE(store.finished_transcript("g-2"));
}

TEST_CASE("store: a torn decision tail is cut back to the last whole decision") {
  TempDir dir("gofish-store");
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    store.commit(a_room_with_a_game());
    store.commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})"}});
  }
  SUBCASE("a payload that does not parse") {
    tamper(dir.db(), "UPDATE decisions SET decision = '{\"seat\":' WHERE seq = 1");
  }
  SUBCASE("a gap in the sequence") { tamper(dir.db(), "DELETE FROM decisions WHERE seq = 1"); }
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    const auto rooms = store.load_open_rooms();
    REQUIRE(rooms.size() == 1);
    CHECK(rooms[0].game->decisions == std::vector<std::string>{R"({"seat":0})"});
  }
  // The cut is written: the next decision follows the last whole one.
  SqliteStore store(dir.db(), SyncMode::kNormal);
  store.commit({record::DecisionAccepted{"g-1", 1, R"({"seat":1})"}});
  CHECK(store.load_open_rooms()[0].game->decisions.size() == 2);
}

TEST_CASE("store: truncate_decisions cuts a game back for the room layer") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  store.commit(a_room_with_a_game());
  store.truncate_decisions("g-1", 1);
  CHECK(store.load_open_rooms()[0].game->decisions.size() == 1);
}

TEST_CASE("store: a file that is not SQLite is refused with a clear message") {
  TempDir dir("gofish-store");
  {
    std::ofstream garbage(dir.db(), std::ios::binary);
    for (int i = 0; i < 4096; ++i) garbage << static_cast<char>('a' + i % 26);
  }
  try {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    FAIL("opened a garbage file");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    CHECK(message.find("not a usable SQLite database") != std::string::npos);
    CHECK(message.find("refusing to start") != std::string::npos);
  }
  // The file is left as it was for the operator to look at.
  CHECK(fs::file_size(dir.db()) == 4096);
}

TEST_CASE("store: a schema newer than this program is refused") {
  TempDir dir("gofish-store");
  { SqliteStore store(dir.db(), SyncMode::kNormal); }
  tamper(dir.db(), ("PRAGMA user_version=" + std::to_string(kSchemaVersion + 1)).c_str());
  try {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    FAIL("opened a newer schema");
  } catch (const StoreError& error) {
    CHECK(std::string(error.what()).find("newer than this server's") != std::string::npos);
  }
}

TEST_CASE("store: an empty file is a new database and gets the current schema") {
  TempDir dir("gofish-store");
  { std::ofstream empty(dir.db()); }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  CHECK(store.load_open_rooms().empty());
}

TEST_CASE("store writer: every submission is written before its callback runs, in batches") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  std::atomic<int> done{0};
  std::atomic<bool> all_written{true};
  {
    StoreWriter writer(store);
    writer.submit({record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, "g", "{}", 1}},
                  [&](bool written) {
                    all_written = all_written && written;
                    ++done;
                  });
    for (int seq = 0; seq < 200; ++seq) {
      writer.submit({record::DecisionAccepted{"g", seq, R"({"n":)" + std::to_string(seq) + "}"}}, [&](bool written) {
        all_written = all_written && written;
        ++done;
      });
    }
    writer.stop();
    CHECK(done == 201);
    CHECK(writer.batches() >= 1);
    CHECK(writer.batches() <= 201);
    // After stop, a submission is written at once on this thread.
    bool late = false;
    writer.submit({record::DecisionAccepted{"g", 200, "{}"}}, [&](bool written) { late = written; });
    CHECK(late);
  }
  CHECK(all_written);
  CHECK(store.load_open_rooms()[0].game->decisions.size() == 201);
}

TEST_CASE("store writer: finished games past their retention are deleted after a batch") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  store.commit({record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, "old", "{}", 1},
                record::GameFinished{"old", "{}", now_ms - 120'000}, record::GameStarted{"ROOM", 2, "new", "{}", 1},
                record::GameFinished{"new", "{}", now_ms}});
  StoreWriter writer(store, std::chrono::seconds(60), std::chrono::milliseconds(0));
  writer.submit({record::RoomSettingsChanged{"ROOM", "{}"}}, nullptr);
  writer.stop();
  CHECK_FALSE(store.finished_transcript("old"));
  CHECK(store.finished_transcript("new"));
}

TEST_CASE("store writer: an idle writer still deletes old finished games, once per period") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  store.commit({record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, "old", "{}", 1},
                record::GameFinished{"old", "{}", now_ms - 120'000}});
  StoreWriter writer(store, std::chrono::seconds(60), std::chrono::milliseconds(20));
  // Nothing is submitted: the writer wakes by itself.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (store.finished_transcript("old") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK_FALSE(store.finished_transcript("old"));
  CHECK(writer.batches() == 0);
}

TEST_CASE("store: a room's event version is kept and read back") {
  TempDir dir("gofish-store");
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    store.commit(a_room_with_a_game());
    store.commit({record::RoomVersion{"ABCD", 41}, record::RoomVersion{"ABCD", 42}});
  }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  const auto rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].v == 42);
}

// A database written by the first schema (as the previous release left it)
// is migrated in place: its rooms stay, with version 0.
TEST_CASE("store: a version 1 database is migrated to the current schema and keeps its rooms") {
  TempDir dir("gofish-store");
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(dir.db().string().c_str(), &db) == SQLITE_OK);
    const char* v1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE rooms(code TEXT PRIMARY KEY, settings TEXT NOT NULL, created_ms INTEGER NOT NULL);
CREATE TABLE seats(room TEXT NOT NULL, seat INTEGER NOT NULL, state TEXT NOT NULL, token_hash BLOB,
                   PRIMARY KEY(room, seat));
CREATE TABLE games(game_id TEXT PRIMARY KEY, room TEXT, game INTEGER NOT NULL, setup TEXT NOT NULL,
                   started_ms INTEGER NOT NULL, transcript TEXT, finished_ms INTEGER);
CREATE INDEX games_by_room ON games(room, game);
CREATE INDEX games_by_finish ON games(finished_ms) WHERE finished_ms IS NOT NULL;
CREATE TABLE decisions(game_id TEXT NOT NULL, seq INTEGER NOT NULL, decision TEXT NOT NULL,
                       PRIMARY KEY(game_id, seq));
INSERT INTO rooms VALUES('OLDR', '{"x":1}', 5);
INSERT INTO games VALUES('g-old', 'OLDR', 1, '{}', 6, NULL, NULL);
INSERT INTO decisions VALUES('g-old', 0, '{"seat":0}');
PRAGMA user_version=1;
)sql";
    REQUIRE(sqlite3_exec(db, v1, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  const auto rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].room == "OLDR");
  CHECK(rooms[0].v == 0);
  REQUIRE(rooms[0].game);
  CHECK(rooms[0].game->decisions.size() == 1);
  store.commit({record::RoomVersion{"OLDR", 7}});
  CHECK(store.load_open_rooms()[0].v == 7);
  CHECK(store.set_aside_rooms().empty());
  store.set_aside("OLDR", "why", 8);
  CHECK(store.load_open_rooms().empty());
}

TEST_CASE("store writer: a failed write is reported to its callback") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  StoreWriter writer(store);
  std::atomic<int> written_count{0};
  std::atomic<int> failed{0};
  auto count = [&](bool written) { (written ? written_count : failed) += 1; };
  writer.submit({record::RoomCreated{"ROOM", "{}", 1}}, count);
  writer.submit({record::RoomCreated{"ROOM", "{}", 1}}, count);  // the same code twice
  writer.submit({record::RoomCreated{"MOOR", "{}", 1}}, count);
  writer.stop();
  // Whether or not they shared a batch, only the bad submission is refused.
  CHECK(written_count == 2);
  CHECK(failed == 1);
  CHECK(store.load_open_rooms().size() == 2);
}

TEST_CASE("transcript api: only a finished game's transcript, by its id, the same 404 otherwise") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  const std::string id = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";  // token-shaped: 32 base64url characters
  store.commit({record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, id, "{}", 1}});
  const auto before = transcript_reply(store, "/api/games/" + id + "/transcript");
  CHECK(before.status == 404);
  CHECK(before.body.find("api/game_not_found") != std::string::npos);
  const auto unknown = transcript_reply(store, "/api/games/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB/transcript");
  CHECK(unknown.status == 404);
  CHECK(unknown.body == before.body);
  CHECK(transcript_reply(store, "/api/games/../transcript").status == 404);
  CHECK(transcript_reply(store, "/api/games/" + id).status == 404);
  store.commit({record::GameFinished{id, R"({"format":"gofish-transcript/1"})", 2}});
  const auto after = transcript_reply(store, "/api/games/" + id + "/transcript");
  CHECK(after.status == 200);
  CHECK(after.content_type == "application/json");
  CHECK(after.body == R"({"format":"gofish-transcript/1"})");
}

}  // namespace
}  // namespace gofish::server
