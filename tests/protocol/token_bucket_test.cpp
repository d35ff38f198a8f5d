// protocol/token_bucket.hpp: the one token bucket, kept by the server per
// connection (messages, chat) and by gofish-cli to pace its requests.
#include "protocol/token_bucket.hpp"

#include <doctest/doctest.h>

#include <chrono>

using gofish::TokenBucket;
using namespace std::chrono_literals;

TEST_CASE("token bucket: a burst, then the rate") {
  const auto t0 = TokenBucket::Clock::now();
  TokenBucket bucket(2.0, 3, t0);
  CHECK(bucket.try_take(t0));
  CHECK(bucket.try_take(t0));
  CHECK(bucket.try_take(t0));
  CHECK(!bucket.try_take(t0));
  CHECK(!bucket.try_take(t0 + 400ms));  // 0.8 of a token
  CHECK(bucket.try_take(t0 + 500ms));
  CHECK(!bucket.try_take(t0 + 500ms));
  // Idle time refills up to the burst, no further.
  CHECK(bucket.try_take(t0 + 100s));
  CHECK(bucket.try_take(t0 + 100s));
  CHECK(bucket.try_take(t0 + 100s));
  CHECK(!bucket.try_take(t0 + 100s));
  // Time going backwards takes nothing.
  CHECK(!bucket.try_take(t0));
}

TEST_CASE("token bucket: how long until the next token") {
  const auto near = [](TokenBucket::Clock::duration wait, TokenBucket::Clock::duration expected) {
    return wait >= expected && wait <= expected + 1us;
  };
  const auto t0 = TokenBucket::Clock::now();
  TokenBucket bucket(4.0, 1, t0);
  CHECK(bucket.time_to_token(t0) == TokenBucket::Clock::duration::zero());
  CHECK(bucket.try_take(t0));
  CHECK(near(bucket.time_to_token(t0), 250ms));
  const auto wait = bucket.time_to_token(t0 + 100ms);
  CHECK(near(wait, 150ms));
  // Asking does not take, and the token is there once the wait is over.
  CHECK(!bucket.try_take(t0 + 100ms + wait - 1us));
  CHECK(bucket.try_take(t0 + 100ms + wait));
  CHECK(!bucket.try_take(t0 + 100ms + wait));
  // Waits at other rates land on the token too.
  for (double rate : {0.3, 1.0, 7.0, 8.0, 9.7, 10.0 * 0.8, 100.0}) {
    CAPTURE(rate);
    TokenBucket paced(rate, 2, t0);
    auto now = t0;
    for (int i = 0; i < 50; ++i) {
      now += paced.time_to_token(now);
      CHECK(paced.try_take(now));
    }
  }
  // A bucket with no rate never refills, and says so with a long wait.
  TokenBucket dry(0.0, 1, t0);
  CHECK(dry.try_take(t0));
  CHECK(!dry.try_take(t0 + 1h));
  CHECK(dry.time_to_token(t0 + 1h) >= 1h);
}
