// gofish-deal/1, the deal anyone can check (docs/FAIRNESS.md specifies it
// byte by byte): the server commits to a secret seed with its SHA-256, each
// human seat may add a random value of its own, and the deck, the dealer and
// the first player come from HMAC-SHA256 of both driving a specified
// Fisher-Yates. One implementation for the server that deals and for the
// programs that check (gofish-cli verify, gofish-sim --verify); the browser
// has its own in JavaScript, held to the same test vectors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/card.hpp"
#include "engine/rules.hpp"

namespace gofish::fairness {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::size_t kSeedBytes = 32;
inline constexpr std::size_t kMinContributionBytes = 16;
inline constexpr std::size_t kMaxContributionBytes = 32;

// Lowercase hex, and its reader (either case; nothing on odd length or a
// character that is not a hex digit).
std::string to_hex(const Bytes& bytes);
std::optional<Bytes> from_hex(std::string_view hex);

Bytes sha256(const Bytes& message);
Bytes hmac_sha256(const Bytes& key, const Bytes& message);

// 32 bytes from the operating system's random source (OpenSSL's RAND_bytes,
// seeded by getrandom). Aborts if the source fails: a deal without a secret
// seed must not happen.
Bytes new_seed();

// SHA-256 of the seed.
Bytes commitment_of(const Bytes& seed);

// A contribution as a seat sends it: 16 to 32 bytes.
bool valid_contribution(const Bytes& value);

// The seats' contributions, index = seat; none for a seat that sent none.
using Contributions = std::vector<std::optional<Bytes>>;

// The message the deck key is the HMAC of: "gofish-deal/1", then for each
// seat that contributed, in seat order, its seat number, the value's length
// and the value, one byte each for the first two.
Bytes key_message(const Contributions& contributions);
Bytes deck_key(const Bytes& seed, const Contributions& contributions);

// The specified stream: HMAC-SHA256(deck key, 8-byte big-endian block
// counter from 0), read four bytes at a time as big-endian numbers, and
// unbiased draws below a bound by rejection.
class DealStream {
 public:
  explicit DealStream(Bytes key) : key_(std::move(key)) {}
  std::uint32_t next_word();
  // Uniform in [0, bound); bound at least 1.
  std::uint32_t below(std::uint32_t bound);

 private:
  Bytes key_;
  std::uint64_t counter_ = 0;
  Bytes block_;
  std::size_t used_ = 0;
};

struct FairDeal {
  engine::Deck deck{};  // top card first, as the transcript's deck
  engine::Seat dealer = 0;
  engine::Seat first = 0;
};

// Fisher-Yates over the ordered pack (2C 2D 2H 2S 3C ... AS), then the
// dealer, then (rules with a random first player) the first player.
FairDeal deal(const Bytes& seed, const Contributions& contributions, const engine::Rules& rules, int players);

}  // namespace gofish::fairness
