// One of the engine's bots playing a seat over the network.
//
// It sees only what its seat sees: it observes each game event the server
// sent this seat, and decides from the view the client's Table rebuilt from
// those messages (table.hpp). It is never given a game, so, as with the
// server's own bots, it cannot cheat by construction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "clients/cli/table.hpp"
#include "engine/bot.hpp"
#include "engine/random.hpp"

namespace gofish::cli {

class RemoteBot {
 public:
  RemoteBot(engine::BotLevel level, std::uint64_t seed);

  engine::BotLevel level() const { return level_; }
  // Every game event of this seat's stream, after the table applied it. A
  // new game (GameStarted) gets a new engine bot.
  void observe(const engine::Event& event, const Table& table);
  // After a snapshot in the middle of a game (a resume the server answered
  // with a snapshot): the bot starts again from the view, without memory.
  void restart(const Table& table);
  // A decision when the table waits for this seat; nullopt otherwise.
  std::optional<engine::Decision> decide(const Table& table);

 private:
  void make_for(const Table& table);

  engine::BotLevel level_;
  engine::Rng rng_;
  std::unique_ptr<engine::Bot> bot_;
};

}  // namespace gofish::cli
