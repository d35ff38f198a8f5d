// A room's versioned event log (protocol/README.md, "Room versions"): one
// counter per room, one more per event, and the latest events kept so that
// a client coming back can be sent what it missed.
//
// Engine events are kept as the engine made them, unfiltered: whoever sends
// one passes it through engine::event_for for its viewer first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "protocol/messages.hpp"

namespace gofish::server {

class RoomLog {
 public:
  struct Entry {
    std::int64_t v = 0;
    protocol::RoomEvent event;
  };

  // Keeps the last `capacity` events; a restored room carries on from `v`
  // with none kept (they were never stored).
  explicit RoomLog(std::size_t capacity, std::int64_t v = 0) : capacity_(capacity), v_(v) {}

  // The version of the latest event (0 before the first).
  std::int64_t v() const { return v_; }

  // Logs the event as version v() + 1.
  const Entry& append(protocol::RoomEvent event);

  // The events after `last_v`, oldest first (none when it is the latest), or
  // nullopt when they cannot all be given: `last_v` is older than what is
  // kept, or newer than the room.
  std::optional<std::vector<const Entry*>> since(std::int64_t last_v) const;

 private:
  std::size_t capacity_;
  std::int64_t v_;
  std::deque<Entry> kept_;
};

}  // namespace gofish::server
