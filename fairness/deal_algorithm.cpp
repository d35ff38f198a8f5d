#include "fairness/deal_algorithm.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <limits>
#include <utility>

namespace gofish::fairness {

namespace {

constexpr std::string_view kAlgorithm = "gofish-deal/1";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string to_hex(const Bytes& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

std::optional<Bytes> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  Bytes out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = hex_value(hex[i]);
    const int low = hex_value(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<std::uint8_t>(high * 16 + low));
  }
  return out;
}

Bytes sha256(const Bytes& message) {
  Bytes out(32);
  unsigned int size = 0;
  if (EVP_Digest(message.data(), message.size(), out.data(), &size, EVP_sha256(), nullptr) != 1 || size != 32) {
    std::abort();  // OpenSSL without SHA-256: nothing sensible to do
  }
  return out;
}

Bytes hmac_sha256(const Bytes& key, const Bytes& message) {
  Bytes out(32);
  unsigned int size = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), message.data(), message.size(), out.data(), &size) ==
          nullptr ||
      size != 32) {
    std::abort();
  }
  return out;
}

Bytes new_seed() {
  Bytes seed(kSeedBytes);
  if (RAND_bytes(seed.data(), static_cast<int>(seed.size())) != 1) std::abort();
  return seed;
}

Bytes commitment_of(const Bytes& seed) { return sha256(seed); }

bool valid_contribution(const Bytes& value) {
  return value.size() >= kMinContributionBytes && value.size() <= kMaxContributionBytes;
}

Bytes key_message(const Contributions& contributions) {
  Bytes message(kAlgorithm.begin(), kAlgorithm.end());
  for (std::size_t seat = 0; seat < contributions.size(); ++seat) {
    const auto& value = contributions[seat];
    if (!value) continue;
    message.push_back(static_cast<std::uint8_t>(seat));
    message.push_back(static_cast<std::uint8_t>(value->size()));
    message.insert(message.end(), value->begin(), value->end());
  }
  return message;
}

Bytes deck_key(const Bytes& seed, const Contributions& contributions) {
  return hmac_sha256(seed, key_message(contributions));
}

std::uint32_t DealStream::next_word() {
  if (used_ + 4 > block_.size()) {
    Bytes counter(8);
    for (int i = 0; i < 8; ++i)
      counter[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(counter_ >> (56 - 8 * i));
    ++counter_;
    block_ = hmac_sha256(key_, counter);
    used_ = 0;
  }
  const std::uint32_t word = (std::uint32_t{block_[used_]} << 24) | (std::uint32_t{block_[used_ + 1]} << 16) |
                             (std::uint32_t{block_[used_ + 2]} << 8) | std::uint32_t{block_[used_ + 3]};
  used_ += 4;
  return word;
}

std::uint32_t DealStream::below(std::uint32_t bound) {
  // Accept x below the largest multiple of bound that fits in 2^32.
  const std::uint64_t span = std::uint64_t{1} << 32;
  const std::uint64_t limit = span - span % bound;
  while (true) {
    const std::uint32_t x = next_word();
    if (x < limit) return x % bound;
  }
}

FairDeal deal(const Bytes& seed, const Contributions& contributions, const engine::Rules& rules, int players) {
  DealStream stream(deck_key(seed, contributions));
  FairDeal out;
  out.deck = engine::ordered_deck();
  for (std::size_t i = engine::kDeckSize - 1; i >= 1; --i) {
    const std::uint32_t j = stream.below(static_cast<std::uint32_t>(i + 1));
    std::swap(out.deck[i], out.deck[j]);
  }
  out.dealer = static_cast<engine::Seat>(stream.below(static_cast<std::uint32_t>(players)));
  out.first = rules.first_player == engine::FirstPlayer::kRandom
                  ? static_cast<engine::Seat>(stream.below(static_cast<std::uint32_t>(players)))
                  : (out.dealer + 1) % players;
  return out;
}

}  // namespace gofish::fairness
