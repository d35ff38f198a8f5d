// Seats and ranks as bits of a mask (LegalDecisions::targets and ::ranks, the
// bots' memories), and the counting and picking of set bits: the helpers,
// once.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "engine/card.hpp"

namespace gofish::engine {

constexpr std::uint8_t seat_bit(Seat seat) { return static_cast<std::uint8_t>(1U << seat); }
constexpr std::uint16_t rank_bit(Rank rank) { return static_cast<std::uint16_t>(1U << rank); }
// `mask` without `rank`.
constexpr std::uint16_t without_rank(std::uint16_t mask, Rank rank) {
  return static_cast<std::uint16_t>(mask & ~rank_bit(rank));
}

// kBitInByte[b][k]: the position of the k-th set bit (0-based) of the byte b.
inline constexpr auto kBitInByte = [] {
  std::array<std::array<std::uint8_t, 8>, 256> table{};
  for (std::size_t b = 0; b < table.size(); ++b) {
    std::size_t k = 0;
    for (std::uint8_t bit = 0; bit < 8; ++bit) {
      if ((b >> bit) & 1U) table[b][k++] = bit;
    }
  }
  return table;
}();

// kBitsInByte[b]: the number of bits set in the byte b.
inline constexpr auto kBitsInByte = [] {
  std::array<std::uint8_t, 256> table{};
  for (std::size_t b = 0; b < table.size(); ++b) {
    for (std::size_t v = b; v != 0; v &= v - 1) ++table[b];
  }
  return table;
}();

// The bits set in a mask of at most 16 bits (ranks, seats): two look-ups.
constexpr int bit_count16(unsigned mask) { return kBitsInByte[mask & 0xFFU] + kBitsInByte[(mask >> 8) & 0xFFU]; }

// The n-th set bit (0-based) of a mask of at most 16 bits, n below its bit
// count. n is a random pick (a bot's choice among legal decisions), so a loop
// of n steps would mispredict its exit nearly every time: instead the low
// byte's count says which byte holds the bit (a select, not a branch), and a
// table gives the bit within that byte.
constexpr int nth_bit16(unsigned mask, int n) {
  const int low = kBitsInByte[mask & 0xFFU];
  const bool high = n >= low;
  const unsigned byte = (high ? mask >> 8 : mask) & 0xFFU;
  return (high ? 8 : 0) + kBitInByte[byte][static_cast<std::size_t>(high ? n - low : n) & 7U];
}

// The same for a 64-bit mask (cards), 64 when there is none: the bits of
// each byte are counted at once, the byte holding the n-th bit is the number
// of bytes whose running total is at most n, and the table gives the bit
// within that byte.
constexpr int nth_bit(std::uint64_t mask, int n) {
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

// n / d for 0 <= n < 1024 and 1 <= d <= 52 (a legal-set index over the
// decisions per target) by a multiplication: a division instruction costs
// tens of cycles on the benchmark's hot path.
inline constexpr auto kReciprocal = [] {
  std::array<std::uint32_t, kDeckSize + 1> table{};
  for (std::uint32_t d = 1; d < table.size(); ++d) table[d] = (1U << 16) / d + 1;
  return table;
}();
constexpr int divide_small(int n, int d) {
  return static_cast<int>((static_cast<std::uint32_t>(n) * kReciprocal[static_cast<std::size_t>(d)]) >> 16);
}
static_assert([] {
  for (int d = 1; d <= kDeckSize; ++d) {
    for (int n = 0; n < 1024; ++n) {
      if (divide_small(n, d) != n / d) return false;
    }
  }
  return true;
}());

}  // namespace gofish::engine
