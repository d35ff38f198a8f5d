#include "server/rooms/limits.hpp"

#include <cstddef>
#include <cstdint>

#include "protocol/messages.hpp"

namespace gofish::server {

namespace {

// The margin a client paces itself by, under the server's message bucket
// (welcome.limits.pace_*). The two buckets do not see the same times: the
// client counts a message when it sends it, the server when it arrives, and
// the network can hold messages sent evenly and deliver them together; the
// two clocks also drift a little. At 80% of the rate the server's bucket
// refills faster than the client's, so whatever the client has saved up the
// server has too; a burst two short of the server's lets two messages that
// arrive early still find a token. A server burst under three leaves the
// client a burst of one: one message at a time, at the slower rate.
constexpr double kPaceRateShare = 0.8;
constexpr std::size_t kPaceBurstSpare = 2;

}  // namespace

protocol::WelcomeLimits welcome_limits(const Limits& limits) {
  protocol::WelcomeLimits out;
  out.max_frame_bytes = static_cast<std::int64_t>(limits.parse.max_frame_bytes);
  out.messages_per_second = limits.message_rate_per_second;
  out.message_burst = static_cast<std::int64_t>(limits.message_burst);
  out.pace_messages_per_second = limits.message_rate_per_second * kPaceRateShare;
  out.pace_message_burst = static_cast<std::int64_t>(
      limits.message_burst > kPaceBurstSpare ? limits.message_burst - kPaceBurstSpare : 1);
  out.chats_per_second = limits.chat_rate_per_second;
  out.chat_burst = static_cast<std::int64_t>(limits.chat_burst);
  out.max_name_chars = limits.parse.max_name_chars;
  out.max_chat_chars = limits.parse.max_chat_chars;
  out.max_id_bytes = static_cast<std::int64_t>(limits.parse.max_id_bytes);
  out.min_turn_timer_seconds = limits.parse.min_turn_timer_seconds;
  out.max_turn_timer_seconds = limits.parse.max_turn_timer_seconds;
  out.max_spectators = static_cast<std::int64_t>(limits.max_spectators_per_room);
  out.idle_timeout_ms = limits.idle_timeout.count();
  out.seat_grace_ms = limits.seat_grace_period.count();
  return out;
}

}  // namespace gofish::server
