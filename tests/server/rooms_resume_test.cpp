// Dropped connections and timers: resume within the grace period (missed
// events replayed by version, or a snapshot when the gap is too old), a bot
// for the seat after the grace period until its owner comes back, and the
// turn timer's single bot move. Every frame is leak-checked, replays and
// resume snapshots included.
#include <doctest/doctest.h>

#include "engine/transcript.hpp"
#include "rooms_support.hpp"

namespace gofish::server::testing {
namespace {

void check_no_problems(const std::vector<std::string>& problems) {
  for (const auto& problem : problems) FAIL_CHECK(problem);
  CHECK(problems.empty());
}

std::vector<std::string> texts(const Peer& peer) {
  std::vector<std::string> out;
  for (const auto& frame : peer.frames()) out.push_back(frame.text);
  return out;
}

// A two-human table with a bot and a spectator, started.
struct Table {
  explicit Table(RoomsServer& server, const std::string& preset = "classic", int timer_seconds = 0,
                 bool table_rules = false) {
    auto request = create_request("Ann", preset, 3, {{2, protocol::BotLevel::kMedium}});
    request.settings.turn_timer_seconds = timer_seconds;
    request.settings.rules.table_rules = table_rules;
    Seated host = create_room(server.port(), request);
    code = host.code;
    Seated guest = join_room(server.port(), code, "Bob");
    spectator = watch_room(server.port(), code, "Cy");
    host.peer->expect<protocol::Ok>(protocol::Start{});
    ann = autoplay(std::move(host), 31);
    bob = autoplay(std::move(guest), 32);
  }

  bool drive_until(const std::function<bool()>& done, std::chrono::milliseconds timeout = 20'000ms) {
    return drive({ann.get(), bob.get()},
                 [&] {
                   spectator->pump();
                   return done();
                 },
                 timeout);
  }

  void finish_and_check_leaks() {
    REQUIRE(drive_until([&] { return ann->games_over() >= 1 && bob->games_over() >= 1; }));
    std::map<int, engine::Transcript> transcripts;
    const auto transcript = spectator->expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
    CHECK(engine::replay_check(transcript.transcript) == std::nullopt);
    transcripts[1] = transcript.transcript;
    const auto watched = texts(*spectator);
    check_no_problems(find_leaks(ann->all_frames(), 0, watched, transcripts));
    check_no_problems(find_leaks(bob->all_frames(), 1, watched, transcripts));
    check_no_problems(find_leaks(watched, std::nullopt, watched, transcripts));
  }

  // Whether the spectator saw an event matching `match` after version `after`.
  bool spectator_saw(const std::function<bool(const protocol::RoomEvent&)>& match, std::int64_t after = 0) const {
    for (const auto& frame : spectator->frames()) {
      const auto* event = std::get_if<protocol::EventMessage>(&frame.message);
      if (event != nullptr && event->v > after && match(event->event)) return true;
    }
    return false;
  }

  std::string code;
  std::unique_ptr<Peer> spectator;
  std::unique_ptr<AutoPlayer> ann;
  std::unique_ptr<AutoPlayer> bob;
};

bool is_connection(const protocol::RoomEvent& event, engine::Seat seat, bool connected) {
  const auto* change = std::get_if<protocol::ConnectionChanged>(&event);
  return change != nullptr && change->seat == seat && change->connected == connected;
}

bool is_takeover(const protocol::RoomEvent& event, engine::Seat seat, protocol::TakeoverReason reason) {
  const auto* takeover = std::get_if<protocol::BotTakeover>(&event);
  return takeover != nullptr && takeover->seat == seat && takeover->reason == reason;
}

bool is_ask_by(const protocol::RoomEvent& event, engine::Seat seat) {
  const auto* game = std::get_if<engine::Event>(&event);
  if (game == nullptr) return false;
  if (const auto* ask = std::get_if<engine::AskedRank>(game)) return ask->seat == seat;
  if (const auto* ask = std::get_if<engine::AskedCard>(game)) return ask->seat == seat;
  return false;
}

TEST_CASE("a dropped player resumes within the grace period and gets the missed events replayed") {
  Config config = rooms_config();
  config.limits.seat_grace_period = 30'000ms;
  RoomsServer server(config);
  Table table(server);
  REQUIRE(table.drive_until([&] { return table.ann->decisions() >= 2; }));

  table.ann->peer().pump();
  const std::int64_t last_v = table.ann->peer().last_v();
  table.ann->active = false;
  table.ann->peer().socket().drop();
  // Bob and the spectator see Ann's seat disconnected; play goes on until
  // it is Ann's turn again (no timer, long grace: the game waits for her).
  REQUIRE(table.drive_until([&] { return table.spectator_saw([](const auto& e) { return is_connection(e, 0, false); }); }));
  table.drive_until([] { return false; }, 300ms);
  const auto bob_saw = [&](auto match) {
    for (const auto& frame : table.bob->peer().frames()) {
      const auto* event = std::get_if<protocol::EventMessage>(&frame.message);
      if (event != nullptr && match(event->event)) return true;
    }
    return false;
  };
  CHECK(bob_saw([](const auto& e) { return is_connection(e, 0, false); }));

  auto peer = std::make_unique<Peer>(server.port());
  const auto joined = peer->expect<protocol::Joined>(protocol::Resume{table.ann->token(), last_v});
  CHECK(joined.resumed);
  CHECK(joined.seat == 0);
  CHECK(joined.code == table.code);
  // The replay: every version after last_v, in order, then the `turn` that
  // closes it, then nothing else.
  std::int64_t expected = last_v + 1;
  bool saw_reconnect = false;
  int turns = 0;
  const std::int64_t now_v = table.spectator->last_v() + 1;  // + Ann's reconnection
  while (expected <= now_v) {
    auto message = peer->await([](const auto&) { return true; }, 5000ms);
    REQUIRE(message);
    if (const auto* turn = std::get_if<protocol::Turn>(&*message)) {
      CHECK(turn->v == expected - 1);
      ++turns;
      continue;
    }
    const auto* event = std::get_if<protocol::EventMessage>(&*message);
    REQUIRE_MESSAGE(event != nullptr, "expected a replayed event, got " << Peer::describe(*message));
    CHECK(event->v == expected);
    saw_reconnect = saw_reconnect || is_connection(event->event, 0, true);
    ++expected;
  }
  CHECK(saw_reconnect);
  CHECK(turns == 1);
  for (const auto& frame : peer->frames()) {
    CHECK_FALSE(std::holds_alternative<protocol::RoomSnapshot>(frame.message));
  }
  REQUIRE(table.drive_until([&] { return table.spectator_saw([](const auto& e) { return is_connection(e, 0, true); }); }));

  table.ann->replace_peer(std::move(peer));
  table.ann->active = true;
  table.finish_and_check_leaks();
  check_no_problems(table.ann->problems);
  check_no_problems(table.bob->problems);
}

// Under table rules every seat's `turn` and snapshot carry its own improper
// decisions: after a drop, a replayed resume and a snapshot resume, each
// seat still sees its own alone and the spectator none (find_leaks checks
// every frame against the game at its version).
TEST_CASE("table rules: across resumes each seat sees only its own improper decisions") {
  Config config = rooms_config();
  config.limits.seat_grace_period = 30'000ms;
  RoomsServer server(config);
  Table table(server, "specific-card", 0, true);
  REQUIRE(table.drive_until([&] { return table.ann->decisions() >= 1; }));
  table.ann->peer().pump();
  const std::int64_t last_v = table.ann->peer().last_v();
  table.ann->active = false;
  table.ann->peer().socket().drop();
  REQUIRE(table.drive_until([&] { return table.spectator_saw([](const auto& e) { return is_connection(e, 0, false); }); }));
  table.drive_until([] { return false; }, 200ms);

  auto peer = std::make_unique<Peer>(server.port());
  CHECK(peer->expect<protocol::Joined>(protocol::Resume{table.ann->token(), last_v}).resumed);  // a replay
  const auto turn = peer->await([](const auto& m) { return std::holds_alternative<protocol::Turn>(m); });
  REQUIRE(turn);
  CHECK(std::get<protocol::Turn>(*turn).improper.has_value());  // seat 0 is in play: it may ask out of turn
  peer->pump();
  peer->expect<protocol::Joined>(protocol::Resume{table.ann->token(), std::nullopt});  // a snapshot
  const auto snapshot = peer->await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(snapshot);
  const auto& room = std::get<protocol::RoomSnapshot>(*snapshot);
  REQUIRE(room.game);
  CHECK(room.game->improper.decisions.seat == 0);
  CHECK_FALSE(room.game->improper.empty());
  CHECK(peer->await([](const auto& m) { return std::holds_alternative<protocol::Turn>(m); }));

  table.ann->replace_peer(std::move(peer));
  table.ann->active = true;
  table.finish_and_check_leaks();
  check_no_problems(table.ann->problems);
  check_no_problems(table.bob->problems);
}

TEST_CASE("a resume whose gap is older than the history gets a fresh snapshot") {
  Config config = rooms_config();
  config.limits.seat_grace_period = 30'000ms;
  config.limits.room_history_events = 4;
  RoomsServer server(config);
  Table table(server);
  table.ann->active = false;
  table.ann->peer().pump();
  const std::int64_t last_v = table.ann->peer().last_v();
  table.ann->peer().socket().drop();
  // More than four events while Ann is away (chat lines are logged too).
  for (int i = 0; i < 5; ++i) {
    table.bob->peer().expect<protocol::Ok>(protocol::Chat{"line " + std::to_string(i), ""});
  }
  REQUIRE(table.drive_until([&] { return table.spectator->last_v() >= last_v + 6; }));
  table.drive_until([] { return false; }, 200ms);  // until the game waits for Ann

  auto peer = std::make_unique<Peer>(server.port());
  const auto joined = peer->expect<protocol::Joined>(protocol::Resume{table.ann->token(), last_v});
  CHECK(joined.resumed);
  auto snapshot = peer->await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(snapshot);
  const auto& room = std::get<protocol::RoomSnapshot>(*snapshot);
  CHECK(room.you == 0);
  CHECK(room.state == protocol::RoomState::kPlaying);
  REQUIRE(room.game);
  CHECK(room.game->hand.size() == room.game->seats[0].hand_size);
  CHECK(room.seats[0].connected);
  // No event older than the snapshot was sent.
  for (const auto& frame : peer->frames()) {
    if (const auto* event = std::get_if<protocol::EventMessage>(&frame.message)) CHECK(event->v > room.v);
  }

  // The snapshot's own `turn` comes after it; it must be read here, or the
  // await below could match it instead of the second resume's.
  CHECK(peer->await([](const auto& m) { return std::holds_alternative<protocol::Turn>(m); }));
  peer->pump();
  peer->clear_unread();
  // Up to date: nothing to replay, only the `turn` after the reply. No
  // last_v: a snapshot.
  const auto replayed_before = peer->frames().size();
  peer->expect<protocol::Joined>(protocol::Resume{table.ann->token(), peer->last_v()});
  CHECK(peer->await([](const auto& m) { return std::holds_alternative<protocol::Turn>(m); }));
  peer->pump();
  CHECK(peer->frames().size() == replayed_before + 2);
  peer->expect<protocol::Joined>(protocol::Resume{table.ann->token(), std::nullopt});
  CHECK(peer->await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); }));

  table.ann->replace_peer(std::move(peer));
  table.ann->active = true;
  table.finish_and_check_leaks();
  check_no_problems(table.ann->problems);
  check_no_problems(table.bob->problems);
}

TEST_CASE("after the grace period a bot plays the seat until its owner resumes") {
  Config config = rooms_config();
  config.limits.seat_grace_period = 300ms;
  RoomsServer server(config);
  Table table(server);
  table.ann->active = false;
  table.ann->peer().pump();
  const std::int64_t last_v = table.ann->peer().last_v();
  table.ann->peer().socket().drop();

  REQUIRE(table.drive_until([&] {
    return table.spectator_saw([](const auto& e) { return is_takeover(e, 0, protocol::TakeoverReason::kDisconnected); });
  }));
  // The bot plays seat 0 (Bob keeps playing until it has).
  REQUIRE(table.drive_until([&] { return table.spectator_saw([](const auto& e) { return is_ask_by(e, 0); }, last_v); }));
  table.bob->active = false;
  table.drive_until([] { return false; }, 200ms);

  auto peer = std::make_unique<Peer>(server.port());
  const auto joined = peer->expect<protocol::Joined>(protocol::Resume{table.ann->token(), std::nullopt});
  CHECK(joined.resumed);
  auto snapshot = peer->await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(snapshot);
  const auto& room = std::get<protocol::RoomSnapshot>(*snapshot);
  CHECK(room.seats[0].connected);
  CHECK_FALSE(room.seats[0].bot_playing);
  REQUIRE(table.drive_until([&] { return table.spectator_saw([](const auto& e) { return is_connection(e, 0, true); }); }));

  table.ann->replace_peer(std::move(peer));
  table.ann->active = true;
  table.bob->active = true;
  table.finish_and_check_leaks();
  check_no_problems(table.ann->problems);
  check_no_problems(table.bob->problems);
}

TEST_CASE("a turn timer that runs out gets one bot move, announced to everyone") {
  RoomsServer server;
  Table table(server, "classic", 1);
  table.ann->active = false;
  table.bob->active = false;
  table.ann->tolerate_refusals = true;
  table.bob->tolerate_refusals = true;
  // Nobody plays: each expiry is announced and followed by exactly one move
  // for that seat before the next timer starts.
  REQUIRE(table.drive_until(
      [&] {
        return table.spectator_saw([](const auto& e) { return is_takeover(e, 0, protocol::TakeoverReason::kTimeout); }) &&
               table.spectator_saw([](const auto& e) { return is_takeover(e, 1, protocol::TakeoverReason::kTimeout); });
      },
      15'000ms));
  engine::Seat timed_out = -1;  // the seat whose timer ran out last, -1 for none
  int moves = 0;
  int checked = 0;
  for (const auto& frame : table.spectator->frames()) {
    const auto* event = std::get_if<protocol::EventMessage>(&frame.message);
    if (event == nullptr) continue;
    if (const auto* takeover = std::get_if<protocol::BotTakeover>(&event->event)) {
      CHECK(takeover->reason == protocol::TakeoverReason::kTimeout);
      timed_out = takeover->seat;
      moves = 0;
    } else if (timed_out >= 0 && is_ask_by(event->event, timed_out)) {
      ++moves;
    } else if (const auto* timer = std::get_if<protocol::TurnTimer>(&event->event)) {
      CHECK(timer->seconds == 1);
      if (timed_out >= 0) {
        CHECK(moves == 1);
        ++checked;
      }
      timed_out = -1;
    }
  }
  CHECK(checked >= 1);
  // The players were told as well.
  const auto told = [](const Peer& peer) {
    for (const auto& frame : peer.frames()) {
      const auto* event = std::get_if<protocol::EventMessage>(&frame.message);
      if (event != nullptr && std::holds_alternative<protocol::BotTakeover>(event->event)) return true;
    }
    return false;
  };
  CHECK(told(table.ann->peer()));
  CHECK(told(table.bob->peer()));

  table.ann->active = true;
  table.bob->active = true;
  table.finish_and_check_leaks();
}

}  // namespace
}  // namespace gofish::server::testing
