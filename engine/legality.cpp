#include "engine/legality.hpp"

#include <array>
#include <bit>
#include <string>
#include <variant>

#include "engine/bits.hpp"
#include "engine/overloaded.hpp"

namespace gofish::engine {
namespace {

// kBitInByte[b][k]: the position of the k-th set bit (0-based) of the byte b.
constexpr auto kBitInByte = [] {
  std::array<std::array<std::uint8_t, 8>, 256> table{};
  for (std::size_t b = 0; b < table.size(); ++b) {
    std::size_t k = 0;
    for (std::uint8_t bit = 0; bit < 8; ++bit) {
      if ((b >> bit) & 1U) table[b][k++] = bit;
    }
  }
  return table;
}();

// The n-th set bit (0-based) of a mask, 64 when there is none. No loop of n
// steps: n is a random pick (a bot's choice among legal decisions), so the
// branch ending such a loop is mispredicted nearly every time. Instead the
// bits of each byte are counted at once, the byte holding the n-th bit is the
// number of bytes whose running total is at most n, and a table gives the
// bit within that byte.
int nth_bit(std::uint64_t mask, int n) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  std::uint64_t counts = mask - ((mask >> 1) & 0x5555555555555555ULL);
  counts = (counts & 0x3333333333333333ULL) + ((counts >> 2) & 0x3333333333333333ULL);
  counts = (counts + (counts >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  const std::uint64_t totals = counts * kOnes;  // byte b: the bits set in bytes 0..b
  if (n < 0) return std::countr_zero(mask);
  if (static_cast<std::uint64_t>(n) >= (totals >> 56)) return 64;
  // Per byte, (0x80 + n) - total keeps its top bit exactly when total <= n;
  // totals are at most 64, so no byte borrows from the next.
  const std::uint64_t passed = (((static_cast<std::uint64_t>(n) * kOnes) | kHigh) - totals) & kHigh;
  const int byte = static_cast<int>((((passed >> 7) * kOnes) >> 56));
  const int before = static_cast<int>(((totals << 8) >> (8 * byte)) & 0xFFU);
  return 8 * byte + kBitInByte[(mask >> (8 * byte)) & 0xFFU][static_cast<std::size_t>(n - before)];
}

}  // namespace

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

Judgement judge(const Rules& rules, const LegalityFacts& facts, CardSet hand, const Decision& d) {
  // An ask for `rank` (or the exact `card`), its kind already matched to the rules.
  const auto judge_ask = [&](Seat target, Rank rank, std::optional<Card> card) -> Judgement {
    const Seat seat = d.seat;
    if (!rules.table_rules && seat != facts.turn) {
      return Judgement::refused(d, RefusalCode::kNotYourTurn, "It is not your turn.");
    }
    if (!at_table(facts.players, target)) {
      return Judgement::refused(d, RefusalCode::kUnknownSeat, "There is no seat " + std::to_string(target) + " to ask.");
    }
    if (target == seat) return Judgement::refused(d, RefusalCode::kAskedSelf, "You cannot ask yourself.");
    if (!seat_in_play(facts.in_play, target)) {
      return Judgement::refused(d, RefusalCode::kTargetOut, "That player is out of the game.");
    }
    if (rules.table_rules) {
      // At a real table a player can ask out of turn, or for a rank they do
      // not hold: the ask is taken and 001's penalty applies.
      if (facts.phase == Phase::kAnswer && seat == facts.turn) {
        return Judgement::refused(d, RefusalCode::kAwaitingAnswer, "Wait for the answer to your ask first.");
      }
      if (!asks_now(facts, seat)) return Judgement::penalised(d, PenaltyKind::kAskedOutOfTurn);
      if (ask_fault(rules, hand, rank, card)) return Judgement::penalised(d, PenaltyKind::kIllegalCall);
      return Judgement::proper(d);
    }
    if (const auto fault = ask_fault(rules, hand, rank, card)) {
      switch (*fault) {
        case AskFault::kRankNotHeld:
          return Judgement::refused(d, RefusalCode::kRankNotHeld,
                                    "You can only ask for a rank you hold, and you have no " +
                                        std::string(rank_plural(rank)) + ".");
        case AskFault::kCardHeld:
          return Judgement::refused(d, RefusalCode::kCardHeld,
                                    "You hold " + to_string(*card) + " yourself; ask for a card you lack.");
      }
    }
    return Judgement::proper(d);
  };
  if (facts.phase == Phase::kOver) return Judgement::refused(d, RefusalCode::kGameOver, "The game is over.");
  if (!at_table(facts.players, d.seat)) {
    return Judgement::refused(d, RefusalCode::kUnknownSeat,
                              "There is no seat " + std::to_string(d.seat) + " at this table.");
  }
  if (!seat_in_play(facts.in_play, d.seat)) {
    return Judgement::refused(d, RefusalCode::kOutOfGame, "You are out of the game, so you cannot play any more.");
  }
  return std::visit(
      Overloaded{
          [&](const AskRank& a) {
            if (rules.ask_for == AskFor::kCard) {
              return Judgement::refused(d, RefusalCode::kRankAskInCardGame,
                                        "In this game you ask for one specific card, like \"the queen of hearts\".");
            }
            if (!valid_rank(a.rank)) return Judgement::refused(d, RefusalCode::kInvalidRank, "That is not a card rank.");
            return judge_ask(a.target, a.rank, std::nullopt);
          },
          [&](const AskCard& a) {
            if (rules.ask_for == AskFor::kRank) {
              return Judgement::refused(d, RefusalCode::kCardAskInRankGame,
                                        "In this game you ask for a rank, like \"your nines\", not for one card.");
            }
            if (a.card.id() >= kDeckSize) return Judgement::refused(d, RefusalCode::kInvalidRank, "That is not a card.");
            return judge_ask(a.target, a.card.rank(), a.card);
          },
          [&](const Answer& a) {
            if (!rules.table_rules) {
              return Judgement::refused(d, RefusalCode::kTableRulesOnly, "The server answers asks itself in this room.");
            }
            if (!answers_now(facts, d.seat)) {
              return Judgement::refused(d, RefusalCode::kNotAsked, "Nobody is waiting for your answer.");
            }
            const std::optional<Card> card = facts.pending->card;
            const auto fault = answer_fault(a.give, holds(hand, facts.pending->rank, card));
            if (fault == AnswerFault::kNothingToGive) {
              return Judgement::refused(d, RefusalCode::kNothingToGive,
                                        card ? "You do not have that card: say \"Go fish\"."
                                             : "You have no cards of that rank: say \"Go fish\".");
            }
            // 001: failure to give up a card.
            if (fault == AnswerFault::kFalseGoFish) return Judgement::penalised(d, PenaltyKind::kFalseGoFish);
            return Judgement::proper(d);
          },
          [&](const Declare& a) {
            if (!rules.table_rules) {
              return Judgement::refused(d, RefusalCode::kTableRulesOnly, "Sets are laid down for you in this room.");
            }
            if (facts.phase == Phase::kAnswer) {
              return Judgement::refused(d, RefusalCode::kAwaitingAnswer, "Wait for the answer to the ask first.");
            }
            if (!asks_now(facts, d.seat)) return Judgement::refused(d, RefusalCode::kNotYourTurn, "It is not your turn.");
            if (!valid_rank(a.rank)) return Judgement::refused(d, RefusalCode::kInvalidRank, "That is not a card rank.");
            if (!(declarable_ranks(rules, hand) & rank_bit(a.rank))) {
              return Judgement::refused(d, RefusalCode::kNoSuchSet, "You do not hold a whole set of " +
                                                                        std::string(rank_plural(a.rank)) + ".");
            }
            return Judgement::proper(d);
          },
      },
      d.move);
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

int LegalDecisions::count() const {
  const int per_target = ask_for == AskFor::kRank ? bit_count(ranks) : cards.size();
  return bit_count(declarable) + (give ? 1 : 0) + (go_fish ? 1 : 0) + bit_count(targets) * per_target;
}

Decision LegalDecisions::nth(int i) const {
  const int declares = bit_count(declarable);
  if (i < declares) return Decision{seat, Declare{nth_bit(declarable, i)}};
  i -= declares;
  if (give) {
    if (i == 0) return Decision{seat, Answer{true}};
    --i;
  }
  if (go_fish) {
    if (i == 0) return Decision{seat, Answer{false}};
    --i;
  }
  const int per_target = ask_for == AskFor::kRank ? bit_count(ranks) : cards.size();
  const Seat target = nth_bit(targets, i / per_target);
  const int k = i % per_target;
  if (ask_for == AskFor::kRank) return Decision{seat, AskRank{target, nth_bit(ranks, k)}};
  return Decision{seat, AskCard{target, Card::from_id(nth_bit(cards.mask(), k))}};
}

std::vector<Decision> LegalDecisions::list() const {
  std::vector<Decision> out;
  const int n = count();
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(nth(i));
  return out;
}

bool LegalDecisions::contains(const Decision& d) const {
  if (d.seat != seat) return false;
  return std::visit(
      Overloaded{
          [&](const AskRank& a) {
            return ask_for == AskFor::kRank && a.target >= 0 && a.target < kMaxSeats &&
                   (targets & seat_bit(a.target)) && a.rank >= 0 && a.rank < kRanks && (ranks & rank_bit(a.rank));
          },
          [&](const AskCard& a) {
            return ask_for == AskFor::kCard && a.target >= 0 && a.target < kMaxSeats &&
                   (targets & seat_bit(a.target)) && a.card.id() < kDeckSize && cards.contains(a.card);
          },
          [&](const Answer& a) { return a.give ? give : go_fish; },
          [&](const Declare& a) { return a.rank >= 0 && a.rank < kRanks && (declarable & rank_bit(a.rank)); },
      },
      d.move);
}

}  // namespace gofish::engine
