// Where rooms are found and made: by code, by a seat token, in the lobby.
// The rooms layer's handler (rooms_handler.hpp) knows rooms only through
// this seam. Today's implementation is the in-process Registry
// (registry.hpp); rooms spread over several machines need another one
// (a room found by code may live on, or be fetched from, another node), and
// nothing above this interface has to change for it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/card.hpp"
#include "protocol/messages.hpp"
#include "server/rooms/room.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

class RoomDirectory {
 public:
  virtual ~RoomDirectory() = default;

  // A new, empty room under a fresh code, made by a client at `creator` (an
  // address key, AddressLimits::key_of; empty for a room the server makes
  // itself, a class event's table, which no address is charged for), or why not (room/too_many_rooms:
  // the server's or the address's limits).
  virtual std::variant<std::shared_ptr<Room>, protocol::Error> create_room(const protocol::RoomSettings& settings,
                                                                          const std::string& creator) = 0;
  // Looking a room up may take a while (with leases, another node may hold
  // it and is asked to hand it over), so the answer comes to `done`: at once
  // on the calling thread when it is at hand, or later on one of the
  // server's I/O threads. No caller's thread ever waits for another node.
  // The answer is the room, or an error: room/not_found (no such room, or a
  // token naming no seat: room/bad_token) or room/busy (the room exists but
  // another node would not let it go in time; the client may try again).
  // The error carries no request id.
  //
  // The open room with this code.
  using Found = std::variant<std::shared_ptr<Room>, protocol::Error>;
  virtual void find(const std::string& code, std::function<void(Found)> done) = 0;
  // The room a seat token (by its keyed hash) belongs to, which finds the
  // seat itself; also a kicked player's token, so the room can answer
  // room/kicked.
  struct TokenSeat {
    std::shared_ptr<Room> room;
  };
  using FoundSeat = std::variant<TokenSeat, protocol::Error>;
  virtual void find_token(const TokenHash& hash, std::function<void(FoundSeat)> done) = 0;
  // Listed rooms still waiting for players, newest first, at most `limit`.
  // `done` runs at once or later on an I/O thread (a store read, on a
  // cluster, is made off them).
  using LobbyDone = std::function<void(std::vector<protocol::LobbyRoom>)>;
  virtual void lobby(std::size_t limit, LobbyDone done) = 0;
  // The keyed hash of seat tokens.
  virtual const TokenHasher& hasher() const = 0;
  // Failed joins from an address: a join whose code names no room, or a
  // resume whose token names no seat, is reported with join_failed (a
  // room/busy answer is not a failed join); once
  // they are over the rate, joins_refused holds for a while.
  virtual bool joins_refused(const std::string& address) = 0;
  virtual void join_failed(const std::string& address) = 0;
};

}  // namespace gofish::server
