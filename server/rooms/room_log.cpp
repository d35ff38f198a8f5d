#include "server/rooms/room_log.hpp"

namespace gofish::server {

const RoomLog::Entry& RoomLog::append(protocol::RoomEvent event) {
  kept_.push_back(Entry{++v_, std::move(event)});
  while (kept_.size() > capacity_) kept_.pop_front();
  return kept_.back();
}

std::optional<std::vector<const RoomLog::Entry*>> RoomLog::since(std::int64_t last_v) const {
  if (last_v > v_ || last_v < 0) return std::nullopt;
  std::vector<const Entry*> missed;
  if (last_v == v_) return missed;
  if (kept_.empty() || kept_.front().v > last_v + 1) return std::nullopt;
  for (const Entry& entry : kept_) {
    if (entry.v > last_v) missed.push_back(&entry);
  }
  return missed;
}

}  // namespace gofish::server
