#include "engine/improper_decisions.hpp"

#include "engine/bits.hpp"

namespace gofish::engine {

namespace {

constexpr std::uint16_t kEveryRank = static_cast<std::uint16_t>((1U << kRanks) - 1);

}  // namespace

ImproperDecisions improper_decisions(const Rules& rules, const LegalityFacts& facts, Seat seat, CardSet hand) {
  ImproperDecisions improper;
  LegalDecisions& d = improper.decisions;
  d.seat = seat;
  d.ask_for = rules.ask_for;
  // Only a real table's mistakes are penalised; and the judge refuses
  // anything at all from a seat not at the table or out of the game.
  if (!rules.table_rules || facts.phase == Phase::kOver || !at_table(facts.players, seat) ||
      !seat_in_play(facts.in_play, seat)) {
    return improper;
  }
  // The seat asked: a "Go fish" while holding what was asked for.
  if (answers_now(facts, seat)) {
    d.go_fish = answer_fault(false, holds(hand, facts.pending->rank, facts.pending->card)).has_value();
  }
  // The asker waits for its answer: no ask of its own is taken meanwhile.
  if (facts.phase == Phase::kAnswer && seat == facts.turn) return improper;
  d.targets = ask_targets(facts.in_play, seat);
  if (d.targets == 0) return improper;
  if (!asks_now(facts, seat)) {
    // Out of turn: any ask at all.
    improper.ask_penalty = PenaltyKind::kAskedOutOfTurn;
    if (rules.ask_for == AskFor::kRank) {
      d.ranks = kEveryRank;
    } else {
      d.cards = CardSet::full_deck();
    }
  } else {
    // On its turn: the asks ask_fault finds fault with.
    improper.ask_penalty = PenaltyKind::kIllegalCall;
    if (rules.ask_for == AskFor::kRank) {
      d.ranks = static_cast<std::uint16_t>(kEveryRank & ~askable_ranks(hand));
    } else {
      CardSet cards = CardSet::full_deck();
      cards.remove(askable_cards(rules, hand));
      d.cards = cards;
    }
  }
  // No rank (or card) left to ask for improperly: no group at all, kept in
  // one form (no target, the default penalty) so that equal lists compare equal.
  const bool none = rules.ask_for == AskFor::kRank ? d.ranks == 0 : d.cards.empty();
  if (none) {
    d.targets = 0;
    improper.ask_penalty = PenaltyKind::kAskedOutOfTurn;
  }
  return improper;
}

std::optional<PenaltyKind> ImproperDecisions::penalty(const Decision& decision) const {
  if (!decisions.contains(decision)) return std::nullopt;
  if (decision.kind == DecisionKind::kAnswer) return PenaltyKind::kFalseGoFish;
  return ask_penalty;
}

}  // namespace gofish::engine
