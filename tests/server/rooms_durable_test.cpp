// Rooms writing through a real store: a whole game of every preset, then the
// store holds the room, its seats, the game's set-up, every decision the
// players and bots made, and a transcript equal to the one the players got.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/transcript.hpp"
#include "protocol/rules_json.hpp"
#include "rooms_support.hpp"
#include "server/rooms/room_restore.hpp"
#include "server/rooms/transcript_api.hpp"
#include "server/store/sqlite_store.hpp"
#include "server/store/store.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

namespace fs = std::filesystem;

engine::Transcript parse_transcript(const std::string& text) {
  auto parsed = protocol::transcript_from_json(nlohmann::json::parse(text));
  REQUIRE(std::holds_alternative<engine::Transcript>(parsed));
  return std::get<engine::Transcript>(std::move(parsed));
}

void play_and_check_store(const std::string& preset, std::uint64_t seed) {
  INFO("preset " << preset);
  TempDir dir("gofish-durable");
  SqliteStore store(dir.path / "gofish.sqlite", SyncMode::kNormal);
  engine::Transcript seen;
  std::string code;
  {
    StoreWriter writer(store);
    {
      RoomsServer server(rooms_config(), &writer);
      add_transcript_api(server.server().api(), store);
      auto request = create_request("Ann", preset, 4, {{2, protocol::BotLevel::kEasy}, {3, protocol::BotLevel::kHard}});
      Seated host = create_room(server.port(), request);
      code = host.code;
      Seated guest = join_room(server.port(), host.code, "Bob");
      host.peer->expect<protocol::Ok>(protocol::Start{});
      auto ann = autoplay(std::move(host), seed);
      auto bob = autoplay(std::move(guest), seed + 1);
      const std::vector<AutoPlayer*> players = {ann.get(), bob.get()};
      REQUIRE(drive(players, [&] { return ann->games_over() >= 1 && bob->games_over() >= 1; }, 30'000ms));
      const auto message = ann->peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
      seen = message.transcript;
      // The game's id comes with the transcript; over HTTP it serves the
      // same transcript.
      REQUIRE(message.game_id);
      const auto reply = http_request(server.port(), "/api/games/" + *message.game_id + "/transcript");
      CHECK(reply.status == 200);
      CHECK(parse_transcript(reply.body) == message.transcript);
      CHECK(http_request(server.port(), "/api/games/" + *message.game_id + "x/transcript").status == 404);
      // Found by the sanitizer run: a commit's callback outlived the
      // server's io_context and released a room there. As in main: the I/O
      // threads end, then the writer commits the rest, then the server goes.
      server.stop();
      writer.stop();
    }
    CHECK(writer.batches() >= 1);
  }
  const auto rooms = store.load_open_rooms();
  REQUIRE(rooms.size() == 1);
  const StoredRoom& room = rooms[0];
  CHECK(room.room == code);
  CHECK(room.seats.size() == 4);
  CHECK(room.seats[0].token_hash.size() == 16);
  CHECK(room.seats[1].token_hash.size() == 16);
  CHECK(room.seats[2].token_hash.empty());
  REQUIRE(room.game);
  const engine::Transcript setup = parse_transcript(room.game->setup);
  CHECK(setup.deck == seen.deck);
  CHECK(setup.dealer == seen.dealer);
  CHECK(setup.first == seen.first);
  CHECK(setup.actions.empty());
  REQUIRE(room.game->decisions.size() == seen.actions.size());
  for (std::size_t i = 0; i < seen.actions.size(); ++i) {
    auto decision = protocol::decision_from_json(nlohmann::json::parse(room.game->decisions[i]));
    REQUIRE(std::holds_alternative<engine::Decision>(decision));
    CHECK(std::get<engine::Decision>(decision) == seen.actions[i]);
  }
  // The store keeps no transcript: the set-up and decisions are all of it.
  CHECK(room.game->finished);
  CHECK_FALSE(room.game->transcript);
  const auto finished = store.finished_game(room.game->game_id);
  REQUIRE(finished);
  const engine::Transcript kept = parse_transcript(finished_transcript(*finished));
  CHECK(kept == seen);
  CHECK(engine::replay_check(kept) == std::nullopt);
}

TEST_CASE("durable rooms: every preset's game is in the store, decision by decision") {
  const std::vector<std::string> presets = {"classic", "specific-card", "keep-playing", "bicycle", "authors", "pairs"};
  std::uint64_t seed = 101;
  for (const auto& preset : presets) play_and_check_store(preset, seed += 2);
}

}  // namespace
}  // namespace gofish::server::testing
