// A token bucket: `burst` actions at once, then `rate_per_second` on average.
// The caller passes the time, so tests need no clock and the rooms layer can
// reuse it for chat. Not thread-safe: each owner calls it on its own strand.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace gofish::server {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  TokenBucket(double rate_per_second, std::size_t burst, Clock::time_point now)
      : rate_per_second_(rate_per_second),
        capacity_(static_cast<double>(burst)),
        tokens_(static_cast<double>(burst)),
        last_(now) {}

  // Takes one token if there is one.
  bool try_take(Clock::time_point now) {
    refill(now);
    if (tokens_ < 1.0) {
      return false;
    }
    tokens_ -= 1.0;
    return true;
  }

  // Whether a token is there, without taking it.
  bool available(Clock::time_point now) {
    refill(now);
    return tokens_ >= 1.0;
  }

  // Whether the bucket is back to its burst (as good as a new one).
  bool full(Clock::time_point now) {
    refill(now);
    return tokens_ >= capacity_;
  }

 private:
  void refill(Clock::time_point now) {
    if (now > last_) {
      const std::chrono::duration<double> elapsed = now - last_;
      tokens_ = std::min(capacity_, tokens_ + elapsed.count() * rate_per_second_);
      last_ = now;
    }
  }

  double rate_per_second_;
  double capacity_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace gofish::server
