// Plays one game to the end with one bot per seat: the loop shared by the
// simulator, the tests and the benchmarks.
//
// Each bot is fed its own event stream (every event of the start and of each
// decision, passed through event_for for its seat) and asked to decide from
// its own view when its seat is to act. A decision the game refuses is a bug
// in a bot, not a move: the runner throws std::logic_error naming the seat,
// the decision and the reason, and the caller stops.
#pragma once

#include <cstdint>
#include <span>

#include "engine/bot.hpp"
#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"

namespace gofish::engine {

struct MatchOptions {
  // Build every seat's view after every decision, as a server does to send
  // them, even though bots only need the acting seat's view.
  bool build_all_views = false;
  // A game longer than this is a bot or engine bug (a loop), not a game.
  int max_decisions = 100'000;
};

// `bots` holds one bot per seat (bots[seat]), each new for this game. Throws
// std::invalid_argument when the rules, seat count or set-up cannot start a
// game, and std::logic_error when a bot's decision is refused or the game
// does not end.
Game play_match(const Rules& rules, int players, const DealSetup& setup, std::span<Bot* const> bots, Rng& rng,
                const MatchOptions& options = {});

}  // namespace gofish::engine
