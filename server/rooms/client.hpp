// One connection as the rooms layer sees it: where to send, and which room
// its room messages go to.
//
// The handler creates a Client in on_open and drops it in on_close. A room
// holds Clients, never a Connection directly, and a Client holds its
// connection and its room weakly: nothing the rooms layer keeps (a room in a
// queued handler after the I/O threads stopped, say) can keep a socket, and
// through it the io_context, alive.
//
// `room` is set by the handler when it forwards a create, join or resume, so
// the messages that follow queue on that room's strand behind it, in order;
// the room clears it again if it refuses the request, on leave and on kick.
// The room, on its strand, is the judge of membership: a message that reaches
// a room whose member the client is not gets room/not_in_room there.
//
// A join or resume whose room is still being looked up (RoomDirectory::find
// may answer later, from another thread) leaves the client `waiting`: the
// messages that arrive meanwhile are kept in `held_back`, in order, and
// handled once the answer is; a close meanwhile is left to that answer too.
// At most kMaxHeldBack are kept: the message rate lets a client send more
// than that during a long lookup, and those are dropped with
// protocol/rate_limited.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "server/rooms/connection.hpp"

namespace gofish::server {

class Room;
class Event;

class Client {
 public:
  explicit Client(const std::shared_ptr<Connection>& connection)
      : connection_(connection),
        id_(connection->id()),
        address_(connection->address_key()),
        route_(connection->route()) {}

  std::uint64_t id() const { return id_; }
  // The peer's address for per-address limits (Connection::address_key).
  const std::string& address() const { return address_; }
  // The code the socket was routed by (Connection::route); empty if none.
  const std::string& route() const { return route_; }

  void send(const SharedText& text) const {
    if (auto connection = connection_.lock()) connection->send(text);
  }
  void send(SharedText&& text) const {
    if (auto connection = connection_.lock()) connection->send(std::move(text));
  }
  void close(CloseReason reason) const {
    if (auto connection = connection_.lock()) connection->close(std::move(reason));
  }

  std::shared_ptr<Room> room() const {
    std::lock_guard lock(mutex_);
    return room_.lock();
  }
  void set_room(const std::shared_ptr<Room>& room) {
    std::lock_guard lock(mutex_);
    room_ = room;
  }
  // Clears the room only if it is still `room`: a refusal from a room the
  // client has already left must not detach it from the next one.
  void clear_room(const Room* room) {
    std::lock_guard lock(mutex_);
    if (auto current = room_.lock(); !current || current.get() == room) room_.reset();
  }

  // The class event the connection is in (as its teacher or a pupil), set
  // by the handler as it forwards create_event, join_event or resume_event;
  // the event clears it when it refuses the request. A connection may be in
  // an event and in one of its tables' rooms at once.
  std::shared_ptr<Event> event() const {
    std::lock_guard lock(mutex_);
    return event_.lock();
  }
  void set_event(const std::shared_ptr<Event>& event) {
    std::lock_guard lock(mutex_);
    event_ = event;
  }
  void clear_event(const Event* event) {
    std::lock_guard lock(mutex_);
    if (auto current = event_.lock(); !current || current.get() == event) event_.reset();
  }

  // Set once the client's hello was accepted; read and written only by the
  // handler's calls for this client, which are serial (on the connection's
  // strand, or after a lookup, while held-back messages wait).
  bool greeted = false;

  // A lookup is under way (see above). Guarded by `waiting_mutex`, which is
  // never held while a message is handled.
  struct HeldBack {
    std::string text;
    std::chrono::steady_clock::time_point arrived;
  };
  std::mutex waiting_mutex;
  bool waiting = false;
  bool closed = false;  // on_close came while waiting
  std::deque<HeldBack> held_back;
  static constexpr std::size_t kMaxHeldBack = 32;

 private:
  std::weak_ptr<Connection> connection_;
  const std::uint64_t id_;
  const std::string address_;
  const std::string route_;
  mutable std::mutex mutex_;
  std::weak_ptr<Room> room_;
  std::weak_ptr<Event> event_;
};

}  // namespace gofish::server
