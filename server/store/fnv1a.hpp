#pragma once
// FNV-1a, 64 bits: a small, stable hash (the same value on every platform and
// in every run). Not for anything an attacker must not steer: it picks a
// room's writer lane, and pins the embedded migrations in their test.

#include <cstdint>
#include <string_view>

namespace gofish::server {

constexpr std::uint64_t fnv1a(std::string_view data) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : data) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace gofish::server
