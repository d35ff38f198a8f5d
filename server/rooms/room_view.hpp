// What a room tells one viewer about itself, read from the room's parts
// without changing them: the snapshot a joining or resuming client gets, and
// the `turn` that closes every decision's events. Hiding stays in the engine
// (view_of for the game; a seat's legal and improper decisions go to that
// seat alone), so this is where a snapshot or a turn could leak, and the room
// tests check both for every viewer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/card.hpp"
#include "protocol/messages.hpp"
#include "server/rooms/room_game.hpp"
#include "server/rooms/seat_table.hpp"

namespace gofish::server {

class RoomView {
 public:
  RoomView(const std::string& code, const protocol::RoomSettings& settings, const SeatTable& seats,
           protocol::RoomState state, int game_number, const std::optional<RoomGame>& game, std::int64_t v,
           std::optional<protocol::TurnTimer> timer, std::optional<protocol::DealFairness> next_deal = std::nullopt)
      : code_(code),
        settings_(settings),
        seats_(seats),
        state_(state),
        game_number_(game_number),
        game_(game),
        v_(v),
        timer_(std::move(timer)),
        next_deal_(std::move(next_deal)) {}

  // The whole room as `you` may see it (a seat, or nullopt for a spectator).
  protocol::RoomSnapshot snapshot(std::optional<engine::Seat> you) const;
  // Who is to act at version v; `viewer`'s legal decisions when it is that
  // seat (and it has any), under table rules `viewer`'s improper decisions
  // whoever is to act (when it has any), nothing of anyone else's.
  protocol::Turn turn(std::optional<engine::Seat> viewer) const;
  // The coach viewer: what a class event's teacher sees of a table when the
  // event has coaching, every seat's hand, each exactly as that seat's own
  // view shows it to its player (engine::view_of). Empty without a game.
  // Nothing else builds a hand for anyone but its owner.
  std::vector<engine::CardSet> coach_hands() const;

 private:
  const std::string& code_;
  const protocol::RoomSettings& settings_;
  const SeatTable& seats_;
  const protocol::RoomState state_;
  const int game_number_;
  const std::optional<RoomGame>& game_;
  const std::int64_t v_;
  const std::optional<protocol::TurnTimer> timer_;  // a copy: a caller may pass a temporary
  const std::optional<protocol::DealFairness> next_deal_;  // the commitment alone, never the seed
};

}  // namespace gofish::server
