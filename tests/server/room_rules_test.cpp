// The rules of a room through the real gofish-server binary: what a resume
// gets whatever its gap (through real send queues), what happens to a seat
// whose owner left, who may sit down again, and what everyone still in a
// room is told when it closes (protocol/README.md, "Server contract: rooms").
// Nothing here sleeps: the rules that depend on time passing (grace periods,
// away seats, turn timers, the chat rate) are tested on a clock the test
// moves, in room_timing_test.cpp.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rooms_support.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

using namespace std::chrono_literals;

// The next `turn` a peer gets (nullopt after the timeout).
std::optional<protocol::Turn> await_turn(Peer& peer, std::chrono::milliseconds timeout = 5000ms) {
  auto message = peer.await([](const auto& m) { return std::holds_alternative<protocol::Turn>(m); }, timeout);
  if (!message) return std::nullopt;
  return std::get<protocol::Turn>(*message);
}

// Every room event a peer has received so far, read or not.
std::vector<protocol::EventMessage> events_of(const Peer& peer) {
  std::vector<protocol::EventMessage> out;
  for (const auto& frame : peer.frames()) {
    if (const auto* event = std::get_if<protocol::EventMessage>(&frame.message)) out.push_back(*event);
  }
  return out;
}

template <class E>
int count_events(const Peer& peer, const std::function<bool(const E&)>& match = [](const E&) { return true; }) {
  int n = 0;
  for (const auto& event : events_of(peer)) {
    if (const auto* e = std::get_if<E>(&event.event); e && match(*e)) ++n;
  }
  return n;
}

bool connection_alive(Peer& peer) {
  const auto pong = peer.request(protocol::Ping{});
  return std::holds_alternative<protocol::Pong>(pong);
}

// ---------------------------------------------------------------- resume

// Bob drops out of a waiting room; Ann posts chat lines until Bob has missed
// `gap` events (his own drop among them); Bob comes back with the last
// version he saw. He must get either the whole replay or a snapshot, then a
// `turn`, and keep his connection.
void resume_after_gap(std::uint16_t port, int gap) {
  CAPTURE(gap);
  Seated ann = create_room(port, create_request("Ann", "classic", 2));
  Seated bob = join_room(port, ann.code, "Bob");
  // Bob has seen all Ann has before he drops (on a slow build an event can
  // still be on its way to him).
  ann.peer->pump();
  bob.peer->pump();
  while (bob.peer->last_v() != ann.peer->last_v()) {
    // Whoever is behind waits for its next message.
    Peer& behind = bob.peer->last_v() < ann.peer->last_v() ? *bob.peer : *ann.peer;
    if (!behind.await([](const auto&) { return true; }, 10s)) break;
  }
  REQUIRE(bob.peer->last_v() == ann.peer->last_v());
  const std::int64_t last_v = bob.peer->last_v();
  bob.peer->socket().drop();
  REQUIRE(ann.peer->await_event<protocol::ConnectionChanged>());
  // In batches Ann reads before sending more: her own send queue is bounded too.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (int sent = 1; sent < gap;) {
    const int batch = std::min(gap - sent, 50);
    for (int i = 0; i < batch; ++i, ++sent) ann.peer->send(protocol::Chat{"line " + std::to_string(sent), ""});
    while (ann.peer->last_v() < last_v + sent && std::chrono::steady_clock::now() < deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (!ann.peer->await([](const auto&) { return true; }, left)) break;
    }
  }
  REQUIRE(ann.peer->last_v() == last_v + gap);

  Peer back(port);
  const auto joined = back.expect<protocol::Joined>(protocol::Resume{bob.token, last_v});
  CHECK(joined.resumed);
  const auto turn = await_turn(back, 10'000ms);
  REQUIRE_MESSAGE(turn, "no turn after the resume; the connection "
                            << (back.socket().ended() ? "was closed: " + back.socket().close_reason() : "is open"));
  CHECK(turn->v == last_v + gap);
  // What came between the reply and the turn: every missed event in order,
  // or one snapshot.
  int snapshots = 0;
  std::int64_t expected = last_v + 1;
  for (const auto& frame : back.frames()) {
    if (const auto* room = std::get_if<protocol::RoomSnapshot>(&frame.message)) {
      ++snapshots;
      CHECK(room->v == last_v + gap);
    } else if (const auto* event = std::get_if<protocol::EventMessage>(&frame.message)) {
      if (event->v > last_v + gap) break;  // Bob's own reconnection, after the turn
      CHECK(event->v == expected);
      ++expected;
    }
    CHECK_FALSE(std::holds_alternative<protocol::Closing>(frame.message));
  }
  CHECK((snapshots == 1 || expected == last_v + gap + 1));
  CHECK(connection_alive(back));
  ann.peer->expect<protocol::Ok>(protocol::Leave{});
}

TEST_CASE("resume: a gap at, around or past the history size is replayed or snapshotted, never closed") {
  TempDir dir("gofish-rules");
  SUBCASE("default history (256 events) and send queue") {
    ServerProcess server(dir.path / "data", dir.path / "default.log",
                         {"--chat-rate=100000", "--chat-burst=100000", "--seat-grace-ms=600000"});
    for (int gap : {1, 127, 128, 129, 255, 256, 257, 300}) resume_after_gap(server.port(), gap);
  }
  SUBCASE("a history of 1024 events") {
    ServerProcess server(dir.path / "data", dir.path / "long.log",
                         {"--chat-rate=100000", "--chat-burst=100000", "--seat-grace-ms=600000",
                          "--room-history-events=1024"});
    for (int gap : {256, 700, 1023, 1024, 1025}) resume_after_gap(server.port(), gap);
  }
}

// ---------------------------------------------------------------- kicked

TEST_CASE("kicked: a removed player cannot sit down again on a new connection, by token or by name") {
  TempDir dir("gofish-rules");
  ServerProcess server(dir.path / "data", dir.path / "server.log");
  const auto port = server.port();
  SUBCASE("before a game") {
    Seated ann = create_room(port, create_request("Ann", "classic", 3));
    Seated bob = join_room(port, ann.code, "Bob");
    ann.peer->expect<protocol::Ok>(protocol::Kick{1});
    // A reload: a new connection with the stored token.
    Peer reload(port);
    CHECK(reload.error_of(protocol::Resume{bob.token, std::nullopt}) == "room/kicked");
    // The join form, the same name in any case.
    Peer again(port);
    CHECK(again.error_of(protocol::Join{ann.code, "Bob", protocol::JoinAs::kPlayer}) == "room/kicked");
    CHECK(again.error_of(protocol::Join{ann.code, "BOB", protocol::JoinAs::kPlayer}) == "room/kicked");
    // Watching is still allowed.
    again.expect<protocol::Joined>(protocol::Join{ann.code, "Bob", protocol::JoinAs::kSpectator});
  }
  SUBCASE("during a game") {
    Seated ann = create_room(port, create_request("Ann", "classic", 3));
    Seated bob = join_room(port, ann.code, "Bob");
    Seated cy = join_room(port, ann.code, "Cy");
    ann.peer->expect<protocol::Ok>(protocol::Start{});
    ann.peer->expect<protocol::Ok>(protocol::Kick{1});
    Peer reload(port);
    CHECK(reload.error_of(protocol::Resume{bob.token, std::nullopt}) == "room/kicked");
    CHECK(reload.error_of(protocol::Join{ann.code, "Bob", protocol::JoinAs::kPlayer}) == "room/kicked");
  }
}

// ---------------------------------------------------------------- leaving

TEST_CASE("leaving: the host leaving mid-game never blocks the rematch, and names stay with the game") {
  TempDir dir("gofish-rules");
  ServerProcess server(dir.path / "data", dir.path / "server.log");
  const auto port = server.port();
  Seated ann = create_room(port, create_request("Ann", "classic", 3, {{2, protocol::BotLevel::kEasy}}));
  Seated bob = join_room(port, ann.code, "Bob");
  ann.peer->expect<protocol::Ok>(protocol::Start{});
  ann.peer->expect<protocol::Ok>(protocol::Leave{});
  auto player = autoplay(std::move(bob), 47);
  const auto host = player->peer().await_event<protocol::HostChanged>();
  REQUIRE(host);
  CHECK(host->seat == 1);
  REQUIRE(drive({player.get()}, [&] { return player->games_over() >= 1; }, 60'000ms));
  Peer& peer = player->peer();
  peer.pump();
  peer.clear_unread();
  // One seat_left for Ann's seat, when the game ended.
  CHECK(count_events<protocol::SeatLeft>(peer, [](const auto& e) { return e.seat == 0; }) == 1);
  CHECK(count_events<protocol::BotTakeover>(
            peer, [](const auto& e) { return e.seat == 0 && e.reason == protocol::TakeoverReason::kLeft; }) == 1);
  peer.expect<protocol::Joined>(protocol::Resume{player->token(), std::nullopt});
  const auto snapshot = peer.await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(snapshot);
  const auto& room = std::get<protocol::RoomSnapshot>(*snapshot);
  CHECK(room.seats[0].occupant == protocol::Occupant::kEmpty);
  REQUIRE(room.players.size() == 3);
  CHECK(room.players[0].name == "Ann");  // the score table still names her
  // Bob alone asks for another game: the empty seat gets a bot and it starts.
  peer.expect<protocol::Ok>(protocol::Rematch{});
  const auto added = peer.await_event<protocol::BotAdded>();
  REQUIRE(added);
  CHECK(added->seat == 0);
  const auto started = peer.await_event<protocol::NewGame>();
  REQUIRE(started);
  CHECK(started->game == 2);
  CHECK(started->players[0].bot.has_value());
  CHECK(started->players[1].name == "Bob");
}

TEST_CASE("leaving: a spectator is told with room_closed when the last player leaves") {
  TempDir dir("gofish-rules");
  ServerProcess server(dir.path / "data", dir.path / "server.log");
  Seated ann = create_room(server.port(), create_request("Ann", "classic", 2));
  auto zoe = watch_room(server.port(), ann.code, "Zoe");
  ann.peer->expect<protocol::Ok>(protocol::Leave{});
  const auto closed = zoe->await([](const auto& m) {
    return std::holds_alternative<protocol::RoomClosed>(m) || std::holds_alternative<protocol::Error>(m);
  });
  REQUIRE(closed);
  REQUIRE_MESSAGE(std::holds_alternative<protocol::RoomClosed>(*closed), Peer::describe(*closed));
  const auto& message = std::get<protocol::RoomClosed>(*closed);
  CHECK(message.code == ann.code);
  CHECK(message.reason == protocol::RoomClosedReason::kPlayersLeft);
  CHECK(zoe->error_of(protocol::Chat{"hello?", ""}) == "room/not_in_room");
  CHECK(connection_alive(*zoe));
}

// ---------------------------------------------------------------- transcripts

TEST_CASE("transcript: the HTTP API serves the same object as the transcript message") {
  TempDir dir("gofish-rules");
  ServerProcess server(dir.path / "data", dir.path / "server.log");
  Seated ann = create_room(server.port(), create_request("Ann", "pairs", 2, {{1, protocol::BotLevel::kEasy}}));
  ann.peer->expect<protocol::Ok>(protocol::Start{});
  auto player = autoplay(std::move(ann), 5);
  REQUIRE(drive({player.get()}, [&] { return player->games_over() >= 1; }, 60'000ms));
  const auto id = player->peer().send(protocol::GetTranscript{});
  player->peer().reply(id);
  std::string frame;
  for (const auto& f : player->peer().frames()) {
    if (std::holds_alternative<protocol::TranscriptMessage>(f.message)) frame = f.text;
  }
  REQUIRE_FALSE(frame.empty());
  const auto message = nlohmann::json::parse(frame);
  const auto reply = http_request(server.port(), "/api/games/" + message["game_id"].get<std::string>() + "/transcript");
  REQUIRE(reply.status == 200);
  const auto served = nlohmann::json::parse(reply.body);
  CHECK(served.contains("seats"));
  CHECK(served == message["transcript"]);
}

// ---------------------------------------------------------------- input

TEST_CASE("input: ranks and cards may be sent in lower case") {
  TempDir dir("gofish-rules");
  ServerProcess server(dir.path / "data", dir.path / "server.log");
  for (const std::string preset : {"classic", "specific-card"}) {
    CAPTURE(preset);
    Seated ann = create_room(server.port(), create_request("Ann", preset, 2, {{1, protocol::BotLevel::kEasy}}));
    ann.peer->expect<protocol::Ok>(protocol::Start{});
    std::optional<protocol::Turn> turn;
    while ((turn = await_turn(*ann.peer)) && turn->seat == 1) {
    }
    REQUIRE(turn);
    REQUIRE(turn->legal);
    const auto decision = turn->legal->nth(0);
    auto body = nlohmann::json::parse(protocol::encode_client_message({protocol::RequestId{std::int64_t{77}},
                                                                        protocol::request_for(decision)}));
    for (const char* key : {"rank", "card"}) {
      if (!body.contains(key)) continue;
      std::string text = body[key].get<std::string>();
      for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      body[key] = text;
    }
    ann.peer->send_raw(body.dump());
    CHECK(std::holds_alternative<protocol::Ok>(ann.peer->reply(77)));
  }
}

// ---------------------------------------------------------------- loading rooms

TEST_CASE("directory: with --load-rooms on-demand a room comes back when first asked for, by token or by code") {
  TempDir dir("gofish-rules");
  std::string code, waiting_code, ann_token;
  {
    ServerProcess server(dir.path / "data", dir.path / "first.log");
    Seated ann = create_room(server.port(), create_request("Ann", "classic", 2, {{1, protocol::BotLevel::kEasy}}));
    code = ann.code;
    ann_token = ann.token;
    ann.peer->expect<protocol::Ok>(protocol::Start{});
    REQUIRE(await_turn(*ann.peer));
    Seated wes = create_room(server.port(), create_request("Wes", "pairs", 3));
    waiting_code = wes.code;
    REQUIRE(server.stop(SIGTERM) == 0);
  }
  ServerProcess server(dir.path / "data", dir.path / "second.log", {"--load-rooms=on-demand"});
  CHECK(server.log_text().find("rooms restored") == std::string::npos);  // nothing rebuilt at start
  // A resume finds its room through the seat token...
  Peer ann(server.port());
  const auto joined = ann.expect<protocol::Joined>(protocol::Resume{ann_token, std::nullopt});
  CHECK(joined.code == code);
  const auto turn = await_turn(ann);
  REQUIRE(turn);
  CHECK(turn->seat.has_value());  // the game in play came back with it
  // ... and a join by code.
  Seated val = join_room(server.port(), waiting_code, "Val");
  CHECK(val.seat == 1);
  // An unknown code is still unknown.
  Peer stranger(server.port());
  CHECK(stranger.error_of(protocol::Join{"ZZZZZ", "Zed", protocol::JoinAs::kPlayer}) == "room/not_found");
}

}  // namespace
}  // namespace gofish::server::testing
