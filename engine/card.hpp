// Cards of the standard 52-card pack, and a set of cards stored as a bitmask.
//
// A card's id is rank * 4 + suit, so the four cards of one rank sit in one
// nibble of a 64-bit mask: counting a rank in a hand is a shift and a popcount.
// Ranks run from two (0) to ace (12): ace is high, two is low, as in the
// dealer ceremony of the Bicycle rules (001, 003).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gofish::engine {

inline constexpr int kRanks = 13;
inline constexpr int kSuits = 4;
inline constexpr int kDeckSize = 52;
inline constexpr int kMaxSeats = 6;

using Seat = int;
using Rank = int;  // 0 = two ... 12 = ace

// The number of set bits. std::popcount compiles to a call into libgcc (a
// table walk) unless the target has the POPCNT instruction, which the default
// x86-64 target lacks; counting bits is the engine's inner loop (a third of
// the benchmark's time went there), so without the instruction we count in
// registers instead. Same result either way.
constexpr int bit_count(std::uint64_t x) {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
  return std::popcount(x);
#else
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
}

enum class Suit : std::uint8_t { Clubs, Diamonds, Hearts, Spades };

class Card {
 public:
  constexpr Card() = default;
  constexpr Card(Rank rank, Suit suit) : id_(static_cast<std::uint8_t>(rank * kSuits + static_cast<int>(suit))) {}
  static constexpr Card from_id(int id) {
    Card c;
    c.id_ = static_cast<std::uint8_t>(id);
    return c;
  }
  constexpr int id() const { return id_; }
  constexpr Rank rank() const { return id_ / kSuits; }
  constexpr Suit suit() const { return static_cast<Suit>(id_ % kSuits); }
  friend constexpr bool operator==(Card, Card) = default;
  friend constexpr auto operator<=>(Card, Card) = default;

 private:
  std::uint8_t id_ = 0;
};

// "2".."10", "J", "Q", "K", "A"
std::string_view rank_name(Rank rank);
// "two" .. "ace", and the plural used in sentences ("nines", "sixes").
std::string_view rank_word(Rank rank);
std::string_view rank_plural(Rank rank);
std::optional<Rank> parse_rank(std::string_view text);
// "C", "D", "H", "S"
char suit_letter(Suit suit);
std::string_view suit_word(Suit suit);
// "10D", "QS": rank then suit, as in the transcript format.
std::string to_string(Card card);
std::optional<Card> parse_card(std::string_view text);

// A set of distinct cards, as a 52-bit mask.
class CardSet {
 public:
  constexpr CardSet() = default;
  static constexpr CardSet from_mask(std::uint64_t mask) {
    CardSet s;
    s.mask_ = mask;
    return s;
  }
  static constexpr CardSet full_deck() { return from_mask((std::uint64_t{1} << kDeckSize) - 1); }
  static constexpr CardSet of_rank(Rank rank) { return from_mask(std::uint64_t{0xF} << (rank * kSuits)); }

  constexpr std::uint64_t mask() const { return mask_; }
  constexpr bool empty() const { return mask_ == 0; }
  constexpr int size() const { return bit_count(mask_); }
  constexpr bool contains(Card c) const { return (mask_ >> c.id()) & 1U; }
  // Nibble n holds the number of bits set in n: one shift, no counting.
  constexpr int count(Rank rank) const {
    return static_cast<int>((std::uint64_t{0x4332322132212110} >> (rank_bits(rank) * 4)) & 0xFU);
  }
  constexpr bool has_rank(Rank rank) const { return rank_bits(rank) != 0; }
  constexpr CardSet cards_of(Rank rank) const { return from_mask(mask_ & of_rank(rank).mask_); }
  // Bit r is set when the set holds at least one card of rank r.
  constexpr std::uint16_t ranks() const {
    std::uint64_t any = mask_ | (mask_ >> 1);
    any |= any >> 2;
    return gather_ranks(any & kRankLowBits);
  }
  // Bit r is set when the set holds at least n cards of rank r, 0 <= n <= 8.
  // All thirteen ranks at once: each nibble becomes its own card count, and
  // adding 8 - n carries into the nibble's top bit exactly when count >= n
  // (a count is at most 4, so no nibble overflows into the next).
  constexpr std::uint16_t ranks_with_at_least(int n) const {
    std::uint64_t counts = mask_ - ((mask_ >> 1) & 0x5555555555555555ULL);
    counts = (counts & 0x3333333333333333ULL) + ((counts >> 2) & 0x3333333333333333ULL);
    const std::uint64_t reached = (counts + kRankLowBits * static_cast<std::uint64_t>(8 - n)) & (kRankLowBits << 3);
    if (reached == 0) return 0;  // the usual answer (no whole set), without the gathering
    return gather_ranks(reached >> 3);
  }
  constexpr void add(Card c) { mask_ |= std::uint64_t{1} << c.id(); }
  constexpr void remove(Card c) { mask_ &= ~(std::uint64_t{1} << c.id()); }
  constexpr void add(CardSet s) { mask_ |= s.mask_; }
  constexpr void remove(CardSet s) { mask_ &= ~s.mask_; }
  // The card with the lowest id (lowest rank, then clubs before spades).
  constexpr Card lowest() const { return Card::from_id(std::countr_zero(mask_)); }

  friend constexpr bool operator==(CardSet, CardSet) = default;

  class iterator {
   public:
    constexpr explicit iterator(std::uint64_t rest) : rest_(rest) {}
    constexpr Card operator*() const { return Card::from_id(std::countr_zero(rest_)); }
    constexpr iterator& operator++() {
      rest_ &= rest_ - 1;
      return *this;
    }
    friend constexpr bool operator==(iterator, iterator) = default;

   private:
    std::uint64_t rest_;
  };
  constexpr iterator begin() const { return iterator(mask_); }
  constexpr iterator end() const { return iterator(0); }

 private:
  constexpr std::uint64_t rank_bits(Rank rank) const { return (mask_ >> (rank * kSuits)) & 0xFU; }
  // The lowest bit of each of the thirteen rank nibbles.
  static constexpr std::uint64_t kRankLowBits = 0x0001111111111111ULL;
  // Moves bit 4r of `bits` (only those may be set) to bit r, by halving the
  // spacing of the bits at each step instead of testing thirteen ranks.
  static constexpr std::uint16_t gather_ranks(std::uint64_t bits) {
    bits = (bits | (bits >> 3)) & 0x0303030303030303ULL;
    bits = (bits | (bits >> 6)) & 0x000F000F000F000FULL;
    bits = (bits | (bits >> 12)) & 0x000000FF000000FFULL;
    bits = (bits | (bits >> 24)) & 0xFFFFULL;
    return static_cast<std::uint16_t>(bits);
  }
  std::uint64_t mask_ = 0;
};

// "9C 9H QS", in id order.
std::string to_string(CardSet cards);

using Deck = std::array<Card, kDeckSize>;
Deck ordered_deck();
// True when the 52 cards are each present once.
bool is_complete_deck(const Deck& deck);

}  // namespace gofish::engine
