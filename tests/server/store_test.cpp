// The durable stores on their own: round trips, the grouped writer, retention,
// the token key, and each damaged-database outcome. Every case about a store
// runs against both: SqliteStore on a file, and PostgresStore on a database of
// its own in the throwaway PostgreSQL cluster (postgres_cluster.hpp). The
// PostgreSQL cases are named "<postgres>" or "postgres store: ..." and carry
// the ctest label cluster.
#include "server/store/store.hpp"

#include <doctest/doctest.h>
#include <libpq-fe.h>
#include <poll.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <variant>

#include "engine/random.hpp"
#include "engine/setup.hpp"
#include "engine/transcript.hpp"
#include "postgres_cluster.hpp"
#include "protocol/messages.hpp"
#include "protocol/room_records.hpp"
#include "protocol/rules_json.hpp"
#include "server/rooms/room_restore.hpp"
#include "server/rooms/transcript_api.hpp"
#include "server/store/postgres_store.hpp"
#include "server/store/sharded_writer.hpp"
#include "server/store/sqlite_store.hpp"
#include "temp_dir.hpp"

namespace gofish::server {
namespace {

using testing::PostgresDatabase;
using testing::TempDir;

namespace fs = std::filesystem;

// A whole game of classic for three, played with legal decisions drawn from
// `seed`: what a room writes of it (set-up, decisions), and the transcript
// document the transcript API serves for it.
struct PlayedGame {
  std::string setup;
  std::vector<std::string> decisions;
  std::string transcript;
};
PlayedGame a_played_game(std::uint64_t seed, const std::optional<protocol::DealFairness>& fairness = std::nullopt) {
  const engine::Rules rules = *engine::preset("classic");
  engine::Rng rng(seed);
  const auto deal = engine::prepare_deal(rules, 3, rng);
  auto game = std::get<engine::Game>(engine::Game::start(rules, 3, deal.deck, deal.dealer, deal.first));
  PlayedGame played;
  while (!game.over()) {
    const auto legal = game.legal(game.to_act());
    const engine::Decision decision = legal.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(legal.count()))));
    REQUIRE_FALSE(game.apply(decision));
    played.decisions.push_back(protocol::decision_to_json(decision).dump());
  }
  const std::vector<protocol::Player> players = {{"Ann", std::nullopt}, {"Bo", std::nullopt},
                                                 {"Cy", engine::BotLevel::kEasy}};
  const engine::Transcript whole = engine::make_transcript(game);
  engine::Transcript dealt = whole;
  dealt.actions.clear();
  dealt.books.clear();
  dealt.winners.clear();
  played.setup = protocol::setup_record(dealt, players, fairness);
  played.transcript = protocol::transcript_document(whole, players, fairness);
  return played;
}

std::vector<Record> a_room_with_a_game() {
  return {
      record::RoomCreated{"ABCD", R"({"preset":"authors"})", 1000},
      record::SeatTaken{"ABCD", 0, R"({"name":"Ann"})", std::string(16, '\x01')},
      record::SeatTaken{"ABCD", 1, R"({"bot":"easy"})", ""},
      record::GameStarted{"ABCD", 1, "g-1", R"({"deck":[]})", 2000},
      record::DecisionAccepted{"g-1", 0, R"({"seat":0})", std::nullopt},
      record::DecisionAccepted{"g-1", 1, R"({"seat":1})", std::nullopt},
  };
}

// Runs one statement straight on a SQLite file, as damage from outside would.
void tamper_file(const fs::path& file, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.string().c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

// The stores under test, each on a fresh database. open() opens (or opens
// again) the store on it; tamper() runs SQL straight on the database, as
// damage from outside would; bytes() spells a literal of hex bytes.
struct Sqlite {
  TempDir dir{"gofish-store"};
  std::unique_ptr<Store> open(MissingTokenKey missing_key = MissingTokenKey::kRefuse) const {
    return std::make_unique<SqliteStore>(dir.db(), SyncMode::kNormal, missing_key);
  }
  void tamper(const std::string& sql) const { tamper_file(dir.db(), sql.c_str()); }
  static std::string bytes(const std::string& hex) { return "x'" + hex + "'"; }
  void set_schema_version(int version) const { tamper("PRAGMA user_version=" + std::to_string(version)); }
  static constexpr int kVersion = kSchemaVersion;
};

struct Postgres {
  PostgresDatabase db;
  std::unique_ptr<Store> open(MissingTokenKey missing_key = MissingTokenKey::kRefuse) const {
    return std::make_unique<PostgresStore>(db.url(), missing_key);
  }
  void tamper(const std::string& sql) const { db.sql(sql); }
  static std::string bytes(const std::string& hex) { return "'\\x" + hex + "'::bytea"; }
  void set_schema_version(int version) const {
    tamper("UPDATE meta SET value = convert_to('" + std::to_string(version) +
           "', 'UTF8') WHERE key = 'schema_version'");
  }
  static constexpr int kVersion = kPostgresSchemaVersion;
};

}  // namespace
}  // namespace gofish::server

TYPE_TO_STRING_AS("sqlite", gofish::server::Sqlite);
TYPE_TO_STRING_AS("postgres", gofish::server::Postgres);

namespace gofish::server {
namespace {

#define GOFISH_STORES Sqlite, Postgres

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST_CASE_TEMPLATE("store: rooms, seats, games and decisions come back after reopening", Kind, GOFISH_STORES) {
  Kind kind;
  kind.open()->commit(a_room_with_a_game());
  const auto store = kind.open();
  const auto rooms = store->load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].room == "ABCD");
  CHECK(rooms[0].settings == R"({"preset":"authors"})");
  CHECK(rooms[0].created_ms == 1000);
  REQUIRE(rooms[0].seats.size() == 2);
  CHECK(rooms[0].seats[0].seat == 0);
  CHECK(rooms[0].seats[0].state == R"({"name":"Ann"})");
  CHECK(rooms[0].seats[0].token_hash == std::string(16, '\x01'));
  CHECK(rooms[0].seats[1].seat == 1);
  CHECK(rooms[0].seats[1].token_hash.empty());
  REQUIRE(rooms[0].game);
  CHECK(rooms[0].game->game == 1);
  CHECK(rooms[0].game->game_id == "g-1");
  CHECK(rooms[0].game->setup == R"({"deck":[]})");
  CHECK(rooms[0].game->started_ms == 2000);
  CHECK(rooms[0].game->decisions == std::vector<std::string>{R"({"seat":0})", R"({"seat":1})"});
  CHECK_FALSE(rooms[0].game->finished);
  CHECK_FALSE(rooms[0].game->transcript);
  CHECK_FALSE(store->finished_game("g-1"));
}

// Token hashes are raw bytes: every byte value, NUL and invalid UTF-8
// among them, comes back as it went in.
// Today's deal: each day's games counted by sets, nothing else, kept
// across reopening; a count returns the day's tally with it.
TEST_CASE_TEMPLATE("store: a room's next deal is kept whole as written last, and cleared by an empty one", Kind,
                   GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    store->commit({record::RoomCreated{"ABCD", "{}", 1000}, record::NextDealSaved{"ABCD", R"({"seed":"aa"})"},
                   record::RoomCreated{"EFGH", "{}", 1001}});
    store->commit({record::NextDealSaved{"ABCD", R"({"seed":"aa","contributions":["bb"]})"}});
  }
  {
    const auto store = kind.open();
    const auto rooms = store->load_open_rooms();
    REQUIRE(rooms.size() == 2);
    CHECK(rooms[0].next_deal == R"({"seed":"aa","contributions":["bb"]})");
    CHECK(rooms[1].next_deal.empty());  // a room that never wrote one
    REQUIRE(store->load_room("ABCD"));
    CHECK(store->load_room("ABCD")->next_deal == rooms[0].next_deal);
    store->commit({record::NextDealSaved{"ABCD", ""}});
  }
  const auto store = kind.open();
  CHECK(store->load_room("ABCD").value().next_deal.empty());
}

TEST_CASE_TEMPLATE("store: the day's tally of today's deal counts games by sets, day by day, and is kept", Kind,
                   GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    CHECK(store->daily_tally("2026-11-30").empty());
    CHECK(store->count_daily_game("2026-11-30", 5, "", 0) == DailyTally{{5, 1}});
    CHECK(store->count_daily_game("2026-11-30", 2, "", 0) == DailyTally{{2, 1}, {5, 1}});
    CHECK(store->count_daily_game("2026-11-30", 5, "", 0) == DailyTally{{2, 1}, {5, 2}});
    CHECK(store->count_daily_game("2026-12-01", 13, "", 0) == DailyTally{{13, 1}});
  }
  const auto store = kind.open();
  CHECK(store->daily_tally("2026-11-30") == DailyTally{{2, 1}, {5, 2}});
  CHECK(store->daily_tally("2026-12-01") == DailyTally{{13, 1}});
  CHECK(store->daily_tally("2026-11-29").empty());
}

// A day's game is counted once with its room: the mark goes in the count's
// transaction, a second count of the same game (after a restart restored its
// room) changes nothing, and the room reads the mark and the kept note back.
TEST_CASE_TEMPLATE("store: today's deal's game is counted once, and its room keeps the mark and the note", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const std::string note = R"({"game":1,"result":{"best":6},"seat":0,"token":"00"})";
  {
    const auto store = kind.open();
    store->commit({record::RoomCreated{"ABCD", "{}", 1000}, record::RoomCreated{"EFGH", "{}", 1001}});
    CHECK(store->count_daily_game("2026-11-30", 5, "ABCD", 1) == DailyTally{{5, 1}});
    CHECK(store->count_daily_game("2026-11-30", 5, "ABCD", 1) == std::nullopt);  // counted already
    CHECK(store->count_daily_game("2026-11-30", 3, "GONE", 1) == std::nullopt);  // no such room
    store->commit({record::DailyNoteSaved{"ABCD", note}});
  }
  {
    const auto store = kind.open();
    CHECK(store->count_daily_game("2026-11-30", 5, "ABCD", 1) == std::nullopt);
    CHECK(store->daily_tally("2026-11-30") == DailyTally{{5, 1}});
    const auto rooms = store->load_open_rooms();
    REQUIRE(rooms.size() == 2);
    CHECK(rooms[0].daily_counted == 1);
    CHECK(rooms[0].daily_note == note);
    CHECK(rooms[1].daily_counted == 0);  // never counted
    CHECK(rooms[1].daily_note.empty());
    const auto one = store->load_room("ABCD");
    REQUIRE(one);
    CHECK(one->daily_counted == 1);
    CHECK(one->daily_note == note);
    store->commit({record::DailyNoteSaved{"ABCD", ""}});  // a rematch began
  }
  const auto store = kind.open();
  CHECK(store->load_room("ABCD").value().daily_note.empty());
  CHECK(store->load_room("ABCD").value().daily_counted == 1);
}

// Before the mark was kept, a day's game was counted without one: the
// migration marks every room whose first game is over, so none counts twice.
TEST_CASE_TEMPLATE("store: a room whose first game was over before the mark was kept is marked counted", Kind,
                   GOFISH_STORES) {
  Kind kind;
  kind.open()->commit({record::RoomCreated{"ABCD", "{}", 1}, record::GameStarted{"ABCD", 1, "over", "{}", 1},
                       record::GameFinished{"over", 2}, record::RoomCreated{"EFGH", "{}", 3},
                       record::GameStarted{"EFGH", 1, "playing", "{}", 3}});
  kind.tamper("ALTER TABLE rooms DROP COLUMN daily_counted; ALTER TABLE rooms DROP COLUMN daily_note;");
  kind.set_schema_version(Kind::kVersion - 1);
  const auto store = kind.open();
  CHECK(store->load_room("ABCD").value().daily_counted == 1);
  CHECK(store->load_room("EFGH").value().daily_counted == 0);
  CHECK(store->count_daily_game("2026-11-30", 4, "ABCD", 1) == std::nullopt);
  CHECK(store->count_daily_game("2026-11-30", 4, "EFGH", 1) == DailyTally{{4, 1}});
}

TEST_CASE("store: without storage the day's tally is kept in memory") {
  NullStore store;
  CHECK(store.count_daily_game("2026-11-30", 4, "", 0) == DailyTally{{4, 1}});
  CHECK(store.count_daily_game("2026-11-30", 4, "", 0) == DailyTally{{4, 2}});
  CHECK(store.daily_tally("2026-11-30") == DailyTally{{4, 2}});
  CHECK(store.daily_tally("2026-12-01").empty());
}

TEST_CASE_TEMPLATE("store: a token hash of any bytes comes back unchanged", Kind, GOFISH_STORES) {
  Kind kind;
  std::string every_byte;
  for (int b = 255; b >= 0; --b) every_byte.push_back(static_cast<char>(b));
  const std::string nul_first = std::string("\0\xff\x80", 3) + std::string(13, '\0');
  kind.open()->commit({record::RoomCreated{"ABCD", "{}", 1}, record::SeatTaken{"ABCD", 0, "{}", every_byte},
                       record::SeatTaken{"ABCD", 1, "{}", nul_first}});
  auto rooms = kind.open()->load_open_rooms();
  REQUIRE(rooms.size() == 1);
  REQUIRE(rooms[0].seats.size() == 2);
  CHECK(rooms[0].seats[0].token_hash == every_byte);
  CHECK(rooms[0].seats[1].token_hash == nul_first);
  // A seat taken again replaces its holder and hash.
  kind.open()->commit({record::SeatTaken{"ABCD", 0, R"({"name":"Bo"})", ""}, record::SeatFreed{"ABCD", 1}});
  rooms = kind.open()->load_open_rooms();
  REQUIRE(rooms[0].seats.size() == 1);
  CHECK(rooms[0].seats[0].state == R"({"name":"Bo"})");
  CHECK(rooms[0].seats[0].token_hash.empty());
}

TEST_CASE_TEMPLATE("store: a transcript is served only once its game is over, and kept until pruned", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());
  CHECK_FALSE(store->finished_game("g-1"));
  store->commit({record::GameFinished{"g-1", 5000}});
  REQUIRE(store->finished_game("g-1"));
  CHECK(store->finished_game("g-1")->decisions == std::vector<std::string>{R"({"seat":0})", R"({"seat":1})"});
  CHECK(store->load_open_rooms()[0].game->finished);
  // The room closes: its finished game stays, the code may be used again.
  store->commit({record::RoomClosed{"ABCD"}, record::RoomCreated{"ABCD", "{}", 6000}});
  CHECK(store->finished_game("g-1"));
  CHECK(store->load_open_rooms().size() == 1);
  CHECK_FALSE(store->load_open_rooms()[0].game);
  CHECK(store->prune_finished(5000) == 0);
  CHECK(store->prune_finished(5001) == 1);
  CHECK_FALSE(store->finished_game("g-1"));
  CHECK_FALSE(store->finished_game("no-such-game"));
}

// A finished game is its set-up and decisions: the store gives back all of
// them, and no other game's, though other rooms' decisions were written
// between and after them (SQLite appends every game's decisions to one
// table); the transcript API plays them again into the transcript.
TEST_CASE_TEMPLATE("store: a finished game comes back whole, and its transcript is played again from it", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const PlayedGame played = a_played_game(7);
  const auto store = kind.open();
  store->commit({record::RoomCreated{"AAAA", "{}", 1}, record::RoomCreated{"BBBB", "{}", 2},
                 record::GameStarted{"BBBB", 1, "b-1", "{}", 3}, record::DecisionAccepted{"b-1", 0, "{}", 1},
                 record::GameStarted{"AAAA", 1, "a-1", played.setup, 4}});
  std::int64_t b_seq = 1;
  for (std::size_t i = 0; i < played.decisions.size(); ++i) {
    std::vector<Record> batch{record::DecisionAccepted{"a-1", static_cast<std::int64_t>(i), played.decisions[i], 1}};
    if (i % 3 == 0) batch.push_back(record::DecisionAccepted{"b-1", b_seq++, "{}", std::nullopt});
    store->commit(batch);
  }
  CHECK_FALSE(store->finished_game("a-1"));
  store->commit({record::GameFinished{"a-1", 9}, record::DecisionAccepted{"b-1", b_seq++, "{}", std::nullopt}});
  store->commit({record::GameStarted{"AAAA", 2, "a-2", "{}", 10}, record::DecisionAccepted{"a-2", 0, "{}", 2},
                 record::DecisionAccepted{"b-1", b_seq++, "{}", std::nullopt}});
  const auto game = kind.open()->finished_game("a-1");
  REQUIRE(game);
  CHECK(game->finished);
  CHECK(game->game_id == "a-1");
  CHECK(game->game == 1);
  CHECK(game->setup == played.setup);
  CHECK(game->started_ms == 4);
  CHECK(game->decisions == played.decisions);
  CHECK_FALSE(game->transcript);
  CHECK(finished_transcript(*game) == played.transcript);
  // While game 2 is played, game 1 is the room's latest finished game, whose
  // transcript a room rebuilt now still serves (RestoredRoom::last_finished).
  CHECK(kind.open()->latest_finished_game("AAAA") == std::optional<std::string>("a-1"));
  CHECK_FALSE(kind.open()->latest_finished_game("BBBB"));
  const auto served = server::finished_game(*game);
  REQUIRE(served);
  CHECK(served->number == 1);
  CHECK(protocol::transcript_document(served->transcript, served->players) == played.transcript);
  // A transcript an older server stored is served as it was.
  kind.tamper("UPDATE games SET transcript = '{\"format\":\"gofish-transcript/1\"}' WHERE game_id = 'a-1'");
  CHECK(finished_transcript(*kind.open()->finished_game("a-1")) == R"({"format":"gofish-transcript/1"})");
  // Decisions that do not finish the game are named, not served.
  StoredGame cut = *game;
  cut.decisions.pop_back();
  CHECK_THROWS_WITH_AS(finished_transcript(cut), doctest::Contains("game a-1: its stored decisions do not finish it"),
                       StoreError);
}

// A room closing takes its unfinished game and that game's decisions with it.
TEST_CASE_TEMPLATE("store: a room closed mid-game leaves nothing behind", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());
  store->commit({record::RoomClosed{"ABCD"}});
  CHECK(store->load_open_rooms().empty());
  CHECK(store->prune_finished(std::numeric_limits<std::int64_t>::max()) == 0);
  // The same code and game id may come again, with no old decision in the way.
  store->commit(a_room_with_a_game());
  const auto rooms = store->load_open_rooms();
  REQUIRE(rooms.size() == 1);
  REQUIRE(rooms[0].game);
  CHECK(rooms[0].game->decisions.size() == 2);
}

TEST_CASE_TEMPLATE("store: a failed batch writes nothing", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());
  // A duplicate decision number fails the whole batch.
  CHECK_THROWS(store->commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})", std::nullopt},
                              record::DecisionAccepted{"g-1", 1, R"({"seat":0})", std::nullopt}}));
  CHECK(store->load_open_rooms()[0].game->decisions.size() == 2);
  // And the store carries on.
  store->commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})", std::nullopt}});
  CHECK(store->load_open_rooms()[0].game->decisions.size() == 3);
}

// A writer's batch holds many rooms' records, interleaved; PostgresStore
// runs each kind of the usual ones as one statement. Whatever the store
// does with them, each room and game reads back as it was written: a game
// finished and the next dealt in one batch, a room's version written twice
// (the last counts), and a room created and closed around them.
TEST_CASE_TEMPLATE("store: many rooms' records in one batch read back room by room", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit({record::RoomCreated{"AAAA", "{}", 1}, record::RoomCreated{"BBBB", "{}", 2},
                 record::RoomCreated{"DDDD", "{}", 4}, record::GameStarted{"AAAA", 1, "a-1", "{}", 10},
                 record::GameStarted{"DDDD", 1, "d-1", "{}", 12}});
  store->commit({
      record::GameStarted{"BBBB", 1, "b-1", R"({"b":1})", 11},
      record::RoomVersion{"BBBB", 1},
      record::GameFinished{"d-1", 19},
      record::DecisionAccepted{"a-1", 0, R"({"a":0})", std::nullopt},
      record::DecisionAccepted{"b-1", 0, R"({"b":0})", 4},
      record::RoomVersion{"AAAA", 5},
      record::DecisionAccepted{"a-1", 1, R"({"a":1})", std::nullopt},
      record::GameFinished{"a-1", 20},
      record::GameStarted{"AAAA", 2, "a-2", R"({"a":2})", 21},
      record::RoomVersion{"AAAA", 7},
      record::DecisionAccepted{"a-2", 0, R"({"a2":0})", std::nullopt},
      record::RoomCreated{"CCCC", "{}", 3},
      record::RoomVersion{"CCCC", 2},
      record::DecisionAccepted{"b-1", 1, R"({"b":1})", 6},
      record::RoomClosed{"CCCC"},
      record::RoomVersion{"BBBB", 3},
  });
  const auto rooms = kind.open()->load_open_rooms();
  REQUIRE(rooms.size() == 3);
  CHECK(rooms[0].room == "AAAA");
  CHECK(rooms[0].v == 7);
  REQUIRE(rooms[0].game);
  CHECK(rooms[0].game->game_id == "a-2");
  CHECK(rooms[0].game->setup == R"({"a":2})");
  CHECK(rooms[0].game->decisions == std::vector<std::string>{R"({"a2":0})"});
  CHECK(rooms[1].room == "BBBB");
  CHECK(rooms[1].v == 6);
  REQUIRE(rooms[1].game);
  CHECK(rooms[1].game->decisions == std::vector<std::string>{R"({"b":0})", R"({"b":1})"});
  CHECK(rooms[2].room == "DDDD");
  CHECK(store->finished_game("a-1"));
  CHECK(store->finished_game("d-1"));
  CHECK_FALSE(store->finished_game("b-1"));
}

// A busy writer's batch: thousands of statements in one transaction (for
// PostgreSQL, one pipeline whose replies outgrow the socket buffers).
TEST_CASE_TEMPLATE("store: a batch of thousands of records commits whole, or not at all", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());
  std::vector<Record> batch;
  for (int seq = 2; seq < 20'002; ++seq) {
    batch.push_back(record::DecisionAccepted{"g-1", seq, R"({"seat":)" + std::to_string(seq % 2) + "}", std::nullopt});
    if (seq % 1000 == 0) batch.push_back(record::RoomVersion{"ABCD", seq});
  }
  auto refused = batch;
  refused.push_back(record::DecisionAccepted{"g-1", 5, "{}", std::nullopt});  // already in the batch
  CHECK_THROWS_AS(store->commit(refused), StoreError);
  CHECK(store->load_open_rooms()[0].game->decisions.size() == 2);
  store->commit(batch);
  const auto rooms = store->load_open_rooms();
  CHECK(rooms[0].game->decisions.size() == 20'002);
  CHECK(rooms[0].v == 20'000);
}

TEST_CASE_TEMPLATE("store: the token key is made once and survives reopening", Kind, GOFISH_STORES) {
  Kind kind;
  std::array<std::uint64_t, 4> key{};
  {
    const auto store = kind.open();
    key = store->token_key();
    CHECK(store->token_key() == key);
  }
  CHECK(kind.open()->token_key() == key);
  CHECK(NullStore().token_key() != key);
}

// A used database (rooms or games) whose key is gone would otherwise get a
// new key without a word, and no stored seat token would resume its seat.
TEST_CASE_TEMPLATE("store: a used database whose token key is missing or the wrong size refuses to give a key", Kind,
                   GOFISH_STORES) {
  Kind kind;
  std::array<std::uint64_t, 4> key{};
  {
    const auto store = kind.open();
    key = store->token_key();
    store->commit(a_room_with_a_game());
  }
  kind.tamper("DELETE FROM meta WHERE key = 'token_key'");
  try {
    kind.open()->token_key();
    FAIL("a missing key of a used database gave a key");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    CHECK(message.find("meta.token_key) is missing") != std::string::npos);
    CHECK(message.find("refusing to start") != std::string::npos);
    CHECK(message.find("backup") != std::string::npos);
    CHECK(message.find("--new-token-key") != std::string::npos);
  }
  kind.tamper("INSERT INTO meta(key, value) VALUES('token_key', " + Kind::bytes("0102030405") + ")");
  try {
    kind.open()->token_key();
    FAIL("a 5-byte key of a used database gave a key");
  } catch (const StoreError& error) {
    CHECK(std::string(error.what()).find("has 5 bytes instead of 32") != std::string::npos);
  }
  // Asked for, a new key is made and kept; the old one is not coming back.
  const auto made = kind.open(MissingTokenKey::kMakeNew)->token_key();
  CHECK(made != key);
  CHECK(kind.open()->token_key() == made);
}

// Only finished games left, detached from their closed rooms, still make a
// database used: it is not brand new.
TEST_CASE_TEMPLATE("store: a database holding only finished games also needs its token key", Kind, GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    store->token_key();
    store->commit(a_room_with_a_game());
    store->commit({record::GameFinished{"g-1", 5000}, record::RoomClosed{"ABCD"}});
    CHECK(store->load_open_rooms().empty());
  }
  kind.tamper("DELETE FROM meta WHERE key = 'token_key'");
  CHECK_THROWS_AS(kind.open()->token_key(), StoreError);
}

TEST_CASE_TEMPLATE("store: a room set aside is kept, skipped on load, listed, and can be put back", Kind,
                   GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    store->commit(a_room_with_a_game());
    store->commit({record::RoomCreated{"EFGH", "{}", 3000}});
    CHECK(store->set_aside_rooms().empty());
    store->set_aside("ABCD", "game g-1: the deck is torn", 7000);
  }
  const auto store = kind.open();
  auto rooms = store->load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].room == "EFGH");
  CHECK(store->set_aside_rooms() == std::vector<SetAsideRoom>{{"ABCD", 7000, "game g-1: the deck is torn"}});
  // Kept whole: its seats, game and decisions come back when put back.
  CHECK_FALSE(store->restore_set_aside("EFGH"));
  CHECK_FALSE(store->restore_set_aside("NOPE"));
  CHECK(store->restore_set_aside("ABCD"));
  CHECK_FALSE(store->restore_set_aside("ABCD"));
  CHECK(store->set_aside_rooms().empty());
  rooms = store->load_open_rooms();
  REQUIRE(rooms.size() == 2);
  CHECK(rooms[0].room == "ABCD");
  CHECK(rooms[0].seats.size() == 2);
  REQUIRE(rooms[0].game);
  CHECK(rooms[0].game->decisions.size() == 2);
}

// Oldest first, then by code byte by byte (whatever PostgreSQL's collation).
TEST_CASE_TEMPLATE("store: rooms load in the order they were made, set-aside rooms in the order they were set aside",
                   Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit({record::RoomCreated{"b", "{}", 5}, record::RoomCreated{"B", "{}", 5},
                 record::RoomCreated{"A", "{}", 9}, record::RoomCreated{"Z", "{}", 1}});
  std::vector<std::string> codes;
  for (const auto& room : store->load_open_rooms()) codes.push_back(room.room);
  CHECK(codes == std::vector<std::string>{"Z", "B", "b", "A"});
  store->set_aside("A", "one", 2);
  store->set_aside("b", "two", 1);
  store->set_aside("B", "three", 1);
  CHECK(store->set_aside_rooms() == std::vector<SetAsideRoom>{{"B", 1, "three"}, {"b", 1, "two"}, {"A", 2, "one"}});
}

TEST_CASE_TEMPLATE("store: waiting_rooms gives open rooms with no game, newest first, with their seats, at most the "
                   "limit", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());  // ABCD: a game, so not waiting
  store->commit({record::RoomCreated{"OLD", "{}", 10}, record::RoomCreated{"NEW", R"({"listed":true})", 30},
                 record::RoomCreated{"MID", "{}", 20}, record::RoomCreated{"ASIDE", "{}", 40},
                 record::RoomCreated{"SHUT", "{}", 50},
                 record::SeatTaken{"NEW", 0, R"({"name":"Ann"})", std::string(16, '\x02')},
                 record::SeatTaken{"NEW", 2, R"({"bot":"easy"})", ""}});
  store->commit({record::RoomClosed{"SHUT"}});
  store->set_aside("ASIDE", "torn", 1);
  auto rooms = store->waiting_rooms(10);
  std::vector<std::string> codes;
  for (const auto& room : rooms) codes.push_back(room.room);
  CHECK(codes == std::vector<std::string>{"NEW", "MID", "OLD"});
  REQUIRE(rooms.size() == 3);
  CHECK(rooms[0].settings == R"({"listed":true})");
  CHECK(rooms[0].created_ms == 30);
  REQUIRE(rooms[0].seats.size() == 2);
  CHECK(rooms[0].seats[0].state == R"({"name":"Ann"})");
  CHECK(rooms[0].seats[1].seat == 2);
  CHECK_FALSE(rooms[0].game);
  CHECK(store->waiting_rooms(2).size() == 2);
  // Once a game is dealt in it, a room is no longer waiting.
  store->commit({record::GameStarted{"NEW", 1, "g-new", R"({"deck":[]})", 60}});
  codes.clear();
  for (const auto& room : store->waiting_rooms(10)) codes.push_back(room.room);
  CHECK(codes == std::vector<std::string>{"MID", "OLD"});
}

TEST_CASE_TEMPLATE("store: the finished games of a room set aside outlive their retention", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());
  store->commit({record::GameFinished{"g-1", 5000}});
  store->commit({record::RoomCreated{"EFGH", "{}", 3000}, record::GameStarted{"EFGH", 1, "g-2", "{}", 3000},
                 record::GameFinished{"g-2", 5000}});
  store->set_aside("ABCD", "why", 6000);
  CHECK(store->prune_finished(10'000) == 1);
  CHECK(store->finished_game("g-1"));
  CHECK_FALSE(store->finished_game("g-2"));
}

TEST_CASE_TEMPLATE("store: a torn decision tail is cut back to the last whole decision", Kind, GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    store->commit(a_room_with_a_game());
    store->commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})", std::nullopt}});
  }
  SUBCASE("a payload that does not parse") {
    kind.tamper("UPDATE decisions SET decision = '{\"seat\":' WHERE seq = 1");
  }
  SUBCASE("a gap in the sequence") { kind.tamper("DELETE FROM decisions WHERE seq = 1"); }
  {
    const auto rooms = kind.open()->load_open_rooms();
    REQUIRE(rooms.size() == 1);
    CHECK(rooms[0].game->decisions == std::vector<std::string>{R"({"seat":0})"});
  }
  // The cut is written: the next decision follows the last whole one.
  const auto store = kind.open();
  store->commit({record::DecisionAccepted{"g-1", 1, R"({"seat":1})", std::nullopt}});
  CHECK(store->load_open_rooms()[0].game->decisions.size() == 2);
}

TEST_CASE_TEMPLATE("store: truncate_decisions cuts a game back for the room layer", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());
  store->truncate_decisions("g-1", 1);
  CHECK(store->load_open_rooms()[0].game->decisions.size() == 1);
}

TEST_CASE_TEMPLATE("store: a schema newer than this program is refused", Kind, GOFISH_STORES) {
  Kind kind;
  kind.open();
  kind.set_schema_version(Kind::kVersion + 1);
  try {
    kind.open();
    FAIL("opened a newer schema");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    CHECK(message.find("schema version " + std::to_string(Kind::kVersion + 1) + ", newer than this server's " +
                       std::to_string(Kind::kVersion)) != std::string::npos);
    CHECK(message.find("refusing to start") != std::string::npos);
  }
}

TEST_CASE_TEMPLATE("store: a room's event version is kept and read back", Kind, GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    store->commit(a_room_with_a_game());
    store->commit({record::RoomVersion{"ABCD", 41}, record::RoomVersion{"ABCD", 42}});
  }
  const auto rooms = kind.open()->load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].v == 42);
}

// The usual action writes its room's version in its decision's row: the room
// comes back at the larger of that and the room's own version, and cutting
// decisions back keeps the versions they carried (clients have seen them).
TEST_CASE_TEMPLATE("store: a decision's version is the room's version, and survives a cut", Kind, GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    store->commit(a_room_with_a_game());
    store->commit({record::RoomVersion{"ABCD", 5}});
    store->commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})", 9}});
  }
  CHECK(kind.open()->load_open_rooms()[0].v == 9);
  {
    const auto store = kind.open();
    store->commit({record::RoomVersion{"ABCD", 12}});
    CHECK(store->load_open_rooms()[0].v == 12);
    store->commit({record::DecisionAccepted{"g-1", 3, R"({"seat":1})", 20}});
    store->truncate_decisions("g-1", 3);
  }
  const auto rooms = kind.open()->load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].game->decisions.size() == 3);
  CHECK(rooms[0].v == 20);
}

// Decisions keep their order per game when many games write in turn, and a
// decision written twice fails its batch (SQLite checks the sequence, as the
// unique key it no longer has once did).
TEST_CASE_TEMPLATE("store: interleaved games keep their decisions apart and in order", Kind, GOFISH_STORES) {
  Kind kind;
  {
    const auto store = kind.open();
    for (const char* code : {"ROOMA", "ROOMB", "ROOMC"}) {
      store->commit(
          {record::RoomCreated{code, "{}", 1}, record::GameStarted{code, 1, std::string("g-") + code, "{}", 2}});
    }
    for (int seq = 0; seq < 30; ++seq) {
      std::vector<Record> batch;
      for (const char* code : {"ROOMC", "ROOMA", "ROOMB"}) {
        batch.push_back(
            record::DecisionAccepted{std::string("g-") + code, seq, R"({"n":)" + std::to_string(seq) + "}", seq + 1});
      }
      store->commit(batch);
    }
    CHECK_THROWS(store->commit({record::DecisionAccepted{"g-ROOMA", 29, "{}", std::nullopt}}));
  }
  const auto store = kind.open();
  CHECK_THROWS(store->commit({record::DecisionAccepted{"g-ROOMB", 3, "{}", std::nullopt}}));
  store->commit({record::DecisionAccepted{"g-ROOMB", 30, R"({"n":30})", std::nullopt}});
  const auto rooms = store->load_open_rooms();
  REQUIRE(rooms.size() == 3);
  for (const auto& room : rooms) {
    REQUIRE(room.game);
    const std::size_t count = room.room == "ROOMB" ? 31 : 30;
    REQUIRE(room.game->decisions.size() == count);
    for (std::size_t seq = 0; seq < count; ++seq) {
      CHECK(room.game->decisions[seq] == R"({"n":)" + std::to_string(seq) + "}");
    }
    CHECK(room.v == 30);
  }
}

TEST_CASE_TEMPLATE("store: one room loads by its code and is found by a seat's token hash, unless closed or set aside",
                   Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit(a_room_with_a_game());
  const std::string other_token(16, '\x07');
  store->commit({record::RoomCreated{"EFGH", "{}", 3000}, record::SeatTaken{"EFGH", 0, R"({"name":"Bo"})", other_token}});
  const auto room = store->load_room("ABCD");
  REQUIRE(room);
  CHECK(room->settings == R"({"preset":"authors"})");
  REQUIRE(room->seats.size() == 2);
  CHECK(room->seats[0].token_hash == std::string(16, '\x01'));
  REQUIRE(room->game);
  CHECK(room->game->game_id == "g-1");
  CHECK(room->game->decisions == std::vector<std::string>{R"({"seat":0})", R"({"seat":1})"});
  const auto other = store->load_room("EFGH");
  REQUIRE(other);
  CHECK_FALSE(other->game);
  CHECK_FALSE(store->load_room("ZZZZ"));
  CHECK(store->room_of_token(std::string(16, '\x01')) == std::optional<std::string>("ABCD"));
  CHECK(store->room_of_token(other_token) == std::optional<std::string>("EFGH"));
  CHECK_FALSE(store->room_of_token(std::string(16, '\x02')));
  CHECK_FALSE(store->room_of_token(""));  // a bot's seat has no token
  store->set_aside("ABCD", "a test", 1);
  CHECK_FALSE(store->load_room("ABCD"));
  CHECK_FALSE(store->room_of_token(std::string(16, '\x01')));
  store->commit({record::RoomClosed{"EFGH"}});
  CHECK_FALSE(store->load_room("EFGH"));
  CHECK_FALSE(store->room_of_token(other_token));
}

TEST_CASE_TEMPLATE("store writer: every submission is written before its callback runs, in batches", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  std::atomic<int> done{0};
  std::atomic<bool> all_written{true};
  {
    StoreWriter writer(*store);
    writer.submit("ROOM", {record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, "g", "{}", 1}},
                  [&](WriteOutcome outcome) {
 const bool written = outcome == WriteOutcome::kWritten;
                    all_written = all_written && written;
                    ++done;
                  });
    for (int seq = 0; seq < 200; ++seq) {
      writer.submit("ROOM", {record::DecisionAccepted{"g", seq, R"({"n":)" + std::to_string(seq) + "}", std::nullopt}},
                    [&](WriteOutcome outcome) {
 const bool written = outcome == WriteOutcome::kWritten;
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
    writer.submit("ROOM", {record::DecisionAccepted{"g", 200, "{}", std::nullopt}},
                  [&](WriteOutcome outcome) {
 const bool written = outcome == WriteOutcome::kWritten; late = written; });
    CHECK(late);
  }
  CHECK(all_written);
  CHECK(store->load_open_rooms()[0].game->decisions.size() == 201);
}

// Group commit waits for other rooms' records, but not once the I/O threads
// have nothing left to run (Server::on_idle calls flush_now): every room that
// had work has submitted it, and waiting on only delays the answers.
TEST_CASE("store writer: flush_now commits a batch waiting out its delay, and only that batch") {
  Sqlite kind;
  const auto store = kind.open();
  StoreWriter writer(*store);
  writer.commit_delay(std::chrono::seconds(60));
  const auto submit = [&](Record record) {
    auto written = std::make_shared<std::promise<bool>>();
    auto future = written->get_future();
    writer.submit("ROOM", {std::move(record)}, [written](WriteOutcome outcome) {
 const bool ok = outcome == WriteOutcome::kWritten; written->set_value(ok); });
    return future;
  };
  auto first = submit(record::RoomCreated{"ROOM", "{}", 1});
  CHECK(first.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);  // waiting out its delay
  writer.flush_now();
  REQUIRE(first.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(first.get());
  // Asked with nothing queued, it does not carry over to the next batch.
  writer.flush_now();
  auto second = submit(record::RoomVersion{"ROOM", 2});
  CHECK(second.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  writer.flush_now();
  REQUIRE(second.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(second.get());
  CHECK(writer.batches() == 2);
  CHECK(store->load_open_rooms().at(0).v == 2);
}

// The server hands each batch's callbacks to its I/O threads in one piece.
// Every callback runs once, in submission order, inside a handed-over
// piece and never on the writer thread; once stop() is called they run
// where the writer is, since the I/O threads may be gone.
TEST_CASE("store writer: a batch's callbacks are handed over in one piece, in order") {
  Sqlite kind;
  const auto store = kind.open();
  std::mutex mutex;
  std::vector<StoreWriter::Callbacks> handed;
  std::vector<int> order;
  int outside = 0;
  bool running_handed = false;
  {
    StoreWriter writer(*store);
    writer.run_callbacks_with([&](StoreWriter::Callbacks callbacks) {
      std::lock_guard lock(mutex);
      handed.push_back(std::move(callbacks));
    });
    const auto note = [&](int n) {
      return [&, n](WriteOutcome outcome) {
 const bool written = outcome == WriteOutcome::kWritten;
        CHECK(written);
        order.push_back(n);  // under `mutex`: the pieces run below, with it held
        if (!running_handed) ++outside;
      };
    };
    writer.submit("ROOM", {record::RoomCreated{"ROOM", "{}", 1}}, note(0));
    for (int n = 1; n <= 100; ++n) writer.submit("ROOM", {record::RoomVersion{"ROOM", n}}, note(n));
    // Wait until every submission is committed and its batch handed over.
    const auto all_handed = [&] {
      const auto rooms = store->load_open_rooms();
      std::lock_guard lock(mutex);
      return rooms.size() == 1 && rooms[0].v == 100 && handed.size() == writer.batches();
    };
    for (int i = 0; i < 2000 && !all_handed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    {
      std::lock_guard lock(mutex);
      CHECK(order.empty());
      CHECK(handed.size() == writer.batches());
      running_handed = true;
      for (auto& callbacks : handed) callbacks();
      running_handed = false;
    }
    std::vector<int> expected(101);
    std::iota(expected.begin(), expected.end(), 0);
    CHECK(order == expected);
    CHECK(outside == 0);
    writer.stop();
    // After stop, at once on this thread.
    bool late = false;
    writer.submit("ROOM", {record::RoomVersion{"ROOM", 101}}, [&](WriteOutcome outcome) {
 const bool written = outcome == WriteOutcome::kWritten; late = written; });
    CHECK(late);
  }
}

TEST_CASE_TEMPLATE("store writer: finished games past their retention are deleted after a batch", Kind, GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  const auto now = now_ms();
  store->commit({record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, "old", "{}", 1},
                 record::GameFinished{"old", now - 120'000}, record::GameStarted{"ROOM", 2, "new", "{}", 1},
                 record::GameFinished{"new", now}});
  StoreWriter writer(*store, std::chrono::seconds(60), std::chrono::milliseconds(0));
  writer.submit("ROOM", {record::RoomSettingsChanged{"ROOM", "{}"}}, nullptr);
  writer.stop();
  CHECK_FALSE(store->finished_game("old"));
  CHECK(store->finished_game("new"));
}

TEST_CASE_TEMPLATE("store writer: an idle writer still deletes old finished games, once per period", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  store->commit({record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, "old", "{}", 1},
                 record::GameFinished{"old", now_ms() - 120'000}});
  StoreWriter writer(*store, std::chrono::seconds(60), std::chrono::milliseconds(20));
  // Nothing is submitted: the writer wakes by itself.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (store->finished_game("old") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK_FALSE(store->finished_game("old"));
  CHECK(writer.batches() == 0);
}

// A write the store refuses for its records (the same room made twice) is
// never given up: it waits, and its room's later submissions behind it, while
// every other room goes on. A stop with a deadline names what never got in.
TEST_CASE_TEMPLATE("store writer: records the store refuses wait, alone, and hold back only their room", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  StoreWriter writer(*store);
  std::mutex mutex;
  std::map<std::string, std::vector<WriteOutcome>> outcomes;
  const auto note = [&](std::string name) {
    return [&, name](WriteOutcome outcome) {
      std::lock_guard lock(mutex);
      outcomes[name].push_back(outcome);
    };
  };
  writer.submit("ROOM", {record::RoomCreated{"ROOM", "{}", 1}}, note("first"));
  writer.submit("ROOM", {record::RoomCreated{"ROOM", "{}", 1}}, note("again"));  // the same code twice
  writer.submit("ROOM", {record::RoomVersion{"ROOM", 5}}, note("after"));
  writer.submit("MOOR", {record::RoomCreated{"MOOR", "{}", 1}}, note("other"));
  const auto unwritten = writer.stop(std::chrono::steady_clock::now() + std::chrono::milliseconds(500));
  // Whether or not they shared a batch, the refused submission and the one
  // behind it wait; the others are written.
  CHECK(outcomes["first"] == std::vector{WriteOutcome::kWritten});
  CHECK(outcomes["again"] == std::vector{WriteOutcome::kRetrying});
  CHECK(outcomes["after"] == std::vector{WriteOutcome::kRetrying});
  CHECK(outcomes["other"] == std::vector{WriteOutcome::kWritten});
  CHECK(unwritten == StoreWriter::Unwritten{{"ROOM", 2}});
  const auto rooms = store->load_open_rooms();
  CHECK(rooms.size() == 2);
  for (const auto& room : rooms) CHECK(room.v == 0);  // "after" never overtook the refused write
}

TEST_CASE_TEMPLATE("transcript api: only a finished game's transcript, by its id, the same 404 otherwise", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  const std::string id = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";  // token-shaped: 32 base64url characters
  const PlayedGame played = a_played_game(11);
  std::vector<Record> records{record::RoomCreated{"ROOM", "{}", 1}, record::GameStarted{"ROOM", 1, id, played.setup, 1}};
  for (std::size_t i = 0; i < played.decisions.size(); ++i) {
    records.push_back(record::DecisionAccepted{id, static_cast<std::int64_t>(i), played.decisions[i], std::nullopt});
  }
  store->commit(records);
  const auto before = transcript_reply(*store, "/api/games/" + id + "/transcript");
  CHECK(before.status == 404);
  CHECK(before.content_type == "application/json");
  // The body is the protocol's error message, spelt by protocol/.
  CHECK(before.body == protocol::encode(protocol::default_error(protocol::ErrorCode::kApiGameNotFound)));
  CHECK(before.body ==
        R"({"type":"error","code":"api/game_not_found","message":"No finished game with this id is kept here."})");
  const auto unknown = transcript_reply(*store, "/api/games/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB/transcript");
  CHECK(unknown.status == 404);
  CHECK(unknown.body == before.body);
  CHECK(transcript_reply(*store, "/api/games/../transcript").status == 404);
  CHECK(transcript_reply(*store, "/api/games/" + id).status == 404);
  store->commit({record::GameFinished{id, 2}});
  const auto after = transcript_reply(*store, "/api/games/" + id + "/transcript");
  CHECK(after.status == 200);
  CHECK(after.content_type == "application/json");
  CHECK(after.body == played.transcript);
}

// A shared deal's transcript shows the deck other tables still play: held
// (403, api/transcript_held) until the deal is done with, then served whole,
// seed and all. Today's deal by the wall clock; a same-deal round by what
// the store holds of its event, so a store opened afresh (a restart, another
// node) answers the same.
TEST_CASE_TEMPLATE("transcript api: a shared deal's transcript is held until every game of the deal is over", Kind,
                   GOFISH_STORES) {
  Kind kind;
  const auto store = kind.open();
  protocol::DealFairness daily;
  daily.commitment = std::string(64, 'a');
  daily.seed = std::string(64, 'b');
  daily.shared = true;
  daily.day = "2026-01-01";
  protocol::DealFairness round = daily;
  round.day.reset();
  round.event = "KQ7XM2";
  round.round = 1;
  const std::string day_id = "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD";
  const std::string round_id = "RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR";
  const PlayedGame day_game = a_played_game(12, daily);
  const PlayedGame round_game = a_played_game(13, round);
  for (const auto& [room, id, played] :
       {std::tuple{"DAY1", day_id, day_game}, std::tuple{"TAB0", round_id, round_game}}) {
    std::vector<Record> records{record::RoomCreated{room, "{}", 1}, record::GameStarted{room, 1, id, played.setup, 1}};
    for (std::size_t i = 0; i < played.decisions.size(); ++i) {
      records.push_back(record::DecisionAccepted{id, static_cast<std::int64_t>(i), played.decisions[i], std::nullopt});
    }
    records.push_back(record::GameFinished{id, 2});
    store->commit(records);
  }
  const auto held = [](const ApiReply& reply, std::string_view until) {
    CHECK(reply.status == 403);
    CHECK(reply.content_type == "application/json");
    const auto body = nlohmann::json::parse(reply.body);
    CHECK(body["type"] == "error");
    CHECK(body["code"] == "api/transcript_held");
    CHECK(body["message"].get<std::string>().find(until) != std::string::npos);
    CHECK(reply.body.find("deck") == std::string::npos);
  };
  const auto path = [](const std::string& id) { return "/api/games/" + id + "/transcript"; };

  // Today's deal: held to the day's last millisecond (UTC), served whole after.
  const std::int64_t midnight = 1'767'225'600'000 + 86'400'000;  // 2026-01-02T00:00Z
  held(transcript_reply(*store, path(day_id), midnight - 12 * 3'600'000), "after today's deal closes at 00:00 UTC");
  held(transcript_reply(*store, path(day_id), midnight - 1), "00:00 UTC");
  const auto day_after = transcript_reply(*store, path(day_id), midnight);
  CHECK(day_after.status == 200);
  CHECK(day_after.body == day_game.transcript);
  CHECK(nlohmann::json::parse(day_after.body)["fairness"]["seed"] == daily.seed);

  // A same-deal round: held while the store has no such event, and while a
  // table of the round has no finished game, whatever the day.
  held(transcript_reply(*store, path(round_id), midnight), "after the round ends at every table");
  const std::string teacher(16, '\x07');
  store->commit({record::RoomCreated{"TAB1", "{}", 1},
                 record::EventSaved{"KQ7XM2", "Class 3B", "{}", teacher, "playing", 1, 1000},
                 record::EventTableSaved{"KQ7XM2", 1, 0, "TAB0", "[0]", round_id, R"([{"name":"Ann"}])"},
                 record::EventTableSaved{"KQ7XM2", 1, 1, "TAB1", "[1]"}});
  held(transcript_reply(*store, path(round_id), midnight + 86'400'000), "after the round ends at every table");
  store->commit({record::EventTableSaved{"KQ7XM2", 1, 1, "TAB1", "[1]", "game-of-tab1", R"([{"name":"Ben"}])"}});
  const auto round_after = transcript_reply(*store, path(round_id), midnight);
  CHECK(round_after.status == 200);
  CHECK(round_after.body == round_game.transcript);
  // Read afresh (a restart), with the next round under way, and once the
  // event is closed: still over.
  store->commit({record::EventSaved{"KQ7XM2", "Class 3B", "{}", teacher, "playing", 2, 1000},
                 record::EventTableSaved{"KQ7XM2", 2, 0, "TAB1", "[1]"}});
  CHECK(transcript_reply(*kind.open(), path(round_id), midnight).body == round_game.transcript);
  store->commit({record::EventSaved{"KQ7XM2", "Class 3B", "{}", teacher, "closed", 2, 1000}});
  CHECK(transcript_reply(*kind.open(), path(round_id), midnight).body == round_game.transcript);
}

// SQLite only: what a file can be that a database server cannot.

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

TEST_CASE("store: an empty file is a new database and gets the current schema") {
  TempDir dir("gofish-store");
  { std::ofstream empty(dir.db()); }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  CHECK(store.load_open_rooms().empty());
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

// A database of schema version 3 (decisions keyed by game and number) is
// migrated to decisions appended in commit order: every game finds its own
// again, in order, and carries on.
// Schema version 5 stops writing transcripts: a version 4 database's
// finished games keep theirs (and are served as they are), and games that
// finish after the migration keep where their decisions end.
TEST_CASE("store: a version 4 database is migrated, and its finished games keep their transcripts") {
  Sqlite kind;
  kind.open()->commit({record::RoomCreated{"ABCD", "{}", 1}, record::GameStarted{"ABCD", 1, "old", "{}", 1},
                       record::DecisionAccepted{"old", 0, R"({"seat":0})", std::nullopt},
                       record::GameFinished{"old", 2}, record::GameStarted{"ABCD", 2, "new", "{}", 3},
                       record::DecisionAccepted{"new", 0, R"({"seat":1})", std::nullopt}});
  kind.tamper(
      "UPDATE games SET transcript = '{\"kept\":1}' WHERE game_id = 'old'; "
      "ALTER TABLE games DROP COLUMN last_decision; "
      // What schema versions 6 (class events), 8 (today's deal), 9 (the
      // next deal) and 10 (today's deal kept with its room) added goes too.
      "DROP TABLE events; DROP TABLE event_pupils; DROP TABLE event_tables; DROP TABLE daily_tally; "
      "ALTER TABLE rooms DROP COLUMN next_deal; ALTER TABLE rooms DROP COLUMN daily_counted; "
      "ALTER TABLE rooms DROP COLUMN daily_note; "
      "PRAGMA user_version=4");
  const auto store = kind.open();
  const auto old = store->finished_game("old");
  REQUIRE(old);
  CHECK(finished_transcript(*old) == R"({"kept":1})");
  store->commit({record::DecisionAccepted{"new", 1, R"({"seat":0})", std::nullopt}, record::GameFinished{"new", 4},
                 record::GameStarted{"ABCD", 3, "next", "{}", 5},
                 record::DecisionAccepted{"next", 0, R"({"seat":1})", std::nullopt}});
  const auto game = store->finished_game("new");
  REQUIRE(game);
  CHECK(game->decisions == std::vector<std::string>{R"({"seat":1})", R"({"seat":0})"});
  CHECK_FALSE(game->transcript);
}

TEST_CASE("store: a version 3 database is migrated to appended decisions and keeps every game") {
  TempDir dir("gofish-store");
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(dir.db().string().c_str(), &db) == SQLITE_OK);
    const char* v3 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE rooms(code TEXT PRIMARY KEY, settings TEXT NOT NULL, created_ms INTEGER NOT NULL,
                   v INTEGER NOT NULL DEFAULT 0, set_aside TEXT, set_aside_ms INTEGER);
CREATE TABLE seats(room TEXT NOT NULL, seat INTEGER NOT NULL, state TEXT NOT NULL, token_hash BLOB,
                   PRIMARY KEY(room, seat));
CREATE TABLE games(game_id TEXT PRIMARY KEY, room TEXT, game INTEGER NOT NULL, setup TEXT NOT NULL,
                   started_ms INTEGER NOT NULL, transcript TEXT, finished_ms INTEGER);
CREATE INDEX games_by_room ON games(room, game);
CREATE INDEX games_by_finish ON games(finished_ms) WHERE finished_ms IS NOT NULL;
CREATE TABLE decisions(game_id TEXT NOT NULL, seq INTEGER NOT NULL, decision TEXT NOT NULL,
                       PRIMARY KEY(game_id, seq));
INSERT INTO meta VALUES('token_key', x'0000000000000000000000000000000000000000000000000000000000000001');
INSERT INTO rooms VALUES('ROOMA', '{}', 5, 40, NULL, NULL);
INSERT INTO rooms VALUES('ROOMB', '{}', 6, 7, NULL, NULL);
INSERT INTO games VALUES('g-b', 'ROOMB', 1, '{}', 6, NULL, NULL);
INSERT INTO games VALUES('g-a', 'ROOMA', 1, '{}', 6, NULL, NULL);
INSERT INTO decisions VALUES('g-b', 1, '{"b":1}');
INSERT INTO decisions VALUES('g-a', 0, '{"a":0}');
INSERT INTO decisions VALUES('g-b', 0, '{"b":0}');
INSERT INTO decisions VALUES('g-a', 1, '{"a":1}');
INSERT INTO decisions VALUES('g-a', 2, '{"a":2}');
PRAGMA user_version=3;
)sql";
    REQUIRE(sqlite3_exec(db, v3, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  {
    SqliteStore store(dir.db(), SyncMode::kNormal);
    const auto rooms = store.load_open_rooms();
    REQUIRE(rooms.size() == 2);
    CHECK(rooms[0].room == "ROOMA");
    CHECK(rooms[0].v == 40);
    CHECK(rooms[0].game->decisions == std::vector<std::string>{R"({"a":0})", R"({"a":1})", R"({"a":2})"});
    CHECK(rooms[1].game->decisions == std::vector<std::string>{R"({"b":0})", R"({"b":1})"});
    store.commit({record::DecisionAccepted{"g-b", 2, R"({"b":2})", 8},
                  record::DecisionAccepted{"g-a", 3, R"({"a":3})", std::nullopt}});
  }
  SqliteStore store(dir.db(), SyncMode::kNormal);
  const auto rooms = store.load_open_rooms();
  CHECK(rooms[0].game->decisions.size() == 4);
  CHECK(rooms[1].game->decisions == std::vector<std::string>{R"({"b":0})", R"({"b":1})", R"({"b":2})"});
  CHECK(rooms[1].v == 8);
}

// The point of appending (issue 18): a batch holding one decision from each
// of many rooms writes the log's last pages, not an index page per room. The
// WAL is emptied first (a checkpoint from a second connection), so its size
// afterwards is what the batch wrote. Under schema version 3 (an index by
// game id and number, 4 KiB pages) this batch wrote about 1 KiB a decision.
TEST_CASE("store: a batch of decisions from many rooms writes a few hundred bytes a decision") {
  TempDir dir("gofish-store");
  SqliteStore store(dir.db(), SyncMode::kNormal);
  constexpr int kRooms = 60;
  const auto code = [](int room) { return "R" + std::to_string(1000 + room); };
  // Game ids as long as the server's (32 characters).
  const auto game = [&](int room) { return code(room) + std::string(27, 'g'); };
  for (int room = 0; room < kRooms; ++room) {
    std::vector<Record> records{record::RoomCreated{code(room), R"({"preset":"classic","seats":4})", 1},
                                record::GameStarted{code(room), 1, game(room), std::string(600, 'x'), 2}};
    store.commit(records);
  }
  const std::string decision = R"({"seat":2,"target":0,"rank":"8"})";
  for (int seq = 0; seq < 20; ++seq) {
    std::vector<Record> batch;
    for (int room = 0; room < kRooms; ++room) batch.push_back(record::DecisionAccepted{game(room), seq, decision, seq});
    store.commit(batch);
  }
  tamper_file(dir.db(), "PRAGMA wal_checkpoint(TRUNCATE)");
  const fs::path wal = dir.db().string() + "-wal";
  REQUIRE(fs::file_size(wal) == 0);
  std::vector<Record> batch;
  for (int room = 0; room < kRooms; ++room) batch.push_back(record::DecisionAccepted{game(room), 20, decision, 99});
  store.commit(batch);
  const auto per_decision = static_cast<double>(fs::file_size(wal)) / kRooms;
  MESSAGE("one batch of ", kRooms, " decisions wrote ", fs::file_size(wal), " bytes of WAL, ", per_decision,
          " a decision");
  CHECK(per_decision <= 400);
}

// PostgreSQL only: what a database server can do that a file cannot.

TEST_CASE("postgres store: a server that is not there is refused with a clear message") {
  try {
    PostgresStore store(testing::unreachable_postgres_url());
    FAIL("connected to nothing");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find("cannot connect to PostgreSQL") != std::string::npos);
    CHECK(message.find("Connection refused") != std::string::npos);
    CHECK(message.find("refusing to start") != std::string::npos);
    CHECK(message.find("--postgres-url") != std::string::npos);
    CHECK(message.find("secret") == std::string::npos);  // the URL's password
  }
}

TEST_CASE("postgres store: a wrong password is refused as a login, and the password is never told") {
  PostgresDatabase db;
  const std::string wrong = "not-" + db.cluster().password();
  const std::string url = "postgresql://" + db.cluster().user() + ":" + wrong +
                          "@127.0.0.1:" + std::to_string(db.cluster().port()) + "/" + PostgresDatabase::kDatabase;
  try {
    PostgresStore store(url);
    FAIL("logged in with a wrong password");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find("PostgreSQL refused the login") != std::string::npos);
    CHECK(message.find("password authentication failed") != std::string::npos);
    CHECK(message.find("refusing to start") != std::string::npos);
    CHECK(message.find(wrong) == std::string::npos);
  }
}

TEST_CASE("postgres store: a database that does not exist is refused, saying so") {
  PostgresDatabase db;
  try {
    PostgresStore store(db.cluster().url(db.schema() + "_missing"));
    FAIL("opened a database that does not exist");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find("does not exist") != std::string::npos);
    CHECK(message.find("Create it first") != std::string::npos);
  }
}

TEST_CASE("postgres store: a database whose encoding is not UTF8 is refused") {
  PostgresDatabase db;
  const std::string latin1 = db.schema() + "_latin1";
  db.cluster().sql("postgres", "CREATE DATABASE " + latin1 + " ENCODING 'LATIN1' TEMPLATE template0 LOCALE 'C'");
  try {
    PostgresStore store(db.cluster().url(latin1));
    FAIL("opened a LATIN1 database");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find("has encoding LATIN1") != std::string::npos);
    CHECK(message.find("ENCODING 'UTF8'") != std::string::npos);
  }
  db.cluster().sql("postgres", "DROP DATABASE " + latin1);
}

// Tables of the same names made by something else are not taken over.
TEST_CASE("postgres store: a database holding another program's tables is refused and left alone") {
  PostgresDatabase db;
  db.sql("CREATE TABLE rooms(id INTEGER PRIMARY KEY); INSERT INTO rooms VALUES (7)");
  try {
    PostgresStore store(db.url());
    FAIL("took over another program's tables");
  } catch (const StoreError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find("relation \"rooms\" already exists") != std::string::npos);
    CHECK(message.find("a database of its own") != std::string::npos);
  }
  CHECK(db.sql("SELECT to_regclass('meta') IS NULL") == "t");
  CHECK(db.sql("SELECT id FROM rooms") == "7");
}

// A database restarted, or a connection cut by an idle timeout or an
// operator: the store connects again and the next call goes through.
TEST_CASE("postgres store: a connection the database dropped is made again, and the next commit goes through") {
  PostgresDatabase db;
  const std::string name = "dropped_" + db.schema();
  PostgresStore store(db.url(name));
  store.commit(a_room_with_a_game());
  const auto drop = [&] {
    CHECK(db.sql("SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE application_name = '" +
                 name + "'") == "1");
  };
  drop();
  store.commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})", std::nullopt}});
  drop();
  CHECK(store.load_open_rooms()[0].game->decisions.size() == 3);
  drop();
  CHECK_FALSE(store.finished_game("g-1"));
  drop();
  // Several records in one batch, after the drop: all or nothing, once.
  store.commit({record::DecisionAccepted{"g-1", 3, "{}", std::nullopt}, record::GameFinished{"g-1", 9}});
  REQUIRE(store.finished_game("g-1"));
  CHECK(store.finished_game("g-1")->decisions.size() == 4);
  CHECK(db.sql("SELECT count(*) FROM decisions") == "4");
}

// A database that hangs (here: another session holds the table a batch
// writes locked) is no failure yet, but the rooms waiting for the commit
// are told within a second that it is slow (kRetrying), and written once
// the database answers (issue 30: paused within 1 s however the store fails).
TEST_CASE("postgres store writer: a commit that waits a second for the database pauses its rooms, then is written") {
  PostgresDatabase db;
  PostgresStore store(db.url());
  store.commit({record::RoomCreated{"SLOW1", "{}", 1}});
  PGconn* blocker = PQconnectdb(db.url().c_str());
  REQUIRE(PQstatus(blocker) == CONNECTION_OK);
  PQclear(PQexec(blocker, "BEGIN"));
  PGresult* locked = PQexec(blocker, "LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE");
  REQUIRE(PQresultStatus(locked) == PGRES_COMMAND_OK);
  PQclear(locked);
  std::mutex mutex;
  std::vector<std::pair<WriteOutcome, std::chrono::steady_clock::time_point>> told;
  const auto submitted = std::chrono::steady_clock::now();
  {
    StoreWriter writer(store);
    writer.submit("SLOW1", {record::RoomVersion{"SLOW1", 7}}, [&](WriteOutcome outcome) {
      std::lock_guard lock(mutex);
      told.emplace_back(outcome, std::chrono::steady_clock::now());
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    {
      std::lock_guard lock(mutex);
      REQUIRE(told.size() == 1);
      CHECK(told[0].first == WriteOutcome::kRetrying);
      CHECK(told[0].second - submitted >= std::chrono::milliseconds(900));
      CHECK(told[0].second - submitted < std::chrono::milliseconds(1500));
    }
    PQclear(PQexec(blocker, "COMMIT"));
    writer.stop();
  }
  PQfinish(blocker);
  REQUIRE(told.size() == 2);
  CHECK(told[1].first == WriteOutcome::kWritten);
  CHECK(store.load_room("SLOW1")->v == 7);
}

// Servers of a cluster start together on one database: the schema is made
// once, and they agree on one seat-token key.
TEST_CASE("postgres store: stores opened at once on a new database share one schema and one token key") {
  PostgresDatabase db;
  constexpr int kStores = 4;
  std::vector<std::array<std::uint64_t, 4>> keys(kStores);
  std::vector<std::string> errors(kStores);
  std::vector<std::thread> threads;
  for (int i = 0; i < kStores; ++i) {
    threads.emplace_back([&, i] {
      try {
        PostgresStore store(db.url());
        keys[i] = store.token_key();
      } catch (const std::exception& error) {
        errors[i] = error.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kStores; ++i) {
    INFO("store " << i << ": " << errors[i]);
    CHECK(errors[i].empty());
    CHECK(keys[i] == keys[0]);
  }
  CHECK(db.sql("SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'schema_version'") ==
        std::to_string(kPostgresSchemaVersion));
}

// Text goes in as its bytes: a NUL byte, which PostgreSQL text cannot hold,
// fails the write instead of cutting the text short.
TEST_CASE("postgres store: text with a NUL byte is refused, not cut short") {
  PostgresDatabase db;
  PostgresStore store(db.url());
  CHECK_THROWS_AS(store.commit({record::RoomCreated{"ABCD", std::string("{\"a\":1}\0tail", 12), 1}}), StoreError);
  CHECK(store.load_open_rooms().empty());
  store.commit({record::RoomCreated{"ABCD", "{\"name\":\"J\u00f6rg \U0001f41f\"}", 1}});
  CHECK(store.load_open_rooms()[0].settings == "{\"name\":\"J\u00f6rg \U0001f41f\"}");
}

TEST_CASE("postgres store: where() names the database, host, port and user, never the password") {
  PostgresDatabase db;
  PostgresStore store(db.url());
  const auto where = store.where();
  CHECK(where == std::string("database ") + PostgresDatabase::kDatabase +
                     " on 127.0.0.1:" + std::to_string(db.cluster().port()) + " as " + db.cluster().user());
  CHECK(where.find(db.cluster().password()) == std::string::npos);
}

// ---- Room leases: one owner per room when several servers share a database.

using namespace std::chrono_literals;

// The handover requests that reach `store` within two seconds.
std::vector<std::string> handovers_asked(PostgresStore& store) {
  std::vector<std::string> asked;
  for (int i = 0; i < 100 && asked.empty(); ++i) {
    asked = store.handover_requests();
    if (asked.empty()) std::this_thread::sleep_for(20ms);
  }
  return asked;
}

// Two nodes on one database, each fenced as itself.
struct TwoNodes {
  PostgresDatabase db;
  PostgresStore a{db.url()}, b{db.url()};
  TwoNodes() {
    a.fence_as("node-a");
    b.fence_as("node-b");
  }
};

TEST_CASE_FIXTURE(TwoNodes, "postgres store: a lease is held by one node at a time and taken over, with a higher epoch, once expired") {
  CHECK(a.take_lease("ROOM1", "node-a", 60'000ms) == 1);
  CHECK(a.take_lease("ROOM1", "node-a", 60'000ms) == 1);  // its own, live: renewed, same epoch
  CHECK_FALSE(b.take_lease("ROOM1", "node-b", 60'000ms));  // live and not b's
  // Expired: b takes it over, one epoch up.
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second'");
  CHECK(b.take_lease("ROOM1", "node-b", 60'000ms) == 2);
  CHECK_FALSE(a.take_lease("ROOM1", "node-a", 60'000ms));
  CHECK(db.sql("SELECT node || ' ' || epoch FROM room_lease WHERE code = 'ROOM1'") == "node-b 2");
}

TEST_CASE_FIXTURE(TwoNodes, "postgres store: a fenced room's records are not written, and another room's in the same batch are") {
  REQUIRE(a.take_lease("AAAAA", "node-a", 60'000ms));
  REQUIRE(a.take_lease("BBBBB", "node-a", 60'000ms));
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomCreated{"AAAAA", "{}", 1}}},
                        {"BBBBB", {record::RoomCreated{"BBBBB", "{}", 2}}}})
            .empty());
  // Node b takes BBBBB over once its lease has expired.
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second' WHERE code = 'BBBBB'");
  REQUIRE(b.take_lease("BBBBB", "node-b", 60'000ms) == 2);
  // a's next batch: BBBBB is fenced out, AAAAA is written; the rooms come
  // in either order, and a room a never leased is fenced too.
  auto fenced = a.commit_rooms({{"BBBBB", {record::RoomSettingsChanged{"BBBBB", "{\"a\":1}"}}},
                                      {"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"a\":2}"}}},
                                      {"CCCCC", {record::RoomCreated{"CCCCC", "{}", 3}}}});
  std::sort(fenced.begin(), fenced.end());
  CHECK(fenced == std::vector<std::string>{"BBBBB", "CCCCC"});
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'AAAAA'") == "{\"a\":2}");
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'BBBBB'") == "{}");
  CHECK(db.sql("SELECT count(*) FROM rooms WHERE code = 'CCCCC'") == "0");
  // b writes BBBBB; a stays fenced out of it even after taking nothing new.
  CHECK(b.commit_rooms({{"BBBBB", {record::RoomSettingsChanged{"BBBBB", "{\"b\":1}"}}}}).empty());
  CHECK(a.commit_rooms({{"BBBBB", {record::RoomSettingsChanged{"BBBBB", "{\"a\":3}"}}}}) ==
        std::vector<std::string>{"BBBBB"});
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'BBBBB'") == "{\"b\":1}");
  // A store not fenced (tools, single node) writes as before.
  PostgresStore plain(db.url());
  CHECK(plain.commit_rooms({{"DDDDD", {record::RoomCreated{"DDDDD", "{}", 4}}}}).empty());
  // Closing a room deletes its lease with it, so its code may be drawn again.
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomClosed{"AAAAA"}}}}).empty());
  CHECK(db.sql("SELECT count(*) FROM room_lease WHERE code = 'AAAAA'") == "0");
}

// A batch in flight under the old epoch when the lease is taken over: the
// takeover waits until that batch has committed, so the new owner, which
// reads the room back after taking it, misses nothing the old one wrote;
// and the old owner's next batch is fenced out.
TEST_CASE_FIXTURE(TwoNodes, "postgres store: taking a lease over waits for the old holder's batch in flight") {
  REQUIRE(a.take_lease("BBBBB", "node-a", 60'000ms) == 1);
  CHECK(a.commit_rooms({{"BBBBB", {record::RoomCreated{"BBBBB", "{}", 1}}}}).empty());
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second'");
  // Node a's batch: guarded under epoch 1, then still open for a second.
  std::thread in_flight([&] {
    db.sql("BEGIN; SELECT pg_advisory_xact_lock_shared(1735353964, hashtext('node-a')); "
           "UPDATE rooms SET settings = '{\"a\":1}' WHERE code = 'BBBBB'; SELECT pg_sleep(1); COMMIT");
  });
  std::this_thread::sleep_for(300ms);
  const auto asked = std::chrono::steady_clock::now();
  CHECK(b.take_lease("BBBBB", "node-b", 60'000ms) == 2);
  const auto waited = std::chrono::steady_clock::now() - asked;
  in_flight.join();
  INFO("the takeover took " << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() << " ms");
  CHECK(waited >= 400ms);
  // What a's batch wrote is there for b, and a writes nothing more.
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'BBBBB'") == "{\"a\":1}");
  CHECK(a.commit_rooms({{"BBBBB", {record::RoomSettingsChanged{"BBBBB", "{\"a\":2}"}}}}) ==
        std::vector<std::string>{"BBBBB"});
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'BBBBB'") == "{\"a\":1}");
}

// The other way round: a takeover not yet committed when the old holder's
// batch starts. The batch waits for it at the lock, and its check, a
// statement of its own, reads the new epoch: nothing lands under the old
// one. (Lock and check in one statement would read the epoch as it was
// before the wait, and write.)
TEST_CASE("postgres store: a batch that starts during a takeover waits for it and is fenced out") {
  PostgresDatabase db;
  PostgresStore a(db.url());
  a.fence_as("node-a");
  REQUIRE(a.take_lease("BBBBB", "node-a", 60'000ms) == 1);
  CHECK(a.commit_rooms({{"BBBBB", {record::RoomCreated{"BBBBB", "{}", 1}}}}).empty());
  std::thread takeover([&] {
    db.sql("BEGIN; UPDATE room_lease SET node = 'node-b', epoch = epoch + 1 WHERE code = 'BBBBB'; "
           "SELECT pg_sleep(1); COMMIT");
  });
  std::this_thread::sleep_for(300ms);
  const auto asked = std::chrono::steady_clock::now();
  const auto fenced = a.commit_rooms({{"BBBBB", {record::RoomSettingsChanged{"BBBBB", "{\"a\":1}"}}}});
  const auto waited = std::chrono::steady_clock::now() - asked;
  takeover.join();
  INFO("the batch took " << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() << " ms");
  CHECK(waited >= 400ms);
  CHECK(fenced == std::vector<std::string>{"BBBBB"});
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'BBBBB'") == "{}");
}

TEST_CASE_FIXTURE(TwoNodes, "postgres store: renewing lists the leases still held, and released leases are taken at once") {
  for (const char* code : {"AAAAA", "BBBBB", "CCCCC"}) REQUIRE(a.take_lease(code, "node-a", 60'000ms));
  auto held = a.renew_leases("node-a", 60'000ms);
  std::sort(held.begin(), held.end());
  CHECK(held == std::vector<std::string>{"AAAAA", "BBBBB", "CCCCC"});
  // A lease expired and taken by another node is no longer a's.
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second' WHERE code = 'CCCCC'");
  REQUIRE(b.take_lease("CCCCC", "node-b", 60'000ms));
  held = a.renew_leases("node-a", 60'000ms);
  std::sort(held.begin(), held.end());
  CHECK(held == std::vector<std::string>{"AAAAA", "BBBBB"});
  CHECK(db.sql("SELECT count(*) FROM room_lease WHERE node = 'node-a' AND expires_at > now() + interval '50 s'") ==
        "2");
  // Released: b takes them without waiting, one epoch up; a's writes to them are fenced.
  a.release_leases("node-a", {"AAAAA"});
  // A renewal after the release does not take it back.
  CHECK(a.renew_leases("node-a", 60'000ms) == std::vector<std::string>{"BBBBB"});
  CHECK(b.take_lease("AAAAA", "node-b", 60'000ms) == 2);
  CHECK_FALSE(b.take_lease("BBBBB", "node-b", 60'000ms));
  a.release_leases("node-a", {});
  CHECK(b.take_lease("BBBBB", "node-b", 60'000ms) == 2);
  CHECK(a.renew_leases("node-a", 60'000ms).empty());
  CHECK(a.commit_rooms({{"BBBBB", {record::RoomCreated{"BBBBB", "{}", 1}}}}) == std::vector<std::string>{"BBBBB"});
}

TEST_CASE("postgres store: a handover request reaches the node holding the lease, once, and only while it is "
          "live") {
  PostgresDatabase db;
  PostgresStore a(db.url()), b(db.url());
  const std::string node_a = "handover-a-" + db.schema(), node_b = "handover-b-" + db.schema();
  a.fence_as(node_a);
  b.fence_as(node_b);
  REQUIRE(a.take_lease("AAAAA", node_a, 60'000ms));
  CHECK_FALSE(b.ask_handover("ZZZZZ", node_b));  // nobody holds it
  CHECK(b.ask_handover("AAAAA", node_b) == node_a);
  CHECK(handovers_asked(a) == std::vector<std::string>{"AAAAA"});
  CHECK(b.handover_requests().empty());
  // A lookup that has asked a node already is told who holds the lease,
  // and that node is not asked again.
  CHECK(b.ask_handover("AAAAA", node_b, node_a) == node_a);
  CHECK(handovers_asked(a).empty());
  // The holder itself asking (two lookups of one room on one node, the
  // first of which took the lease meanwhile) asks nobody: a node that
  // handed a room over to itself would close every connection of a room it
  // had just loaded.
  CHECK_FALSE(a.ask_handover("AAAAA", node_a));
  CHECK(handovers_asked(a).empty());
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second'");
  CHECK_FALSE(b.ask_handover("AAAAA", node_b));
}

TEST_CASE("postgres store: the handover socket turns readable when a request comes, whatever the store ran "
          "meanwhile, and quiet once it is read") {
  PostgresDatabase db;
  PostgresStore a(db.url()), b(db.url());
  CHECK(a.handover_socket() == -1);  // not fenced as a node: nothing to hear
  const std::string node = "socket-a-" + db.schema();
  a.fence_as(node);
  b.fence_as("socket-b-" + db.schema());
  REQUIRE(a.take_lease("AAAAA", node, 60'000ms));
  const auto readable = [&](int wait_ms) {
    pollfd socket{a.handover_socket(), POLLIN, 0};
    REQUIRE(socket.fd >= 0);
    return ::poll(&socket, 1, wait_ms) == 1;
  };
  CHECK_FALSE(readable(100));
  REQUIRE(b.ask_handover("AAAAA", "socket-b-" + db.schema()));
  // The node's own queries go on meanwhile; none of them takes the request
  // in, as they would on a connection that also listened.
  REQUIRE(a.take_lease("BBBBB", node, 60'000ms));
  CHECK(a.renew_leases(node, 60'000ms).size() == 2);
  CHECK(readable(2000));
  CHECK(a.handover_requests() == std::vector<std::string>{"AAAAA"});
  CHECK_FALSE(readable(100));
}

// What schema versions 9 (class events), 11 (today's deal), 12 (the next
// deal) and 13 (today's deal kept with its room) added, gone.
const std::string kWithoutEvents =
    "DROP TABLE events; DROP TABLE event_pupils; DROP TABLE event_tables; DROP TABLE daily_tally; "
    "ALTER TABLE rooms DROP COLUMN next_deal, DROP COLUMN daily_counted, DROP COLUMN daily_note; ";
// What schema versions 8 and 9 changed, undone: decisions keyed by game and
// number again, and games without the bounds of their decisions' ids.
const std::string kWithoutAppended =
    kWithoutEvents +
    "ALTER TABLE games DROP COLUMN first_decision, DROP COLUMN last_decision; "
    "CREATE TABLE decisions_keyed(game_id TEXT NOT NULL, seq BIGINT NOT NULL, decision TEXT NOT NULL, v BIGINT, "
    "PRIMARY KEY(game_id, seq)); "
    "INSERT INTO decisions_keyed SELECT game_id, seq, decision, v FROM decisions; "
    "DROP TABLE decisions; ALTER TABLE decisions_keyed RENAME TO decisions; "
    "ALTER INDEX decisions_keyed_pkey RENAME TO decisions_pkey; ";
// What schema versions 7 to 9 added, gone: a database as versions 1 to 6 left it.
const std::string kWithoutNodeFence =
    kWithoutAppended + "DROP TABLE node_fence; DROP FUNCTION gofish_node_lost_lease(TEXT); ";

TEST_CASE("postgres store: a version 1 database is migrated to leases and keeps its rooms") {
  PostgresDatabase db;
  {
    PostgresStore store(db.url());
    store.commit(a_room_with_a_game());
  }
  db.sql(kWithoutNodeFence +
         "DROP TABLE room_lease; DROP FUNCTION gofish_lease_taken(); ALTER TABLE decisions DROP COLUMN v; "
         "DROP FUNCTION gofish_fenced_out(TEXT, TEXT); "
         "UPDATE meta SET value = convert_to('1', 'UTF8') WHERE key = 'schema_version'");
  PostgresStore store(db.url());
  CHECK(store.load_open_rooms().size() == 1);
  CHECK(db.sql("SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'schema_version'") ==
        std::to_string(kPostgresSchemaVersion));
  store.fence_as("node-a");
  CHECK(store.take_lease(store.load_open_rooms()[0].room, "node-a", 1000ms) == 1);
}

// Schema version 2 (before decisions carried their room's version) is
// migrated in place: its rooms and decisions stay, and new decisions carry
// versions. Its per-room guard, gofish_fence, is gone after the migration
// (schema version 5 drops it).
TEST_CASE("postgres store: a version 2 database is migrated to decisions with versions") {
  PostgresDatabase db;
  {
    PostgresStore store(db.url());
    store.commit(a_room_with_a_game());
    store.commit({record::RoomVersion{"ABCD", 6}});
  }
  db.sql(kWithoutNodeFence +
         "ALTER TABLE decisions DROP COLUMN v; DROP FUNCTION gofish_fenced_out(TEXT, TEXT); "
         "DROP TRIGGER room_lease_taken ON room_lease; DROP FUNCTION gofish_lease_taken(); "
         "CREATE FUNCTION gofish_fence(room TEXT, holder TEXT, held_epoch BIGINT) RETURNS void LANGUAGE sql AS ''; "
         "UPDATE meta SET value = convert_to('2', 'UTF8') WHERE key = 'schema_version'");
  PostgresStore store(db.url());
  auto rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0].v == 6);
  CHECK(rooms[0].game->decisions.size() == 2);
  CHECK(db.sql("SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'schema_version'") ==
        std::to_string(kPostgresSchemaVersion));
  store.commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})", 11}});
  rooms = store.load_open_rooms();
  CHECK(rooms[0].v == 11);
  CHECK(rooms[0].game->decisions.size() == 3);
  CHECK(db.sql("SELECT to_regprocedure('gofish_fence(text, text, bigint)') IS NULL") == "t");
}

// Schema version 5 guarded a batch with the plpgsql gofish_fence_rooms;
// version 6 replaces it with two statements and gofish_fenced_out, which
// raises only for a room lost.
TEST_CASE("postgres store: a version 5 database is migrated to the guard in two statements") {
  PostgresDatabase db;
  { PostgresStore store(db.url()); }
  db.sql(
      "DROP FUNCTION gofish_fenced_out(TEXT, TEXT); "
      "CREATE FUNCTION gofish_fence_rooms(rooms TEXT[], holder TEXT, held_epochs BIGINT[]) RETURNS void "
      "LANGUAGE sql AS ''; " +
      kWithoutNodeFence + "UPDATE meta SET value = convert_to('5', 'UTF8') WHERE key = 'schema_version'");
  PostgresStore store(db.url());
  // (Each test has a schema of its own in one database: look on its path.)
  CHECK(db.sql("SELECT to_regprocedure('gofish_fence_rooms(text[], text, bigint[])') IS NULL") == "t");
  CHECK(db.sql("SELECT to_regprocedure('gofish_fenced_out(text, text)') IS NOT NULL") == "t");
  store.fence_as("node-a");
  REQUIRE(store.take_lease("AAAAA", "node-a", 60'000ms) == 1);
  CHECK(store.commit_rooms({{"AAAAA", {record::RoomCreated{"AAAAA", "{}", 1}}},
                            {"BBBBB", {record::RoomCreated{"BBBBB", "{}", 2}}}}) ==
        std::vector<std::string>{"BBBBB"});
  CHECK(db.sql("SELECT count(*) FROM rooms") == "1");
}

// Schema version 6 checked every room's epoch in every batch; version 7
// counts the leases taken from each node (node_fence, added to by the
// takeover's trigger), and a batch checks that count.
TEST_CASE("postgres store: a version 6 database is migrated to the count of leases lost") {
  PostgresDatabase db;
  { PostgresStore store(db.url()); }
  db.sql(
      "CREATE OR REPLACE FUNCTION gofish_lease_taken() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "IF NEW.epoch <> OLD.epoch THEN PERFORM pg_advisory_xact_lock(1735353964, hashtext(OLD.node)); END IF; "
      "RETURN NEW; END $$; " +
      kWithoutNodeFence + "UPDATE meta SET value = convert_to('6', 'UTF8') WHERE key = 'schema_version'");
  PostgresStore a(db.url()), b(db.url());
  CHECK(db.sql("SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'schema_version'") ==
        std::to_string(kPostgresSchemaVersion));
  a.fence_as("node-a");
  b.fence_as("node-b");
  CHECK(db.sql("SELECT string_agg(node || ' ' || losses, ', ' ORDER BY node) FROM node_fence") ==
        "node-a 0, node-b 0");
  REQUIRE(a.take_lease("AAAAA", "node-a", 60'000ms) == 1);
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomCreated{"AAAAA", "{}", 1}}}}).empty());
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second'");
  REQUIRE(b.take_lease("AAAAA", "node-b", 60'000ms) == 2);
  CHECK(db.sql("SELECT string_agg(node || ' ' || losses, ', ' ORDER BY node) FROM node_fence") ==
        "node-a 1, node-b 0");
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"a\":1}"}}}}) ==
        std::vector<std::string>{"AAAAA"});
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'AAAAA'") == "{}");
}

// Schema version 7 keyed decisions by game and number; version 8 appends
// them (an id from decision_ids) and gives each game the bounds of its
// decisions' ids. Games interleaved, finished or not, and a game with no
// decision yet keep theirs, and go on after the migration.
TEST_CASE("postgres store: a version 7 database is migrated to appended decisions and keeps every game") {
  PostgresDatabase db;
  {
    PostgresStore store(db.url());
    store.commit({record::RoomCreated{"ROOMA", "{}", 1}, record::RoomCreated{"ROOMB", "{}", 2},
                  record::RoomCreated{"ROOMC", "{}", 3}, record::GameStarted{"ROOMA", 1, "a-1", "{}", 4},
                  record::GameStarted{"ROOMB", 1, "b-1", "{}", 5}, record::GameStarted{"ROOMC", 1, "c-1", "{}", 6}});
    for (int seq = 0; seq < 3; ++seq) {
      store.commit({record::DecisionAccepted{"b-1", seq, R"({"b":)" + std::to_string(seq) + "}", 10 + seq},
                    record::DecisionAccepted{"a-1", seq, R"({"a":)" + std::to_string(seq) + "}", 20 + seq}});
    }
    store.commit({record::GameFinished{"a-1", 7}});
  }
  db.sql(kWithoutAppended + "UPDATE meta SET value = convert_to('7', 'UTF8') WHERE key = 'schema_version'");
  REQUIRE(db.sql("SELECT count(*) FROM decisions") == "6");
  PostgresStore store(db.url());
  CHECK(db.sql("SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'schema_version'") ==
        std::to_string(kPostgresSchemaVersion));
  REQUIRE(store.finished_game("a-1"));
  CHECK(store.finished_game("a-1")->decisions == std::vector<std::string>{R"({"a":0})", R"({"a":1})", R"({"a":2})"});
  store.commit({record::DecisionAccepted{"b-1", 3, R"({"b":3})", 13}, record::DecisionAccepted{"c-1", 0, R"({"c":0})", 30}});
  auto rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 3);
  std::map<std::string, std::vector<std::string>> decisions;
  for (const auto& room : rooms) decisions[room.room] = room.game->decisions;
  CHECK(decisions["ROOMB"] == std::vector<std::string>{R"({"b":0})", R"({"b":1})", R"({"b":2})", R"({"b":3})"});
  CHECK(decisions["ROOMC"] == std::vector<std::string>{R"({"c":0})"});
  // Every game has its bounds, so each read is a range of the primary key.
  CHECK(db.sql("SELECT count(*) FROM games WHERE first_decision IS NULL") == "0");
  CHECK(db.sql("SELECT string_agg(game_id, ',' ORDER BY game_id) FROM games WHERE last_decision IS NOT NULL") == "a-1");
}

// Decisions are appended in the order they are written, and a game reads
// those between its bounds: games written side by side, a game that
// finishes while another goes on, and a game started after, each read only
// their own, and a finished game's bounds leave out what came after it.
TEST_CASE("postgres store: interleaved games each read their own decisions from the appended log") {
  PostgresDatabase db;
  PostgresStore store(db.url());
  store.commit({record::RoomCreated{"ROOMA", "{}", 1}, record::RoomCreated{"ROOMB", "{}", 2},
                record::GameStarted{"ROOMA", 1, "a-1", "{}", 3}, record::GameStarted{"ROOMB", 1, "b-1", "{}", 4}});
  for (int seq = 0; seq < 4; ++seq) {
    store.commit({record::DecisionAccepted{"a-1", seq, R"({"a":)" + std::to_string(seq) + "}", seq},
                  record::DecisionAccepted{"b-1", seq, R"({"b":)" + std::to_string(seq) + "}", seq}});
  }
  store.commit({record::GameFinished{"a-1", 5}, record::GameStarted{"ROOMA", 2, "a-2", "{}", 6},
                record::DecisionAccepted{"a-2", 0, R"({"a2":0})", 9}, record::DecisionAccepted{"b-1", 4, R"({"b":4})", 9}});
  REQUIRE(store.finished_game("a-1"));
  CHECK(store.finished_game("a-1")->decisions ==
        std::vector<std::string>{R"({"a":0})", R"({"a":1})", R"({"a":2})", R"({"a":3})"});
  store.commit({record::DecisionAccepted{"b-1", 5, R"({"b":5})", 10}});
  // (A finish merged into a batch takes the batch's last id: its bound may
  // hold decisions of other games written beside it, never later ones.)
  const std::string bounds = db.sql(
      "SELECT (SELECT max(id) FROM decisions WHERE game_id = 'a-1') <= last_decision AND "
      "(SELECT id FROM decisions WHERE game_id = 'b-1' AND seq = 5) > last_decision FROM games WHERE game_id = 'a-1'");
  CHECK(bounds == "t");
  std::map<std::string, std::vector<std::string>> decisions;
  for (const auto& room : store.load_open_rooms()) decisions[room.room] = room.game->decisions;
  CHECK(decisions["ROOMA"] == std::vector<std::string>{R"({"a2":0})"});
  CHECK(decisions["ROOMB"] == std::vector<std::string>{R"({"b":0})", R"({"b":1})", R"({"b":2})", R"({"b":3})",
                                                       R"({"b":4})", R"({"b":5})"});
  // What reads, cuts or counts one game's decisions is a range of the
  // primary key, not a scan of the whole log: the store's own statements,
  // in the generic plan a prepared statement settles on.
  for (const std::string name : {"game_decisions", "next_decision", "truncate_decisions"}) {
    const auto text = PostgresStore::statement_text(name);
    REQUIRE_MESSAGE(text, name);
    const std::string arguments = name == "truncate_decisions" ? "('b-1', 2)" : "('b-1')";
    const std::string plan = db.sql("SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan; PREPARE q AS " +
                                    *text + "; EXPLAIN (FORMAT JSON) EXECUTE q" + arguments);
    INFO(name << ": " << plan);
    CHECK(plan.find("decisions_pkey") != std::string::npos);
    CHECK(plan.find("Seq Scan") == std::string::npos);
  }
  CHECK_FALSE(PostgresStore::statement_text("no_such_statement"));
}

// No index keeps a game's decision numbers unique (version 8): each node
// checks them, and a node that takes a room back reads where the game got
// to meanwhile. A room written on node A, then on B, then on A again: A's
// numbers from before are stale, and its load of the room puts them right.
TEST_CASE("postgres store: a room that comes back to a node goes on from the decisions written elsewhere") {
  PostgresDatabase db;
  PostgresStore a(db.url()), b(db.url());
  a.commit(a_room_with_a_game());  // decisions 0 and 1 of g-1
  REQUIRE(b.load_room("ABCD"));
  b.commit({record::DecisionAccepted{"g-1", 2, R"({"seat":0})", 3}, record::DecisionAccepted{"g-1", 3, R"({"seat":1})", 4}});
  CHECK_THROWS_WITH_AS(b.commit({record::DecisionAccepted{"g-1", 3, R"({"seat":1})", 5}}),
                       doctest::Contains("decision 3 is out of sequence (the next is 4)"), StoreError);
  const auto back = a.load_room("ABCD");
  REQUIRE(back);
  CHECK(back->game->decisions.size() == 4);
  a.commit({record::DecisionAccepted{"g-1", 4, R"({"seat":0})", 6}});
  CHECK(a.load_room("ABCD")->game->decisions.size() == 5);
}

// The count says that some lease was lost, not which: the check that
// follows covers every room the node holds, not only the batch's. A room
// lost while it had nothing to write stays fenced when it writes later,
// and a room taken again since its loss is written under its new epoch.
TEST_CASE_FIXTURE(TwoNodes, "postgres store: a lease lost while its room was not in a batch fences the room's next batch") {
  for (const char* code : {"AAAAA", "BBBBB", "CCCCC"}) REQUIRE(a.take_lease(code, "node-a", 60'000ms) == 1);
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomCreated{"AAAAA", "{}", 1}}},
                        {"BBBBB", {record::RoomCreated{"BBBBB", "{}", 2}}},
                        {"CCCCC", {record::RoomCreated{"CCCCC", "{}", 3}}}})
            .empty());
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second' WHERE code IN ('BBBBB', 'CCCCC')");
  REQUIRE(b.take_lease("BBBBB", "node-b", 60'000ms) == 2);
  // CCCCC: lost to b, then back to a, one epoch further.
  REQUIRE(b.take_lease("CCCCC", "node-b", 60'000ms) == 2);
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second' WHERE code = 'CCCCC'");
  REQUIRE(a.take_lease("CCCCC", "node-a", 60'000ms) == 3);
  // A batch of AAAAA alone: written (the check finds BBBBB lost on the way).
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"a\":1}"}}}}).empty());
  // Then BBBBB's: fenced, though nothing was taken since that check.
  CHECK(a.commit_rooms({{"BBBBB", {record::RoomSettingsChanged{"BBBBB", "{\"a\":2}"}}},
                        {"CCCCC", {record::RoomSettingsChanged{"CCCCC", "{\"a\":3}"}}}}) ==
        std::vector<std::string>{"BBBBB"});
  CHECK(db.sql("SELECT string_agg(code || ' ' || settings, ', ' ORDER BY code) FROM rooms") ==
        "AAAAA {\"a\":1}, BBBBB {}, CCCCC {\"a\":3}");
}

TEST_CASE_FIXTURE(TwoNodes, "postgres store: a connection lost while the guard reads again which leases were lost "
                            "is made again, and the batch is written") {
  REQUIRE(a.take_lease("AAAAA", "node-a", 60'000ms) == 1);
  REQUIRE(a.take_lease("BBBBB", "node-a", 60'000ms) == 1);
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomCreated{"AAAAA", "{}", 1}}}}).empty());
  // b takes BBBBB over: a's count of leases lost moves, so a's next batch
  // fails its guard and a reads again which of its leases it lost.
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second' WHERE code = 'BBBBB'");
  REQUIRE(b.take_lease("BBBBB", "node-b", 60'000ms) == 2);
  // That read is the next statement to look at room_lease: put a view in
  // the table's place whose first row ends the session reading it (a's
  // prepared statements are planned again against the view).
  db.sql("CREATE SEQUENCE lease_reads; "
         "CREATE FUNCTION end_first_lease_read() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$ BEGIN "
         "IF nextval('lease_reads') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); "
         "PERFORM pg_sleep(10); END IF; RETURN true; END $$; "
         "ALTER TABLE room_lease RENAME TO room_lease_table; "
         "CREATE VIEW room_lease AS SELECT * FROM room_lease_table WHERE end_first_lease_read()");
  CHECK(a.commit_rooms({{"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"a\":1}"}}}}).empty());
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'AAAAA'") == "{\"a\":1}");
  CHECK(db.sql("SELECT last_value FROM lease_reads") != "1");  // read once more after the lost one
  // And the read again found BBBBB lost: fenced from now on.
  CHECK(a.commit_rooms({{"BBBBB", {record::RoomCreated{"BBBBB", "{}", 2}}}}) == std::vector<std::string>{"BBBBB"});
}

TEST_CASE("postgres store writer: a fenced room's callback says not written, the others' say written") {
  PostgresDatabase db;
  PostgresStore a(db.url());
  a.fence_as("node-a");
  REQUIRE(a.take_lease("AAAAA", "node-a", 60'000ms));
  std::vector<std::string> fenced;
  std::mutex mutex;
  std::map<std::string, bool> written;
  {
    StoreWriter writer(a);
    writer.on_fenced([&](const std::string& room) {
      std::lock_guard lock(mutex);
      fenced.push_back(room);
    });
    for (const char* code : {"AAAAA", "BBBBB"}) {
      writer.submit(code, {record::RoomCreated{code, "{}", 1}}, [&, code = std::string(code)](WriteOutcome outcome) {
 const bool ok = outcome == WriteOutcome::kWritten;
        std::lock_guard lock(mutex);
        written[code] = ok;
      });
    }
  }
  CHECK(fenced == std::vector<std::string>{"BBBBB"});
  CHECK(written["AAAAA"]);
  CHECK_FALSE(written["BBBBB"]);
  CHECK(db.sql("SELECT string_agg(code, ',') FROM rooms") == "AAAAA");
}

// ---- Writer lanes: several connections commit side by side.

// Keeps what each commit wrote, and how many commits were running at once
// across every store sharing `running`.
struct LaneStore final : NullStore {
  explicit LaneStore(std::atomic<int>& running, std::atomic<int>& most) : running_(running), most_(most) {}
  void commit(const std::vector<Record>& records) override {
    const int now = ++running_;
    for (int seen = most_; now > seen && !most_.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a WAL flush
    {
      std::lock_guard lock(mutex);
      for (const Record& record : records) {
        if (const auto* decision = std::get_if<record::DecisionAccepted>(&record)) {
          written.emplace_back(decision->game_id, decision->seq);
        }
      }
    }
    --running_;
  }
  std::mutex mutex;
  std::vector<std::pair<std::string, std::int64_t>> written;  // (room, seq) in commit order

 private:
  std::atomic<int>& running_;
  std::atomic<int>& most_;
};

TEST_CASE("sharded writer: a room's records stay on one lane in order, and lanes commit side by side") {
  std::atomic<int> running{0}, most{0};
  std::vector<std::unique_ptr<LaneStore>> stores;
  std::vector<Store*> lanes;
  for (int i = 0; i < 4; ++i) {
    stores.push_back(std::make_unique<LaneStore>(running, most));
    lanes.push_back(stores.back().get());
  }
  std::atomic<int> callbacks{0};
  std::mutex mutex;
  std::map<std::string, std::vector<std::int64_t>> called;  // each room's callbacks, in the order they ran
  ShardedWriter writer(lanes);
  CHECK(writer.lanes() == 4);
  std::vector<std::string> rooms;
  for (int room = 0; room < 16; ++room) rooms.push_back("ROOM" + std::to_string(room));
  for (std::int64_t seq = 0; seq < 10; ++seq) {
    for (const auto& room : rooms) {
      writer.submit(room, {record::DecisionAccepted{room, seq, "{}", std::nullopt}}, [&, room, seq](WriteOutcome outcome) {
 const bool written = outcome == WriteOutcome::kWritten;
        CHECK(written);
        std::lock_guard lock(mutex);
        called[room].push_back(seq);
        ++callbacks;
      });
    }
  }
  writer.stop();
  CHECK(callbacks == 160);
  std::set<std::size_t> used;
  for (const auto& room : rooms) {
    CHECK(called[room] == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    const std::size_t lane = writer.lane_of(room);
    used.insert(lane);
    // Every record of the room is on its lane, in order; none elsewhere.
    for (std::size_t i = 0; i < stores.size(); ++i) {
      std::vector<std::int64_t> seqs;
      for (const auto& [code, seq] : stores[i]->written) {
        if (code == room) seqs.push_back(seq);
      }
      CHECK(seqs == (i == lane ? called[room] : std::vector<std::int64_t>{}));
    }
  }
  CHECK(used.size() > 1);
  MESSAGE("at most " << most.load() << " commits ran at once over " << writer.batches() << " batches");
  CHECK(most >= 2);
  // The lane of a code is fixed: the same in every run.
  CHECK(writer.lane_of("ROOM0") == ShardedWriter(lanes).lane_of("ROOM0"));
}

TEST_CASE("postgres store: writer connections commit under the store's fence, and do not listen") {
  PostgresDatabase db;
  PostgresStore a(db.url()), b(db.url());
  const std::string node = "lanes-a-" + db.schema();
  a.fence_as(node);
  b.fence_as("node-b");
  const auto first = a.open_writer();
  const auto second = a.open_writer();
  REQUIRE(a.take_lease("AAAAA", node, 60'000ms) == 1);
  // Taken through the store, written through either connection.
  CHECK(first->commit_rooms({{"AAAAA", {record::RoomCreated{"AAAAA", "{}", 1}}}}).empty());
  CHECK(second->commit_rooms({{"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"n\":1}"}}}}).empty());
  // A room never leased is fenced on every connection.
  CHECK(first->commit_rooms({{"BBBBB", {record::RoomCreated{"BBBBB", "{}", 1}}}}) ==
        std::vector<std::string>{"BBBBB"});
  // Taken over by b: fenced out on both, and forgotten by the store.
  db.sql("UPDATE room_lease SET expires_at = now() - interval '1 second'");
  REQUIRE(b.take_lease("AAAAA", "node-b", 60'000ms) == 2);
  CHECK(second->commit_rooms({{"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"n\":2}"}}}}) ==
        std::vector<std::string>{"AAAAA"});
  CHECK(first->commit_rooms({{"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"n\":3}"}}}}) ==
        std::vector<std::string>{"AAAAA"});
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'AAAAA'") == "{\"n\":1}");
  // Taken back at a higher epoch: written again.
  b.release_leases("node-b", {});
  REQUIRE(a.take_lease("AAAAA", node, 60'000ms) == 3);
  CHECK(first->commit_rooms({{"AAAAA", {record::RoomSettingsChanged{"AAAAA", "{\"n\":4}"}}}}).empty());
  CHECK(db.sql("SELECT settings FROM rooms WHERE code = 'AAAAA'") == "{\"n\":4}");
  // Only the store itself listens for handover requests.
  REQUIRE(b.ask_handover("AAAAA", "node-b"));
  CHECK(handovers_asked(a) == std::vector<std::string>{"AAAAA"});
  CHECK(first->handover_requests().empty());
  CHECK(second->handover_requests().empty());
}

TEST_CASE("postgres store writer: rooms on several writer connections keep every decision, in order") {
  PostgresDatabase db;
  PostgresStore store(db.url());
  const std::string node = "lanes-" + db.schema();
  store.fence_as(node);
  std::vector<std::unique_ptr<PostgresStore>> connections;
  std::vector<Store*> lanes;
  for (int i = 0; i < 3; ++i) {
    connections.push_back(store.open_writer());
    lanes.push_back(connections.back().get());
  }
  std::vector<std::string> rooms;
  for (int room = 0; room < 12; ++room) {
    rooms.push_back("ROOM" + std::string(1, static_cast<char>('A' + room)));
    REQUIRE(store.take_lease(rooms.back(), node, 60'000ms));
  }
  std::atomic<int> written{0};
  {
    ShardedWriter writer(lanes);
    writer.commit_delay(std::chrono::microseconds(500));
    for (const auto& room : rooms) {
      writer.submit(room, {record::RoomCreated{room, "{}", 1}, record::GameStarted{room, 1, "g-" + room, "{}", 1}},
                    [&](WriteOutcome outcome) {
 const bool ok = outcome == WriteOutcome::kWritten; written += ok ? 1 : 0; });
    }
    for (std::int64_t seq = 0; seq < 20; ++seq) {
      for (const auto& room : rooms) {
        writer.submit(room,
                      {record::DecisionAccepted{"g-" + room, seq, R"({"n":)" + std::to_string(seq) + "}", seq + 1}},
                      [&](WriteOutcome outcome) {
 const bool ok = outcome == WriteOutcome::kWritten; written += ok ? 1 : 0; });
      }
    }
  }
  CHECK(written == 12 * 21);
  const auto stored = store.load_open_rooms();
  REQUIRE(stored.size() == rooms.size());
  for (const auto& room : stored) {
    REQUIRE(room.game);
    REQUIRE(room.game->decisions.size() == 20);
    for (std::size_t seq = 0; seq < 20; ++seq) CHECK(room.game->decisions[seq] == R"({"n":)" + std::to_string(seq) + "}");
    CHECK(room.v == 20);
  }
}

TEST_CASE("transcript api: a store that cannot be read answers 503 with the protocol's error message") {
  struct BrokenStore final : Store {
    void commit(const std::vector<Record>&) override {}
    std::vector<StoredRoom> load_open_rooms() override { return {}; }
    void set_aside(const std::string&, const std::string&, std::int64_t) override {}
    std::vector<SetAsideRoom> set_aside_rooms() override { return {}; }
    bool restore_set_aside(const std::string&) override { return false; }
    std::optional<StoredGame> finished_game(const std::string&) override { throw StoreError("disk gone"); }
    std::size_t prune_finished(std::int64_t) override { return 0; }
    std::array<std::uint64_t, 4> token_key() override { return {}; }
    void truncate_decisions(const std::string&, std::int64_t) override {}
  } store;
  const auto reply = transcript_reply(store, "/api/games/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/transcript");
  CHECK(reply.status == 503);
  CHECK(reply.content_type == "application/json");
  const auto parsed = protocol::parse_server_message(reply.body);
  REQUIRE(std::holds_alternative<protocol::ServerMessage>(parsed));
  const auto* error = std::get_if<protocol::Error>(&std::get<protocol::ServerMessage>(parsed));
  REQUIRE(error != nullptr);
  CHECK(error->code == protocol::ErrorCode::kApiStorage);
  CHECK_FALSE(error->message.empty());
}

}  // namespace
}  // namespace gofish::server

namespace gofish::server {
namespace {

TEST_CASE_TEMPLATE("store: class events, their pupils, their latest round's tables and earlier rounds' results come back", Kind, GOFISH_STORES) {
  Kind kind;
  const std::string teacher(16, '\x07');
  const std::string ann(16, '\x02');
  kind.open()->commit({
      record::EventSaved{"KQ7XM2", "Class 3B", R"({"table_size":4})", teacher, "open", 0, 1000},
      record::PupilSaved{"KQ7XM2", 0, "Ann", ann},
      record::PupilSaved{"KQ7XM2", 1, "Ben", ""},
      // A second event, closed: not loaded, but read back when asked for.
      record::EventSaved{"ZZ22ZZ", "Done", "{}", teacher, "closed", 1, 900},
      record::PupilSaved{"ZZ22ZZ", 0, "Cleo", ann},
      record::EventTableSaved{"ZZ22ZZ", 1, 0, "DDDDD", "[0]", "game-9", R"([{"name":"Cleo"}])"},
  });
  {
    const auto store = kind.open();
    // Round 1 then round 2: written again whole, only the latest round's tables come back.
    store->commit({
        record::EventTableSaved{"KQ7XM2", 1, 0, "AAAAA", "[0,null]"},
        record::EventSaved{"KQ7XM2", "Class 3B", R"({"table_size":4})", teacher, "playing", 1, 1000},
        record::PupilSaved{"KQ7XM2", 1, "Ben", std::string(16, '\x03')},
    });
    store->commit({
        record::EventTableSaved{"KQ7XM2", 2, 0, "BBBBB", "[1,0]"},
        record::EventTableSaved{"KQ7XM2", 2, 1, "CCCCC", "[null,null]"},
        record::EventSaved{"KQ7XM2", "Class 3B", R"({"table_size":4})", teacher, "playing", 2, 1000},
    });
    // Round 1's table finished: written again whole, with its game and result.
    store->commit({record::EventTableSaved{"KQ7XM2", 1, 0, "AAAAA", "[0,null]", "game-1", R"([{"name":"Ann"}])"}});
    // A table of the round in play written again as its seats change
    // (seat_to_bot, remove_pupil, a late pupil): the last write stays.
    store->commit({record::EventTableSaved{"KQ7XM2", 2, 1, "CCCCC", R"([{"let_go":true,"unseated":0},null])"}});
    store->commit({record::EventTableSaved{"KQ7XM2", 2, 1, "CCCCC", R"([{"let_go":true,"unseated":0},1])"}});
  }
  const auto events = kind.open()->load_open_events();
  REQUIRE(events.size() == 1);
  const StoredEvent& event = events[0];
  CHECK(event.event == "KQ7XM2");
  CHECK(event.name == "Class 3B");
  CHECK(event.settings == R"({"table_size":4})");
  CHECK(event.teacher_hash == teacher);
  CHECK(event.phase == "playing");
  CHECK(event.round == 2);
  CHECK(event.created_ms == 1000);
  REQUIRE(event.pupils.size() == 2);
  CHECK(event.pupils[0] == StoredPupil{0, "Ann", ann});
  CHECK(event.pupils[1] == StoredPupil{1, "Ben", std::string(16, '\x03')});
  REQUIRE(event.tables.size() == 2);
  CHECK(event.tables[0] == StoredEventTable{0, "BBBBB", "[1,0]"});
  CHECK(event.tables[1] == StoredEventTable{1, "CCCCC", R"([{"let_go":true,"unseated":0},1])"});
  // The rounds before, for their results.
  REQUIRE(event.earlier_rounds.size() == 1);
  CHECK(event.earlier_rounds[0].round == 1);
  REQUIRE(event.earlier_rounds[0].tables.size() == 1);
  CHECK(event.earlier_rounds[0].tables[0] ==
        StoredEventTable{0, "AAAAA", "[0,null]", "game-1", R"([{"name":"Ann"}])"});

  // A closed event by its code, whole; an open one or an unknown code: none.
  const auto store = kind.open();
  const auto closed = store->load_closed_event("ZZ22ZZ");
  REQUIRE(closed);
  CHECK(closed->event == "ZZ22ZZ");
  CHECK(closed->name == "Done");
  CHECK(closed->phase == "closed");
  CHECK(closed->round == 1);
  CHECK(closed->teacher_hash == teacher);
  CHECK(closed->pupils == std::vector<StoredPupil>{StoredPupil{0, "Cleo", ann}});
  CHECK(closed->tables ==
        std::vector<StoredEventTable>{StoredEventTable{0, "DDDDD", "[0]", "game-9", R"([{"name":"Cleo"}])"}});
  CHECK(closed->earlier_rounds.empty());
  CHECK_FALSE(store->load_closed_event("KQ7XM2"));
  CHECK_FALSE(store->load_closed_event("ZZ22ZY"));
  // An open event by its code, as load_open_events gives it; a closed one
  // or an unknown code: none.
  const auto open = store->load_open_event("KQ7XM2");
  REQUIRE(open);
  CHECK(open->event == event.event);
  CHECK(open->phase == "playing");
  CHECK(open->round == 2);
  CHECK(open->pupils == event.pupils);
  CHECK(open->tables == event.tables);
  REQUIRE(open->earlier_rounds.size() == 1);
  CHECK(open->earlier_rounds[0].tables == event.earlier_rounds[0].tables);
  CHECK_FALSE(store->load_open_event("ZZ22ZZ"));
  CHECK_FALSE(store->load_open_event("ZZ22ZY"));
}

}  // namespace
}  // namespace gofish::server
