// Durable rooms through a restart of the real gofish-server binary.
//
// A server holds rooms of every preset in the middle of their games (two
// humans, two bots and a spectator each), a room whose game is over and a
// room still waiting for players. It is killed (SIGKILL while the humans are
// still sending decisions, or SIGTERM) and started again on the same data
// directory. Every human reconnects with their token and the last version
// they saw; a new spectator joins each room. Then every game is played to
// its end, and:
// - the events each human and spectator saw before the stop are the first
//   events of the finished game's replay, as that viewer sees them, and the
//   events seen after the restart are its last ones: nothing seen was lost,
//   changed or doubled, and every decision behind them is in the game;
// - versions carry on where they stopped, without a gap or a repeat;
// - each transcript passes the engine's replay check;
// - the finished game is still there (transcript by message and over HTTP)
//   and its room plays a rematch; the waiting room fills and plays.
// A torn decision tail is cut back on start and the room resumes at the
// last whole decision.
#include <doctest/doctest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/game.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"
#include "postgres_cluster.hpp"
#include "protocol/rules_json.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "test_client.hpp"
#include "temp_dir.hpp"

namespace gofish::server::testing {
namespace {

namespace fs = std::filesystem;

// The engine events of a frame stream, spelled as JSON without their
// versions, so two streams compare event by event.
std::vector<std::string> engine_events(const std::vector<std::string>& frames) {
  std::vector<std::string> out;
  for (const auto& frame : frames) {
    auto parsed = protocol::parse_server_message(frame);
    REQUIRE(std::holds_alternative<protocol::ServerMessage>(parsed));
    const auto& message = std::get<protocol::ServerMessage>(parsed);
    if (const auto* event = std::get_if<protocol::EventMessage>(&message)) {
      if (const auto* game = std::get_if<engine::Event>(&event->event)) {
        out.push_back(protocol::encode(protocol::EventMessage{0, *game}));
      }
    }
  }
  return out;
}

// Every engine event of a finished game, as `viewer` sees it, from its
// transcript alone.
std::vector<std::string> replayed_events(const engine::Transcript& transcript, engine::Viewer viewer) {
  auto started = engine::Game::start(transcript.rules, transcript.players, transcript.deck, transcript.dealer,
                                     transcript.first);
  REQUIRE(std::holds_alternative<engine::Game>(started));
  auto& game = std::get<engine::Game>(started);
  std::vector<std::string> out;
  const auto take = [&] {
    for (const auto& event : game.last_events()) {
      out.push_back(protocol::encode(protocol::EventMessage{0, engine::event_for(event, viewer)}));
    }
  };
  take();
  for (const auto& decision : transcript.actions) {
    REQUIRE_FALSE(game.apply(decision).has_value());
    take();
  }
  return out;
}

// The events of the game that was in play across the restart, as one viewer
// saw them before and after it, against the replay of the finished game.
void check_seen(const std::string& who, const std::vector<std::string>& before, const std::vector<std::string>& after,
                const std::vector<std::string>& replay, bool expect_whole) {
  INFO(who << ": " << before.size() << " events before the stop, " << after.size() << " after, " << replay.size()
           << " in the game");
  REQUIRE(before.size() + after.size() <= replay.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    INFO("event " << i << " seen before the stop");
    REQUIRE(before[i] == replay[i]);
  }
  const std::size_t offset = replay.size() - after.size();
  for (std::size_t i = 0; i < after.size(); ++i) {
    INFO("event " << i << " seen after the restart");
    REQUIRE(after[i] == replay[offset + i]);
  }
  if (expect_whole) CHECK(before.size() + after.size() == replay.size());
}

// The versions of the events in `frames` climb by one, starting after `from`
// (a snapshot may move them on). Returns whether the first event came right
// after `from`: the client missed nothing.
bool check_versions(const std::string& who, const std::vector<std::string>& frames, std::int64_t from) {
  std::int64_t expected = from;
  std::optional<bool> gapless;
  for (const auto& frame : frames) {
    auto parsed = protocol::parse_server_message(frame);
    const auto& message = std::get<protocol::ServerMessage>(parsed);
    if (const auto* room = std::get_if<protocol::RoomSnapshot>(&message)) {
      CHECK_MESSAGE(room->v >= expected, who << ": a snapshot older than an event already seen");
      if (!gapless && room->v > expected) gapless = false;
      expected = room->v;
    } else if (const auto* event = std::get_if<protocol::EventMessage>(&message)) {
      CHECK_MESSAGE(event->v == expected + 1, who << ": version " << event->v << " after " << expected);
      if (!gapless) gapless = true;
      expected = event->v;
    }
  }
  return gapless.value_or(true);
}

engine::Transcript transcript_of(Peer& peer, int game) {
  const auto message = peer.expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
  REQUIRE(message.game == game);
  CHECK(engine::replay_check(message.transcript) == std::nullopt);
  return message.transcript;
}

struct MidGame {
  std::string preset;
  std::string code;
  std::vector<std::unique_ptr<AutoPlayer>> humans;
  std::vector<std::vector<std::string>> humans_before;  // frames before the stop
  std::vector<std::int64_t> last_v;
  std::unique_ptr<Peer> spectator;
  std::vector<std::string> spectator_before;
  std::unique_ptr<Peer> spectator_after;
};

std::vector<std::string> frame_texts(const Peer& peer) {
  std::vector<std::string> out;
  for (const auto& frame : peer.frames()) out.push_back(frame.text);
  return out;
}

// A new connection that resumes `token` after `last_v`; the reply must say
// the seat is back.
std::unique_ptr<Peer> resume(std::uint16_t port, const std::string& token, std::int64_t last_v) {
  auto peer = std::make_unique<Peer>(port);
  const auto joined = peer->expect<protocol::Joined>(protocol::Resume{token, last_v});
  CHECK(joined.resumed);
  return peer;
}

// `flags` choose the store (SQLite in the data dir when empty).
void restart_with(int signal, const std::vector<std::string>& flags = {}) {
  const bool crash = signal == SIGKILL;
  TempDir dir("gofish-restart");
  const std::vector<std::string> presets = {"classic", "specific-card", "keep-playing", "bicycle", "authors", "pairs"};
  std::vector<MidGame> games;
  std::vector<AutoPlayer*> everyone;

  std::unique_ptr<AutoPlayer> finished_player;  // the room whose game is over
  std::string finished_code;
  engine::Transcript finished_transcript;
  std::string finished_id;

  Seated waiting_host, waiting_guest;  // the room still waiting

  {
    ServerProcess server(dir.path / "data", dir.path / "first.log", flags);
    const auto port = server.port();

    // A game played to its end before the stop.
    {
      Seated host = create_room(port, create_request("Fay", "classic", 3,
                                                     {{1, protocol::BotLevel::kEasy}, {2, protocol::BotLevel::kHard}}));
      finished_code = host.code;
      host.peer->expect<protocol::Ok>(protocol::Start{});
      finished_player = autoplay(std::move(host), 7);
      REQUIRE(drive({finished_player.get()}, [&] { return finished_player->games_over() >= 1; }, 30'000ms));
      const auto message = finished_player->peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
      REQUIRE(message.game_id);
      finished_transcript = message.transcript;
      finished_id = *message.game_id;
    }

    // A room still waiting: the host, a guest and an empty seat.
    waiting_host = create_room(port, create_request("Wes", "pairs", 3));
    waiting_guest = join_room(port, waiting_host.code, "Val");

    // A game of every preset in play: two humans, two bots, a spectator.
    std::uint64_t seed = 100;
    const auto open_game = [&](const std::string& preset) {
      MidGame game;
      game.preset = preset;
      Seated host = create_room(
          port, create_request("Ann", preset, 4, {{2, protocol::BotLevel::kEasy}, {3, protocol::BotLevel::kHard}}));
      game.code = host.code;
      Seated guest = join_room(port, host.code, "Bob");
      game.spectator = watch_room(port, host.code, "Cy");
      host.peer->expect<protocol::Ok>(protocol::Start{});
      game.humans.push_back(autoplay(std::move(host), seed++));
      game.humans.push_back(autoplay(std::move(guest), seed++));
      return game;
    };
    for (const auto& preset : presets) games.push_back(open_game(preset));
    const auto list_everyone = [&] {
      everyone.clear();
      for (auto& game : games) {
        for (auto& human : game.humans) everyone.push_back(human.get());
      }
    };
    list_everyone();
    // Play until every game is under way: each pauses its humans once they
    // have made a decision (the bots then play on to a human's turn). A
    // game can end before its humans ask at all (the bots empty a human's
    // hand): its players leave, which closes the room, and a new room of
    // that preset takes its place.
    int replaced = 0;
    const auto under_way = [&] {
      bool all = true;
      for (auto& game : games) {
        if (game.humans[0]->games_over() + game.humans[1]->games_over() > 0 && replaced < 20) {
          for (auto& human : game.humans) human->peer().expect<protocol::Ok>(protocol::Leave{});
          game = open_game(game.preset);
          ++replaced;
          list_everyone();
          return false;
        }
        if (game.humans[0]->decisions() + game.humans[1]->decisions() >= 1) {
          for (auto& human : game.humans) human->active = false;
        } else {
          all = false;
        }
      }
      return all;
    };
    // The bots play on to a human's turn; a game they end meanwhile is
    // replaced as above.
    const auto settled = [&] {
      for (auto& game : games) {
        if (game.humans[0]->games_over() + game.humans[1]->games_over() > 0) return false;
      }
      return true;
    };
    bool started = false;
    for (int attempt = 0; attempt < 5 && !(started && settled()); ++attempt) {
      started = drive(everyone, under_way, 30'000ms);
      drive(everyone, [] { return false; }, 200ms);
    }
    for (auto& game : games) {
      for (auto& human : game.humans) {
        INFO(game.preset << " seat " << human->seat() << ": " << human->decisions() << " decisions, "
                         << human->games_over() << " games over, problems: "
                         << (human->problems.empty() ? "none" : human->problems.front()));
        CHECK(started);
        CHECK(human->games_over() == 0);
        CHECK(human->problems.empty());
      }
    }
    REQUIRE(started);
    // Then the humans play again for a moment, and the server is stopped
    // with their decisions in flight.
    for (auto* human : everyone) human->active = true;
    drive(everyone, [] { return false; }, 15ms);
    if (!crash) {
      // SIGTERM: the server says it is closing and commits before it exits.
      const int status = server.stop(SIGTERM);
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
      CHECK(server.log_text().find("every write committed") != std::string::npos);
    } else {
      const int status = server.stop(SIGKILL);
      REQUIRE(WIFSIGNALED(status));
    }
    // What each client had received when the server went away.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (auto& game : games) {
      for (auto& human : game.humans) {
        human->peer().pump();
        game.humans_before.push_back(human->all_frames());
        game.last_v.push_back(human->peer().last_v());
      }
      game.spectator->pump();
      game.spectator_before = frame_texts(*game.spectator);
    }
  }

  ServerProcess server(dir.path / "data", dir.path / "second.log", flags);
  const auto port = server.port();
  const std::string log = server.log_text();
  CHECK(log.find(flags.empty() ? "storage: sqlite at " : "storage: postgres, database ") != std::string::npos);
  CHECK(log.find("8 rooms restored") != std::string::npos);

  // The finished game: still served, and its room plays a rematch.
  {
    auto peer = resume(port, finished_player->token(), finished_player->peer().last_v());
    finished_player->replace_peer(std::move(peer));
    CHECK(transcript_of(finished_player->peer(), 1) == finished_transcript);
    const auto reply = http_request(port, "/api/games/" + finished_id + "/transcript");
    CHECK(reply.status == 200);
    auto served = protocol::transcript_from_json(nlohmann::json::parse(reply.body));
    REQUIRE(std::holds_alternative<engine::Transcript>(served));
    CHECK(std::get<engine::Transcript>(served) == finished_transcript);
    finished_player->peer().expect<protocol::Ok>(protocol::Rematch{});
  }

  // The waiting room: both players are back in their seats; the host fills
  // the last one with a bot and starts.
  std::vector<std::unique_ptr<AutoPlayer>> waiting_players;
  {
    auto host = std::make_unique<Peer>(port);
    CHECK(host->expect<protocol::Joined>(protocol::Resume{waiting_host.token, std::nullopt}).seat == 0);
    const auto snapshot = host->await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
    REQUIRE(snapshot);
    const auto& room = std::get<protocol::RoomSnapshot>(*snapshot);
    CHECK(room.state == protocol::RoomState::kWaiting);
    CHECK(room.code == waiting_host.code);
    CHECK(room.seats[0].name == "Wes");
    CHECK(room.seats[1].name == "Val");
    CHECK(room.seats[2].occupant == protocol::Occupant::kEmpty);
    auto guest = resume(port, waiting_guest.token, waiting_guest.peer->last_v());
    host->expect<protocol::Ok>(protocol::AddBot{std::nullopt, protocol::BotLevel::kMedium});
    host->expect<protocol::Ok>(protocol::Start{});
    waiting_players.push_back(std::make_unique<AutoPlayer>(std::move(host), 0, waiting_host.token, 900));
    waiting_players.push_back(std::make_unique<AutoPlayer>(std::move(guest), 1, waiting_guest.token, 901));
  }

  // Every game in play: the humans come back with their last version, a new
  // spectator joins, and the game goes on to its end.
  for (auto& game : games) {
    for (std::size_t i = 0; i < game.humans.size(); ++i) {
      auto& human = game.humans[i];
      human->replace_peer(resume(port, human->token(), game.last_v[i]));
    }
    game.spectator_after = watch_room(port, game.code, "Cy");
  }

  std::vector<AutoPlayer*> all = everyone;
  all.push_back(finished_player.get());
  for (auto& player : waiting_players) all.push_back(player.get());
  // A game may have ended just before the stop without its players getting
  // the game_over event: their resume then brings a snapshot of the end.
  const auto saw_end = [](AutoPlayer& player) {
    if (player.games_over() >= 1) return true;
    for (const auto& frame : player.peer().frames()) {
      const auto* room = std::get_if<protocol::RoomSnapshot>(&frame.message);
      if (room && room->state == protocol::RoomState::kOver) return true;
    }
    return false;
  };
  const auto all_over = [&] {
    for (auto& game : games) {
      game.spectator_after->pump();
      for (auto& human : game.humans) {
        if (!saw_end(*human)) return false;
      }
    }
    for (auto& player : waiting_players) {
      if (player->games_over() < 1) return false;
    }
    return finished_player->games_over() >= 2;
  };
  const bool finished = drive(all, all_over, 90'000ms);
  for (auto* player : all) {
    std::string last;
    const auto frames = player->all_frames();
    for (std::size_t i = frames.size() > 3 ? frames.size() - 3 : 0; i < frames.size(); ++i) last += frames[i] + "\n";
    INFO("seat " << player->seat() << ": " << player->decisions() << " decisions, " << player->games_over()
                 << " games over, problems: " << (player->problems.empty() ? "none" : player->problems.front())
                 << "; last frames:\n"
                 << last);
    CHECK(finished);
  }
  if (!finished) {
    const std::string text = server.log_text();
    MESSAGE("server log: " << text.substr(text.size() > 4000 ? text.size() - 4000 : 0));
  }
  REQUIRE(finished);

  for (auto& game : games) {
    INFO("preset " << game.preset << ", room " << game.code);
    const engine::Transcript transcript = transcript_of(game.humans[0]->peer(), 1);
    for (std::size_t i = 0; i < game.humans.size(); ++i) {
      auto& human = game.humans[i];
      CHECK(human->problems.empty());
      const auto seat = static_cast<engine::Seat>(i);
      const auto after = frame_texts(human->peer());
      // Versions go on from the last one this client saw. Events committed
      // but not yet received when the server went away are not replayed (a
      // restored room keeps no event history): the resume then sends a
      // fresh snapshot, and only then may the client's stream have a gap.
      const bool gapless = check_versions("seat " + std::to_string(i), after, game.last_v[i]);
      check_seen("seat " + std::to_string(i), engine_events(game.humans_before[i]), engine_events(after),
                 replayed_events(transcript, engine::Viewer::of(seat)), gapless);
    }
    game.spectator_after->pump();
    check_seen("spectator", engine_events(game.spectator_before), engine_events(frame_texts(*game.spectator_after)),
               replayed_events(transcript, engine::Viewer::spectator()), false);
  }
  for (auto& player : waiting_players) CHECK(player->problems.empty());
  transcript_of(waiting_players[0]->peer(), 1);
  CHECK(finished_player->problems.empty());
  transcript_of(finished_player->peer(), 2);
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("restart: SIGKILL mid-game loses nothing, and every preset resumes and finishes") { restart_with(SIGKILL); }

TEST_CASE("restart: SIGTERM mid-game loses nothing, and every preset resumes and finishes") { restart_with(SIGTERM); }

// The same on PostgreSQL: each commit is a transaction on the database
// server, which a SIGKILL of gofish-server cannot undo.
TEST_CASE("restart with PostgreSQL: SIGKILL mid-game loses nothing, and every preset resumes and finishes") {
  PostgresDatabase db;
  // Loaded at start, as on SQLite: the restarted server is the same node, so
  // it takes its own leases back at once.
  restart_with(SIGKILL, {"--storage=postgres", "--postgres-url=" + db.url(), "--load-rooms=at-start", "--node-id=restart-node"});
}

// The last decision of a game, torn (cut short as a crash mid-write could
// leave a file copied by hand or a damaged disk), is cut back on start with
// a warning, and the room resumes at the decision before it.
TEST_CASE("restart: a torn last decision is cut back and the game resumes before it") {
  TempDir dir("gofish-restart");
  std::string token, code;
  std::int64_t decisions_before = 0;
  {
    ServerProcess server(dir.path / "data", dir.path / "first.log");
    Seated host = create_room(server.port(), create_request("Ann", "classic", 2, {{1, protocol::BotLevel::kEasy}}));
    code = host.code;
    token = host.token;
    host.peer->expect<protocol::Ok>(protocol::Start{});
    auto ann = autoplay(std::move(host), 5);
    REQUIRE(drive({ann.get()}, [&] { return ann->decisions() >= 3; }, 30'000ms));
    ann->active = false;
    drive({ann.get()}, [] { return false; }, 300ms);  // let the bot finish its turn
    CHECK(ann->games_over() == 0);
    REQUIRE(server.stop(SIGTERM) == 0);
  }
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "data" / "gofish.sqlite").c_str(), &db) == SQLITE_OK);
    const auto count = [&] {
      std::int64_t n = 0;
      sqlite3_stmt* stmt = nullptr;
      sqlite3_prepare_v2(db, "SELECT count(*) FROM decisions", -1, &stmt, nullptr);
      if (sqlite3_step(stmt) == SQLITE_ROW) n = sqlite3_column_int64(stmt, 0);
      sqlite3_finalize(stmt);
      return n;
    };
    decisions_before = count();
    REQUIRE(decisions_before >= 3);
    REQUIRE(sqlite3_exec(db, "UPDATE decisions SET decision = substr(decision, 1, 7) WHERE seq = (SELECT max(seq) FROM decisions)",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  ServerProcess server(dir.path / "data", dir.path / "second.log");
  const std::string log = server.log_text();
  CHECK(log.find("torn") != std::string::npos);
  CHECK(log.find("1 rooms restored") != std::string::npos);
  auto peer = std::make_unique<Peer>(server.port());
  peer->expect<protocol::Joined>(protocol::Resume{token, std::nullopt});
  const auto snapshot = peer->await([](const auto& m) { return std::holds_alternative<protocol::RoomSnapshot>(m); });
  REQUIRE(snapshot);
  const auto& room = std::get<protocol::RoomSnapshot>(*snapshot);
  CHECK(room.code == code);
  CHECK(room.state == protocol::RoomState::kPlaying);
  // The game plays on from the last whole decision to its end.
  auto ann = std::make_unique<AutoPlayer>(std::move(peer), 0, token, 6);
  REQUIRE(drive({ann.get()}, [&] { return ann->games_over() >= 1; }, 30'000ms));
  const engine::Transcript transcript = transcript_of(ann->peer(), 1);
  CHECK(ann->problems.empty());
  CHECK(transcript.actions.size() >= static_cast<std::size_t>(decisions_before - 1));
}

// The writer's group commit waits up to --store-commit-delay-us for other
// rooms' records, but not once the I/O threads have run dry (Server::on_idle):
// with one client nothing else is coming, so each create is answered without
// waiting out the delay. Ten in a row take less than ten delays, which
// waiting each one out could not.
TEST_CASE("commit: a server with nothing else to do does not wait out the group-commit delay") {
  TempDir dir("gofish-commit");
  ServerProcess server(dir.path / "data", dir.path / "server.log", {"--store-commit-delay-us=100000"});
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    const Seated host = create_room(server.port(), create_request("Ann", "classic", 2));
    CHECK_FALSE(host.code.empty());
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1000));
}

}  // namespace
}  // namespace gofish::server::testing
