// Every bound the wire protocol puts on a client's input, in one struct, with
// its default typed here and nowhere else.
//
// The parser enforces these on each frame before anything else sees it; the
// server tells the client the ones it should respect in `welcome`, so a
// well-behaved client never meets the errors. The server holds this struct
// inside its own Limits (server/rooms/limits.hpp, member `parse`), whose flags write
// into it, so the parser, the WebSocket layer and `welcome` read the same
// values. Defaults are deliberately small: the largest legitimate frame is a
// create_room with every rules field spelled out and five bots, about 1 KiB.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gofish::protocol {

// The protocol version this library speaks. A hello naming another version is
// refused with protocol/version_mismatch.
inline constexpr int kProtocolVersion = 1;

// Integers a JavaScript client can hold exactly (2^53 - 1): the bound for
// request ids and room versions, so no client ever rounds one.
inline constexpr std::int64_t kMaxSafeInteger = 9007199254740991;

struct ParseLimits {
  // A longer frame is refused unread (protocol/too_large). The server's
  // WebSocket layer closes on a larger message before it is parsed (close code
  // 1009); flag --max-message-bytes.
  std::size_t max_frame_bytes = 4 * 1024;
  // Nesting of arrays and objects; create_room's bots need 3 (object, array,
  // object). Checked before the JSON parser runs, so a frame of ten thousand
  // brackets costs one linear scan.
  int max_depth = 4;
  // Display names, counted in Unicode code points after trimming
  // (--max-name-chars).
  int max_name_chars = 24;
  // Free chat text, counted in code points after trimming (--max-chat-chars).
  int max_chat_chars = 200;
  // A string request id, in bytes of printable ASCII.
  std::size_t max_id_bytes = 64;
  // hello's free-form client description ("web/0.1"), in bytes of printable ASCII.
  std::size_t max_client_bytes = 64;
  // A turn timer is 0 (none) or in [min, max] seconds
  // (--min-turn-timer-seconds, --max-turn-timer-seconds; tests go down to 1).
  int min_turn_timer_seconds = 10;
  int max_turn_timer_seconds = 300;
};

}  // namespace gofish::protocol
