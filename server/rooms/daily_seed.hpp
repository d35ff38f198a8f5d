// Today's deal, the arithmetic (server/rooms/daily_deal.hpp): which day it
// is, the day's deck seed, and how a game compares with the day's others.
//
// The seed is a keyed hash (SipHash-2-4, TokenHasher::digest) of "gofish
// daily deal YYYY-MM-DD": every player of a day on one server, or on every
// node sharing its store (one token key), gets the same deck, and without
// the key nobody can work out tomorrow's. Its commitment is announced
// before the day's games (read_daily) and its seed served once the day is
// over (docs/FAIRNESS.md, "Shared deals").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/fairness_json.hpp"
#include "server/store/store.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

// "YYYY-MM-DD", the UTC date of `unix_ms` (milliseconds since the epoch).
std::string utc_date(std::int64_t unix_ms);

// The deck seed of `date`'s deal under `key`.
std::uint64_t daily_deal_seed(const TokenHasher& key, std::string_view date);
// The 32 seed bytes gofish-deal/1 deals `date`'s deal from (NextDeal::shared_seed
// of daily_deal_seed), and the commitment to them that read_daily announces
// (docs/FAIRNESS.md, "Shared deals"); the seed is served once the day is over.
std::vector<std::uint8_t> daily_seed_bytes(const TokenHasher& key, std::string_view date);
protocol::DealFairness daily_commitment(const TokenHasher& key, std::string_view date);

// How a game with `sets` compares with a day's tally (which counts it).
struct DailyStanding {
  std::int64_t players = 0;  // games in the tally
  int percentile = 0;        // 0..100: the share with fewer sets plus half of those with as many, rounded
  int best = 0;              // the most sets in the tally, 0 for none
};
DailyStanding daily_standing(const DailyTally& tally, int sets);

}  // namespace gofish::server
