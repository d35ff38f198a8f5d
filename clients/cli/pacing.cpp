#include "clients/cli/pacing.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gofish::cli {

TokenBucket pacing_bucket(const protocol::WelcomeLimits& limits, TokenBucket::Clock::time_point now) {
  if (limits.pace_messages_per_second > 0 && limits.pace_message_burst > 0) {
    return TokenBucket(limits.pace_messages_per_second, static_cast<std::size_t>(limits.pace_message_burst), now);
  }
  const std::int64_t half_burst = std::max<std::int64_t>(1, limits.message_burst / 2);
  return TokenBucket(limits.messages_per_second / 2, static_cast<std::size_t>(half_burst), now);
}

}  // namespace gofish::cli
