// Class events closed before this server last started (issue 34): the
// registry holds only open events, so a closed one's results (the CSV, the
// console's read_results and its replay links) would be lost with a
// restart. ClosedEvents reads such an event back from the store when it is
// first asked for, read-only: Event::restore in its closed phase, which
// refuses every command but read_results and writes nothing, and is never
// put among the open events (no lease, no tables watched).
//
// Bounded: a code that is not of event shape never reaches the store, and
// a well-formed one costs one read by the events table's key (the pupils
// and tables only when it is a closed event), which is what an unknown
// game id costs GET /api/games/<id>/transcript. At most kKept events are
// held, the most recently asked for; an older one is read again when asked.
// Thread-safe: the lock is held for the list only, never over the read.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "server/rooms/room.hpp"
#include "server/rooms/room_directory.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

class Event;

class ClosedEvents {
 public:
  // `store` and `directory` outlive this.
  ClosedEvents(const RoomServices& services, RoomDirectory& directory, Store& store);

  // The closed event of `code` (normalized), or nullptr: none stored, not
  // closed, or the store failed (logged).
  std::shared_ptr<Event> find(const std::string& code);

  static constexpr std::size_t kKept = 16;

 private:
  const RoomServices services_;
  RoomDirectory& directory_;
  Store& store_;
  std::mutex mutex_;
  std::list<std::pair<std::string, std::shared_ptr<Event>>> kept_;  // most recently asked for first
};

}  // namespace gofish::server
