// Today's deal's arithmetic (server/rooms/daily_seed.hpp): the UTC date,
// the day's seed under the server's key, and a game's standing in the day's
// tally.
#include "server/rooms/daily_seed.hpp"

#include <doctest/doctest.h>

#include "fairness/deal_algorithm.hpp"

namespace gofish::server {
namespace {

TEST_CASE("daily seed: the UTC date of a moment") {
  CHECK(utc_date(0) == "1970-01-01");
  CHECK(utc_date(1'795'996'800'000) == "2026-11-30");  // midnight, UTC
  CHECK(utc_date(1'795'996'799'999) == "2026-11-29");  // a millisecond before
  CHECK(utc_date(951'782'400'000) == "2000-02-29");    // a leap day
}

TEST_CASE("daily seed: the same date and key give the same seed, another date or key another") {
  const TokenHasher key({1, 2, 3, 4});
  const TokenHasher same_key({1, 2, 3, 4});
  const TokenHasher other_key({1, 2, 3, 5});
  const auto seed = daily_deal_seed(key, "2026-11-30");
  CHECK(seed == daily_deal_seed(same_key, "2026-11-30"));
  CHECK(seed != daily_deal_seed(key, "2026-12-01"));
  CHECK(seed != daily_deal_seed(other_key, "2026-11-30"));
  // Keyed: not the plain hash of the text under a zero key.
  CHECK(seed != siphash24(0, 0, "gofish daily deal 2026-11-30"));
}

TEST_CASE("daily seed: the day's commitment is SHA-256 of the 32 seed bytes it is dealt from") {
  const TokenHasher key({1, 2, 3, 4});
  const std::uint64_t seed = daily_deal_seed(key, "2026-11-30");
  // docs/FAIRNESS.md, "Shared deals": SHA-256 of "gofish shared deal" and the
  // day's 64-bit seed, big-endian.
  fairness::Bytes message{'g', 'o', 'f', 'i', 's', 'h', ' ', 's', 'h', 'a', 'r', 'e', 'd', ' ', 'd', 'e', 'a', 'l'};
  for (int i = 7; i >= 0; --i) message.push_back(static_cast<std::uint8_t>(seed >> (8 * i)));
  const fairness::Bytes bytes = daily_seed_bytes(key, "2026-11-30");
  CHECK(bytes == fairness::sha256(message));
  const protocol::DealFairness deal = daily_commitment(key, "2026-11-30");
  CHECK(deal.commitment == fairness::to_hex(fairness::commitment_of(bytes)));
  CHECK_FALSE(deal.seed);
  CHECK(deal.shared);
  CHECK(deal.day == "2026-11-30");
  CHECK(deal.commitment != daily_commitment(key, "2026-12-01").commitment);
}

TEST_CASE("daily seed: a game's standing among the day's") {
  SUBCASE("the first game of the day") {
    const auto standing = daily_standing({{5, 1}}, 5);
    CHECK(standing.players == 1);
    CHECK(standing.percentile == 50);
    CHECK(standing.best == 5);
  }
  SUBCASE("fewer, as many and more") {
    // 3 games with 2 sets, 2 with 5 (this one among them), 1 with 8.
    const auto standing = daily_standing({{2, 3}, {5, 2}, {8, 1}}, 5);
    CHECK(standing.players == 6);
    CHECK(standing.percentile == 67);  // (3 + 2 / 2) / 6 = 66.7%
    CHECK(standing.best == 8);
  }
  SUBCASE("the best and the worst") {
    CHECK(daily_standing({{0, 1}, {13, 1}}, 13).percentile == 75);
    CHECK(daily_standing({{0, 1}, {13, 1}}, 0).percentile == 25);
  }
  SUBCASE("nobody yet") {
    const auto standing = daily_standing({}, 0);
    CHECK(standing.players == 0);
    CHECK(standing.percentile == 0);
    CHECK(standing.best == 0);
  }
}

}  // namespace
}  // namespace gofish::server
