// A token bucket: `burst` actions at once, then `rate_per_second` on average.
//
// The protocol's message rate is one (welcome.limits: messages_per_second,
// message_burst): the server keeps one per connection and drops what is over
// it, and a client keeps its own to hold a request until it has a token. Both
// use this class (the server also for chat), so they count alike; the web
// client's JavaScript bucket (clients/web/js/connection.js) mirrors it.
//
// The caller passes the time, so tests need no clock. Not thread-safe: each
// owner calls it on its own strand or thread. It lives in namespace gofish,
// like Overloaded, because the server and the clients both name it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace gofish {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts full.
  TokenBucket(double rate_per_second, std::size_t burst, Clock::time_point now)
      : rate_per_second_(rate_per_second),
        capacity_(static_cast<double>(burst)),
        tokens_(static_cast<double>(burst)),
        last_(now) {}

  // Takes one token if there is one.
  bool try_take(Clock::time_point now) {
    refill(now);
    if (tokens_ < 1.0) return false;
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

  // How long after `now` the next token is there: zero when one is already,
  // a day for a bucket with no rate (a server's welcome may say 0). Rounded
  // up by a tick, so that try_take(now + the wait) finds the token even where
  // the refill's floating point lands a hair under it.
  Clock::duration time_to_token(Clock::time_point now) {
    refill(now);
    if (tokens_ >= 1.0) return Clock::duration::zero();
    if (!(rate_per_second_ > 0)) return std::chrono::hours(24);
    const std::chrono::duration<double> wait((1.0 - tokens_) / rate_per_second_);
    return std::chrono::ceil<Clock::duration>(wait) + Clock::duration(1);
  }

 private:
  void refill(Clock::time_point now) {
    // Time going backwards adds nothing.
    if (now <= last_) return;
    const std::chrono::duration<double> elapsed = now - last_;
    tokens_ = std::min(capacity_, tokens_ + elapsed.count() * rate_per_second_);
    last_ = now;
  }

  double rate_per_second_;
  double capacity_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace gofish
