// Seat tokens: the secret that lets a player take their seat back after a
// dropped connection, and the OS random source the room codes come from too.
//
// A token is protocol::kTokenBytes (24) bytes, 192 bits, read from the
// kernel's random source (getrandom(2)), spelled in URL-safe base64. It is
// sent once, to its owner, and never logged above debug.
//
// The server keeps only a keyed hash of each token (TokenHasher), never the
// token: a dump of the server's memory or, later, of its database names no
// seat. The hash is two SipHash-2-4 runs under independent 128-bit keys drawn
// from the OS at start-up, 128 bits in all. SipHash is a keyed PRF, so
// without the key nobody can relate a hash to a token, and the timing of a
// lookup in a map of hashes tells an attacker nothing about real tokens;
// TokenHash comparison is constant-time anyway. With --storage sqlite or
// postgres the key is made once and kept in the database's meta table
// (Store::token_key), so stored hashes still name their seats after a
// restart; with --storage none it is drawn from the OS at start-up and lives
// only in memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gofish::server {

// Fills `out` from the kernel's random source. Throws std::system_error if
// the source fails (it does not block once the system has booted).
void os_random_bytes(std::span<std::uint8_t> out);
// A uniform integer in [0, bound), bound >= 1, from the OS source.
std::uint64_t os_random_below(std::uint64_t bound);

// A fresh seat token: protocol::is_token(new_token()) holds.
std::string new_token();

// SipHash-2-4 (Aumasson and Bernstein) of `data` under a 128-bit key given
// as two little-endian words. Exposed for its test vectors.
std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, std::string_view data);

struct TokenHash {
  std::array<std::uint64_t, 2> words{};
  // Constant-time: every bit is examined whatever the first difference.
  friend bool operator==(const TokenHash& a, const TokenHash& b) {
    return ((a.words[0] ^ b.words[0]) | (a.words[1] ^ b.words[1])) == 0;
  }
};

// The 16 bytes the stores keep of a hash, and back (nullopt for another size).
std::string hash_bytes(const TokenHash& hash);
std::optional<TokenHash> hash_from_bytes(std::string_view bytes);

struct TokenHashHash {
  std::size_t operator()(const TokenHash& hash) const { return static_cast<std::size_t>(hash.words[0]); }
};

class TokenHasher {
 public:
  // Keys from the OS random source.
  TokenHasher();
  // Fixed keys, for tests.
  TokenHasher(std::array<std::uint64_t, 4> keys) : keys_(keys) {}
  TokenHash hash(std::string_view token) const;
  // A 64-bit keyed digest of `data` under the second half of the key, for
  // what the server must make repeatable but nobody else can foresee (the
  // deck of today's deal: server/rooms/daily_seed.hpp). Never a token's hash.
  std::uint64_t digest(std::string_view data) const { return siphash24(keys_[2], keys_[3], data); }

 private:
  std::array<std::uint64_t, 4> keys_{};
};

}  // namespace gofish::server
