// Computer players at three levels.
//
// A bot sees exactly what its seat sees: the seat's View (view_of with
// Viewer::of(seat)) and the seat's event stream (every event passed through
// event_for for that seat). It is never given a Game, so it cannot cheat by
// construction; the match runner (match.hpp) and the server feed it.
//
// Every level declares complete sets first under table rules and answers asks
// honestly (the legal answer is the honest one). Beyond that:
// - easy: a uniformly random legal ask.
// - medium: remembers public facts (who asked for what, who received what,
//   who said "Go fish" for what, which sets are down) and asks a player known
//   to hold a rank it holds; otherwise its largest rank from someone not known
//   to lack it.
// - hard: keeps, for every card, a probability for each place it may be (each
//   hand and the stock). Certain facts (cards seen moving, "Go fish", asks,
//   sets, hand sizes) are exact, and elimination locates a card when only one
//   place is left for it; a hidden draw moves 1/stock of each card's stock
//   share to the drawer, and the table is fitted to the hand sizes. It asks
//   where a catch is likeliest, prefers catches that finish sets, weighs
//   ending the game when it leads or trails, and pays a cost for showing the
//   table a rank it holds several of (whoever holds the rest would ask for
//   them), so it prefers ranks the table already knows it holds.
// docs/BOTS.md describes the levels and the measured win rates.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "engine/bot_level.hpp"
#include "engine/decision.hpp"
#include "engine/event.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/view.hpp"

namespace gofish::engine {

class Bot {
 public:
  virtual ~Bot() = default;
  // Every event as this seat sees it, in order, from the start of the game.
  virtual void observe(const Event& event) = 0;
  // Called only when view.legal is non-empty; returns a member of view.legal.
  virtual Decision decide(const View& view, Rng& rng) = 0;
};

// A bot for `seat` at a table of `players` under `rules`. A bot plays one game.
std::unique_ptr<Bot> make_bot(BotLevel level, const Rules& rules, int players, Seat seat);

}  // namespace gofish::engine
