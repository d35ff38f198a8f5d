#include "server/rooms/closed_events.hpp"

#include <spdlog/spdlog.h>

#include "protocol/text.hpp"
#include "server/rooms/event.hpp"

namespace gofish::server {

ClosedEvents::ClosedEvents(const RoomServices& services, RoomDirectory& directory, Store& store)
    : services_(services), directory_(directory), store_(store) {}

std::shared_ptr<Event> ClosedEvents::find(const std::string& code) {
  // Codes of another shape are no event's: not worth a store round trip.
  if (code.size() != protocol::kEventCodeLength || !protocol::normalize_event_code(code)) return nullptr;
  {
    std::lock_guard lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->first != code) continue;
      kept_.splice(kept_.begin(), kept_, it);
      return kept_.front().second;
    }
  }
  std::optional<StoredEvent> stored;
  try {
    stored = store_.load_closed_event(code);
  } catch (const std::exception& failure) {
    spdlog::error("event {}: reading it back, closed, failed: {}", code, failure.what());
    return nullptr;
  }
  if (!stored) return nullptr;
  std::string problem;
  auto event = Event::restore(services_, directory_, *stored, &problem);
  if (!event) {
    spdlog::error("event {}: its closed record could not be read: {}", code, problem);
    return nullptr;
  }
  std::lock_guard lock(mutex_);
  // Read by another request meanwhile: either copy serves.
  kept_.emplace_front(code, event);
  if (kept_.size() > kKept) kept_.pop_back();
  return event;
}

}  // namespace gofish::server
