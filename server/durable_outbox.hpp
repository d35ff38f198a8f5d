// The durability hold of a room (server/store.hpp): the records a room has
// written and not yet handed to the store, and every message it has sent
// since, held until those records are committed. So no client ever sees an
// effect whose cause a crash could still lose, and no room strand waits for
// an fsync.
//
// Records are handed over in submissions, one per strand turn of the room
// (the room calls submit() from a handler it posts when write() or
// version_moved() says the first record of a turn arrived); each submission
// is numbered, and a message waits for the submission that was pending when
// it was sent. Without a sink nothing is written or held.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/client.hpp"
#include "server/store.hpp"

namespace gofish::server {

class DurableOutbox {
 public:
  // `sink` may be null (no durability); it outlives the outbox's submissions.
  DurableOutbox(RecordSink* sink, std::string room_code) : sink_(sink), room_(std::move(room_code)) {}

  bool enabled() const { return sink_ != nullptr; }

  // Queues a record for the next submission. True when it is the first thing
  // queued since the last submission: the caller arranges a submit().
  bool write(Record record);
  // The room's version moved (an event is about to go out with it): the next
  // submission records the version, so no client sees a version the store
  // does not know. Same return as write().
  bool version_moved();

  // Sends now, or once every record written before it is committed.
  void send(const std::shared_ptr<Client>& client, SharedText text);

  // Hands what was queued (and the version `v`, if it moved) to the sink.
  // `on_commit(number, written)` is called from the sink: the caller brings
  // it back to its strand and calls committed() there. A sink that throws
  // instead of taking the records counts as a write that failed: it is
  // logged, and what waited for it goes out at once (on_commit is not called).
  void submit(std::int64_t v, std::function<void(std::uint64_t number, bool written)> on_commit);
  // The room's last submission (its closing): once it is gone nobody holds
  // the room, so every message still held travels with this write and is
  // released by the sink's callback itself. Later messages go out at once.
  void submit_final(std::int64_t v);
  // Releases, in order, the messages waiting for submission `number` or
  // earlier. `written` false: the write failed; they go out all the same
  // (holding them forever would freeze the table), and the caller logs it.
  void committed(std::uint64_t number, bool written);
  // The room has moved to another server and lost its lease: nothing more
  // is written, and what is held is never sent (its records will not be
  // committed here).
  void abandon();

 private:
  struct Held {
    std::uint64_t needs = 0;
    std::shared_ptr<Client> client;
    SharedText text;
  };
  bool pending() const { return !queued_.empty() || version_moved_; }
  std::vector<Record> take(std::int64_t v);

  RecordSink* const sink_;
  const std::string room_;
  std::vector<Record> queued_;
  bool version_moved_ = false;
  bool final_ = false;
  std::uint64_t submitted_ = 0;
  std::uint64_t durable_ = 0;
  std::deque<Held> held_;
};

}  // namespace gofish::server
