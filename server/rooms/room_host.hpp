// What a room tells whoever keeps it (the room directory, registry.hpp): the
// seat tokens it hands out and takes back, so a resume can find the room, and
// that it has closed. A room knows only this interface, never the directory
// itself, and holds it weakly.
#pragma once

#include <memory>
#include <string>

#include "engine/card.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

class Room;

class RoomHost {
 public:
  virtual ~RoomHost() = default;
  // The holder of `token` (by its keyed hash) owns `seat` of `room`, or was
  // removed from it (the room answers room/kicked then).
  virtual void token_issued(const TokenHash& token, const std::shared_ptr<Room>& room, engine::Seat seat) = 0;
  virtual void token_revoked(const TokenHash& token) = 0;
  // The room has closed; its code is free again. A no-op if the code names
  // another room by now.
  virtual void room_closed(const std::string& code, const Room* room) = 0;
};

}  // namespace gofish::server
