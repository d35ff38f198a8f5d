// Table rules: the decisions a seat may make that the judge accepts with a
// penalty (engine/legality.hpp `judge`): neither proper nor refused. Beside
// the legal set (`legal_decisions`), which lists the proper ones, this lists
// the rest of what a real table lets a player do, so that a client can offer
// both without holding a rule of its own (protocol/README.md, `improper`).
//
// The decisions come in two groups, each earning one penalty kind:
// - asks: out of turn, any target in play with any rank (or card), or on the
//   seat's own turn the ranks (cards) it may not properly ask for: every ask
//   of the group earns `ask_penalty` (asked_out_of_turn or illegal_call; one
//   seat never has both at once);
// - a false "Go fish" from the seat asked while it holds what was asked for:
//   false_go_fish.
// Nothing else is ever penalised: a "give" with nothing to give and a set
// not held are refused, and so is everything under strict rules (empty).
//
// It is worked out from the same facts and predicates as the judge, for any
// seat, not only the one to act; tests/engine/improper_test checks that a
// decision is listed exactly when the judge calls it penalised, with the
// listed penalty.
#pragma once

#include <optional>

#include "engine/card.hpp"
#include "engine/decision.hpp"
#include "engine/event.hpp"
#include "engine/legality.hpp"
#include "engine/rules.hpp"

namespace gofish::engine {

struct ImproperDecisions {
  // The compact list, as for proper decisions; `give` and `declarable` are
  // never set (no answer "give" and no declaration is ever penalised).
  LegalDecisions decisions;
  // What each ask listed earns; kAskedOutOfTurn when no ask is listed.
  PenaltyKind ask_penalty = PenaltyKind::kAskedOutOfTurn;
  // A listed "Go fish" always earns PenaltyKind::kFalseGoFish.

  bool empty() const { return decisions.empty(); }
  int count() const { return decisions.count(); }
  bool has_asks() const { return decisions.count() > (decisions.go_fish ? 1 : 0); }
  // The penalty `decision` earns when listed, nullopt when it is not listed.
  std::optional<PenaltyKind> penalty(const Decision& decision) const;
  friend bool operator==(const ImproperDecisions&, const ImproperDecisions&) = default;
};

// The decisions of `seat`, whose hand is `hand`, that `judge` accepts with a
// penalty in the state `facts` describe.
ImproperDecisions improper_decisions(const Rules& rules, const LegalityFacts& facts, Seat seat, CardSet hand);

}  // namespace gofish::engine
