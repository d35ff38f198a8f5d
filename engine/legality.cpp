#include "engine/legality.hpp"

#include <array>
#include <bit>
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
  if (facts.phase == Phase::kOver || seat < 0 || seat >= facts.players) return legal;
  if (facts.phase == Phase::kAnswer) {
    if (facts.pending && seat == facts.pending->target) {
      const bool has = holds(hand, facts.pending->rank, facts.pending->card);
      legal.give = has;
      legal.go_fish = !has;
    }
    return legal;
  }
  if (seat != facts.turn) return legal;
  legal.targets = ask_targets(facts.in_play, seat);
  if (rules.ask_for == AskFor::kRank) {
    legal.ranks = askable_ranks(hand);
  } else {
    legal.cards = askable_cards(rules, hand);
  }
  if (rules.table_rules) legal.declarable = declarable_ranks(rules, hand);
  return legal;
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
