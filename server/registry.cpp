#include "server/registry.hpp"

#include <algorithm>

#include "protocol/text.hpp"

namespace gofish::server {

Registry::Registry(RoomServices services) : services_(std::move(services)), addresses_(services_.limits) {}

std::variant<std::shared_ptr<Room>, protocol::Error> Registry::create_room(const protocol::RoomSettings& settings,
                                                                          const std::string& creator) {
  using protocol::ErrorCode;
  std::lock_guard lock(mutex_);
  if (rooms_.size() >= services_.limits.max_rooms) return protocol::default_error(ErrorCode::kRoomTooManyRooms);
  switch (addresses_.admit_room(creator, AddressLimits::Clock::now())) {
    case AddressLimits::RoomAdmission::kAdmitted: break;
    case AddressLimits::RoomAdmission::kRate:
      services_.metrics->room_request_refused("create_rate");
      return protocol::make_error(ErrorCode::kRoomTooManyRooms,
                                  "Rooms are being created too fast from your address; wait a moment and try again.");
    case AddressLimits::RoomAdmission::kAddressFull:
      services_.metrics->room_request_refused("address_rooms");
      return protocol::make_error(ErrorCode::kRoomTooManyRooms,
                                  "Your address has " + std::to_string(services_.limits.max_rooms_per_address) +
                                      " rooms open, as many as it may; try again once one has closed.");
  }
  // With at most max_rooms of 28.6 million codes taken, a draw collides
  // rarely; the loop is bounded by the cap all the same.
  std::string code;
  do {
    code = protocol::room_code_from_index(os_random_below(protocol::room_code_count()));
  } while (rooms_.contains(code));
  auto room = Room::make(services_, weak_from_this(), code, settings);
  rooms_.emplace(code, Entry{room, creator});
  order_.push_back(code);
  return room;
}

bool Registry::adopt(const std::shared_ptr<Room>& room) {
  std::lock_guard lock(mutex_);
  if (!rooms_.emplace(room->code(), Entry{room, {}}).second) return false;
  order_.push_back(room->code());
  return true;
}

std::shared_ptr<Room> Registry::find(const std::string& code) const {
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  return it == rooms_.end() ? nullptr : it->second.room;
}

void Registry::remove_room(const std::string& code, const Room* room) {
  std::shared_ptr<Room> removed;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  if (it == rooms_.end() || it->second.room.get() != room) return;
  removed = std::move(it->second.room);
  if (!it->second.creator.empty()) addresses_.room_closed(it->second.creator);
  rooms_.erase(it);
  std::erase(order_, code);
}

std::size_t Registry::room_count() const {
  std::lock_guard lock(mutex_);
  return rooms_.size();
}

bool Registry::joins_refused(const std::string& address) {
  if (!addresses_.joins_refused(address, AddressLimits::Clock::now())) return false;
  services_.metrics->room_request_refused("failed_joins");
  return true;
}

void Registry::join_failed(const std::string& address) { addresses_.join_failed(address, AddressLimits::Clock::now()); }

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
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) rooms.push_back(rooms_.at(*it).room);
  }
  std::vector<protocol::LobbyRoom> out;
  for (const auto& room : rooms) {
    if (out.size() >= limit) break;
    if (auto entry = room->lobby_entry()) out.push_back(std::move(*entry));
  }
  return out;
}

}  // namespace gofish::server
