// How a room's messages reach the people in it. Every event is logged (its
// version is the room's next) and sent to every seat and spectator as each
// may see it: an engine event goes through engine::event_for per viewer, and
// everyone who sees the same thing shares one encoding. A returning player
// is sent what it missed, as its seat sees it, when that fits.
//
// Every message passes through the room's DurableOutbox, so none overtakes
// the records that caused it; only the news that the room paused or goes on
// again does not (notify_everyone).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "protocol/messages.hpp"
#include "server/rooms/durable_outbox.hpp"
#include "server/rooms/limits.hpp"
#include "server/rooms/room_log.hpp"
#include "server/rooms/seat_table.hpp"

namespace gofish::server {

class RoomFanout {
 public:
  RoomFanout(const SeatTable& seats, RoomLog& log, DurableOutbox& outbox, const Limits& limits)
      : seats_(seats), log_(log), outbox_(outbox), limits_(limits) {}

  void send(const std::shared_ptr<Client>& client, const protocol::ServerMessage& message);
  // To every seat owner connected and every spectator.
  void to_everyone(const protocol::ServerMessage& message);
  // To everyone at once, past the durability hold: news about the room
  // itself (room_paused, room_resumed), which is no effect of any record.
  void notify_everyone(const protocol::ServerMessage& message);
  // Logs the event and sends it to everyone.
  const RoomLog::Entry& record(protocol::RoomEvent event);
  // `shared` to spectators and to every seat whose own copy says no more;
  // a seat whose `own` copy differs (the seat to act names its legal
  // decisions; under table rules any seat its improper ones) gets that.
  void announce(const protocol::Turn& shared, const std::function<protocol::Turn(engine::Seat)>& own);
  // Sends the events after `last_v` as `seat` sees them; false (sending
  // nothing) when they are not all kept, or when they would fill more than
  // half of the connection's send queue: a longer replay would close the
  // client as a slow reader while the game carries on. The caller then sends
  // a snapshot.
  bool replay(const std::shared_ptr<Client>& client, engine::Seat seat, std::int64_t last_v);

 private:
  template <class Each>
  void for_each_member(Each&& each) const;

  const SeatTable& seats_;
  RoomLog& log_;
  DurableOutbox& outbox_;
  const Limits& limits_;
};

}  // namespace gofish::server
