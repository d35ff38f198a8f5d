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
#include <type_traits>
#include <vector>

#include "engine/card.hpp"

namespace gofish::engine {

// The four kinds of decision, each as a value to build a Decision from:
// Decision{seat, AskRank{target, rank}}.
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

enum class DecisionKind : std::uint8_t { kAskRank, kAskCard, kAnswer, kDeclare };

// One decision: who decides, its kind, and that kind's fields. Build one from
// its kind's value above; read it by switching on `kind`. A field the kind
// does not use keeps its default, so equal decisions compare equal.
//
// It is plain fields and a kind byte, not a std::variant, so that the
// compiler can keep it in registers on every decision's path (a bot's pick,
// the judge, Game::apply): a variant was put together in memory piece by
// piece and then copied whole, and the processor stalls on such a copy. For
// the same reason it is passed by value (16 bytes, two registers).
struct Decision {
  Seat seat = 0;
  DecisionKind kind = DecisionKind::kAskRank;
  bool give = false;  // kAnswer: hand over (true) or say "Go fish" (false)
  Card card;          // kAskCard: the card asked for
  Seat target = 0;    // kAskRank, kAskCard: the seat asked
  Rank rank = 0;      // kAskRank: the rank asked for; kDeclare: the set's rank

  constexpr Decision() = default;
  constexpr Decision(Seat by, AskRank ask)
      : seat(by), kind(DecisionKind::kAskRank), target(ask.target), rank(ask.rank) {}
  constexpr Decision(Seat by, AskCard ask)
      : seat(by), kind(DecisionKind::kAskCard), card(ask.card), target(ask.target) {}
  constexpr Decision(Seat by, Answer answer) : seat(by), kind(DecisionKind::kAnswer), give(answer.give) {}
  constexpr Decision(Seat by, Declare declare) : seat(by), kind(DecisionKind::kDeclare), rank(declare.rank) {}

  constexpr bool is_ask() const { return kind == DecisionKind::kAskRank || kind == DecisionKind::kAskCard; }
  // An ask's rank: the rank asked for, or the rank of the card asked for.
  constexpr Rank asked_rank() const { return kind == DecisionKind::kAskCard ? card.rank() : rank; }
  friend bool operator==(const Decision&, const Decision&) = default;
};
static_assert(std::is_trivially_copyable_v<Decision> && sizeof(Decision) <= 16, "a Decision fits in two registers");

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
