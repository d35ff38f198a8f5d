// Every open room, by code, and every live seat token, by its keyed hash.
// Thread-safe: the handler looks rooms up from connection strands while rooms
// register tokens and remove themselves from their own strands. The lock is
// held only for map operations, never while a room runs.
//
// Room codes are drawn uniformly from the OS random source over all
// protocol::room_code_count() codes and drawn again on a collision.
//
// It also keeps the per-address limits of the rooms layer (AddressLimits):
// who created each room, which counts against its address until the room is
// removed, how fast an address creates rooms, and its failed joins.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "engine/card.hpp"
#include "protocol/messages.hpp"
#include "server/address_limits.hpp"
#include "server/room.hpp"
#include "server/token.hpp"

namespace gofish::server {

class Registry : public std::enable_shared_from_this<Registry> {
 public:
  explicit Registry(RoomServices services);

  // A new, empty room with a fresh code, created from the address `creator`
  // (AddressLimits::key_of), or room/too_many_rooms: the server's max_rooms,
  // or the creator's room_create_rate or max_rooms_per_address.
  std::variant<std::shared_ptr<Room>, protocol::Error> create_room(const protocol::RoomSettings& settings,
                                                                  const std::string& creator);
  std::shared_ptr<Room> find(const std::string& code) const;
  // A room rebuilt from the store, under its own code; false if the code is
  // taken already.
  bool adopt(const std::shared_ptr<Room>& room);
  // Called by a room that expired; a no-op if the code now names another room.
  void remove_room(const std::string& code, const Room* room);
  std::size_t room_count() const;

  // Failed joins from an address (AddressLimits): a join whose code names
  // no room, or a resume whose token names no seat, is reported with
  // join_failed; once they are over the rate, joins_refused holds for a while.
  bool joins_refused(const std::string& address);
  void join_failed(const std::string& address);

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

  struct Entry {
    std::shared_ptr<Room> room;
    std::string creator;  // an address key; empty for a room restored from the store
  };

  const RoomServices services_;
  AddressLimits addresses_;  // its own lock, taken under mutex_ (never the other way)
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> rooms_;
  std::vector<std::string> order_;  // codes in creation order, for the lobby
  std::unordered_map<TokenHash, TokenEntry, TokenHashHash> tokens_;
};

}  // namespace gofish::server
