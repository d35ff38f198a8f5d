#include "server/rooms/daily_seed.hpp"

#include <chrono>
#include <cstdio>

#include "server/rooms/next_deal.hpp"

namespace gofish::server {

std::string utc_date(std::int64_t unix_ms) {
  using namespace std::chrono;
  const sys_days day = floor<days>(sys_time<milliseconds>(milliseconds(unix_ms)));
  const year_month_day date(day);
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()));
  return text;
}

std::uint64_t daily_deal_seed(const TokenHasher& key, std::string_view date) {
  std::string text = "gofish daily deal ";
  text += date;
  return key.digest(text);
}

std::vector<std::uint8_t> daily_seed_bytes(const TokenHasher& key, std::string_view date) {
  return NextDeal::shared_seed(daily_deal_seed(key, date));
}

protocol::DealFairness daily_commitment(const TokenHasher& key, std::string_view date) {
  protocol::DealFairness deal;
  deal.commitment = fairness::to_hex(fairness::commitment_of(daily_seed_bytes(key, date)));
  deal.shared = true;
  deal.day = std::string(date);
  return deal;
}

DailyStanding daily_standing(const DailyTally& tally, int sets) {
  DailyStanding standing;
  std::int64_t fewer = 0;
  std::int64_t same = 0;
  for (const auto& [made, games] : tally) {
    standing.players += games;
    if (games > 0 && made > standing.best) standing.best = made;
    if (made < sets) fewer += games;
    if (made == sets) same += games;
  }
  if (standing.players > 0) {
    // (fewer + same / 2) / players, in percent, rounded half up, in integers.
    standing.percentile = static_cast<int>((200 * fewer + 100 * same + standing.players) / (2 * standing.players));
  }
  return standing;
}

}  // namespace gofish::server
