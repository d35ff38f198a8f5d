#include "server/store/token.hpp"

#include <cstring>

#include <sys/random.h>

#include <bit>
#include <cerrno>
#include <system_error>

#include "protocol/text.hpp"

namespace gofish::server {

void os_random_bytes(std::span<std::uint8_t> out) {
  std::size_t filled = 0;
  while (filled < out.size()) {
    const ssize_t got = ::getrandom(out.data() + filled, out.size() - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    filled += static_cast<std::size_t>(got);
  }
}

std::uint64_t os_random_below(std::uint64_t bound) {
  // Rejection keeps the draw uniform: values at or above the largest multiple
  // of `bound` that fits in 64 bits are drawn again.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound);
  while (true) {
    std::array<std::uint8_t, 8> bytes{};
    os_random_bytes(bytes);
    std::uint64_t value = 0;
    for (std::uint8_t b : bytes) value = (value << 8) | b;
    if (value < limit) return value % bound;
  }
}

std::string new_token() {
  std::array<std::uint8_t, protocol::kTokenBytes> bytes{};
  os_random_bytes(bytes);
  return protocol::token_from_bytes(bytes);
}

namespace {

struct SipState {
  std::uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = std::rotl(v1, 13);
    v1 ^= v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = std::rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = std::rotl(v1, 17);
    v1 ^= v2;
    v2 = std::rotl(v2, 32);
  }
  void compress(std::uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};

std::uint64_t load_le(const char* p, std::size_t n) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    value |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  }
  return value;
}

}  // namespace

std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, std::string_view data) {
  SipState s{k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL, k0 ^ 0x6c7967656e657261ULL,
             k1 ^ 0x7465646279746573ULL};
  const std::size_t full = data.size() / 8 * 8;
  for (std::size_t i = 0; i < full; i += 8) s.compress(load_le(data.data() + i, 8));
  const std::uint64_t last = load_le(data.data() + full, data.size() - full) | (std::uint64_t{data.size() & 0xFF} << 56);
  s.compress(last);
  s.v2 ^= 0xFF;
  for (int i = 0; i < 4; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

TokenHasher::TokenHasher() {
  std::array<std::uint8_t, 32> bytes{};
  os_random_bytes(bytes);
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    keys_[i] = load_le(reinterpret_cast<const char*>(bytes.data() + 8 * i), 8);
  }
}

std::string hash_bytes(const TokenHash& hash) {
  std::string bytes(sizeof(hash.words), '\0');
  std::memcpy(bytes.data(), hash.words.data(), bytes.size());
  return bytes;
}

std::optional<TokenHash> hash_from_bytes(std::string_view bytes) {
  TokenHash hash;
  if (bytes.size() != sizeof(hash.words)) return std::nullopt;
  std::memcpy(hash.words.data(), bytes.data(), sizeof(hash.words));
  return hash;
}

TokenHash TokenHasher::hash(std::string_view token) const {
  return TokenHash{{siphash24(keys_[0], keys_[1], token), siphash24(keys_[2], keys_[3], token)}};
}

}  // namespace gofish::server
