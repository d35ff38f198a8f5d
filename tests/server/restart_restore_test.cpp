// The server always starts again on its own data: every state it writes is
// rebuilt by a restart of the real gofish-server binary, and a room that
// cannot be rebuilt is set aside without keeping the others from starting.
//
// - A finished game whose table changed after it ended: for every preset, a
//   room (Ann the host, Bob, an easy bot in seat 2) plays to game_over; then
//   Bob leaves, or stays away past the seat grace period, or is kicked, or
//   the host removes the bot. And, for one preset each: the host leaves, the
//   bot is replaced by another, Bob's seat is taken by a new player. SIGTERM,
//   start again: every room is back, over, its transcript (by message and
//   over HTTP) naming who played, whoever still holds a seat resumes, and the
//   room plays a rematch to its end.
// - A kick: after the restart the removed player's token and name are still
//   refused with room/kicked, whether the kick freed the seat or left it to a
//   bot for the rest of the game.
// - A database written before games kept their players: the transcript names
//   the seats' holders, "Seat N" for an empty one.
// - One room whose game set-up is damaged, beside 20 whole ones: the 20 come
//   back, the damaged one is set aside (logged, counted in /metrics, listed by
//   --list-set-aside, kept in the database) and, once repaired and put back
//   with --restore-set-aside, comes back at the next start.
// - The next deal (gofish-deal/1): a room killed between games, with one
//   seat's contribution acknowledged and another seat's forgotten as its
//   player left, comes back (SQLite, PostgreSQL) with the commitment it had
//   announced; the game then dealt reveals the seed behind that commitment
//   and deals with the acknowledged contribution alone. A room stored
//   without a next deal (before it was kept) draws one once and keeps it.
// - A backup taken as the README says (the sqlite3 program's .backup, or
//   pg_dump and pg_restore with --storage postgres) while the server runs is
//   a whole database: a server started on it has every room, seat token and
//   finished game.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fairness/deal_algorithm.hpp"
#include "fairness/deal_check.hpp"
#include "postgres_cluster.hpp"
#include "protocol/rules_json.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "sqlite_sql.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

namespace fs = std::filesystem;
using protocol::BotLevel;
using protocol::Occupant;

const std::vector<std::string> kPresets = {"classic", "specific-card", "keep-playing", "bicycle", "authors", "pairs"};

// What happens at the table after its game is over, before the stop.
enum class After { kLeave, kGrace, kKick, kRemoveBot, kHostLeaves, kBotReplaced, kSeatRetaken };

std::string describe(After after) {
  switch (after) {
    case After::kLeave: return "Bob left";
    case After::kGrace: return "Bob stayed away past the grace period";
    case After::kKick: return "the host kicked Bob";
    case After::kRemoveBot: return "the host removed the bot";
    case After::kHostLeaves: return "the host left";
    case After::kBotReplaced: return "the host replaced the bot";
    case After::kSeatRetaken: return "Bob left and Dan took his seat";
  }
  return "?";
}

std::string server_log_tail(const ServerProcess& server) {
  const std::string text = server.log_text();
  return text.substr(text.size() > 3000 ? text.size() - 3000 : 0);
}

protocol::RoomSnapshot snapshot_after(Peer& peer) {
  const auto message = peer.await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(message);
  return std::get<protocol::RoomSnapshot>(*message);
}

// A new connection taking its seat back with `token`.
std::unique_ptr<Peer> resume_seat(std::uint16_t port, const std::string& token) {
  auto peer = std::make_unique<Peer>(port);
  CHECK(peer->expect<protocol::Joined>(protocol::Resume{token, std::nullopt}).resumed);
  return peer;
}

protocol::Player human(std::string name) { return protocol::Player{std::move(name), std::nullopt}; }
protocol::Player bot(std::string name, BotLevel level) { return protocol::Player{std::move(name), level}; }

struct Table {
  std::string preset;
  After after = After::kLeave;
  std::string code;
  std::unique_ptr<AutoPlayer> ann, bob;
  std::string dan_token;
  std::unique_ptr<Peer> dan;               // connected until the stop, so the seat stays his
  protocol::TranscriptMessage transcript;  // game 1, as served before the stop

  // After the restart.
  std::vector<std::unique_ptr<Peer>> peers;          // whoever still holds a seat
  std::vector<std::unique_ptr<AutoPlayer>> players;  // the same, playing the rematch
  std::vector<protocol::Player> rematch_players;     // who the rematch's new_game names
};

// Ann (host), Bob and an easy bot play one game of `preset` to its end.
Table open_table(std::uint16_t port, const std::string& preset, After after, std::uint64_t seed) {
  Table table;
  table.preset = preset;
  table.after = after;
  Seated host = create_room(port, create_request("Ann", preset, 3, {{2, BotLevel::kEasy}}));
  table.code = host.code;
  Seated guest = join_room(port, host.code, "Bob");
  host.peer->expect<protocol::Ok>(protocol::Start{});
  table.ann = autoplay(std::move(host), seed);
  table.bob = autoplay(std::move(guest), seed + 1);
  return table;
}

// The change after the game; returns once it is committed (an `ok`, or the
// event it caused, is sent only after its records are on disk), except for
// the grace period, which await_grace waits out.
void change_after_game(std::uint16_t port, Table& table) {
  Peer& ann = table.ann->peer();
  Peer& bob = table.bob->peer();
  switch (table.after) {
    case After::kLeave: bob.expect<protocol::Ok>(protocol::Leave{}); break;
    case After::kGrace: bob.socket().drop(); break;
    case After::kKick: ann.expect<protocol::Ok>(protocol::Kick{1}); break;
    case After::kRemoveBot: ann.expect<protocol::Ok>(protocol::RemoveBot{2}); break;
    case After::kHostLeaves:
      ann.expect<protocol::Ok>(protocol::Leave{});
      REQUIRE(bob.await_event<protocol::HostChanged>());
      break;
    case After::kBotReplaced:
      ann.expect<protocol::Ok>(protocol::RemoveBot{2});
      ann.expect<protocol::Ok>(protocol::AddBot{2, BotLevel::kHard});
      break;
    case After::kSeatRetaken: {
      bob.expect<protocol::Ok>(protocol::Leave{});
      Seated dan = join_room(port, table.code, "Dan");
      CHECK(dan.seat == 1);
      table.dan_token = dan.token;
      table.dan = std::move(dan.peer);
      break;
    }
  }
}

// Who sits where after the change: the names a rematch's new_game gives,
// once the host has filled an empty seat with a medium bot.
std::vector<protocol::Player> seats_for_rematch(After after) {
  switch (after) {
    case After::kLeave:
    case After::kKick: return {human("Ann"), bot("Medium bot", BotLevel::kMedium), bot("Easy bot", BotLevel::kEasy)};
    // Away past the grace period after a game, Bob keeps his seat.
    case After::kGrace: return {human("Ann"), human("Bob"), bot("Easy bot", BotLevel::kEasy)};
    case After::kRemoveBot: return {human("Ann"), human("Bob"), bot("Medium bot", BotLevel::kMedium)};
    case After::kHostLeaves:
      return {bot("Medium bot", BotLevel::kMedium), human("Bob"), bot("Easy bot", BotLevel::kEasy)};
    case After::kBotReplaced: return {human("Ann"), human("Bob"), bot("Hard bot", BotLevel::kHard)};
    case After::kSeatRetaken: return {human("Ann"), human("Dan"), bot("Easy bot", BotLevel::kEasy)};
  }
  return {};
}

// Plays every table's first game to its end on a server with a short seat
// grace period (long enough that no seat is freed while the stop closes the
// connections), changes each table, stops the server with SIGTERM.
void play_and_change(const fs::path& data, const fs::path& log, std::vector<Table>& tables,
                     const std::vector<std::pair<std::string, After>>& plan) {
  ServerProcess server(data, log, {"--seat-grace-ms=1000"});
  const auto port = server.port();
  std::uint64_t seed = 1;
  std::vector<AutoPlayer*> everyone;
  for (const auto& [preset, after] : plan) {
    tables.push_back(open_table(port, preset, after, seed));
    seed += 2;
  }
  for (auto& table : tables) {
    everyone.push_back(table.ann.get());
    everyone.push_back(table.bob.get());
  }
  const bool over = drive(
      everyone,
      [&] {
        for (auto& table : tables) {
          if (table.ann->games_over() < 1 || table.bob->games_over() < 1) return false;
        }
        return true;
      },
      60'000ms);
  if (!over) MESSAGE("server log: " << server_log_tail(server));
  REQUIRE(over);
  for (auto& table : tables) {
    INFO(table.preset << ", room " << table.code);
    CHECK(table.ann->problems.empty());
    CHECK(table.bob->problems.empty());
    table.ann->active = false;
    table.bob->active = false;
    table.transcript = table.ann->peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
    REQUIRE(table.transcript.game_id);
    CHECK(table.transcript.players ==
          std::vector<protocol::Player>{human("Ann"), human("Bob"), bot("Easy bot", BotLevel::kEasy)});
  }
  for (auto& table : tables) {
    INFO(table.preset << ", room " << table.code << ": " << describe(table.after));
    change_after_game(port, table);
  }
  for (auto& table : tables) {
    INFO(table.preset << ", room " << table.code << ": " << describe(table.after));
    // Bob's seat outlives his grace period: a finished room's seats stay with
    // their owners until the room closes.
    if (table.after == After::kGrace) CHECK_FALSE(table.ann->peer().await_event<protocol::SeatLeft>(1500ms));
  }
  const int status = server.stop(SIGTERM);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
}

// After the restart: the room is over, its transcript names who played, the
// seats are as they were left; those who gave up their seat cannot resume.
void check_restored(std::uint16_t port, Table& table, const std::vector<protocol::Player>& played) {
  INFO(table.preset << ", room " << table.code << ": " << describe(table.after));
  const bool ann_seated = table.after != After::kHostLeaves;
  const bool bob_seated = table.after == After::kRemoveBot || table.after == After::kBotReplaced ||
                          table.after == After::kHostLeaves || table.after == After::kGrace;
  if (ann_seated) table.peers.push_back(resume_seat(port, table.ann->token()));
  if (bob_seated) table.peers.push_back(resume_seat(port, table.bob->token()));
  if (table.after == After::kSeatRetaken) table.peers.push_back(resume_seat(port, table.dan_token));
  REQUIRE(!table.peers.empty());
  Peer& first = *table.peers.front();
  const protocol::RoomSnapshot room = snapshot_after(first);
  CHECK(room.code == table.code);
  CHECK(room.state == protocol::RoomState::kOver);
  CHECK(room.game_number == 1);
  CHECK(room.result.has_value());
  CHECK(room.host == (ann_seated ? 0 : 1));
  const auto expected = seats_for_rematch(table.after);
  REQUIRE(room.seats.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("seat " << i);
    // The medium bot is added after the restart, into the seat left empty.
    if (expected[i].name == "Medium bot") {
      CHECK(room.seats[i].occupant == Occupant::kEmpty);
    } else {
      CHECK(room.seats[i].name == expected[i].name);
      CHECK(room.seats[i].occupant == (expected[i].bot ? Occupant::kBot : Occupant::kHuman));
    }
  }

  // The transcript, by message and over HTTP, as it was before the stop.
  auto served = first.expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
  CHECK(served.code == table.code);
  CHECK(served.game == 1);
  CHECK(served.game_id == table.transcript.game_id);
  CHECK(served.transcript == table.transcript.transcript);
  CHECK(served.players == played);
  const auto reply = http_request(port, "/api/games/" + *table.transcript.game_id + "/transcript");
  CHECK(reply.status == 200);
  auto http = protocol::transcript_from_json(nlohmann::json::parse(reply.body));
  REQUIRE(std::holds_alternative<engine::Transcript>(http));
  CHECK(std::get<engine::Transcript>(http) == table.transcript.transcript);

  // Whoever gave up the seat has no seat to resume; a kicked player hears
  // why, after the restart as before it.
  std::vector<std::string> gone;
  if (!ann_seated) gone.push_back(table.ann->token());
  if (!bob_seated) gone.push_back(table.bob->token());
  const std::string refusal = table.after == After::kKick ? "room/kicked" : "room/bad_token";
  for (const auto& token : gone) {
    Peer stranger(port);
    CHECK(stranger.error_of(protocol::Resume{token, std::nullopt}) == refusal);
  }
}

// The host fills the empty seat and everyone seated votes for a rematch.
void start_rematch(Table& table) {
  INFO(table.preset << ", room " << table.code << ": " << describe(table.after));
  Peer& host = *table.peers.front();
  const auto expected = seats_for_rematch(table.after);
  for (const auto& player : expected) {
    if (player.name == "Medium bot") host.expect<protocol::Ok>(protocol::AddBot{std::nullopt, BotLevel::kMedium});
  }
  for (auto& peer : table.peers) peer->expect<protocol::Ok>(protocol::Rematch{});
  const auto started = host.await_event<protocol::NewGame>();
  REQUIRE(started);
  CHECK(started->game == 2);
  CHECK(started->players == expected);
  table.rematch_players = started->players;
}

void restart_after_changes(const std::vector<std::pair<std::string, After>>& plan) {
  TempDir dir("gofish-restore");
  const auto data = dir.path / "data";
  std::vector<Table> tables;
  play_and_change(data, dir.path / "first.log", tables, plan);

  ServerProcess server(data, dir.path / "second.log");
  const auto port = server.port();
  CHECK(server.log_text().find(std::to_string(tables.size()) + " rooms restored") != std::string::npos);
  const std::vector<protocol::Player> played = {human("Ann"), human("Bob"), bot("Easy bot", BotLevel::kEasy)};
  for (auto& table : tables) check_restored(port, table, played);
  for (auto& table : tables) start_rematch(table);

  // Every rematch is played to its end.
  std::vector<AutoPlayer*> everyone;
  std::uint64_t seed = 500;
  for (auto& table : tables) {
    const auto seats = seats_for_rematch(table.after);
    std::vector<std::string> tokens;
    if (table.after != After::kHostLeaves) tokens.push_back(table.ann->token());
    if (seats[1].name == "Bob") tokens.push_back(table.bob->token());
    if (table.after == After::kSeatRetaken) tokens.push_back(table.dan_token);
    REQUIRE(tokens.size() == table.peers.size());
    for (std::size_t i = 0; i < table.peers.size(); ++i) {
      const engine::Seat seat = tokens[i] == table.ann->token() ? 0 : 1;
      table.players.push_back(std::make_unique<AutoPlayer>(std::move(table.peers[i]), seat, tokens[i], seed++));
      everyone.push_back(table.players.back().get());
    }
  }
  const bool over = drive(
      everyone,
      [&] {
        for (auto& table : tables) {
          for (auto& player : table.players) {
            if (player->games_over() < 1) return false;
          }
        }
        return true;
      },
      60'000ms);
  if (!over) MESSAGE("server log: " << server_log_tail(server));
  REQUIRE(over);
  for (auto& table : tables) {
    INFO(table.preset << ", room " << table.code << ": " << describe(table.after));
    for (auto& player : table.players) CHECK(player->problems.empty());
    const auto second = table.players.front()->peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
    CHECK(second.game == 2);
    CHECK(second.players == table.rematch_players);
  }
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE(
    "restore: a finished game restores after a seat is freed (leave, grace expiry, kick, bot removal), every preset") {
  std::vector<std::pair<std::string, After>> plan;
  for (const auto& preset : kPresets) {
    for (const After after : {After::kLeave, After::kGrace, After::kKick, After::kRemoveBot}) {
      plan.emplace_back(preset, after);
    }
  }
  restart_after_changes(plan);
}

TEST_CASE(
    "restore: a finished game restores after the host leaves, the bot is replaced, or a new player takes a seat") {
  restart_after_changes({{"classic", After::kHostLeaves},
                         {"pairs", After::kHostLeaves},
                         {"authors", After::kBotReplaced},
                         {"bicycle", After::kBotReplaced},
                         {"specific-card", After::kSeatRetaken},
                         {"keep-playing", After::kSeatRetaken}});
}

// A database from before games kept their players: the set-up has no
// "seats". The transcript then names the seats' holders, and "Seat N" for
// a seat nobody holds.
TEST_CASE("restore: a finished game stored without its players names the seats' holders") {
  TempDir dir("gofish-restore");
  const auto data = dir.path / "data";
  std::vector<Table> tables;
  play_and_change(data, dir.path / "first.log", tables, {{"classic", After::kLeave}});
  const auto file = data / "gofish.sqlite";
  const auto setups = sql(file, "SELECT setup FROM games WHERE room = ?", {tables[0].code});
  REQUIRE(setups.size() == 1);
  auto setup = nlohmann::json::parse(setups[0]);
  CHECK(setup.contains("seats"));
  setup.erase("seats");
  sql(file, "UPDATE games SET setup = ? WHERE room = ?", {setup.dump(), tables[0].code});

  ServerProcess server(data, dir.path / "second.log");
  check_restored(server.port(), tables[0], {human("Ann"), human("Seat 1"), bot("Easy bot", BotLevel::kEasy)});
  CHECK(server.stop(SIGTERM) == 0);
}

// A vote is kept with its seat: the rematch after a restart (or on another
// node) needs only the votes not yet given.
TEST_CASE("restore: a rematch vote given before a restart still counts after it") {
  TempDir dir("gofish-restore");
  const auto data = dir.path / "data";
  std::vector<Table> tables;
  {
    ServerProcess server(data, dir.path / "first.log");
    tables.push_back(open_table(server.port(), "pairs", After::kLeave, 11));
    Table& table = tables.back();
    std::vector<AutoPlayer*> both{table.ann.get(), table.bob.get()};
    REQUIRE(drive(
        both, [&] { return table.ann->games_over() >= 1 && table.bob->games_over() >= 1; }, 60'000ms));
    table.ann->active = false;
    table.bob->active = false;
    table.ann->peer().expect<protocol::Ok>(protocol::Rematch{});
    const auto vote = table.bob->peer().await_event<protocol::RematchVote>();
    REQUIRE(vote);
    CHECK(vote->ready == std::vector<engine::Seat>{0});
    REQUIRE(server.stop(SIGTERM) == 0);
  }
  ServerProcess server(data, dir.path / "second.log");
  auto ann = resume_seat(server.port(), tables[0].ann->token());
  auto bob = resume_seat(server.port(), tables[0].bob->token());
  bob->expect<protocol::Ok>(protocol::Rematch{});
  const auto started = ann->await_event<protocol::NewGame>();
  REQUIRE(started);
  CHECK(started->game == 2);
  // The new game's seat rows keep no vote: a restart now restores none.
  CHECK(server.stop(SIGTERM) == 0);
  const auto rows = sql(data / "gofish.sqlite", "SELECT state FROM seats WHERE room = ?", {tables[0].code});
  REQUIRE(rows.size() == 3);
  for (const auto& row : rows) CHECK(row.find("rematch") == std::string::npos);
}

// The next deal outlives a SIGKILL between games: Ann's contribution was
// acknowledged (so it is stored), Bob's was forgotten as he left, and the
// restored room announces the commitment it had and deals from its seed.
void next_deal_survives_a_kill(const fs::path& dir, const std::vector<std::string>& args) {
  const auto data = dir / "data";
  const std::string ann_value = "0123456789abcdef0123456789abcdef";
  std::string code, ann_token, commitment;
  {
    ServerProcess server(data, dir / "first.log", args);
    Seated ann = create_room(server.port(), create_request("Ann", "classic", 3, {{2, BotLevel::kEasy}}));
    code = ann.code;
    ann_token = ann.token;
    commitment = snapshot_after(*ann.peer).next_deal.value().commitment;
    Seated bob = join_room(server.port(), ann.code, "Bob");
    ann.peer->expect<protocol::Ok>(protocol::Contribute{ann_value});
    bob.peer->expect<protocol::Ok>(protocol::Contribute{std::string(40, 'e')});
    bob.peer->expect<protocol::Ok>(protocol::Leave{});
    // The seat_left event goes out after the records that free the seat
    // (the leave's ok may come before them).
    REQUIRE(ann.peer->await_event<protocol::SeatLeft>());
    CHECK(WIFSIGNALED(server.stop(SIGKILL)));
  }
  ServerProcess server(data, dir / "second.log", args);
  auto ann = resume_seat(server.port(), ann_token);
  const protocol::RoomSnapshot restored = snapshot_after(*ann);
  REQUIRE(restored.next_deal);
  CHECK(restored.next_deal->commitment == commitment);
  CHECK(ann->error_of(protocol::Contribute{std::string(32, 'f')}) == "deal/already_contributed");
  ann->expect<protocol::Ok>(protocol::AddBot{1, BotLevel::kEasy});  // Bob's seat
  ann->expect<protocol::Ok>(protocol::Start{});
  auto player = std::make_unique<AutoPlayer>(std::move(ann), 0, ann_token, 7);
  REQUIRE(drive(
      {player.get()}, [&] { return player->games_over() >= 1; }, 60'000ms));
  const auto transcript = player->peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
  REQUIRE(transcript.fairness);
  const protocol::DealFairness& fairness = *transcript.fairness;
  CHECK(fairness.commitment == commitment);
  REQUIRE(fairness.seed);
  CHECK(fairness::to_hex(fairness::commitment_of(*fairness::from_hex(*fairness.seed))) == commitment);
  REQUIRE(fairness.contributions.size() == 3);
  CHECK(fairness.contributions[0] == ann_value);
  CHECK_FALSE(fairness.contributions[1]);  // Bob's, forgotten as he left; a bot's now
  CHECK_FALSE(fairness.contributions[2]);
  const std::string served = player->peer().frames().back().text;
  CHECK(fairness::check_transcript(nlohmann::json::parse(served)["transcript"]).fair);
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("restore: the next deal's commitment and acknowledged contributions outlive a SIGKILL") {
  TempDir dir("gofish-restore");
  next_deal_survives_a_kill(dir.path, {});
}

TEST_CASE("restore with PostgreSQL: the next deal's commitment and acknowledged contributions outlive a SIGKILL") {
  TempDir dir("gofish-restore");
  PostgresDatabase db;
  // Loaded at start: the restarted server is the same node, so it takes its
  // own leases back at once.
  next_deal_survives_a_kill(dir.path, {"--storage=postgres", "--postgres-url=" + db.url(), "--load-rooms=at-start",
                                       "--node-id=next-deal-node"});
}

// A room stored before the next deal was kept has none: restored, it draws
// a seed and stores it before it shows the commitment, so the restart after
// that shows the same one.
TEST_CASE("restore: a room stored without its next deal draws one once, and keeps it over the next restart") {
  TempDir dir("gofish-restore");
  const auto data = dir.path / "data";
  std::string code, token, commitment;
  {
    ServerProcess server(data, dir.path / "first.log");
    Seated ann = create_room(server.port(), create_request("Ann", "classic", 2));
    code = ann.code;
    token = ann.token;
    commitment = snapshot_after(*ann.peer).next_deal.value().commitment;
    REQUIRE(server.stop(SIGTERM) == 0);
  }
  const auto file = data / "gofish.sqlite";
  sql(file, "UPDATE rooms SET next_deal = NULL WHERE code = ?", {code});
  std::string drawn;
  {
    ServerProcess server(data, dir.path / "second.log");
    auto ann = resume_seat(server.port(), token);
    drawn = snapshot_after(*ann).next_deal.value().commitment;
    CHECK(drawn != commitment);
    CHECK(WIFSIGNALED(server.stop(SIGKILL)));
  }
  ServerProcess server(data, dir.path / "third.log");
  auto ann = resume_seat(server.port(), token);
  CHECK(snapshot_after(*ann).next_deal.value().commitment == drawn);
  CHECK(server.stop(SIGTERM) == 0);
}

// A kick is kept with the room's settings: after a restart the removed
// player's token and name are still refused, whether the kick freed the seat
// (before a game) or left it to a bot (during one).
TEST_CASE("restore: a player the host removed stays out of the room after a restart") {
  TempDir dir("gofish-restore");
  const auto data = dir.path / "data";
  std::string waiting_code, playing_code, waiting_token, playing_token;
  {
    ServerProcess server(data, dir.path / "first.log");
    Seated waiting = create_room(server.port(), create_request("Ann", "classic", 3));
    Seated bob = join_room(server.port(), waiting.code, "Bob");
    waiting.peer->expect<protocol::Ok>(protocol::Kick{bob.seat});
    CHECK(bob.peer->await([](const auto& m) { return std::holds_alternative<protocol::Error>(m); }));
    waiting_code = waiting.code;
    waiting_token = bob.token;

    Seated playing = create_room(server.port(), create_request("Cat", "classic", 3, {{2, BotLevel::kEasy}}));
    Seated dan = join_room(server.port(), playing.code, "Dan");
    playing.peer->expect<protocol::Ok>(protocol::Start{});
    playing.peer->expect<protocol::Ok>(protocol::Kick{dan.seat});
    CHECK(playing.peer->await_event<protocol::BotTakeover>());
    playing_code = playing.code;
    playing_token = dan.token;
    REQUIRE(server.stop(SIGTERM) == 0);
  }
  ServerProcess server(data, dir.path / "second.log");
  // The same token on a new connection, after the restart.
  Peer bob(server.port());
  CHECK(bob.error_of(protocol::Resume{waiting_token, std::nullopt}) == "room/kicked");
  Peer dan(server.port());
  CHECK(dan.error_of(protocol::Resume{playing_token, std::nullopt}) == "room/kicked");
  // The same name (compared as names are) asking for a seat.
  Peer bob_again(server.port());
  CHECK(bob_again.error_of(protocol::Join{waiting_code, "bob", protocol::JoinAs::kPlayer}) == "room/kicked");
  // Anyone else may still sit down.
  Peer eve(server.port());
  CHECK(eve.expect<protocol::Joined>(protocol::Join{waiting_code, "Eve", protocol::JoinAs::kPlayer}).seat == 1);
  // The settings row keeps the kick (the name and the token's hash, no token).
  const auto settings = sql(data / "gofish.sqlite", "SELECT settings FROM rooms WHERE code = ?", {playing_code});
  REQUIRE(settings.size() == 1);
  CHECK(settings[0].find("\"removed\"") != std::string::npos);
  CHECK(settings[0].find(playing_token) == std::string::npos);
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("restore: a room that cannot be rebuilt is set aside, kept and listed, and the 20 beside it come back") {
  TempDir dir("gofish-restore");
  const auto data = dir.path / "data";
  const auto file = data / "gofish.sqlite";
  constexpr int kRooms = 21;
  constexpr int kBad = 10;
  std::vector<std::string> codes, tokens;
  {
    ServerProcess server(data, dir.path / "first.log");
    for (int i = 0; i < kRooms; ++i) {
      Seated host =
          create_room(server.port(), create_request("Ann", kPresets[static_cast<std::size_t>(i) % kPresets.size()], 3,
                                                    {{1, BotLevel::kMedium}, {2, BotLevel::kEasy}}));
      // Half the rooms mid-game, half still waiting.
      if (i % 2 == 0) host.peer->expect<protocol::Ok>(protocol::Start{});
      codes.push_back(host.code);
      tokens.push_back(host.token);
    }
    REQUIRE(WEXITSTATUS(server.stop(SIGTERM)) == 0);
  }
  const std::string bad = codes[kBad];
  const auto setups = sql(file, "SELECT setup FROM games WHERE room = ?", {bad});
  REQUIRE(setups.size() == 1);
  sql(file, "UPDATE games SET setup = '{\"deck\": \"torn\"}' WHERE room = ?", {bad});

  const std::vector<std::string> data_arg = {"--data-dir", data.string()};
  // Spelt whole: GCC 12 took a copy of data_arg with a push_back here for
  // a write past a string's bounds (-Warray-bounds, a false positive).
  const std::vector<std::string> listing_args = {"--data-dir", data.string(), "--list-set-aside"};
  const auto listing = [&] { return run_server_to_exit(listing_args); };
  {
    ServerProcess server(data, dir.path / "second.log");
    const std::string log = server.log_text();
    CHECK(log.find("room " + bad + " set aside: ") != std::string::npos);
    CHECK(log.find("[error]") != std::string::npos);
    CHECK(log.find(std::to_string(kRooms - 1) + " rooms restored") != std::string::npos);
    const auto metrics = http_request(server.admin_port(), "/metrics");
    CHECK(metric_value(metrics.body, "gofish_rooms_set_aside") == 1);
    for (int i = 0; i < kRooms; ++i) {
      INFO("room " << codes[static_cast<std::size_t>(i)]);
      Peer peer(server.port());
      if (i == kBad) {
        CHECK(peer.error_of(protocol::Resume{tokens[static_cast<std::size_t>(i)], std::nullopt}) == "room/bad_token");
        CHECK(peer.error_of(protocol::Join{bad, "Zed", protocol::JoinAs::kPlayer}) == "room/not_found");
        continue;
      }
      CHECK(peer.expect<protocol::Joined>(protocol::Resume{tokens[static_cast<std::size_t>(i)], std::nullopt}).resumed);
      CHECK(snapshot_after(peer).code == codes[static_cast<std::size_t>(i)]);
    }
    // Listed while the server runs (SQLite in WAL mode lets a reader in).
    const auto listed = listing();
    CHECK(listed.exit_code == 0);
    CHECK(listed.output.find(bad) != std::string::npos);
    CHECK(listed.output.find("game ") != std::string::npos);
    REQUIRE(WEXITSTATUS(server.stop(SIGTERM)) == 0);
  }
  // Still in the database, its game with it.
  CHECK(sql(file, "SELECT set_aside FROM rooms WHERE code = ? AND set_aside IS NOT NULL", {bad}).size() == 1);
  CHECK(sql(file, "SELECT game_id FROM games WHERE room = ?", {bad}).size() == 1);
  CHECK(sql(file, "SELECT code FROM rooms").size() == static_cast<std::size_t>(kRooms));

  // Repaired by hand and put back: it comes back at the next start.
  sql(file, "UPDATE games SET setup = ? WHERE room = ?", {setups[0], bad});
  std::vector<std::string> put_back = data_arg;
  put_back.insert(put_back.end(), {"--restore-set-aside", bad});
  const auto restored = run_server_to_exit(put_back);
  CHECK(restored.exit_code == 0);
  CHECK(restored.output.find(bad) != std::string::npos);
  const auto empty = listing();
  CHECK(empty.exit_code == 0);
  CHECK(empty.output.find(bad) == std::string::npos);
  ServerProcess server(data, dir.path / "third.log");
  CHECK(server.log_text().find(std::to_string(kRooms) + " rooms restored") != std::string::npos);
  CHECK(metric_value(http_request(server.admin_port(), "/metrics").body, "gofish_rooms_set_aside") == 0);
  Peer peer(server.port());
  CHECK(peer.expect<protocol::Joined>(protocol::Resume{tokens[kBad], std::nullopt}).resumed);
  CHECK(snapshot_after(peer).state != protocol::RoomState::kWaiting);
  CHECK(server.stop(SIGTERM) == 0);
}

// A finished game, a game in play and a waiting room on a server started
// with `flags`; `backup` copies the store while it runs; a server started
// with `restored_flags` (on the copy) must have every room as of the copy.
void backup_while_running(const TempDir& dir, const std::vector<std::string>& flags,
                          const std::function<void()>& backup, const fs::path& restored_data,
                          const std::vector<std::string>& restored_flags) {
  ServerProcess server(dir.path / "data", dir.path / "first.log", flags);
  const auto port = server.port();
  Seated fay_seat = create_room(port, create_request("Fay", "classic", 2, {{1, BotLevel::kEasy}}));
  const std::string fay_code = fay_seat.code;
  fay_seat.peer->expect<protocol::Ok>(protocol::Start{});
  auto fay = autoplay(std::move(fay_seat), 3);
  REQUIRE(drive(
      {fay.get()}, [&] { return fay->games_over() >= 1; }, 30'000ms));
  auto finished = fay->peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
  REQUIRE(finished.game_id);
  Seated ann = create_room(port, create_request("Ann", "pairs", 3, {{1, BotLevel::kMedium}, {2, BotLevel::kHard}}));
  ann.peer->expect<protocol::Ok>(protocol::Start{});
  Seated wes = create_room(port, create_request("Wes", "bicycle", 3));

  backup();
  CHECK(wes.peer->expect<protocol::Ok>(protocol::AddBot{std::nullopt, BotLevel::kEasy}).id.has_value());

  ServerProcess restored(restored_data, dir.path / "copy.log", restored_flags);
  CHECK(restored.log_text().find("3 rooms restored") != std::string::npos);
  {
    Peer peer(restored.port());
    CHECK(peer.expect<protocol::Joined>(protocol::Resume{fay->token(), std::nullopt}).resumed);
    CHECK(snapshot_after(peer).state == protocol::RoomState::kOver);
    auto served = peer.expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
    CHECK(served.code == fay_code);
    CHECK(served.transcript == finished.transcript);
    CHECK(served.players == finished.players);
    CHECK(http_request(restored.port(), "/api/games/" + *finished.game_id + "/transcript").status == 200);
  }
  {
    Peer peer(restored.port());
    CHECK(peer.expect<protocol::Joined>(protocol::Resume{ann.token, std::nullopt}).resumed);
    CHECK(snapshot_after(peer).state != protocol::RoomState::kWaiting);
  }
  {
    // The copy is of its moment: the bot added afterwards is not in it.
    Peer peer(restored.port());
    CHECK(peer.expect<protocol::Joined>(protocol::Resume{wes.token, std::nullopt}).resumed);
    const auto room = snapshot_after(peer);
    CHECK(room.state == protocol::RoomState::kWaiting);
    CHECK(room.seats[1].occupant == Occupant::kEmpty);
  }
  CHECK(restored.stop(SIGTERM) == 0);
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("restore: a backup taken with the sqlite3 command while the server runs starts a server with every room") {
  TempDir dir("gofish-restore");
  const auto data = dir.path / "data";
  const auto copy = dir.path / "copy";
  backup_while_running(
      dir, {},
      [&] {
        // The README's command.
        fs::create_directories(copy);
        const std::string command = "sqlite3 '" + (data / "gofish.sqlite").string() + "' \".backup '" +
                                    (copy / "gofish.sqlite").string() + "'\"";
        REQUIRE(std::system(command.c_str()) == 0);
      },
      copy, {});
}

// The README's pg_dump and pg_restore, limited to the test's schema (the
// cluster's database holds every test's).
TEST_CASE("restore with PostgreSQL: a pg_dump taken while the server runs, restored into a new database, starts a server with every room") {
  TempDir dir("gofish-restore");
  PostgresDatabase db;
  PostgresCluster& cluster = db.cluster();
  const std::string restored_database = db.schema() + "_restored";
  const auto dump = dir.path / "gofish.dump";
  const std::string restored_url =
      cluster.url(restored_database) + "?options=-csearch_path%3D" + db.schema();
  backup_while_running(
      // The copy holds the running server's live leases: the server started
      // on it is the same node, so it takes them back at once.
      dir, {"--storage=postgres", "--postgres-url=" + db.url(), "--node-id=backup-node"},
      [&] {
        const std::string command = "pg_dump --format=custom --schema=" + db.schema() + " --file='" +
                                    dump.string() + "' '" + cluster.url(PostgresDatabase::kDatabase) + "'";
        REQUIRE(std::system(command.c_str()) == 0);
        cluster.sql("postgres", "CREATE DATABASE " + restored_database);
        const std::string restore =
            "pg_restore --no-owner --dbname='" + cluster.url(restored_database) + "' '" + dump.string() + "'";
        REQUIRE(std::system(restore.c_str()) == 0);
      },
      dir.path / "data",
      {"--storage=postgres", "--postgres-url=" + restored_url, "--load-rooms=at-start", "--node-id=backup-node"});
  cluster.sql("postgres", "DROP DATABASE " + restored_database + " WITH (FORCE)");
}

}  // namespace
}  // namespace gofish::server::testing
