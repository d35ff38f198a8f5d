// The replayable record of one game (docs/TRANSCRIPT.md): rules, seat
// count, deck order after shuffle and cut, dealer, first player, every
// decision, and the result. It reveals every hand, so it is meant for finished
// games; the JSON spelling lives in protocol/, since the engine has no JSON.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/card.hpp"
#include "engine/decision.hpp"
#include "engine/game.hpp"
#include "engine/rules.hpp"

namespace gofish::engine {

struct Transcript {
  Rules rules;
  int players = 0;
  Deck deck{};
  Seat dealer = 0;
  Seat first = 0;
  std::vector<Decision> actions;
  std::vector<std::vector<Rank>> books;  // per seat: the ranks of the sets that scored, in order laid
  std::vector<Seat> winners;
  friend bool operator==(const Transcript&, const Transcript&) = default;
};

Transcript make_transcript(const Game& game);

// Plays the transcript's decisions from its deck. Fails, saying why, when the
// set-up is refused or a decision is refused.
std::variant<Game, std::string> replay(const Transcript& transcript);

// nullopt when the replay reaches the recorded result; otherwise a sentence
// naming the first difference.
std::optional<std::string> replay_check(const Transcript& transcript);

}  // namespace gofish::engine
