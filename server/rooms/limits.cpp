#include "server/rooms/limits.hpp"

#include <cstdint>

#include "protocol/messages.hpp"

namespace gofish::server {

protocol::WelcomeLimits welcome_limits(const Limits& limits) {
  protocol::WelcomeLimits out;
  out.max_frame_bytes = static_cast<std::int64_t>(limits.parse.max_frame_bytes);
  out.messages_per_second = limits.message_rate_per_second;
  out.message_burst = static_cast<std::int64_t>(limits.message_burst);
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
