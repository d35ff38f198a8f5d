// Seat tokens and their keyed hash: the SipHash-2-4 reference vectors, the
// token format, and that tokens and hashes do not repeat.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "protocol/text.hpp"
#include "server/store/token.hpp"

namespace gofish::server {
namespace {

// Key 00 01 .. 0f, message 00 01 .. (n-1): the first and the sixteenth of the
// 64 vectors published with the reference implementation.
TEST_CASE("siphash24 matches the reference vectors") {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
  for (int i = 7; i >= 0; --i) {
    k0 = (k0 << 8) | static_cast<std::uint64_t>(i);
    k1 = (k1 << 8) | static_cast<std::uint64_t>(i + 8);
  }
  std::string message;
  for (int i = 0; i < 16; ++i) message.push_back(static_cast<char>(i));
  CHECK(siphash24(k0, k1, "") == 0x726fdb47dd0e0e31ULL);
  CHECK(siphash24(k0, k1, message.substr(0, 1)) == 0x74f839c593dc67fdULL);
  CHECK(siphash24(k0, k1, message.substr(0, 7)) == 0xab0200f58b01d137ULL);
  CHECK(siphash24(k0, k1, message.substr(0, 8)) == 0x93f5f5799a932462ULL);
  CHECK(siphash24(k0, k1, message.substr(0, 15)) == 0xa129ca6149be45e5ULL);
}

TEST_CASE("tokens are well formed, distinct, and hashed under the hasher's key") {
  std::set<std::string> tokens;
  for (int i = 0; i < 1000; ++i) {
    const std::string token = new_token();
    CHECK(protocol::is_token(token));
    tokens.insert(token);
  }
  CHECK(tokens.size() == 1000);

  const TokenHasher a({1, 2, 3, 4});
  const TokenHasher b({1, 2, 3, 5});
  const std::string token = *tokens.begin();
  CHECK(a.hash(token) == a.hash(token));
  CHECK_FALSE(a.hash(token) == b.hash(token));
  CHECK_FALSE(a.hash(token) == a.hash(*tokens.rbegin()));
  const TokenHasher random_key;
  CHECK_FALSE(random_key.hash(token) == a.hash(token));
}

TEST_CASE("os_random_below stays in range and reaches every value") {
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const auto value = os_random_below(7);
    CHECK(value < 7);
    seen.insert(value);
  }
  CHECK(seen.size() == 7);
}

}  // namespace
}  // namespace gofish::server
