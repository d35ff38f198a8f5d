// Today's deal, the arithmetic (server/rooms/daily_deal.hpp): which day it
// is, the day's deck seed, and how a game compares with the day's others.
//
// The seed is a keyed hash (SipHash-2-4, TokenHasher::digest) of "gofish
// daily deal YYYY-MM-DD": every player of a day on one server, or on every
// node sharing its store (one token key), gets the same deck, and without
// the key nobody can work out tomorrow's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/store/store.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

// "YYYY-MM-DD", the UTC date of `unix_ms` (milliseconds since the epoch).
std::string utc_date(std::int64_t unix_ms);

// The deck seed of `date`'s deal under `key`.
std::uint64_t daily_deal_seed(const TokenHasher& key, std::string_view date);

// How a game with `sets` compares with a day's tally (which counts it).
struct DailyStanding {
  std::int64_t players = 0;  // games in the tally
  int percentile = 0;        // 0..100: the share with fewer sets plus half of those with as many, rounded
  int best = 0;              // the most sets in the tally, 0 for none
};
DailyStanding daily_standing(const DailyTally& tally, int sets);

}  // namespace gofish::server
