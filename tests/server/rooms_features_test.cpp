// Room life outside the game: codes and invites, names, seats, the lobby,
// the host's powers and their passing on, chat modes and limits, caps on
// rooms and spectators, idle expiry and the shutdown notice.
#include <doctest/doctest.h>

#include <thread>

#include "protocol/text.hpp"
#include "rooms_support.hpp"

namespace gofish::server::testing {
namespace {

template <class E>
bool saw_event(const Peer& peer, const std::function<bool(const E&)>& match = [](const E&) { return true; }) {
  for (const auto& frame : peer.frames()) {
    const auto* event = std::get_if<protocol::EventMessage>(&frame.message);
    if (event == nullptr) continue;
    if (const auto* e = std::get_if<E>(&event->event); e != nullptr && match(*e)) return true;
  }
  return false;
}

protocol::RoomSnapshot latest_snapshot(Peer& peer) {
  auto message = peer.await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(message);
  return std::get<protocol::RoomSnapshot>(*message);
}

TEST_CASE("a room gets a readable code, an invite, a token, players join by code with unique names") {
  RoomsServer server;
  auto request = create_request("Ann", "pairs", 3);
  request.settings.listed = true;
  Peer ann(server.port());
  const auto created = ann.expect<protocol::Created>(request);
  CHECK(protocol::is_room_code(created.code));
  CHECK(created.code.find_first_of("0O1IL") == std::string::npos);
  CHECK(protocol::is_token(created.token));
  CHECK(created.seat == 0);
  CHECK(ann.frames().at(1).text.find("\"invite\":\"/r/" + created.code + "\"") != std::string::npos);
  const auto first = latest_snapshot(ann);
  CHECK(first.v == 0);
  CHECK(first.host == 0);
  CHECK(first.you == 0);
  CHECK(first.state == protocol::RoomState::kWaiting);
  CHECK(first.seats.size() == 3);
  CHECK(first.seats[0].name == "Ann");
  CHECK(first.seats[1].occupant == protocol::Occupant::kEmpty);

  // The lobby lists it while it waits for players.
  Peer visitor(server.port());
  auto lobby = visitor.expect<protocol::LobbyList>(protocol::Lobby{});
  REQUIRE(lobby.rooms.size() == 1);
  CHECK(lobby.rooms[0].code == created.code);
  CHECK(lobby.rooms[0].host == "Ann");
  CHECK(lobby.rooms[0].preset == "pairs");
  CHECK(lobby.rooms[0].taken == 1);
  // An unlisted room is not shown.
  Peer other(server.port());
  other.expect<protocol::Created>(create_request("Zed", "classic", 2));
  CHECK(visitor.expect<protocol::LobbyList>(protocol::Lobby{}).rooms.size() == 1);

  // Names are trimmed, compared without case, and unique in the room.
  const std::string lower_code = " " + std::string(1, static_cast<char>(created.code[0] | 0x20)) + created.code.substr(1);
  CHECK(visitor.error_of(protocol::Join{created.code, "ann", protocol::JoinAs::kPlayer}) == "room/name_taken");
  CHECK(visitor.error_of(protocol::Join{created.code, "ANN", protocol::JoinAs::kSpectator}) == "room/name_taken");
  visitor.send_raw(R"({"type":"join","id":"j","code":")" + lower_code + R"(","name":"   Bob   Smith  "})");
  auto reply = visitor.await([](const auto& m) { return id_of(m) == protocol::RequestId(std::string("j")); });
  REQUIRE(reply);
  REQUIRE(std::holds_alternative<protocol::Joined>(*reply));
  CHECK(std::get<protocol::Joined>(*reply).seat == 1);
  CHECK(latest_snapshot(visitor).seats[1].name == "Bob Smith");
  REQUIRE(ann.await_event<protocol::SeatJoined>());
  CHECK(saw_event<protocol::SeatJoined>(ann, [](const auto& e) { return e.seat == 1 && e.name == "Bob Smith"; }));

  Seated cy = join_room(server.port(), created.code, "Cy");
  CHECK(cy.seat == 2);
  // Full now, and so no longer in the lobby.
  Peer late(server.port());
  CHECK(late.error_of(protocol::Join{created.code, "Dee", protocol::JoinAs::kPlayer}) == "room/full");
  CHECK(late.expect<protocol::LobbyList>(protocol::Lobby{}).rooms.empty());
  // Spectators are still welcome.
  late.expect<protocol::Joined>(protocol::Join{created.code, "Dee", protocol::JoinAs::kSpectator});
  CHECK(ann.await_event<protocol::SpectatorsChanged>());
}

// A connection is out of a room before it hears that it is: another join
// sent the moment a join is refused, a leave answered or a kick told must
// not find it still in the room (room/already_in_room). A refusal once
// reached its client before the room let go of it.
TEST_CASE("a refused join, a leave and a kick leave the connection free for its next join at once") {
  RoomsServer server;
  Seated ann = create_room(server.port(), create_request("Ann", "classic", 3));
  Peer visitor(server.port());
  for (int i = 0; i < 300; ++i) {
    REQUIRE(visitor.error_of(protocol::Join{ann.code, "ANN", protocol::JoinAs::kSpectator}) == "room/name_taken");
    visitor.expect<protocol::Joined>(protocol::Join{ann.code, "Watcher", protocol::JoinAs::kSpectator});
    visitor.expect<protocol::Ok>(protocol::Leave{});
  }
  // A kicked connection may not sit down again, but it may watch.
  for (int i = 0; i < 30; ++i) {
    Peer bob(server.port());
    const std::string name = "Bob" + std::to_string(i);
    REQUIRE(bob.expect<protocol::Joined>(protocol::Join{ann.code, name, protocol::JoinAs::kPlayer}).seat == 1);
    ann.peer->expect<protocol::Ok>(protocol::Kick{1});
    REQUIRE(bob.await([](const protocol::ServerMessage& m) {
      const auto* error = std::get_if<protocol::Error>(&m);
      return error && error->code == protocol::ErrorCode::kRoomKicked;
    }));
    bob.expect<protocol::Joined>(protocol::Join{ann.code, "Watcher " + name, protocol::JoinAs::kSpectator});
  }
}

TEST_CASE("the host adds and removes bots, kicks, starts when every seat is filled, the role passes on") {
  RoomsServer server;
  Seated ann = create_room(server.port(), create_request("Ann", "classic", 4));
  Seated bob = join_room(server.port(), ann.code, "Bob");
  Seated cy = join_room(server.port(), ann.code, "Cy");

  CHECK(bob.peer->error_of(protocol::AddBot{std::nullopt, protocol::BotLevel::kEasy}) == "room/not_host");
  CHECK(ann.peer->error_of(protocol::Start{}) == "room/not_enough_players");
  CHECK(ann.peer->error_of(protocol::AddBot{1, protocol::BotLevel::kEasy}) == "room/bad_seat");
  CHECK(ann.peer->error_of(protocol::AddBot{4, protocol::BotLevel::kEasy}) == "room/bad_seat");
  ann.peer->expect<protocol::Ok>(protocol::AddBot{std::nullopt, protocol::BotLevel::kHard});
  const auto added = bob.peer->await_event<protocol::BotAdded>();
  REQUIRE(added);
  CHECK(added->seat == 3);
  CHECK(added->level == protocol::BotLevel::kHard);
  CHECK(ann.peer->error_of(protocol::AddBot{std::nullopt, protocol::BotLevel::kEasy}) == "room/full");
  CHECK(ann.peer->error_of(protocol::RemoveBot{1}) == "room/bad_seat");
  ann.peer->expect<protocol::Ok>(protocol::RemoveBot{3});
  CHECK(bob.peer->await_event<protocol::BotRemoved>());

  // Kick: the kicked player is told, and is out of the room.
  CHECK(ann.peer->error_of(protocol::Kick{0}) == "room/bad_seat");
  CHECK(bob.peer->error_of(protocol::Kick{2}) == "room/not_host");
  ann.peer->expect<protocol::Ok>(protocol::Kick{2});
  const auto kicked = cy.peer->await_event<protocol::Kicked>();
  REQUIRE(kicked);
  CHECK(kicked->seat == 2);
  const auto told = cy.peer->await([](const auto& m) {
    const auto* error = std::get_if<protocol::Error>(&m);
    return error != nullptr && error->code == protocol::ErrorCode::kRoomKicked;
  });
  REQUIRE(told);
  CHECK_FALSE(std::get<protocol::Error>(*told).id.has_value());
  CHECK(cy.peer->error_of(protocol::Chat{"hello?", ""}) == "room/not_in_room");
  // Their seat token now says they were removed, on this connection or any other.
  CHECK(cy.peer->error_of(protocol::Resume{cy.token, std::nullopt}) == "room/kicked");
  CHECK(cy.peer->error_of(protocol::Join{ann.code, "Cy", protocol::JoinAs::kPlayer}) == "room/kicked");

  // The host leaves: the role passes to the next human.
  ann.peer->expect<protocol::Ok>(protocol::Leave{});
  const auto host = bob.peer->await_event<protocol::HostChanged>();
  REQUIRE(host);
  CHECK(host->seat == 1);
  CHECK(bob.peer->await_event<protocol::SeatLeft>());
  CHECK(ann.peer->error_of(protocol::Leave{}) == "room/not_in_room");

  // Bob, now host, fills the table and starts.
  bob.peer->expect<protocol::Ok>(protocol::AddBot{std::nullopt, protocol::BotLevel::kEasy});
  bob.peer->expect<protocol::Ok>(protocol::AddBot{std::nullopt, protocol::BotLevel::kMedium});
  bob.peer->expect<protocol::Ok>(protocol::AddBot{std::nullopt, protocol::BotLevel::kHard});
  bob.peer->expect<protocol::Ok>(protocol::Start{});
  CHECK(bob.peer->await_event<protocol::NewGame>());
  CHECK(bob.peer->error_of(protocol::Start{}) == "room/already_started");
  CHECK(bob.peer->error_of(protocol::RemoveBot{0}) == "room/already_started");
  Peer late(server.port());
  CHECK(late.error_of(protocol::Join{ann.code, "Dee", protocol::JoinAs::kPlayer}) == "room/already_started");
}

TEST_CASE("chat: free text, fixed phrases only, or off, length and rate limited") {
  RoomsServer server;
  Seated ann = create_room(server.port(), create_request("Ann", "classic", 2));
  auto spectator = watch_room(server.port(), ann.code, "Cy");
  ann.peer->expect<protocol::Ok>(protocol::Chat{"  good luck  ", ""});
  const auto line = spectator->await_event<protocol::ChatPosted>();
  REQUIRE(line);
  CHECK(line->text == "good luck");
  CHECK(line->name == "Ann");
  CHECK(line->seat == 0);
  REQUIRE(ann.peer->await_event<protocol::ChatPosted>());  // her own line comes back to her too
  spectator->expect<protocol::Ok>(protocol::Chat{"", "good_game"});
  const auto phrase = ann.peer->await_event<protocol::ChatPosted>();
  REQUIRE(phrase);
  CHECK(phrase->phrase == "good_game");
  CHECK_FALSE(phrase->seat.has_value());
  CHECK(ann.peer->error_of(protocol::Chat{"", "no_such_phrase"}) == "chat/not_a_phrase");
  CHECK(ann.peer->error_of(protocol::Chat{std::string(201, 'x'), ""}) == "chat/too_long");
  // The burst is five lines; Ann has used one.
  for (int i = 0; i < 4; ++i) ann.peer->expect<protocol::Ok>(protocol::Chat{"line", ""});
  CHECK(ann.peer->error_of(protocol::Chat{"one too many", ""}) == "chat/rate_limited");

  auto phrases_only = create_request("Ann", "classic", 2);
  phrases_only.settings.chat = protocol::ChatMode::kPhrases;
  Seated teacher = create_room(server.port(), phrases_only);
  CHECK(teacher.peer->error_of(protocol::Chat{"anything", ""}) == "chat/not_a_phrase");
  teacher.peer->expect<protocol::Ok>(protocol::Chat{"", "hurry"});

  auto silent = create_request("Ann", "classic", 2);
  silent.settings.chat = protocol::ChatMode::kOff;
  Seated quiet = create_room(server.port(), silent);
  CHECK(quiet.peer->error_of(protocol::Chat{"", "hello"}) == "chat/off");
}

TEST_CASE("rooms and spectators are capped, spectators can be turned off") {
  Config config = rooms_config();
  config.limits.max_rooms = 2;
  config.limits.max_spectators_per_room = 1;
  RoomsServer server(config);
  Seated a = create_room(server.port(), create_request("Ann", "classic", 2));
  auto closed = create_request("Bob", "classic", 2);
  closed.settings.spectators = false;
  Seated b = create_room(server.port(), closed);
  Peer third(server.port());
  CHECK(third.error_of(protocol::CreateRoom(create_request("Cy", "classic", 2))) == "room/too_many_rooms");
  CHECK(third.error_of(protocol::Join{b.code, "Cy", protocol::JoinAs::kSpectator}) == "room/spectators_off");
  third.expect<protocol::Joined>(protocol::Join{a.code, "Cy", protocol::JoinAs::kSpectator});
  Peer fourth(server.port());
  CHECK(fourth.error_of(protocol::Join{a.code, "Dee", protocol::JoinAs::kSpectator}) == "room/full");
}

TEST_CASE("a room with nobody connected expires, a seat whose owner stays away is freed") {
  Config config = rooms_config();
  config.limits.room_idle_expiry = 300ms;
  config.limits.seat_grace_period = 200ms;
  RoomsServer server(config);
  Seated ann = create_room(server.port(), create_request("Ann", "classic", 3));
  Seated bob = join_room(server.port(), ann.code, "Bob");
  bob.peer->socket().drop();
  // Before a game, the seat is freed after the grace period.
  const auto left = ann.peer->await_event<protocol::SeatLeft>(3000ms);
  REQUIRE(left);
  CHECK(left->seat == 1);
  ann.peer->socket().close();
  std::this_thread::sleep_for(800ms);
  Peer late(server.port());
  CHECK(late.error_of(protocol::Join{ann.code, "Cy", protocol::JoinAs::kPlayer}) == "room/not_found");
  CHECK(late.error_of(protocol::Resume{ann.token, std::nullopt}) == "room/bad_token");
  CHECK(metric_value(server.metrics().serialize(), "gofish_rooms{state=\"waiting\"}") == 0);
}

TEST_CASE("on shutdown every connection is told before it is closed") {
  RoomsServer server;
  Seated ann = create_room(server.port(), create_request("Ann", "classic", 2));
  Peer idle(server.port());
  server.server().begin_shutdown();
  for (Peer* peer : {ann.peer.get(), &idle}) {
    const auto closing = peer->await([](const auto& m) { return std::holds_alternative<protocol::Closing>(m); });
    REQUIRE(closing);
    CHECK(std::get<protocol::Closing>(*closing).reason == protocol::CloseReason::kShuttingDown);
    CHECK_FALSE(peer->await([](const auto&) { return false; }, 3000ms));
    CHECK(peer->socket().close_code() == 1001);
  }
}

}  // namespace
}  // namespace gofish::server::testing
