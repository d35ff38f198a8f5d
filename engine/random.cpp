#include "engine/random.hpp"

#include <exception>
#include <random>
#include <utility>

namespace gofish::engine {
namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

namespace {

// libstdc++'s default device is the CPU's RDSEED where it has one: on a KVM
// guest, constructing it (its CPUID checks) took about 20 us and each value
// about 1 us, paid at every room's creation and every game's deal. The
// kernel's getrandom, through the "getentropy" token, takes under 1 us for
// both. Where a library has no such token, its default.
std::random_device os_device() {
  try {
    return std::random_device("getentropy");
  } catch (const std::exception&) {
    return std::random_device();
  }
}

}  // namespace

std::uint64_t os_seed() {
  std::random_device device = os_device();
  return (static_cast<std::uint64_t>(device()) << 32) | device();
}

void shuffle(Deck& deck, Rng& rng) {
  for (std::uint32_t i = kDeckSize - 1; i > 0; --i) {
    std::swap(deck[i], deck[rng.below(i + 1)]);
  }
}

}  // namespace gofish::engine
