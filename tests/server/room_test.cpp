// A room's rules, driven through fake connections on a clock the test moves
// (room_harness.hpp): no sockets and no sleeping, so each case says exactly
// when time passes and what the room must have done by then.
#include <doctest/doctest.h>

#include <algorithm>

#include "room_harness.hpp"
#include "rooms_support.hpp"

namespace gofish::server::testing {
namespace {

using namespace std::chrono_literals;
using protocol::BotLevel;

protocol::CreateRoom room_of(int seats, std::vector<protocol::BotSpec> bots = {}, const std::string& preset = "classic") {
  return create_request("Ann", preset, seats, std::move(bots));
}

// Every version a client received, in order.
std::vector<std::int64_t> versions(const FakeClient& client) {
  std::vector<std::int64_t> out;
  for (const auto& m : client.received()) {
    if (const auto* event = std::get_if<protocol::EventMessage>(&m)) out.push_back(event->v);
  }
  return out;
}

bool gapless(const std::vector<std::int64_t>& vs) {
  for (std::size_t i = 1; i < vs.size(); ++i) {
    if (vs[i] != vs[i - 1] + 1) return false;
  }
  return true;
}

bool game_over(const FakeClient& client) { return !client.events<engine::GameOver>().empty(); }

TEST_CASE("room: create and join, the snapshot, and the names a table refuses") {
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(3, {{2, BotLevel::kHard}}));
  const auto snapshot = ann.last<protocol::RoomSnapshot>();
  REQUIRE(snapshot);
  CHECK(snapshot->v == 0);
  CHECK(snapshot->seats[2].name == "Hard bot");
  CHECK(bench.host().tokens.size() == 1);
  FakeClient& bob = bench.join("Bob");
  CHECK(bob.seat == 1);
  CHECK(ann.events<protocol::SeatJoined>().size() == 1);
  FakeClient& again = bench.join("bob");
  CHECK(again.reply() == "room/name_taken");
  FakeClient& zoe = bench.join("Zoe", protocol::JoinAs::kSpectator);
  CHECK(zoe.reply() == "joined");
  FakeClient& late = bench.join("Cy");
  CHECK(late.reply() == "room/full");
  CHECK(gapless(versions(ann)));
}

TEST_CASE("room: every decision's events end with a turn, and only the seat to act is told what it may do") {
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(3));
  FakeClient& bob = bench.join("Bob");
  FakeClient& cy = bench.join("Cy");
  FakeClient& zoe = bench.join("Zoe", protocol::JoinAs::kSpectator);
  ann.send(protocol::Start{});
  int turns_checked = 0;
  bench.play_until([&] {
    for (FakeClient* client : {&ann, &bob, &cy, &zoe}) {
      const auto turn = client->last_turn();
      REQUIRE(turn);
      CHECK(turn->v == bench.v());
      if (turn->legal) CHECK(turn->seat == client->seat);
      if (turn->seat == client->seat && client->seat) CHECK(turn->legal);
    }
    ++turns_checked;
    return game_over(ann);
  });
  CHECK(game_over(ann));
  CHECK(turns_checked > 5);
  CHECK_FALSE(zoe.last_turn()->legal);
  CHECK_FALSE(ann.last_turn()->seat);  // the game is over
}

TEST_CASE("room: a bot moves exactly one bot delay after its turn comes") {
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(2, {{1, BotLevel::kEasy}}));
  ann.send(protocol::Start{});
  // Play until it is the bot's turn.
  bench.play_until([&] { return ann.last_turn()->seat == 1 || game_over(ann); });
  if (game_over(ann)) return;
  const std::int64_t v = bench.v();
  bench.pass(bench.limits().bot_delay - 1ms);
  CHECK(bench.v() == v);  // not yet
  bench.pass(1ms);
  CHECK(bench.v() > v);   // now
  CHECK(!ann.events<engine::AskedRank>().empty());
}

TEST_CASE("room: a room's bot pace sets how long its bots think") {
  for (const auto& [pace, delay] : {std::pair{protocol::BotPace::kRelaxed, 1600ms}, std::pair{protocol::BotPace::kNormal, 800ms},
                                    std::pair{protocol::BotPace::kQuick, 320ms}}) {
    CAPTURE(protocol::to_string(pace));
    RoomBench bench;  // the server's bot delay: 800 ms
    auto request = room_of(2, {{1, BotLevel::kEasy}});
    request.settings.bot_pace = pace;
    FakeClient& ann = bench.create(request);
    CHECK(ann.last<protocol::RoomSnapshot>()->settings.bot_pace == pace);
    ann.send(protocol::Start{});
    bench.play_until([&] { return ann.last_turn()->seat == 1 || game_over(ann); });
    if (game_over(ann)) continue;
    const std::int64_t v = bench.v();
    bench.pass(delay - 1ms);
    CHECK(bench.v() == v);
    bench.pass(1ms);
    CHECK(bench.v() > v);
  }
}

TEST_CASE("room: an away player's seat is taken over when it is to act past the grace period, and kept after the game") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 10'000ms;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(room_of(2));
  FakeClient& bob = bench.join("Bob");
  ann.send(protocol::Start{});
  bench.play_until([&] { return ann.last_turn()->seat == 0 || game_over(ann); });
  REQUIRE_FALSE(game_over(ann));
  bench.disconnect(bob);
  bench.pass(60'000ms);  // long past Bob's grace period, while Ann is to act
  CHECK(ann.events<protocol::BotTakeover>().empty());
  // Ann plays on: when the turn passes to Bob his bot takes over.
  bench.play_until([&] { return !ann.events<protocol::BotTakeover>().empty() || game_over(ann); });
  if (!ann.events<protocol::BotTakeover>().empty()) {
    const auto takeover = ann.events<protocol::BotTakeover>().front();
    CHECK(takeover.seat == 1);
    CHECK(takeover.reason == protocol::TakeoverReason::kDisconnected);
  }
  bench.play_until([&] { return game_over(ann); });
  REQUIRE(game_over(ann));
  // Long after the game, Bob's seat is still his: he comes back to the result.
  bench.pass(600'000ms);
  CHECK(ann.events<protocol::SeatLeft>().empty());
  FakeClient& back = bench.resume(bob.token, std::nullopt);
  CHECK(back.reply() == "joined");
  const auto snapshot = back.last<protocol::RoomSnapshot>();
  REQUIRE(snapshot);
  CHECK(snapshot->state == protocol::RoomState::kOver);
  CHECK(snapshot->result);
  back.send(protocol::Rematch{});
  ann.send(protocol::Rematch{});
  CHECK(ann.events<protocol::NewGame>().size() == 2);
}

// What a client received from the last game_started on, by wire type
// ("game_started", "deal", ..., "bot_takeover", "turn").
std::vector<std::string> since_last_start(const FakeClient& client) {
  std::vector<std::string> out;
  for (const auto& m : client.received()) {
    if (const auto* event = std::get_if<protocol::EventMessage>(&m)) {
      if (std::holds_alternative<protocol::NewGame>(event->event)) out.clear();
      out.emplace_back(protocol::event_type(event->event));
    } else if (std::holds_alternative<protocol::Turn>(m)) {
      out.emplace_back("turn");
    }
  }
  return out;
}

TEST_CASE("room: a rematch without the away host says at the deal that a bot plays her seat, and the host role passes on") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 10'000ms;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(room_of(2));
  FakeClient& bob = bench.join("Bob");
  ann.send(protocol::Start{});
  bench.play_until([&] { return game_over(ann); });
  REQUIRE(game_over(ann));
  bench.disconnect(ann);  // within her grace period: Bob does not wait for her
  bob.send(protocol::Rematch{});
  CHECK(bob.reply() == "ok");
  REQUIRE(bob.events<protocol::NewGame>().size() == 2);
  // The deal, then at once: a bot plays Ann's seat until she is back, before
  // anyone is told whose turn it is.
  const auto kinds = since_last_start(bob);
  const auto takeover = std::find(kinds.begin(), kinds.end(), "bot_takeover");
  REQUIRE(takeover != kinds.end());
  CHECK(std::find(kinds.begin(), takeover, "deal") != takeover);
  CHECK(std::find(kinds.begin(), takeover, "turn") == takeover);
  const auto takeovers = bob.events<protocol::BotTakeover>();
  REQUIRE(takeovers.size() == 1);
  CHECK(takeovers.front().seat == 0);
  CHECK(takeovers.front().reason == protocol::TakeoverReason::kDisconnected);
  // Bob, who is here, is the host now; the role was passed before the game began.
  REQUIRE(bob.events<protocol::HostChanged>().size() == 1);
  CHECK(bob.events<protocol::HostChanged>().front().seat == 1);
  CHECK(std::find(kinds.begin(), kinds.end(), "host_changed") == kinds.end());
  bench.resume_on(bob, bob.token, std::nullopt);
  const auto snapshot = bob.last<protocol::RoomSnapshot>();
  REQUIRE(snapshot);
  CHECK(snapshot->host == 1);
  CHECK(snapshot->seats[0].bot_playing);
  CHECK_FALSE(snapshot->seats[0].connected);
  // Ann comes back and takes her seat over; the host stays Bob.
  FakeClient& back = bench.resume(ann.token, std::nullopt);
  CHECK(back.reply() == "joined");
  const auto hers = back.last<protocol::RoomSnapshot>();
  REQUIRE(hers);
  CHECK(hers->host == 1);
  if (hers->state == protocol::RoomState::kPlaying) CHECK_FALSE(hers->seats[0].bot_playing);
  bench.play_until([&] { return bob.events<engine::GameOver>().size() == 2; });
  CHECK(bob.events<protocol::BotTakeover>().size() == 1);
}

TEST_CASE("room: a host away past the grace period during a game passes the role to a player who is there") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 10'000ms;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(room_of(3, {{2, BotLevel::kEasy}}));
  FakeClient& bob = bench.join("Bob");
  ann.send(protocol::Start{});
  bench.disconnect(ann);
  bench.pass(9'999ms);
  CHECK(bob.events<protocol::HostChanged>().empty());
  bench.pass(1ms);
  REQUIRE(bob.events<protocol::HostChanged>().size() == 1);
  CHECK(bob.events<protocol::HostChanged>().front().seat == 1);
  FakeClient& back = bench.resume(ann.token, std::nullopt);
  CHECK(back.reply() == "joined");
  CHECK(back.last<protocol::RoomSnapshot>()->host == 1);
  // The new host may remove a player mid-game: a bot plays Ann's seat.
  bob.send(protocol::Kick{0});
  CHECK(bob.reply() == "ok");
  bool kicked_takeover = false;
  for (const auto& t : bob.events<protocol::BotTakeover>()) kicked_takeover |= t.seat == 0 && t.reason == protocol::TakeoverReason::kKicked;
  CHECK((kicked_takeover || game_over(bob)));
}

TEST_CASE("room: a host away past the grace period with nobody else here keeps the role until someone is back") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 10'000ms;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(room_of(2));
  FakeClient& bob = bench.join("Bob");
  ann.send(protocol::Start{});
  bench.disconnect(bob);
  bench.disconnect(ann);
  bench.pass(20'000ms);
  FakeClient& bob2 = bench.resume(bob.token, std::nullopt);
  CHECK(bob2.reply() == "joined");
  REQUIRE(bob2.events<protocol::HostChanged>().size() == 1);
  CHECK(bob2.events<protocol::HostChanged>().front().seat == 1);
}

TEST_CASE("room: in a waiting room an away player's seat is freed when the grace period runs out") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 5'000ms;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(room_of(3));
  FakeClient& bob = bench.join("Bob");
  bench.disconnect(bob);
  bench.pass(4'999ms);
  CHECK(ann.events<protocol::SeatLeft>().empty());
  bench.pass(1ms);
  REQUIRE(ann.events<protocol::SeatLeft>().size() == 1);
  FakeClient& back = bench.resume(bob.token, std::nullopt);
  CHECK(back.reply() == "room/bad_token");
}

TEST_CASE("room: a turn timer gives one bot move when it runs out, and a chat line does not restart it") {
  RoomBench bench;
  auto request = room_of(2, {{1, BotLevel::kEasy}});
  request.settings.turn_timer_seconds = 10;
  FakeClient& ann = bench.create(request);
  ann.send(protocol::Start{});
  bench.play_until([&] { return ann.last_turn()->seat == 0 || game_over(ann); });
  REQUIRE_FALSE(game_over(ann));
  const auto timers = ann.events<protocol::TurnTimer>().size();
  bench.pass(6'000ms);
  ann.send(protocol::Chat{"hmm", ""});
  CHECK(ann.events<protocol::TurnTimer>().size() == timers);
  bench.pass(3'999ms);
  CHECK(ann.events<protocol::BotTakeover>().empty());
  bench.pass(1ms);
  REQUIRE(ann.events<protocol::BotTakeover>().size() == 1);
  CHECK(ann.events<protocol::BotTakeover>().front().reason == protocol::TakeoverReason::kTimeout);
}

TEST_CASE("room: the host leaving mid-game passes the role on, and a rematch fills the empty seat with a bot") {
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(3, {{2, BotLevel::kEasy}}));
  FakeClient& bob = bench.join("Bob");
  ann.send(protocol::Start{});
  ann.send(protocol::Leave{});
  REQUIRE(bob.events<protocol::HostChanged>().size() == 1);
  CHECK(bob.events<protocol::HostChanged>().front().seat == 1);
  CHECK(bob.events<protocol::SeatLeft>().empty());  // not until the game ends
  bench.play_until([&] { return game_over(bob); });
  REQUIRE(game_over(bob));
  REQUIRE(bob.events<protocol::SeatLeft>().size() == 1);
  const auto snapshot_before = [&] {
    bench.resume_on(bob, bob.token, std::nullopt);
    return bob.last<protocol::RoomSnapshot>();
  }();
  REQUIRE(snapshot_before);
  CHECK(snapshot_before->players[0].name == "Ann");
  bob.send(protocol::Rematch{});
  CHECK(bob.reply() == "ok");
  REQUIRE(bob.events<protocol::BotAdded>().size() == 1);
  CHECK(bob.events<protocol::BotAdded>().front().seat == 0);
  REQUIRE(bob.events<protocol::NewGame>().size() == 2);
  CHECK(bob.events<protocol::NewGame>().back().players[1].name == "Bob");
}

TEST_CASE("room: a kicked player stays out, by token, name or connection, and may watch") {
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(3));
  FakeClient& bob = bench.join("Bob");
  ann.send(protocol::Kick{1});
  CHECK(ann.reply() == "ok");
  CHECK(bob.last<protocol::Error>()->code == protocol::ErrorCode::kRoomKicked);
  CHECK(bench.resume(bob.token, std::nullopt).reply() == "room/kicked");
  CHECK(bench.join("BOB").reply() == "room/kicked");
  bob.send(protocol::Join{"K7QXM", "Robert", protocol::JoinAs::kPlayer});
  CHECK(bob.reply() == "room/kicked");
  CHECK(bench.join("Bob", protocol::JoinAs::kSpectator).reply() == "joined");
}

TEST_CASE("room: a resume replays what was missed, or sends a snapshot when it would not fit the send queue") {
  Limits limits = RoomBench::bench_limits();
  limits.send_queue_messages = 64;
  limits.room_history_events = 256;
  limits.chat_burst = 1000;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(room_of(2));
  FakeClient* bob = &bench.join("Bob");
  for (const int gap : {1, 31, 32, 33, 100}) {
    CAPTURE(gap);
    const std::int64_t last_v = bench.v();
    bench.disconnect(*bob);
    for (int i = 1; i < gap; ++i) ann.send(protocol::Chat{"line", ""});
    FakeClient& back = bench.resume(bob->token, last_v);
    const auto got = back.received();
    const auto snapshots = std::count_if(got.begin(), got.end(), [](const auto& m) {
      return std::holds_alternative<protocol::RoomSnapshot>(m);
    });
    const auto replayed = std::count_if(got.begin(), got.end(), [&](const auto& m) {
      const auto* event = std::get_if<protocol::EventMessage>(&m);
      return event && event->v <= last_v + gap;
    });
    if (gap <= 32) {  // half the queue
      CHECK(snapshots == 0);
      CHECK(replayed == gap);
    } else {
      CHECK(snapshots == 1);
      CHECK(replayed == 0);
    }
    CHECK(back.last_turn());
    bob = &back;
  }
}

TEST_CASE("room: nothing goes out before what caused it is committed") {
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true);
  FakeClient& ann = bench.create(room_of(2, {{1, BotLevel::kEasy}}));  // commits the room's creation
  ann.send(protocol::Start{});
  CHECK(ann.events<protocol::NewGame>().empty());  // the game's events wait for its set-up to be written
  bench.sink().commit_all();
  bench.settle();
  CHECK(ann.events<protocol::NewGame>().size() == 1);
  // A decision: even its ok waits for the decision to be written.
  for (int i = 0; i < 50 && !(ann.last_turn() && ann.last_turn()->legal); ++i) {
    bench.pass(bench.limits().bot_delay);
    bench.sink().commit_all();
    bench.settle();
  }
  REQUIRE(ann.last_turn()->legal);
  const auto before = ann.received().size();
  ann.send(protocol::request_for(ann.last_turn()->legal->nth(0)));
  CHECK(ann.received().size() == before);
  CHECK(ann.reply() == "(no reply)");
  bench.sink().commit_all();
  bench.settle();
  CHECK(ann.reply() == "ok");
  bool has_game = false;
  for (const auto& records : bench.sink().committed) {
    for (const auto& record : records) has_game = has_game || std::holds_alternative<record::GameStarted>(record);
  }
  CHECK(has_game);
}

// protocol/README.md: `transcript` serves the room's most recent finished
// game, so during game 2 it is game 1's (issue 30: it answered
// room/transcript_unavailable then).
TEST_CASE("room: while the next game is played, the transcript is the last finished game's") {
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(2, {{1, BotLevel::kEasy}}));
  ann.send(protocol::GetTranscript{});
  CHECK(ann.reply() == "room/transcript_unavailable");
  ann.send(protocol::Start{});
  bench.play_until([&] { return game_over(ann); });
  REQUIRE(game_over(ann));
  ann.send(protocol::GetTranscript{});
  const auto first = ann.last<protocol::TranscriptMessage>();
  REQUIRE(first);
  CHECK(first->game == 1);
  ann.send(protocol::Rematch{});
  bench.settle();
  REQUIRE(ann.events<protocol::NewGame>().size() == 2);
  ann.send(protocol::GetTranscript{});
  CHECK(ann.reply() == "transcript");
  const auto during = ann.last<protocol::TranscriptMessage>();
  REQUIRE(during);
  CHECK(during->game == 1);
  CHECK(during->transcript == first->transcript);
}

// What an action and a resume write (issue 18, "the store writes what it
// must"): a decision carries the room's version in its own record, and a
// resume that changes no seat writes no seat row.
TEST_CASE("room: a decision carries the room's version, and a resume writes no seat it left as it was") {
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true);
  FakeClient& ann = bench.create(room_of(2, {{1, BotLevel::kEasy}}));
  ann.send(protocol::Start{});
  for (int i = 0; i < 50 && !(ann.last_turn() && ann.last_turn()->legal); ++i) {
    bench.pass(bench.limits().bot_delay);
    bench.sink().commit_all();
    bench.settle();
  }
  REQUIRE(ann.last_turn()->legal);
  const auto written = bench.sink().committed.size();
  ann.send(protocol::request_for(ann.last_turn()->legal->nth(0)));
  bench.sink().commit_all();
  bench.settle();
  REQUIRE(bench.sink().committed.size() == written + 1);
  const auto& turn = bench.sink().committed[written];
  REQUIRE_FALSE(turn.empty());
  const auto* decision = std::get_if<record::DecisionAccepted>(&turn.back());
  REQUIRE(decision);
  CHECK(decision->v == bench.v());
  for (const auto& record : turn) CHECK_FALSE(std::holds_alternative<record::RoomVersion>(record));

  // Away and back: the seat row is the same, so none is written.
  const std::string token = ann.token;
  bench.disconnect(ann);
  bench.sink().commit_all();
  bench.settle();
  const auto before_resume = bench.sink().committed.size();
  FakeClient& back = bench.resume(token, bench.v());
  bench.sink().commit_all();
  bench.settle();
  CHECK(back.reply() == "joined");
  for (std::size_t i = before_resume; i < bench.sink().committed.size(); ++i) {
    for (const auto& record : bench.sink().committed[i]) {
      CHECK_FALSE(std::holds_alternative<record::SeatTaken>(record));
      CHECK_FALSE(std::holds_alternative<record::SeatFreed>(record));
    }
  }
}

TEST_CASE("room: the last player leaving closes the room, and a spectator is told") {
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(2));
  FakeClient& zoe = bench.join("Zoe", protocol::JoinAs::kSpectator);
  ann.send(protocol::Leave{});
  const auto closed = zoe.last<protocol::RoomClosed>();
  REQUIRE(closed);
  CHECK(closed->reason == protocol::RoomClosedReason::kPlayersLeft);
  CHECK(bench.host().closed == std::vector<std::string>{"K7QXM"});
  CHECK(bench.host().tokens.empty());
}

TEST_CASE("room: a room nobody is connected to closes after the idle expiry") {
  Limits limits = RoomBench::bench_limits();
  limits.room_idle_expiry = 30'000ms;
  RoomBench bench(limits);
  FakeClient& ann = bench.create(room_of(2));
  bench.disconnect(ann);
  bench.pass(29'999ms);
  CHECK(bench.host().closed.empty());
  bench.pass(1ms);
  CHECK(bench.host().closed.size() == 1);
}

TEST_CASE("room: a join or resume that reaches a room just moved to another server is answered room/busy") {
  // Another server asked for the room between a lookup finding it here and
  // the request reaching it: the room and its seats live on there, so the
  // answer is the one clients ask again after, not room/not_found or
  // room/bad_token.
  RoomBench bench;
  FakeClient& ann = bench.create(room_of(3));
  bool moved = false;
  bench.room().move_away(false, [&] { moved = true; });
  bench.settle();
  REQUIRE(moved);
  REQUIRE(ann.connection().close_reason);
  CHECK(ann.connection().close_reason->code == protocol::close_code(protocol::CloseReason::kMoved));
  CHECK(bench.join("Bob").reply() == "room/busy");
  CHECK(bench.join("Zoe", protocol::JoinAs::kSpectator).reply() == "room/busy");
  CHECK(bench.resume(ann.token, std::nullopt).reply() == "room/busy");
}

}  // namespace
}  // namespace gofish::server::testing
