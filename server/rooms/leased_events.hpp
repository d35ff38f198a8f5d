// What the room registry asks of the class events when several servers
// share one store (Registry::serve_events): an event is held by a lease
// under its code, as a room is (the same lease rows, renewals, handovers
// and fence), so the lease keeper, which deals with the registry alone,
// renews, loses and hands over events' codes too. Event codes are
// protocol::kEventCodeLength characters long, room codes shorter, so a
// code says which it is.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gofish::server {

class LeasedEvents {
 public:
  virtual ~LeasedEvents() = default;
  // The codes of the events held here.
  virtual std::vector<std::string> held_event_codes() const = 0;
  // The event's lease is lost: it is let go without a record, its
  // connections told `moved`.
  virtual void event_lost(const std::string& code) = 0;
  // Another node asks for the event: let go once what it wrote is
  // committed, then `released(true)`; `released(false)` at once if it is
  // not held here.
  virtual void hand_event_over(const std::string& code, std::function<void(bool was_here)> released) = 0;
};

}  // namespace gofish::server
