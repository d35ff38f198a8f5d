// The engine's only source of chance: a specified generator and our own
// Fisher-Yates shuffle, so a seed gives the same deck with every compiler and
// standard library (std::shuffle and the std distributions do not promise that).
//
// Generator: xoshiro256** (Blackman and Vigna), its state filled from a 64-bit
// seed by splitmix64. Bounded draws use Lemire's multiply-and-reject method,
// so they are unbiased.
#pragma once

#include <cstdint>

#include "engine/card.hpp"

namespace gofish::engine {

// next and below are inline: a shuffle draws 51 times and a bot once per
// decision, and a call costs about as much as the draw itself.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, bound); bound must be at least 1. Forced inline: the
  // compiler keeps an out-of-line copy otherwise.
  [[gnu::always_inline]] std::uint32_t below(std::uint32_t bound) {
    // Lemire: the high half of a 32x32 product, rejecting the biased low values.
    std::uint64_t product = static_cast<std::uint64_t>(static_cast<std::uint32_t>(next() >> 32)) * bound;
    auto low = static_cast<std::uint32_t>(product);
    if (low < bound) [[unlikely]] {
      const std::uint32_t threshold = static_cast<std::uint32_t>(-bound) % bound;
      while (low < threshold) {
        product = static_cast<std::uint64_t>(static_cast<std::uint32_t>(next() >> 32)) * bound;
        low = static_cast<std::uint32_t>(product);
      }
    }
    return static_cast<std::uint32_t>(product >> 32);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// A seed from the operating system's random source (std::random_device on
// the kernel's getrandom), never from a clock.
std::uint64_t os_seed();

// Fisher-Yates: for i from 51 down to 1, swap card i with a card in [0, i].
void shuffle(Deck& deck, Rng& rng);

}  // namespace gofish::engine
