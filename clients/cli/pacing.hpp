// How fast the terminal client sends its requests: the bucket it keeps so
// that the server never drops one as over its message rate.
#pragma once

#include "protocol/messages.hpp"
#include "protocol/token_bucket.hpp"

namespace gofish::cli {

// A full bucket at the rate and burst the server's welcome asks a client to
// pace itself at (limits.pace_messages_per_second, pace_message_burst). A
// server from before those fields leaves them out (0 here): the client then
// paces at half of messages_per_second and message_burst (a burst of at
// least one), as protocol/README.md tells every client to.
TokenBucket pacing_bucket(const protocol::WelcomeLimits& limits, TokenBucket::Clock::time_point now);

}  // namespace gofish::cli
