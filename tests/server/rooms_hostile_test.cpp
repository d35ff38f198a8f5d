// Hostile input, each kind with its error or close, while a game in another
// room is played to the end on its own thread; then the illegal decisions of
// a seated player, refused with their codes and changing nothing.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "engine/transcript.hpp"
#include "rooms_support.hpp"

namespace gofish::server::testing {
namespace {

void check_no_problems(const std::vector<std::string>& problems) {
  for (const auto& problem : problems) FAIL_CHECK(problem);
  CHECK(problems.empty());
}

// The error answering a raw frame (throws if the reply is something else).
std::string raw_error(Peer& peer, const std::string& frame, std::optional<protocol::RequestId> id = std::nullopt) {
  peer.send_raw(frame);
  auto message = peer.await([](const auto& m) { return std::holds_alternative<protocol::Error>(m); }, 5000ms);
  if (!message) throw std::runtime_error("no error for " + frame);
  const auto& error = std::get<protocol::Error>(*message);
  CHECK(error.id == id);
  CHECK_FALSE(error.message.empty());
  return std::string(protocol::error_code_name(error.code));
}

// The connection still answers.
void check_alive(Peer& peer) { peer.expect<protocol::Pong>(protocol::Ping{}); }

TEST_CASE("hostile input gets an error or a close while another room plays on") {
  Config config = rooms_config();
  config.limits.message_rate_per_second = 200;
  config.limits.message_burst = 200;
  // Slow enough bots that the game is still being played while the abuse
  // goes on (checked below), fast enough to finish in a second or two.
  config.limits.bot_delay = 5ms;
  RoomsServer server(config);

  // The room that must not notice: a human and three bots, played on a
  // thread of its own while the abuse goes on.
  Seated host = create_room(server.port(), create_request("Ann", "classic", 4,
                                                          {{1, protocol::BotLevel::kEasy},
                                                           {2, protocol::BotLevel::kMedium},
                                                           {3, protocol::BotLevel::kHard}}));
  const std::string game_code = host.code;
  host.peer->expect<protocol::Ok>(protocol::Start{});
  auto player = autoplay(std::move(host), 41);
  std::atomic<bool> game_done{false};
  std::atomic<std::size_t> game_frames{0};
  std::thread game_thread([&] {
    game_done = drive({player.get()},
                      [&] {
                        game_frames = player->peer().frames().size();
                        return player->games_over() >= 1;
                      },
                      60'000ms);
  });
  const std::size_t frames_before_abuse = game_frames;

  {  // frames the protocol cannot use
    Peer peer(server.port(), false);
    // Before hello.
    CHECK(raw_error(peer, R"({"type":"lobby","id":1})", 1) == "protocol/hello_required");
    CHECK(raw_error(peer, R"({"type":"hello","protocol":99,"id":"h"})", "h") == "protocol/version_mismatch");
    CHECK(raw_error(peer, R"({"type":"ask","target":1,"rank":"Q","id":2})", 2) == "protocol/hello_required");
    peer.expect<protocol::Welcome>(protocol::Hello{});
    CHECK(raw_error(peer, R"({"type":)") == "protocol/bad_json");
    CHECK(raw_error(peer, "not json at all") == "protocol/bad_json");
    CHECK(raw_error(peer, "[1,2,3]") == "protocol/bad_message");
    CHECK(raw_error(peer, std::string(200, '[') + std::string(200, ']')) == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"teleport","id":5})", 5) == "protocol/unknown_type");
    CHECK(raw_error(peer, R"({"id":6})", 6) == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"join","code":12345,"name":"Eve","id":7})", 7) == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"join","code":"0O1IL","name":"Eve","id":8})", 8) == "room/bad_code");
    CHECK(raw_error(peer, R"({"type":"create_room","name":"Eve","seats":"four","id":9})", 9) ==
          "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"create_room","name":"Eve","seats":9,"id":10})", 10) == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"create_room","name":"Eve","seats":3,"rules":{"set_size":5},"id":11})", 11) ==
          "room/bad_rules");
    CHECK(raw_error(peer, R"({"type":"ask","target":"one","rank":"Q","id":12})", 12) == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"ask","target":1,"rank":"Z","id":13})", 13) == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"chat","text":12,"id":14})", 14) == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"ping","id":{"nested":true}})") == "protocol/bad_message");
    CHECK(raw_error(peer, R"({"type":"join","code":"ABCDE","name":"\u0007bell","id":15})", 15) == "room/bad_name");
    CHECK(raw_error(peer, R"({"type":"join","code":"ABCDE","name":")" + std::string(100, 'x') + R"(","id":16})",
                    16) == "room/bad_name");
    check_alive(peer);
  }

  {  // requests outside the caller's rights
    Peer outsider(server.port());
    CHECK(outsider.error_of(protocol::Ask{1, engine::Rank{5}}) == "room/not_in_room");
    CHECK(outsider.error_of(protocol::Start{}) == "room/not_in_room");
    CHECK(outsider.error_of(protocol::Chat{"hi", ""}) == "room/not_in_room");
    CHECK(outsider.error_of(protocol::Resume{std::string(32, 'A'), std::nullopt}) == "room/bad_token");
    CHECK(raw_error(outsider, R"({"type":"resume","token":"short","id":3})", 3) == "room/bad_token");
    CHECK(outsider.error_of(protocol::Join{"ZZZZZ", "Eve", protocol::JoinAs::kPlayer}) == "room/not_found");
    // A player of the running game cannot be joined as a seat, nor replaced.
    CHECK(outsider.error_of(protocol::Join{game_code, "Eve", protocol::JoinAs::kPlayer}) == "room/already_started");

    // A spectator of the running game has no seat to play from.
    auto spectator = watch_room(server.port(), game_code, "Watcher");
    CHECK(spectator->error_of(protocol::Ask{1, engine::Rank{5}}) == "room/spectator");
    CHECK(spectator->error_of(protocol::Answer{true}) == "room/spectator");
    CHECK(spectator->error_of(protocol::Start{}) == "room/spectator");
    CHECK(spectator->error_of(protocol::Kick{0}) == "room/spectator");
    CHECK(spectator->error_of(protocol::Rematch{}) == "room/spectator");
    CHECK(spectator->error_of(protocol::Join{game_code, "Again", protocol::JoinAs::kSpectator}) ==
          "room/already_in_room");

    // A seated player of another room: decisions are its own seat's only.
    Seated eve = create_room(server.port(), create_request("Eve", "classic", 2, {{1, protocol::BotLevel::kEasy}}));
    CHECK(eve.peer->error_of(protocol::Ask{0, engine::Rank{5}}) == "room/not_started");
    eve.peer->expect<protocol::Ok>(protocol::Start{});
    const std::string code = eve.peer->error_of(protocol::Ask{0, engine::Rank{5}});
    CHECK((code == "action/asked_self" || code == "action/not_your_turn"));
    CHECK(eve.peer->error_of(protocol::CreateRoom(create_request("Eve", "classic", 2))) == "room/already_in_room");
    CHECK(eve.peer->error_of(protocol::Resume{std::string(32, 'B'), std::nullopt}) == "room/bad_token");
    check_alive(*eve.peer);
  }

  {  // oversized frames, binary frames and floods are closed with a reason
    {
      Peer peer(server.port());
      peer.send_raw(R"({"type":"chat","text":")" + std::string(5000, 'x') + R"("})");
      CHECK_FALSE(peer.await([](const auto&) { return false; }, 3000ms));
      CHECK(peer.socket().ended());
      CHECK(peer.socket().close_code() == 1009);
    }
    {
      Peer peer(server.port());
      peer.socket().send_binary("\x01\x02\x03");
      CHECK_FALSE(peer.await([](const auto&) { return false; }, 3000ms));
      CHECK(peer.socket().ended());
      CHECK(peer.socket().close_code() == 1003);
    }
    {
      Peer peer(server.port());
      const std::string ping = protocol::encode_client_message(protocol::ClientMessage{std::nullopt, protocol::Ping{}});
      for (int i = 0; i < 3000; ++i) peer.send_raw(ping);
      CHECK_FALSE(peer.await([](const auto&) { return false; }, 5000ms));
      CHECK(peer.socket().ended());
      CHECK(peer.socket().close_code() == 1008);
      bool rate_limited = false;
      for (const auto& frame : peer.frames()) {
        if (const auto* error = std::get_if<protocol::Error>(&frame.message)) {
          rate_limited = rate_limited || error->code == protocol::ErrorCode::kRateLimited;
        }
      }
      CHECK(rate_limited);
    }
  }

  // The game went on while the abuse did.
  CHECK(game_frames > frames_before_abuse);
  game_thread.join();
  CHECK(game_done);
  check_no_problems(player->problems);
  // The server still serves newcomers.
  Peer newcomer(server.port());
  check_alive(newcomer);
}

protocol::RoomSnapshot snapshot_of(const std::string& text) {
  return std::get<protocol::RoomSnapshot>(std::get<protocol::ServerMessage>(protocol::parse_server_message(text)));
}

// Resyncs a seat and returns the snapshot's frame text.
std::string snapshot_text(Peer& peer, const std::string& token) {
  peer.clear_unread();
  peer.expect<protocol::Joined>(protocol::Resume{token, std::nullopt});
  const auto message = peer.await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(message);
  for (auto it = peer.frames().rbegin(); it != peer.frames().rend(); ++it) {
    if (std::holds_alternative<protocol::RoomSnapshot>(it->message)) return it->text;
  }
  return {};
}

// The reply to a raw join frame with `name` as written in JSON (escapes and
// all): "joined" or the error code.
std::string join_reply(Peer& peer, const std::string& code, const std::string& name_json, const std::string& as,
                       int id) {
  peer.send_raw(R"({"type":"join","id":)" + std::to_string(id) + R"(,"code":")" + code + R"(","name":")" + name_json +
                R"(","as":")" + as + R"("})");
  auto reply = peer.await([id](const auto& m) { return id_of(m) == protocol::RequestId(std::int64_t{id}); });
  if (!reply) throw std::runtime_error("no reply to a join as " + name_json);
  if (std::holds_alternative<protocol::Joined>(*reply)) return "joined";
  if (const auto* error = std::get_if<protocol::Error>(&*reply)) {
    return std::string(protocol::error_code_name(error->code));
  }
  throw std::runtime_error("unexpected reply " + Peer::describe(*reply));
}

// A join from a fresh connection, which leaves again if it got in, so one
// wrong admission does not change what the next attempt finds.
std::string try_join(std::uint16_t port, const std::string& code, const std::string& name_json, const std::string& as) {
  Peer peer(port);
  const std::string reply = join_reply(peer, code, name_json, as, 1);
  if (reply == "joined") peer.expect<protocol::Ok>(protocol::Leave{});
  return reply;
}

// The name the room shows for `seat`, from the snapshot after a join.
std::string seat_name(Peer& peer, engine::Seat seat) {
  auto message = peer.await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(message);
  return std::get<protocol::RoomSnapshot>(*message).seats.at(static_cast<std::size_t>(seat)).name;
}

TEST_CASE("names that look alike or hide characters cannot share a room") {
  RoomsServer server;
  auto request = create_request("Bob", "classic", 6);
  request.settings.spectators = true;
  Seated host = create_room(server.port(), request);
  const std::string& code = host.code;

  int id = 100;
  // Looks like Bob: Cyrillic o, capitals, an invisible character in or after it.
  CHECK(try_join(server.port(), code, "B\\u043eb", "player") == "room/name_taken");
  CHECK(try_join(server.port(), code, "BOB", "spectator") == "room/name_taken");
  for (const std::string invisible : {"\\u2060", "\\u200c", "\\u200d", "\\u00ad", "\\u180e", "\\udb40\\udc41",
                                      "\\udb40\\udc7f", "\\ufe0f", "\\u034f", "\\u2800"}) {
    CAPTURE(invisible);
    CHECK(try_join(server.port(), code, "Bob" + invisible, "player") == "room/bad_name");
    CHECK(try_join(server.port(), code, "B" + invisible + "ob", "spectator") == "room/bad_name");
  }
  // Names that show nothing at all.
  CHECK(try_join(server.port(), code, "\\u3164", "player") == "room/bad_name");
  CHECK(try_join(server.port(), code, "\\u2800\\u2800", "player") == "room/bad_name");
  CHECK(try_join(server.port(), code, "\\u3164 \\u3164", "spectator") == "room/bad_name");

  // José, precomposed: seated, and then no other spelling of it gets in.
  Peer jose(server.port());
  CHECK(join_reply(jose, code, "Jos\\u00e9", "player", ++id) == "joined");
  CHECK(seat_name(jose, 1) == "Jos\xc3\xa9");
  CHECK(try_join(server.port(), code, "Jose\\u0301", "player") == "room/name_taken");
  CHECK(try_join(server.port(), code, "JOS\\u00c9", "spectator") == "room/name_taken");
  CHECK(try_join(server.port(), code, "JOSE\\u0301", "player") == "room/name_taken");

  // A different name still gets in.
  Peer ann(server.port());
  CHECK(join_reply(ann, code, "Ann", "player", ++id) == "joined");
  Peer anne(server.port());
  CHECK(join_reply(anne, code, "Anne", "spectator", ++id) == "joined");
  CHECK(try_join(server.port(), code, "ANNE", "player") == "room/name_taken");

  // José sent decomposed (e and a combining acute) is stored and shown
  // precomposed, so the precomposed spelling after it clashes too.
  auto other = create_request("Zoe", "classic", 3);
  Seated zoe = create_room(server.port(), other);
  Peer decomposed(server.port());
  CHECK(join_reply(decomposed, zoe.code, "Jose\\u0301", "player", ++id) == "joined");
  CHECK(seat_name(decomposed, 1) == "Jos\xc3\xa9");
  const auto joined = zoe.peer->await_event<protocol::SeatJoined>();
  REQUIRE(joined);
  CHECK(joined->name == "Jos\xc3\xa9");
  CHECK(try_join(server.port(), zoe.code, "Jos\\u00e9", "player") == "room/name_taken");
}

TEST_CASE("illegal decisions are refused with their codes and change nothing") {
  RoomsServer server;
  Seated ann = create_room(server.port(), create_request("Ann", "classic", 2));
  Seated bob = join_room(server.port(), ann.code, "Bob");
  auto spectator = watch_room(server.port(), ann.code, "Cy");
  ann.peer->expect<protocol::Ok>(protocol::Start{});

  const std::string ann_before = snapshot_text(*ann.peer, ann.token);
  const std::string bob_before = snapshot_text(*bob.peer, bob.token);
  const auto view = snapshot_of(ann_before).game;
  REQUIRE(view);
  Seated& mover = view->to_act == 0 ? ann : bob;
  Seated& waiter = view->to_act == 0 ? bob : ann;
  const std::string mover_before = view->to_act == 0 ? ann_before : bob_before;
  const auto mover_view = snapshot_of(mover_before).game;
  const engine::Seat other = waiter.seat;
  engine::Rank held = mover_view->hand.lowest().rank();
  std::optional<engine::Rank> not_held;
  for (engine::Rank r = 0; r < engine::kRanks && !not_held; ++r) {
    if (!mover_view->hand.has_rank(r)) not_held = r;
  }
  REQUIRE(not_held);

  CHECK(waiter.peer->error_of(protocol::Ask{mover.seat, held}) == "action/not_your_turn");
  CHECK(mover.peer->error_of(protocol::Ask{mover.seat, held}) == "action/asked_self");
  CHECK(mover.peer->error_of(protocol::Ask{other, *not_held}) == "action/rank_not_held");
  CHECK(mover.peer->error_of(protocol::Ask{5, held}) == "action/unknown_seat");
  CHECK(mover.peer->error_of(protocol::Ask{other, mover_view->hand.lowest()}) == "action/card_ask_in_rank_game");
  CHECK(mover.peer->error_of(protocol::Answer{true}) == "action/table_rules_only");
  CHECK(mover.peer->error_of(protocol::Declare{held}) == "action/table_rules_only");
  CHECK(spectator->error_of(protocol::Ask{other, held}) == "room/spectator");
  CHECK(mover.peer->error_of(protocol::Rematch{}) == "room/not_over");
  CHECK(mover.peer->error_of(protocol::AddBot{std::nullopt, protocol::BotLevel::kEasy}) ==
        (mover.seat == 0 ? "room/already_started" : "room/not_host"));

  // Nothing changed: the same snapshots, byte for byte, at the same version.
  CHECK(snapshot_text(*ann.peer, ann.token) == ann_before);
  CHECK(snapshot_text(*bob.peer, bob.token) == bob_before);

  const std::string metrics = server.metrics().serialize();
  for (const char* code : {"action/not_your_turn", "action/asked_self", "action/rank_not_held", "action/unknown_seat",
                           "action/card_ask_in_rank_game", "action/table_rules_only"}) {
    INFO(code);
    CHECK(metric_value(metrics, "gofish_actions_refused_total{reason=\"" + std::string(code) + "\"}") >= 1);
  }
  CHECK(metric_value(metrics, "gofish_actions_total") == 0);

  // And a legal one goes through.
  mover.peer->expect<protocol::Ok>(protocol::Ask{other, held});
}

}  // namespace
}  // namespace gofish::server::testing
