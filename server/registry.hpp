// Every open room, by code, and every live seat token, by its keyed hash.
// Thread-safe: the handler looks rooms up from connection strands while rooms
// register tokens and remove themselves from their own strands. The lock is
// held only for map operations, never while a room runs.
//
// Room codes are drawn uniformly from the OS random source over all
// protocol::room_code_count() codes and drawn again on a collision (with an
// open room, or with a room set aside in the store).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "engine/card.hpp"
#include "protocol/messages.hpp"
#include "server/room.hpp"
#include "server/token.hpp"

namespace gofish::server {

class Registry : public std::enable_shared_from_this<Registry> {
 public:
  explicit Registry(RoomServices services);

  // A new, empty room with a fresh code, or room/too_many_rooms.
  std::variant<std::shared_ptr<Room>, protocol::ErrorCode> create_room(const protocol::RoomSettings& settings);
  std::shared_ptr<Room> find(const std::string& code) const;
  // A room rebuilt from the store, under its own code; false if the code is
  // taken already.
  bool adopt(const std::shared_ptr<Room>& room);
  // A code kept by a room set aside in the store (store.hpp): never handed
  // to a new room, since the store still holds a room under it.
  void reserve_code(const std::string& code);
  // Called by a room that expired; a no-op if the code now names another room.
  void remove_room(const std::string& code, const Room* room);
  std::size_t room_count() const;

  const TokenHasher& hasher() const { return *services_.hasher; }
  const RoomServices& services() const { return services_; }
  void add_token(const TokenHash& hash, const std::shared_ptr<Room>& room, engine::Seat seat);
  void remove_token(const TokenHash& hash);
  struct TokenSeat {
    std::shared_ptr<Room> room;
    engine::Seat seat = 0;
  };
  std::optional<TokenSeat> find_token(const TokenHash& hash) const;

  // Listed rooms still waiting for players, newest first, at most `limit`.
  std::vector<protocol::LobbyRoom> lobby(std::size_t limit = kLobbyLimit) const;
  static constexpr std::size_t kLobbyLimit = 50;

 private:
  struct TokenEntry {
    std::weak_ptr<Room> room;
    engine::Seat seat = 0;
  };

  const RoomServices services_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Room>> rooms_;
  std::unordered_set<std::string> reserved_;
  std::vector<std::string> order_;  // codes in creation order, for the lobby
  std::unordered_map<TokenHash, TokenEntry, TokenHashHash> tokens_;
};

}  // namespace gofish::server
