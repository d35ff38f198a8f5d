#include "server/registry.hpp"

#include <algorithm>

#include "protocol/text.hpp"

namespace gofish::server {

Registry::Registry(RoomServices services) : services_(std::move(services)) {}

std::variant<std::shared_ptr<Room>, protocol::ErrorCode> Registry::create_room(
    const protocol::RoomSettings& settings) {
  std::lock_guard lock(mutex_);
  if (rooms_.size() >= services_.limits.max_rooms) return protocol::ErrorCode::kRoomTooManyRooms;
  // With at most max_rooms of 28.6 million codes taken, a draw collides
  // rarely; the loop is bounded by the cap all the same.
  std::string code;
  do {
    code = protocol::room_code_from_index(os_random_below(protocol::room_code_count()));
  } while (rooms_.contains(code) || reserved_.contains(code));
  auto room = Room::make(services_, weak_from_this(), code, settings);
  rooms_.emplace(code, room);
  order_.push_back(code);
  return room;
}

bool Registry::adopt(const std::shared_ptr<Room>& room) {
  std::lock_guard lock(mutex_);
  if (!rooms_.emplace(room->code(), room).second) return false;
  order_.push_back(room->code());
  return true;
}

void Registry::reserve_code(const std::string& code) {
  std::lock_guard lock(mutex_);
  reserved_.insert(code);
}

std::shared_ptr<Room> Registry::find(const std::string& code) const {
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  return it == rooms_.end() ? nullptr : it->second;
}

void Registry::remove_room(const std::string& code, const Room* room) {
  std::shared_ptr<Room> removed;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  if (it == rooms_.end() || it->second.get() != room) return;
  removed = std::move(it->second);
  rooms_.erase(it);
  std::erase(order_, code);
}

std::size_t Registry::room_count() const {
  std::lock_guard lock(mutex_);
  return rooms_.size();
}

void Registry::add_token(const TokenHash& hash, const std::shared_ptr<Room>& room, engine::Seat seat) {
  std::lock_guard lock(mutex_);
  tokens_[hash] = TokenEntry{room, seat};
}

void Registry::remove_token(const TokenHash& hash) {
  std::lock_guard lock(mutex_);
  tokens_.erase(hash);
}

std::optional<Registry::TokenSeat> Registry::find_token(const TokenHash& hash) const {
  std::lock_guard lock(mutex_);
  const auto it = tokens_.find(hash);
  if (it == tokens_.end()) return std::nullopt;
  auto room = it->second.room.lock();
  if (!room) return std::nullopt;
  return TokenSeat{std::move(room), it->second.seat};
}

std::vector<protocol::LobbyRoom> Registry::lobby(std::size_t limit) const {
  std::vector<std::shared_ptr<Room>> rooms;
  {
    std::lock_guard lock(mutex_);
    rooms.reserve(order_.size());
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) rooms.push_back(rooms_.at(*it));
  }
  std::vector<protocol::LobbyRoom> out;
  for (const auto& room : rooms) {
    if (out.size() >= limit) break;
    if (auto entry = room->lobby_entry()) out.push_back(std::move(*entry));
  }
  return out;
}

}  // namespace gofish::server
