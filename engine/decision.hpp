// What players decide, and the typed reasons a decision is refused.
//
// A seat asks for a rank (rank presets) or a named card (card presets). Under
// table rules the asked seat also answers ("give" or "Go fish") and a seat
// declares its sets itself. Nothing else is a decision: handing over, fishing,
// drawing on an empty hand, laying down sets in strict mode and passing the
// turn all follow from the rules, so a game is a function of its deck and
// these decisions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/card.hpp"

namespace gofish::engine {

struct AskRank {
  Seat target = 0;
  Rank rank = 0;
  friend bool operator==(const AskRank&, const AskRank&) = default;
};
struct AskCard {
  Seat target = 0;
  Card card;
  friend bool operator==(const AskCard&, const AskCard&) = default;
};
struct Answer {  // table rules: the asked seat's reply
  bool give = true;
  friend bool operator==(const Answer&, const Answer&) = default;
};
struct Declare {  // table rules: lay down a set of this rank
  Rank rank = 0;
  friend bool operator==(const Declare&, const Declare&) = default;
};
using Move = std::variant<AskRank, AskCard, Answer, Declare>;

struct Decision {
  Seat seat = 0;
  Move move;
  friend bool operator==(const Decision&, const Decision&) = default;
};

// "seat 0 asks seat 2 for 9s", for logs and test failures.
std::string to_string(const Decision& decision);

enum class RefusalCode {
  kGameOver,
  kNotYourTurn,
  kOutOfGame,          // the deciding seat is out of the game
  kUnknownSeat,        // the deciding seat or the target is not at the table
  kAskedSelf,
  kTargetOut,          // the target is out of the game
  kRankNotHeld,
  kCardAskInRankGame,  // asked for a card where the preset asks for ranks
  kRankAskInCardGame,  // and the reverse
  kCardHeld,           // asked for a card you hold where that is not allowed
  kInvalidRank,
  kAwaitingAnswer,     // table rules: the asked seat must answer first
  kNotAsked,           // an answer from a seat nobody is waiting for
  kNothingToGive,      // "give" without a card of the asked rank
  kNoSuchSet,          // a declaration without the cards of a set
  kTableRulesOnly,     // an answer or declaration in a strict game
};

// "not_your_turn": the code's stable spelling (the protocol prefixes "action/").
std::string_view refusal_code_name(RefusalCode code);

struct Refusal {
  RefusalCode code;
  std::string message;  // a sentence for the person who tried
};

}  // namespace gofish::engine
