// Every class event of this process, by its code (server/rooms/event.hpp),
// beside the room registry: the rooms handler hands it every event message.
// Event codes are protocol::kEventCodeLength characters, drawn from the OS
// random source, so they never collide with room codes and never appear in
// the lobby. Thread-safe: the lock is held only for the map.
//
// With several servers on one store (use_leases) each event is held by one
// node at a time under a lease of its code, as a room is
// (server/rooms/leased_events.hpp): created with one, and taken over from
// the node holding it (or from a dead node, once its lease runs out) when a
// request names an event this node does not hold: join_event, read_roster
// and resume_event carry the code, and a teacher's or pupil's token is
// checked by the event once it is here. The event's tables are rooms, which
// follow it (Event::begin_after_restore looks each one up).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "protocol/messages.hpp"
#include "server/rooms/client.hpp"
#include "server/rooms/closed_events.hpp"
#include "server/rooms/event.hpp"
#include "server/rooms/leased_events.hpp"
#include "server/rooms/room.hpp"
#include "server/rooms/room_directory.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

class Registry;

class EventRegistry : public LeasedEvents {
 public:
  EventRegistry(const RoomServices& services, RoomDirectory& directory);
  ~EventRegistry() override;
  EventRegistry(const EventRegistry&) = delete;
  EventRegistry& operator=(const EventRegistry&) = delete;

  // Several servers share `store`: events are held by leases through
  // `registry` (after its use_leases), loaded when first asked for, never
  // all at start. Both outlive this registry.
  void use_leases(Registry& registry, Store& store);
  // Events closed before this server started are read back from `store`
  // (which outlives this registry) when asked for, read-only
  // (closed_events.hpp): resume_event, join_event and read_roster find them,
  // and so does the results download. Without it they are unknown.
  void keep_closed_in(Store& store);

  // LeasedEvents.
  std::vector<std::string> held_event_codes() const override;
  void event_lost(const std::string& code) override;
  void hand_event_over(const std::string& code, std::function<void(bool was_here)> released) override;

  // create_event, join_event, resume_event, read_roster and the teacher's
  // commands.
  void handle(const std::shared_ptr<Client>& client, protocol::ClientMessage& message);
  // Every event not closed, from the store, after its rooms are restored;
  // an event that cannot be read is logged and left out. Returns how many
  // came back.
  std::size_t restore(Store& store);
  std::size_t event_count() const;
  // The event of `code` (normalized), or nullptr.
  std::shared_ptr<Event> find(const std::string& code) const;
  // find's, or else a closed event read back from the store (keep_closed_in).
  std::shared_ptr<Event> find_or_closed(const std::string& code) const;
  // The event of `code`: held here, or (with leases) taken over and read
  // from the store (its tables' rooms follow it). `done` runs on an I/O
  // thread, with the event or the error to send.
  using FoundEvent = std::variant<std::shared_ptr<Event>, protocol::Error>;
  void find_event(const std::string& code, std::function<void(FoundEvent)> done);

 private:
  // Lets the event go from the map; null if it is not held here.
  std::shared_ptr<Event> let_go(const std::string& code);
  // A code for a new event, free here and (with leases) in the store, its
  // lease taken. Under mutex_.
  std::string draw_code();
  // A lookup's error, sent; a wrong code counts as a failed join of the
  // address (a busy store or a moving event does not).
  void refused(const Client& client, protocol::Error error, std::optional<protocol::RequestId> id);

  const RoomServices services_;
  Registry* leases_ = nullptr;  // use_leases
  Store* store_ = nullptr;
  RoomDirectory& directory_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Event>> events_;
  std::unique_ptr<ClosedEvents> closed_;  // keep_closed_in
};

}  // namespace gofish::server
