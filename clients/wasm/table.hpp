// One game played through the WebAssembly API (engine_api.hpp): the engine's
// Game, the random source its deal came from (the bots keep drawing from it,
// as engine::play_match's do), every event since the deal, and the bots
// asked to play its seats.
//
// A bot is made the first time a seat is asked to play at a level, and is
// told every event its seat saw until then, so a bot made late knows what one
// made at the deal would know. With a bot at every seat and the same seed, a
// game played here is the game gofish-sim plays (the parity test checks it).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/bot.hpp"
#include "engine/bot_level.hpp"
#include "engine/event.hpp"
#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/transcript.hpp"

namespace gofish::wasm {

class Table {
 public:
  // Draws the deal (dealer, shuffle, cut, first player) from `seed` as
  // gofish-sim does for a game's seed, and deals.
  static std::variant<Table, engine::ConfigError> deal(const engine::Rules& rules, int players, std::uint64_t seed);
  // Deals the transcript's deck and plays its decisions; fails, saying which
  // decision was refused, when they cannot be played.
  static std::variant<Table, std::string> replay(const engine::Transcript& transcript);

  const engine::Game& game() const { return game_; }
  // Every event since the deal, as it happened (private cards included).
  const std::vector<engine::Event>& events() const { return events_; }

  // Plays the decision; a refused one changes nothing and says why.
  std::optional<engine::Refusal> apply(engine::Decision decision);
  // What a bot of `level` at `seat` would decide now. The seat must have a
  // legal decision (Game::legal non-empty).
  engine::Decision bot_decision(engine::Seat seat, engine::BotLevel level);

 private:
  Table(engine::Game game, std::uint64_t seed);
  // Appends the game's last events to events_ and tells the bots.
  void record();

  struct SeatBot {
    engine::BotLevel level;
    std::unique_ptr<engine::Bot> bot;
  };

  engine::Game game_;
  engine::Rng rng_;
  std::vector<engine::Event> events_;
  std::array<std::vector<SeatBot>, engine::kMaxSeats> bots_;
};

}  // namespace gofish::wasm
