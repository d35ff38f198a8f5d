#include "engine/legality.hpp"

#include <string>

#include "engine/bits.hpp"

namespace gofish::engine {
// ---------------------------------------------------------------- the legal set

LegalDecisions legal_decisions(const Rules& rules, const LegalityFacts& facts, Seat seat, CardSet hand) {
  LegalDecisions legal;
  legal.seat = seat;
  legal.ask_for = rules.ask_for;
  if (facts.phase == Phase::kOver || !at_table(facts.players, seat)) return legal;
  if (answers_now(facts, seat)) {
    // Exactly one answer is true, and only a true one is proper.
    const bool has = holds(hand, facts.pending->rank, facts.pending->card);
    legal.give = !answer_fault(true, has);
    legal.go_fish = !answer_fault(false, has);
    return legal;
  }
  if (!asks_now(facts, seat)) return legal;
  legal.targets = ask_targets(facts.in_play, seat);
  if (rules.ask_for == AskFor::kRank) {
    legal.ranks = askable_ranks(hand);
  } else {
    legal.cards = askable_cards(rules, hand);
  }
  if (rules.table_rules) legal.declarable = declarable_ranks(rules, hand);
  return legal;
}

// ---------------------------------------------------------------- the judge

Judgement judge(const Rules& rules, const LegalityFacts& facts, CardSet hand, Decision d) {
  using enum RefusalCode;
  // An ask for `rank` (or the exact `card`), its kind already matched to the rules.
  const auto judge_ask = [&](Seat target, Rank rank, std::optional<Card> card) {
    const Seat seat = d.seat;
    if (!rules.table_rules && seat != facts.turn) return Judgement::refused(d, kNotYourTurn);
    if (!at_table(facts.players, target)) return Judgement::refused(d, kUnknownSeat, true);
    if (target == seat) return Judgement::refused(d, kAskedSelf);
    if (!seat_in_play(facts.in_play, target)) return Judgement::refused(d, kTargetOut);
    if (rules.table_rules) {
      // At a real table a player can ask out of turn, or for a rank they do
      // not hold: the ask is taken and 001's penalty applies.
      if (facts.phase == Phase::kAnswer && seat == facts.turn) return Judgement::refused(d, kAwaitingAnswer);
      if (!asks_now(facts, seat)) return Judgement::penalised(d, PenaltyKind::kAskedOutOfTurn);
      if (ask_fault(rules, hand, rank, card)) return Judgement::penalised(d, PenaltyKind::kIllegalCall);
      return Judgement::proper(d);
    }
    if (const auto fault = ask_fault(rules, hand, rank, card)) {
      return Judgement::refused(d, *fault == AskFault::kRankNotHeld ? kRankNotHeld : kCardHeld);
    }
    return Judgement::proper(d);
  };
  if (facts.phase == Phase::kOver) return Judgement::refused(d, kGameOver);
  if (!at_table(facts.players, d.seat)) return Judgement::refused(d, kUnknownSeat);
  if (!seat_in_play(facts.in_play, d.seat)) return Judgement::refused(d, kOutOfGame);
  switch (d.kind) {
    case DecisionKind::kAskRank:
      if (rules.ask_for == AskFor::kCard) return Judgement::refused(d, kRankAskInCardGame);
      if (!valid_rank(d.rank)) return Judgement::refused(d, kInvalidRank);
      return judge_ask(d.target, d.rank, std::nullopt);
    case DecisionKind::kAskCard:
      if (rules.ask_for == AskFor::kRank) return Judgement::refused(d, kCardAskInRankGame);
      if (d.card.id() >= kDeckSize) return Judgement::refused(d, kInvalidRank);
      return judge_ask(d.target, d.card.rank(), d.card);
    case DecisionKind::kAnswer: {
      if (!rules.table_rules) return Judgement::refused(d, kTableRulesOnly);
      if (!answers_now(facts, d.seat)) return Judgement::refused(d, kNotAsked);
      const std::optional<Card> card = facts.pending->card;
      const auto fault = answer_fault(d.give, holds(hand, facts.pending->rank, card));
      if (fault == AnswerFault::kNothingToGive) return Judgement::refused(d, kNothingToGive, false, card.has_value());
      // 001: failure to give up a card.
      if (fault == AnswerFault::kFalseGoFish) return Judgement::penalised(d, PenaltyKind::kFalseGoFish);
      return Judgement::proper(d);
    }
    case DecisionKind::kDeclare:
      if (!rules.table_rules) return Judgement::refused(d, kTableRulesOnly);
      if (facts.phase == Phase::kAnswer) return Judgement::refused(d, kAwaitingAnswer);
      if (!asks_now(facts, d.seat)) return Judgement::refused(d, kNotYourTurn);
      if (!valid_rank(d.rank)) return Judgement::refused(d, kInvalidRank);
      if (!(declarable_ranks(rules, hand) & rank_bit(d.rank))) return Judgement::refused(d, kNoSuchSet);
      return Judgement::proper(d);
  }
  // A kind outside the four (only a cast makes one).
  return Judgement::refused(d, kInvalidRank);
}

// The sentence for the person who tried, from the code and the decision.
std::optional<Refusal> Judgement::refusal() const {
  if (verdict_ != Verdict::kRefused) return std::nullopt;
  const Decision& d = decision_;
  const bool card_ask = d.kind == DecisionKind::kAskCard;
  const bool declare = d.kind == DecisionKind::kDeclare;
  const auto message = [&]() -> std::string {
    switch (code_) {
      case RefusalCode::kGameOver: return "The game is over.";
      case RefusalCode::kNotYourTurn: return "It is not your turn.";
      case RefusalCode::kOutOfGame: return "You are out of the game, so you cannot play any more.";
      case RefusalCode::kUnknownSeat:
        if (about_target_) {
          return "There is no seat " + std::to_string(d.target) + " to ask.";
        }
        return "There is no seat " + std::to_string(d.seat) + " at this table.";
      case RefusalCode::kAskedSelf: return "You cannot ask yourself.";
      case RefusalCode::kTargetOut: return "That player is out of the game.";
      case RefusalCode::kRankNotHeld:
        return "You can only ask for a rank you hold, and you have no " +
               std::string(rank_plural(d.asked_rank())) + ".";
      case RefusalCode::kCardAskInRankGame:
        return "In this game you ask for a rank, like \"your nines\", not for one card.";
      case RefusalCode::kRankAskInCardGame:
        return "In this game you ask for one specific card, like \"the queen of hearts\".";
      case RefusalCode::kCardHeld: return "You hold " + to_string(d.card) + " yourself; ask for a card you lack.";
      case RefusalCode::kInvalidRank: return card_ask ? "That is not a card." : "That is not a card rank.";
      case RefusalCode::kAwaitingAnswer:
        return declare ? "Wait for the answer to the ask first." : "Wait for the answer to your ask first.";
      case RefusalCode::kNotAsked: return "Nobody is waiting for your answer.";
      case RefusalCode::kNothingToGive:
        return card_asked_ ? "You do not have that card: say \"Go fish\"."
                           : "You have no cards of that rank: say \"Go fish\".";
      case RefusalCode::kNoSuchSet:
        return "You do not hold a whole set of " + std::string(rank_plural(d.rank)) + ".";
      case RefusalCode::kTableRulesOnly:
        return declare ? "Sets are laid down for you in this room." : "The server answers asks itself in this room.";
    }
    return "That is not allowed.";
  };
  return Refusal{code_, message()};
}

CardSet askable_cards(const Rules& rules, CardSet hand) {
  CardSet cards;
  for (std::uint16_t held = hand.ranks(); held != 0; held &= static_cast<std::uint16_t>(held - 1)) {
    cards.add(CardSet::of_rank(std::countr_zero(held)));
  }
  if (!rules.may_ask_held_card) cards.remove(hand);
  return cards;
}

// ---------------------------------------------------------------- the compact form

std::vector<Decision> LegalDecisions::list() const {
  std::vector<Decision> out;
  const int n = count();
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(nth(i));
  return out;
}

bool LegalDecisions::contains(const Decision& d) const {
  if (d.seat != seat) return false;
  const bool listed_target = d.target >= 0 && d.target < kMaxSeats && (targets & seat_bit(d.target));
  switch (d.kind) {
    case DecisionKind::kAskRank:
      return ask_for == AskFor::kRank && listed_target && valid_rank(d.rank) && (ranks & rank_bit(d.rank));
    case DecisionKind::kAskCard:
      return ask_for == AskFor::kCard && listed_target && d.card.id() < kDeckSize && cards.contains(d.card);
    case DecisionKind::kAnswer: return d.give ? give : go_fish;
    case DecisionKind::kDeclare: return valid_rank(d.rank) && (declarable & rank_bit(d.rank));
  }
  return false;
}

}  // namespace gofish::engine
