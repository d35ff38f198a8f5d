// Every class event of this process, by its code (server/rooms/event.hpp),
// beside the room registry: the rooms handler hands it every event message.
// Event codes are protocol::kEventCodeLength characters, drawn from the OS
// random source, so they never collide with room codes and never appear in
// the lobby. Thread-safe: the lock is held only for the map.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "protocol/messages.hpp"
#include "server/rooms/client.hpp"
#include "server/rooms/event.hpp"
#include "server/rooms/room.hpp"
#include "server/rooms/room_directory.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

class EventRegistry {
 public:
  EventRegistry(const RoomServices& services, RoomDirectory& directory);

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

 private:
  const RoomServices services_;
  RoomDirectory& directory_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Event>> events_;
};

}  // namespace gofish::server
