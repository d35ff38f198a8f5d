// A room's rules over time, on the clock the test moves (room_harness.hpp):
// grace periods, a bot standing in for an away seat, turn timers and their
// deadlines, the chat rate and the times the room writes down. The room reads
// every clock through its TimerSource, so "a second passes" here is exactly
// a second for its timers, its rate buckets and its wall clock, and nothing
// sleeps. (These were cases of room_rules_test.cpp, through the real binary
// with sleeps, until issue 32.)
#include <doctest/doctest.h>

#include <algorithm>

#include "room_harness.hpp"
#include "rooms_support.hpp"

namespace gofish::server::testing {
namespace {

using namespace std::chrono_literals;
using protocol::BotLevel;

bool game_over(const FakeClient& client) { return !client.events<engine::GameOver>().empty(); }

// The latest version a client received.
std::int64_t last_v_of(const FakeClient& client) {
  std::int64_t v = 0;
  for (const auto& m : client.received()) v = std::max(v, version_of(m).value_or(0));
  return v;
}

// A client's room events, in order, by wire type ("turn" for a turn message).
std::vector<std::string> kinds_of(const std::vector<protocol::ServerMessage>& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages) {
    if (const auto* event = std::get_if<protocol::EventMessage>(&m)) {
      out.emplace_back(protocol::event_type(event->event));
    } else if (std::holds_alternative<protocol::Turn>(m)) {
      out.emplace_back("turn");
    }
  }
  return out;
}

// ---------------------------------------------------------------- away seats

TEST_CASE("room timing: a player back after the game ended sees the result and plays again, and spectators stay") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 300ms;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(create_request("Ann", "classic", 3, {{2, BotLevel::kHard}}));
  FakeClient& bob = bench.join("Bob");
  FakeClient& cy = bench.join("Cy", protocol::JoinAs::kSpectator);
  REQUIRE(cy.reply() == "joined");
  ann.send(protocol::Start{});
  const std::int64_t bob_v = last_v_of(bob);
  bench.disconnect(bob);
  bob.connection().close(close_normal());  // his socket is gone: nobody plays for him
  bench.play_until([&] { return game_over(ann); });
  REQUIRE(game_over(ann));
  bench.pass(1000ms);  // well past Bob's grace period, after the game
  for (const auto& m : cy.received()) {
    CHECK_FALSE(std::holds_alternative<protocol::Error>(m));
    CHECK_FALSE(std::holds_alternative<protocol::RoomClosed>(m));
  }
  CHECK(cy.events<protocol::SeatLeft>().empty());
  CHECK(ann.events<protocol::SeatLeft>().empty());
  CHECK_FALSE(cy.connection().close_reason);

  FakeClient& back = bench.resume(bob.token, bob_v);
  const auto joined = back.last<protocol::Joined>();
  REQUIRE(joined);
  CHECK(joined->resumed);
  CHECK(joined->seat == 1);
  REQUIRE(back.last_turn());
  bench.resume_on(back, bob.token, std::nullopt);
  const auto room = back.last<protocol::RoomSnapshot>();
  REQUIRE(room);
  CHECK(room->state == protocol::RoomState::kOver);
  CHECK(room->result.has_value());
  REQUIRE(room->players.size() == 3);
  CHECK(room->players[1].name == "Bob");
  CHECK(room->seats[1].name == "Bob");
  CHECK(room->seats[1].connected);

  // Both ask for another game, and it starts with Bob in his seat.
  back.send(protocol::Rematch{});
  CHECK(back.reply() == "ok");
  ann.send(protocol::Rematch{});
  CHECK(ann.reply() == "ok");
  const auto started = back.events<protocol::NewGame>();
  REQUIRE_FALSE(started.empty());
  CHECK(started.back().game == 2);
  CHECK(started.back().players[1].name == "Bob");
  CHECK(cy.events<protocol::NewGame>().size() == 2);  // the spectator watches the next game too
}

TEST_CASE("room timing: a bot takes an away seat over when it is to act, not when its grace period runs out") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 200ms;
  bool handed_over = false;
  // The deal is random: a game can end before the turn comes back to Bob.
  for (int attempt = 0; attempt < 10 && !handed_over; ++attempt) {
    CAPTURE(attempt);
    RoomBench bench(limits);
    FakeClient& ann = bench.create(create_request("Ann", "classic", 2));
    FakeClient& bob = bench.join("Bob");
    ann.send(protocol::Start{});
    // Play until it is Ann's turn, then Bob goes away.
    bench.play_until([&] { return ann.last_turn()->seat == 0 || game_over(ann); });
    if (game_over(ann)) continue;
    REQUIRE(ann.last_turn()->legal);
    bench.disconnect(bob);
    bob.connection().close(close_normal());
    const auto changed = ann.events<protocol::ConnectionChanged>();
    REQUIRE_FALSE(changed.empty());
    CHECK(changed.back() == protocol::ConnectionChanged{1, false});
    bench.pass(199ms);
    CHECK(ann.events<protocol::BotTakeover>().empty());
    bench.pass(401ms);  // three times his grace period
    INFO("Ann is to act; Bob has been away three times his grace period");
    CHECK(ann.events<protocol::BotTakeover>().empty());
    CHECK(ann.events<protocol::SeatLeft>().empty());  // in a game his seat stays his
    // Ann plays on (no time passes); once the turn passes to Bob, his bot
    // takes over at once.
    for (auto turn = ann.last_turn(); turn && turn->seat == 0 && turn->legal; turn = ann.last_turn()) {
      ann.send(protocol::request_for(turn->legal->nth(0)));
      REQUIRE(ann.reply() == "ok");
    }
    if (game_over(ann)) continue;  // Ann ended the game
    REQUIRE(ann.last_turn()->seat == 1);
    handed_over = true;
    const auto takeovers = ann.events<protocol::BotTakeover>();
    REQUIRE(takeovers.size() == 1);
    CHECK(takeovers.front().seat == 1);
    CHECK(takeovers.front().reason == protocol::TakeoverReason::kDisconnected);
    // ... and it came after the events that gave Bob the turn.
    bool passed_to_bob = false;
    for (const auto& m : ann.received()) {
      const auto* event = std::get_if<protocol::EventMessage>(&m);
      if (!event) continue;
      if (const auto* game = std::get_if<engine::Event>(&event->event)) {
        if (const auto* passed = std::get_if<engine::TurnPassed>(game); passed && passed->to == 1) passed_to_bob = true;
      }
      if (std::holds_alternative<protocol::BotTakeover>(event->event)) {
        CHECK(passed_to_bob);
        break;
      }
    }
    // The bot then plays Bob's seat at the bots' pace.
    const std::int64_t v = bench.v();
    bench.pass(bench.limits().bot_delay - 1ms);
    CHECK(bench.v() == v);
    bench.pass(1ms);
    CHECK(bench.v() > v);
  }
  CHECK(handed_over);
}

// ---------------------------------------------------------------- turn timers

TEST_CASE("room timing: a chat line neither stops nor restarts a turn timer, and the timeout plays one move") {
  RoomBench bench;  // turn timers of one second are allowed
  auto request = create_request("Ann", "classic", 2, {{1, BotLevel::kEasy}});
  request.settings.turn_timer_seconds = 1;
  FakeClient& ann = bench.create(request);
  ann.send(protocol::Start{});
  bench.play_until([&] { return ann.last_turn()->seat == 0 || game_over(ann); });
  REQUIRE_FALSE(game_over(ann));
  REQUIRE(ann.last_turn()->legal);
  // Ann's timer started when her turn came, which is now: its deadline is
  // one second later on the room's wall clock.
  const auto timers = ann.events<protocol::TurnTimer>();
  REQUIRE_FALSE(timers.empty());
  CHECK(timers.back().seat == 0);
  CHECK(timers.back().seconds == 1);
  CHECK(timers.back().deadline_ms == bench.timers().wall_ms() + 1000);
  ann.take();
  ann.send(protocol::Chat{"thinking", ""});
  CHECK(ann.reply() == "ok");
  bench.pass(300ms);
  ann.send(protocol::Chat{"still thinking", ""});
  CHECK(ann.reply() == "ok");
  bench.pass(699ms);
  CHECK(ann.events<protocol::BotTakeover>().empty());
  CHECK(ann.events<protocol::TurnTimer>().size() == timers.size());  // no new timer for the chat lines
  bench.pass(1ms);
  const auto takeovers = ann.events<protocol::BotTakeover>();
  REQUIRE(takeovers.size() == 1);
  CHECK(takeovers.front().seat == 0);
  CHECK(takeovers.front().reason == protocol::TakeoverReason::kTimeout);
  // One move for Ann (an ask), then the turn is hers again with a new timer
  // from now, or it passed on.
  const auto after = ann.take();
  const auto kinds = kinds_of(after);
  const auto takeover = std::find(kinds.begin(), kinds.end(), "bot_takeover");
  REQUIRE(takeover != kinds.end());
  CHECK(std::count(kinds.begin(), kinds.end(), "asked") == 1);
  CHECK(std::find(kinds.begin(), takeover, "asked") == takeover);  // the takeover is announced first
  const auto turn = ann.last_turn();
  REQUIRE(turn);
  if (turn->seat == 0) {
    CHECK(turn->legal);  // Ann's seat is hers again
    REQUIRE(ann.events<protocol::TurnTimer>().size() == timers.size() + 1);
    CHECK(ann.events<protocol::TurnTimer>().back().deadline_ms == bench.timers().wall_ms() + 1000);
  }
}

// ---------------------------------------------------------------- chat rate

TEST_CASE("room timing: chat past its burst is refused until the rate has given another line") {
  Limits limits = RoomBench::bench_limits();
  limits.chat_rate_per_second = 2;  // a line every 500 ms
  limits.chat_burst = 3;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(create_request("Ann", "classic", 2));
  FakeClient& zoe = bench.join("Zoe", protocol::JoinAs::kSpectator);
  for (int i = 0; i < 3; ++i) {
    ann.send(protocol::Chat{"line", ""});
    CHECK(ann.reply() == "ok");
  }
  ann.send(protocol::Chat{"one too many", ""});
  CHECK(ann.reply() == "chat/rate_limited");
  // A spectator has a bucket of her own.
  zoe.send(protocol::Chat{"hello", ""});
  CHECK(zoe.reply() == "ok");
  bench.pass(499ms);
  ann.send(protocol::Chat{"not yet", ""});
  CHECK(ann.reply() == "chat/rate_limited");
  bench.pass(1ms);
  ann.send(protocol::Chat{"now", ""});
  CHECK(ann.reply() == "ok");
  ann.send(protocol::Chat{"and again", ""});
  CHECK(ann.reply() == "chat/rate_limited");
  // Left alone long enough, the bucket is full again: a whole burst.
  bench.pass(10'000ms);
  for (int i = 0; i < 3; ++i) {
    ann.send(protocol::Chat{"line", ""});
    CHECK(ann.reply() == "ok");
  }
  ann.send(protocol::Chat{"one too many", ""});
  CHECK(ann.reply() == "chat/rate_limited");
  CHECK(ann.events<protocol::ChatPosted>().size() == 8);
}

// ---------------------------------------------------------------- written times

TEST_CASE("room timing: a room's creation and a game's end are written with the room's wall clock") {
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true);
  FakeClient& ann = bench.create(create_request("Ann", "pairs", 2, {{1, BotLevel::kEasy}}));
  const std::int64_t created = bench.timers().wall_ms();
  CHECK(created == ManualTimers::kWallStart.count());
  bench.pass(5'000ms);  // a deal can end the game at once: time passes first
  ann.send(protocol::Start{});
  std::optional<std::int64_t> finished;
  for (int step = 0; step < 2000 && !finished; ++step) {
    bench.sink().commit_all();
    bench.settle();
    if (game_over(ann)) break;
    const auto turn = ann.last_turn();
    if (turn && turn->legal) {
      ann.send(protocol::request_for(turn->legal->nth(0)));
    } else {
      bench.pass(bench.limits().bot_delay);
    }
  }
  bench.sink().commit_all();
  bench.settle();
  REQUIRE(game_over(ann));
  const std::int64_t end = bench.timers().wall_ms();
  CHECK(end >= created + 5'000);
  int rooms = 0;
  int games = 0;
  for (const auto& records : bench.sink().committed) {
    for (const auto& record : records) {
      if (const auto* room = std::get_if<record::RoomCreated>(&record)) {
        ++rooms;
        CHECK(room->created_ms == created);
      } else if (const auto* game = std::get_if<record::GameFinished>(&record)) {
        ++games;
        CHECK(game->finished_ms == end);
      }
    }
  }
  CHECK(rooms == 1);
  CHECK(games == 1);
}

}  // namespace
}  // namespace gofish::server::testing
