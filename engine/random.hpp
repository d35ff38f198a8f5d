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

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  // Uniform in [0, bound); bound must be at least 1.
  std::uint32_t below(std::uint32_t bound);

 private:
  std::uint64_t s_[4];
};

// A seed from the operating system's random source (std::random_device on
// the kernel's getrandom), never from a clock.
std::uint64_t os_seed();

// Fisher-Yates: for i from 51 down to 1, swap card i with a card in [0, i].
void shuffle(Deck& deck, Rng& rng);

}  // namespace gofish::engine
