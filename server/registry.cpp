#include "server/registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "protocol/text.hpp"
#include "server/room_restore.hpp"

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
  // With rooms loaded on demand the store may hold a room not held here.
  const auto taken = [&](const std::string& candidate) {
    return rooms_.contains(candidate) || reserved_.contains(candidate) ||
           (on_demand_ && on_demand_->load_room(candidate).has_value());
  };
  do {
    code = protocol::room_code_from_index(os_random_below(protocol::room_code_count()));
  } while (taken(code));
  closed_.erase(code);
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

void Registry::reserve_code(const std::string& code) {
  std::lock_guard lock(mutex_);
  reserved_.insert(code);
}

std::shared_ptr<Room> Registry::held(const std::string& code) const {
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  return it == rooms_.end() ? nullptr : it->second.room;
}

std::shared_ptr<Room> Registry::find(const std::string& code) {
  if (auto room = held(code); room || !on_demand_) return room;
  std::lock_guard load(load_mutex_);
  if (auto room = held(code)) return room;  // rebuilt meanwhile
  {
    std::lock_guard lock(mutex_);
    if (closed_.contains(code) || reserved_.contains(code)) return nullptr;
  }
  const auto stored = on_demand_->load_room(code);
  if (!stored) return nullptr;
  std::string problem;
  return rebuild(*stored, *on_demand_, &problem);
}

std::shared_ptr<Room> Registry::rebuild(const StoredRoom& stored, Store& store, std::string* problem) {
  try {
    auto rebuilt = restore_room(stored, store);
    if (auto* restored = std::get_if<RestoredRoom>(&rebuilt)) {
      auto room = Room::restore(services_, weak_from_this(), std::move(*restored));
      if (adopt(room)) {
        room->begin_after_restore();
        return room;
      }
      *problem = "the code is taken twice";
    } else {
      *problem = std::get<std::string>(std::move(rebuilt));
    }
  } catch (const StoreError&) {
    throw;  // the store itself failed: no room can be trusted to it
  } catch (const std::exception& error) {
    *problem = std::string("rebuilding it failed: ") + error.what();
  } catch (...) {
    *problem = "rebuilding it failed with an unknown exception";
  }
  spdlog::error("room {} set aside: {}", stored.room, *problem);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  store.set_aside(stored.room, *problem, std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  reserve_code(stored.room);
  return nullptr;
}

Registry::Restored Registry::restore_all(Store& store) {
  Restored restored;
  for (const StoredRoom& stored : store.load_open_rooms()) {
    std::string problem;
    if (rebuild(stored, store, &problem)) ++restored.rooms;
  }
  const auto aside = store.set_aside_rooms();
  for (const SetAsideRoom& room : aside) reserve_code(room.room);
  restored.set_aside = aside.size();
  services_.metrics->rooms_set_aside(aside.size());
  return restored;
}

void Registry::load_on_demand(Store& store) {
  const auto aside = store.set_aside_rooms();
  for (const SetAsideRoom& room : aside) reserve_code(room.room);
  services_.metrics->rooms_set_aside(aside.size());
  on_demand_ = &store;
}

void Registry::room_closed(const std::string& code, const Room* room) {
  std::shared_ptr<Room> removed;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  if (it == rooms_.end() || it->second.room.get() != room) return;
  removed = std::move(it->second.room);
  if (!it->second.creator.empty()) addresses_.room_closed(it->second.creator);
  rooms_.erase(it);
  std::erase(order_, code);
  closed_.insert(code);
}

bool Registry::joins_refused(const std::string& address) {
  if (!addresses_.joins_refused(address, AddressLimits::Clock::now())) return false;
  services_.metrics->room_request_refused("failed_joins");
  return true;
}

void Registry::join_failed(const std::string& address) { addresses_.join_failed(address, AddressLimits::Clock::now()); }

std::size_t Registry::room_count() const {
  std::lock_guard lock(mutex_);
  return rooms_.size();
}

void Registry::token_issued(const TokenHash& hash, const std::shared_ptr<Room>& room, engine::Seat seat) {
  std::lock_guard lock(mutex_);
  tokens_[hash] = TokenEntry{room, seat};
}

void Registry::token_revoked(const TokenHash& hash) {
  std::lock_guard lock(mutex_);
  tokens_.erase(hash);
}

std::optional<Registry::TokenSeat> Registry::find_token(const TokenHash& hash) {
  const auto lookup = [&]() -> std::optional<TokenSeat> {
    std::lock_guard lock(mutex_);
    const auto it = tokens_.find(hash);
    if (it == tokens_.end()) return std::nullopt;
    auto room = it->second.room.lock();
    if (!room) return std::nullopt;
    return TokenSeat{std::move(room), it->second.seat};
  };
  if (auto found = lookup(); found || !on_demand_) return found;
  // Perhaps a seat of a room not loaded yet: the store knows which.
  std::string bytes(sizeof(hash.words), '\0');
  std::memcpy(bytes.data(), hash.words.data(), bytes.size());
  const auto code = on_demand_->room_of_token(bytes);
  if (!code || !find(*code)) return std::nullopt;
  return lookup();
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
