// Today's deal through the real gofish-server binary (protocol/README.md,
// "Today's deal"), SQLite store: two players play the day's deal to the end;
// both games were dealt the same deck (the same hand, dealer and first
// player), neither can read the deck in its transcript during the day (held:
// room/transcript_held; tests/server/store_test.cpp holds the HTTP side on a
// clock set past midnight), each player hears
// how their game compares (daily_result: players, percentile, best), a
// rematch is not counted, the room is not in the lobby, and after a restart
// the day's tally is still there (read_daily). A player who reloads on the
// game-over screen (resume with the seat token) hears their standing again,
// after a SIGKILL and restart too, and also when the server stopped after
// counting the game and before keeping its standing; a game the server was
// killed during counts once it ends after the restart, and never twice
// (SQLite and PostgreSQL).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "engine/transcript.hpp"
#include "postgres_cluster.hpp"
#include "protocol/text.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "sqlite_sql.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

std::string today() {
  using namespace std::chrono;
  const year_month_day date(floor<days>(system_clock::now()));
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()));
  return text;
}

struct Played {
  engine::CardSet hand;  // seat 0's hand as dealt
  engine::Seat dealer = 0;
  engine::Seat first = 0;
  protocol::DailyResult result;
  std::string announced;  // the commitment in the room before the deal
  std::string held;       // the transcript request's refusal, during the day
};

bool is_result(const protocol::ServerMessage& m) { return std::holds_alternative<protocol::DailyResult>(m); }

// `name` plays today's deal to its end with a random player's choices.
Played play_daily(std::uint16_t port, const std::string& name, std::uint64_t seed) {
  auto peer = std::make_unique<Peer>(port);
  const auto created = peer->expect<protocol::Created>(protocol::PlayDaily{name});
  CHECK(protocol::is_room_code(created.code));
  CHECK(created.seat == 0);
  REQUIRE(protocol::is_token(created.token));
  // Already in a room: a second deal is refused.
  CHECK(peer->error_of(protocol::PlayDaily{name}) == "room/already_in_room");
  AutoPlayer player(std::move(peer), 0, created.token, seed);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline && player.games_over() == 0) {
    player.step();
    std::this_thread::sleep_for(1ms);
  }
  REQUIRE(player.games_over() == 1);
  for (const auto& problem : player.problems) FAIL_CHECK(problem);
  const auto result = player.peer().await(is_result, 10s);
  REQUIRE(result.has_value());
  // The transcript would show today's deck to whoever plays it next: held
  // until the day is over, with a sentence saying so.
  const auto refusal = player.peer().request(protocol::GetTranscript{});
  REQUIRE(std::holds_alternative<protocol::Error>(refusal));
  const auto& held = std::get<protocol::Error>(refusal);
  CHECK(held.code == protocol::ErrorCode::kRoomTranscriptHeld);
  Played played;
  played.held = held.message;
  for (const auto& frame : player.peer().frames()) {
    const auto* snapshot = std::get_if<protocol::RoomSnapshot>(&frame.message);
    if (snapshot != nullptr && snapshot->game_number == 0 && snapshot->next_deal)
      played.announced = snapshot->next_deal->commitment;
    const auto* event = std::get_if<protocol::EventMessage>(&frame.message);
    const auto* game = event != nullptr ? std::get_if<engine::Event>(&event->event) : nullptr;
    if (game == nullptr) continue;
    if (const auto* started = std::get_if<engine::GameStarted>(game)) {
      played.dealer = started->dealer;
      played.first = started->first;
    }
    if (const auto* dealt = std::get_if<engine::HandDealt>(game);
        dealt != nullptr && dealt->seat == 0 && played.hand.empty())
      played.hand = dealt->cards;
  }
  CHECK(played.hand.size() >= 5);

  // A rematch is an ordinary game: played to its end, it is not counted.
  CHECK(player.peer().expect<protocol::Ok>(protocol::Rematch{}).id.has_value());
  const auto again = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < again && player.games_over() < 2) {
    player.step();
    std::this_thread::sleep_for(1ms);
  }
  CHECK(player.games_over() == 2);
  CHECK_FALSE(player.peer().await(is_result, 500ms).has_value());
  // Its transcript is an ordinary game's: served at once, here and over HTTP,
  // with the seats of today's deal (three medium bots).
  const auto transcript = player.peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
  CHECK(engine::replay_check(transcript.transcript) == std::nullopt);
  REQUIRE(transcript.fairness);
  CHECK_FALSE(transcript.fairness->shared);
  CHECK(transcript.fairness->seed);
  REQUIRE(transcript.game_id);
  CHECK(http_request(port, "/api/games/" + *transcript.game_id + "/transcript").status == 200);
  CHECK(transcript.players.size() == 4);
  for (std::size_t i = 1; i < transcript.players.size(); ++i) {
    CHECK(transcript.players[i].bot == protocol::BotLevel::kMedium);
  }
  played.result = std::get<protocol::DailyResult>(*result);
  return played;
}

int percentile_of(int sets, const std::vector<int>& all) {
  const auto fewer = std::count_if(all.begin(), all.end(), [&](int s) { return s < sets; });
  const auto same = std::count(all.begin(), all.end(), sets);
  const auto n = static_cast<std::int64_t>(all.size());
  return static_cast<int>((200 * fewer + 100 * same + n) / (2 * n));
}

TEST_CASE("today's deal: two players, the same deck, the standing, and the tally after a restart") {
  TempDir dir("gofish-daily");
  const std::vector<std::string> fast = {"--bot-delay-ms=2"};
  const std::string date = today();
  int best = 0;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log", fast);
    Peer looker(server.port());
    const auto before = looker.expect<protocol::DailySummary>(protocol::ReadDaily{});
    CHECK(before.date == date);
    CHECK(before.players == 0);
    CHECK(before.best == 0);
    // The day's commitment, before anyone has played (docs/FAIRNESS.md, "Shared deals").
    REQUIRE(before.deal);
    CHECK(before.deal->commitment.size() == 64);
    CHECK_FALSE(before.deal->seed);

    const Played ann = play_daily(server.port(), "Ann", 1);
    CHECK(ann.result.date == date);
    CHECK(ann.result.players == 1);
    CHECK(ann.result.percentile == 50);
    CHECK(ann.result.best == ann.result.sets);
    // The room announced the day's commitment before the deal, and during
    // the day nobody is served the game's transcript: it says until when.
    CHECK(ann.announced == before.deal->commitment);
    CHECK(ann.held.find("after today's deal closes at 00:00 UTC") != std::string::npos);

    // Not in the lobby, even while it is played.
    CHECK(looker.expect<protocol::LobbyList>(protocol::Lobby{}).rooms.empty());

    const Played ben = play_daily(server.port(), "Ben", 2);
    CHECK(ben.announced == ann.announced);
    CHECK(ben.hand == ann.hand);
    CHECK(ben.dealer == ann.dealer);
    CHECK(ben.first == ann.first);
    CHECK(ben.held == ann.held);
    CHECK(ben.result.date == date);
    CHECK(ben.result.players == 2);
    CHECK(ben.result.percentile == percentile_of(ben.result.sets, {ann.result.sets, ben.result.sets}));
    best = std::max(ann.result.sets, ben.result.sets);
    CHECK(ben.result.best == best);

    const auto after = looker.expect<protocol::DailySummary>(protocol::ReadDaily{});
    CHECK(after.players == 2);
    CHECK(after.best == best);
    CHECK(after.deal == before.deal);
    CHECK(server.stop(SIGTERM) == 0);
  }
  ServerProcess server(dir.path, dir.path / "server-2.log", fast);
  Peer looker(server.port());
  const auto restarted = looker.expect<protocol::DailySummary>(protocol::ReadDaily{});
  CHECK(restarted.date == date);
  CHECK(restarted.players == 2);
  CHECK(restarted.best == best);
  CHECK(server.stop(SIGTERM) == 0);
}

// A reload on the game-over screen: the player's new connection resumes the
// seat with its token and hears the standing again; once a rematch has
// begun, a comeback hears none.
TEST_CASE("today's deal: a player who comes back after their game was counted hears their standing") {
  TempDir dir("gofish-daily-again");
  ServerProcess server(dir.path, dir.path / "server.log", {"--bot-delay-ms=2"});
  auto peer = std::make_unique<Peer>(server.port());
  const auto created = peer->expect<protocol::Created>(protocol::PlayDaily{"Ann"});
  AutoPlayer player(std::move(peer), 0, created.token, 3);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline && player.games_over() == 0) {
    player.step();
    std::this_thread::sleep_for(1ms);
  }
  REQUIRE(player.games_over() == 1);
  const auto first = player.peer().await(is_result, 10s);
  REQUIRE(first.has_value());
  const auto& standing = std::get<protocol::DailyResult>(*first);

  // The page reloads: a new connection, the same seat token.
  auto reloaded = std::make_unique<Peer>(server.port());
  CHECK(reloaded->expect<protocol::Joined>(protocol::Resume{created.token, std::nullopt}).resumed);
  const auto again = reloaded->await(is_result, 5s);
  REQUIRE(again.has_value());
  CHECK(std::get<protocol::DailyResult>(*again) == standing);

  // Once a rematch is under way (the only human asked: it starts at once)
  // the standing is of a game no longer shown.
  CHECK(reloaded->expect<protocol::Ok>(protocol::Rematch{}).id.has_value());
  Peer later(server.port());
  CHECK(later.expect<protocol::Joined>(protocol::Resume{created.token, std::nullopt}).resumed);
  CHECK_FALSE(later.await(is_result, 300ms).has_value());
  CHECK(server.stop(SIGTERM) == 0);
}

// Steps `player` until `done` says so, at most a minute.
template <class Done>
void play_until(AutoPlayer& player, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline && !done()) {
    player.step();
    std::this_thread::sleep_for(1ms);
  }
  REQUIRE(done());
  for (const auto& problem : player.problems) FAIL_CHECK(problem);
}

std::int64_t counted_today(std::uint16_t port) {
  Peer looker(port);
  return looker.expect<protocol::DailySummary>(protocol::ReadDaily{}).players;
}

// The player plays the day's game out and hears its standing, the day's
// only game so far.
protocol::DailyResult play_to_standing(AutoPlayer& player) {
  play_until(player, [&] { return player.games_over() == 1; });
  const auto heard = player.peer().await(is_result, 10s);
  REQUIRE(heard.has_value());
  const auto standing = std::get<protocol::DailyResult>(*heard);
  CHECK(standing.players == 1);
  return standing;
}

std::vector<std::string> postgres_flags(const PostgresDatabase& db) {
  return {"--storage=postgres", "--postgres-url=" + db.url(), "--load-rooms=at-start", "--node-id=daily-node"};
}

// The page reloads on a restarted server (its log `log` in `dir`): the
// seat comes back with the standing heard before, and the game, counted
// before the kill, is not counted again.
void reload_after_restart(const TempDir& dir, const char* log, const std::vector<std::string>& flags,
                          const std::string& token, const protocol::DailyResult& standing) {
  ServerProcess server(dir.path, dir.path / log, flags);
  Peer reloaded(server.port());
  CHECK(reloaded.expect<protocol::Joined>(protocol::Resume{token, std::nullopt}).resumed);
  const auto again = reloaded.await(is_result, 5s);
  REQUIRE(again.has_value());
  CHECK(std::get<protocol::DailyResult>(*again) == standing);
  CHECK(counted_today(server.port()) == 1);
  CHECK(server.stop(SIGTERM) == 0);
}

// `store` chooses the store (SQLite in the data dir when empty). `forget`,
// if given, then takes the standing kept with the room out of the store.
void standing_outlives_sigkill(const std::vector<std::string>& store,
                               const std::function<void(const TempDir&)>& forget = {}) {
  TempDir dir("gofish-daily-kill");
  std::vector<std::string> flags = {"--bot-delay-ms=2"};
  flags.insert(flags.end(), store.begin(), store.end());
  std::string token;
  protocol::DailyResult standing;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log", flags);
    auto peer = std::make_unique<Peer>(server.port());
    token = peer->expect<protocol::Created>(protocol::PlayDaily{"Ann"}).token;
    AutoPlayer player(std::move(peer), 0, token, 4);
    standing = play_to_standing(player);
    // Heard, so kept with the room: a crash now takes nothing of it.
    CHECK(WIFSIGNALED(server.stop(SIGKILL)));
  }
  if (!forget) return reload_after_restart(dir, "server-2.log", flags, token, standing);
  // What a crash between the count's commit and the standing's leaves:
  // the game counted, no standing kept. The restored room tells it from the
  // day's tally (the same: the day has this one game), and keeps it now,
  // through another restart.
  forget(dir);
  reload_after_restart(dir, "server-2.log", flags, token, standing);
  reload_after_restart(dir, "server-3.log", flags, token, standing);
}

TEST_CASE("today's deal: a player's standing outlives a SIGKILL, and the game is not counted again") {
  standing_outlives_sigkill({});
}

TEST_CASE("today's deal with PostgreSQL: a player's standing outlives a SIGKILL") {
  PostgresDatabase db;
  standing_outlives_sigkill(postgres_flags(db));
}

constexpr const char* kForgetStanding = "UPDATE rooms SET daily_note = NULL";
constexpr const char* kStandingsKept = "SELECT count(*) FROM rooms WHERE daily_note IS NOT NULL";

TEST_CASE("today's deal: a game counted whose standing was not kept has it told after the restart") {
  standing_outlives_sigkill({}, [](const TempDir& dir) {
    const auto file = dir.path / "gofish.sqlite";
    CHECK(sql(file, kStandingsKept) == std::vector<std::string>{"1"});
    sql(file, kForgetStanding);
    CHECK(sql(file, kStandingsKept) == std::vector<std::string>{"0"});
  });
}

TEST_CASE("today's deal with PostgreSQL: a game counted whose standing was not kept has it told after the restart") {
  PostgresDatabase db;
  standing_outlives_sigkill(postgres_flags(db), [&](const TempDir&) {
    CHECK(db.sql(kStandingsKept) == "1");
    db.sql(kForgetStanding);
    CHECK(db.sql(kStandingsKept) == "0");
  });
}

// The server is killed during the day's game: restored, the room's game
// still counts once it ends (the player comes back and plays it out), its
// player hears the standing, and another kill and restart counts nothing
// more.
void counted_after_restart(const std::vector<std::string>& store) {
  TempDir dir("gofish-daily-midgame");
  std::vector<std::string> flags = {"--bot-delay-ms=2"};
  flags.insert(flags.end(), store.begin(), store.end());
  std::string token;
  std::unique_ptr<AutoPlayer> player;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log", flags);
    auto peer = std::make_unique<Peer>(server.port());
    token = peer->expect<protocol::Created>(protocol::PlayDaily{"Ben"}).token;
    player = std::make_unique<AutoPlayer>(std::move(peer), 0, token, 5);
    // A decision of the player's own is answered once it is stored.
    play_until(*player, [&] { return player->decisions() >= 1; });
    REQUIRE(player->games_over() == 0);
    CHECK(WIFSIGNALED(server.stop(SIGKILL)));
  }
  protocol::DailyResult standing;
  {
    ServerProcess server(dir.path, dir.path / "server-2.log", flags);
    CHECK(counted_today(server.port()) == 0);
    auto peer = std::make_unique<Peer>(server.port());
    CHECK(peer->expect<protocol::Joined>(protocol::Resume{token, std::nullopt}).resumed);
    player->replace_peer(std::move(peer));
    standing = play_to_standing(*player);
    CHECK(counted_today(server.port()) == 1);
    CHECK(WIFSIGNALED(server.stop(SIGKILL)));
  }
  reload_after_restart(dir, "server-3.log", flags, token, standing);
}

TEST_CASE("today's deal: a game the server was killed during counts once when it ends after the restart") {
  counted_after_restart({});
}

TEST_CASE("today's deal with PostgreSQL: a game the server was killed during counts once after the restart") {
  PostgresDatabase db;
  counted_after_restart(postgres_flags(db));
}

}  // namespace
}  // namespace gofish::server::testing
