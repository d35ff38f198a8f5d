// Seats and ranks as bits of a mask (LegalDecisions::targets and ::ranks, the
// bots' memories): the helpers, once.
#pragma once

#include <cstdint>

#include "engine/card.hpp"

namespace gofish::engine {

constexpr std::uint8_t seat_bit(Seat seat) { return static_cast<std::uint8_t>(1U << seat); }
constexpr std::uint16_t rank_bit(Rank rank) { return static_cast<std::uint16_t>(1U << rank); }
// `mask` without `rank`.
constexpr std::uint16_t without_rank(std::uint16_t mask, Rank rank) {
  return static_cast<std::uint16_t>(mask & ~rank_bit(rank));
}

}  // namespace gofish::engine
