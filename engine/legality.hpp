// One source of legality: the judge, which answers for any decision in any
// state "proper", "allowed with its table-rules penalty" or "refused,
// because...", and the legal set, the decisions it finds proper.
//
// Both work from the facts one seat knows (the phase, whose turn it is, the
// ask awaiting an answer, which seats are still in, the seat's own hand, the
// rules), so Game (Game::judge, Game::legal) and EventView (from what one
// viewer was told) get the same answers. Each rule is written once, as a
// predicate below: `judge` applies them to one decision, `legal_decisions`
// lists every decision they find proper, and tests/engine/judge_test
// checks that a decision is listed exactly when the judge calls it proper.
//
// Readings (docs/RULES.md): an ask goes to any other seat that is not out
// (R4); only proper moves are in the legal set (R35): under table rules an
// ask out of turn, an illegal call or a false "Go fish" is accepted and
// penalised, and listed apart (engine/improper_decisions.hpp); asking for a
// card you hold is proper only where the rules allow it (R9).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/bits.hpp"
#include "engine/card.hpp"
#include "engine/decision.hpp"
#include "engine/judgement.hpp"
#include "engine/rules.hpp"

namespace gofish::engine {

enum class SeatStatus : std::uint8_t { kIn, kSittingOut, kOut };
enum class Phase : std::uint8_t { kAsk, kAnswer, kOver };

// Table rules: the ask awaiting an answer.
struct PendingAsk {
  Seat seat;
  Seat target;
  Rank rank;
  std::optional<Card> card;
  friend bool operator==(const PendingAsk&, const PendingAsk&) = default;
};

// The decisions one seat may make now, in compact form: an ask is any legal
// target with any legal rank (or card); an answer or a declaration under
// table rules. Empty for a seat that is not to act and once the game is over.
struct LegalDecisions {
  Seat seat = 0;
  AskFor ask_for = AskFor::kRank;
  std::uint8_t targets = 0;  // bit per seat
  std::uint16_t ranks = 0;   // rank asks: bit per rank
  CardSet cards;             // card asks
  bool give = false;         // table rules answers
  bool go_fish = false;
  std::uint16_t declarable = 0;  // table rules: ranks with a complete set in hand

  // count and nth are inline: a bot's pick (nth(rng.below(count()))) is on
  // every decision's path. nth is forced inline: returned from a call, the
  // Decision is put together on the stack in pieces and read back whole in
  // registers, which stalls the processor (a failed store-to-load forward)
  // on every pick.
  int count() const {
    const int per_target = ask_for == AskFor::kRank ? bit_count16(ranks) : cards.size();
    return bit_count16(declarable) + (give ? 1 : 0) + (go_fish ? 1 : 0) + bit_count16(targets) * per_target;
  }
  bool empty() const { return count() == 0; }
  // The i-th decision, 0 <= i < count(), in a fixed order.
  [[gnu::always_inline]] Decision nth(int i) const {
    const int declares = bit_count16(declarable);
    if (i < declares) return Decision{seat, Declare{nth_bit16(declarable, i)}};
    i -= declares;
    if (give) {
      if (i == 0) return Decision{seat, Answer{true}};
      --i;
    }
    if (go_fish) {
      if (i == 0) return Decision{seat, Answer{false}};
      --i;
    }
    const int per_target = ask_for == AskFor::kRank ? bit_count16(ranks) : cards.size();
    const int target_index = divide_small(i, per_target);
    const Seat target = nth_bit16(targets, target_index);
    const int k = i - target_index * per_target;
    if (ask_for == AskFor::kRank) return Decision{seat, AskRank{target, nth_bit16(ranks, k)}};
    return Decision{seat, AskCard{target, Card::from_id(nth_bit(cards.mask(), k))}};
  }
  std::vector<Decision> list() const;
  bool contains(const Decision& decision) const;
  friend bool operator==(const LegalDecisions&, const LegalDecisions&) = default;
};

// What a seat's legal decisions depend on besides its hand and the rules.
// Every fact here is public: a spectator's view holds them all.
struct LegalityFacts {
  int players = 0;
  Phase phase = Phase::kAsk;
  Seat turn = 0;
  std::optional<PendingAsk> pending;  // set in the answer phase
  std::uint8_t in_play = 0;           // bit per seat that can be asked: every seat not out
};

// The legal decisions of `seat`, whose hand is `hand`: every decision that
// `judge` calls proper.
LegalDecisions legal_decisions(const Rules& rules, const LegalityFacts& facts, Seat seat, CardSet hand);

// The judge: what becomes of `decision` in the state `facts` describe, where
// `hand` is the deciding seat's hand (empty for a seat not at the table).
Judgement judge(const Rules& rules, const LegalityFacts& facts, CardSet hand, Decision decision);

// ---------------------------------------------------------------- predicates
// Each rule once; `judge` and `legal_decisions` both use these.

constexpr bool at_table(int players, Seat seat) { return seat >= 0 && seat < players; }
constexpr bool seat_in_play(std::uint8_t in_play, Seat seat) { return (in_play >> seat) & 1U; }
constexpr bool valid_rank(Rank rank) { return rank >= 0 && rank < kRanks; }

// Whether `seat` is the one due to ask (or, under table rules, to declare):
// its turn, and no ask awaiting an answer.
constexpr bool asks_now(const LegalityFacts& facts, Seat seat) {
  return facts.phase == Phase::kAsk && seat == facts.turn;
}

// Table rules: whether the answer to the pending ask is awaited from `seat`.
constexpr bool answers_now(const LegalityFacts& facts, Seat seat) {
  return facts.phase == Phase::kAnswer && facts.pending && seat == facts.pending->target;
}

// Whether `hand` holds what an ask for `rank` (or for the exact `card`) wants.
constexpr bool holds(CardSet hand, Rank rank, std::optional<Card> card) {
  return card ? hand.contains(*card) : hand.has_rank(rank);
}

// The seats `asker` may ask: every other seat in play.
constexpr std::uint8_t ask_targets(std::uint8_t in_play, Seat asker) {
  return static_cast<std::uint8_t>(in_play & ~seat_bit(asker));
}

// What a table-rules answer brings: whether it is true (and so proper), or
// the penalty for a false "Go fish" (a false "give" is refused, as there is
// nothing to hand over).
enum class AnswerFault : std::uint8_t {
  kNothingToGive,  // "give" without the card or rank asked for
  kFalseGoFish,    // "Go fish" while holding it
};
constexpr std::optional<AnswerFault> answer_fault(bool give, bool holds_it) {
  if (give && !holds_it) return AnswerFault::kNothingToGive;
  if (!give && holds_it) return AnswerFault::kFalseGoFish;
  return std::nullopt;
}

// Why an ask by the holder of `hand` is not a proper one (strict rules refuse
// it; table rules call it an illegal call), or nullopt when it is.
enum class AskFault : std::uint8_t {
  kRankNotHeld,  // no card of the rank asked for
  kCardHeld,     // the exact card asked for is in the asker's own hand
};
constexpr std::optional<AskFault> ask_fault(const Rules& rules, CardSet hand, Rank rank, std::optional<Card> card) {
  if (!hand.has_rank(rank)) return AskFault::kRankNotHeld;
  if (card && !rules.may_ask_held_card && hand.contains(*card)) return AskFault::kCardHeld;
  return std::nullopt;
}

// The ranks and the cards for which ask_fault finds nothing.
constexpr std::uint16_t askable_ranks(CardSet hand) { return hand.ranks(); }
CardSet askable_cards(const Rules& rules, CardSet hand);

// The ranks of which `hand` holds a whole set.
constexpr std::uint16_t declarable_ranks(const Rules& rules, CardSet hand) {
  return hand.ranks_with_at_least(rules.set_size);
}

}  // namespace gofish::engine
