// Shared by the engine's test suites: invariant checks over a whole game, the
// public facts of a game and of an event (defined here from RULES.md, apart
// from the hiding code in engine/view.cpp), and a seeded random policy.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/card.hpp"
#include "engine/event.hpp"
#include "engine/game.hpp"
#include "engine/legality.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"

namespace gofish::engine::test {

// Follows a game's events to know which cards lie in laid sets, then checks
// the whole game against its rules and its own record: every card in exactly
// one place, a valid seat to act, legal decisions empty exactly when the game
// is over, a consistent end.
class Ledger {
 public:
  void observe(const std::vector<Event>& events);
  // nullopt when every invariant holds, otherwise the first one broken.
  std::optional<std::string> check(const Game& game) const;

 private:
  CardSet laid_;
  int laid_sets_ = 0;
  std::array<int, kMaxSeats> laid_by_seat_{};
  std::string error_;  // a fault seen in the events themselves
};

// The winners by RULES.md's table, computed here from the public sets and the
// revealed hands: most scoring sets; with the fewest-cards tie-break the tied
// seats with the fewest cards in hand; otherwise every tied seat shares.
std::uint8_t expected_winners(const Game& game);

// What everyone at the table knows of an event (RULES.md: a catch, a lucky
// draw, a laid set and the hands at game over are shown; a dealt hand and a
// drawn card are seen only by their owner, the others see a count / a draw).
// Written independently of event_for so that the hiding property does not
// grade the hiding code with itself.
std::string public_fact(const Event& event);
// What everyone knows of the game's state: hand sizes, statuses, sets and
// scores, penalties, the stock size, whose turn, phase, pending ask, the end.
std::string public_state(const Game& game);

// A uniformly random legal decision for the seat to act.
Decision random_legal(const Game& game, Rng& rng);

// A game started from a shuffled deck with a set-up drawn by prepare_deal.
Game start_random(const Rules& rules, int players, Rng& rng);

// Rules by preset name, with table rules switched on or off.
Rules rules_for(std::string_view preset_name, bool table_rules = false);

// Legality facts made up at random for `rules`: 2 to 6 players, any seats in
// play (the one to act among them), any phase the rules have; an answer
// phase gets a pending ask of the seat to act to another seat in play.
LegalityFacts random_facts(const Rules& rules, Rng& rng);

}  // namespace gofish::engine::test
