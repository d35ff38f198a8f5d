// The durability hold of a room (server/store/store.hpp): the records a room has
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
//
// A write that fails is tried again by the writer until it is written: what
// waits for it stays held, however long that takes (the room pauses
// meanwhile: room_impl.hpp). Nothing held is ever sent unless its records
// are committed. With leases (several servers on one store) nothing is sent
// either while the node's leases could have run out (StoreHealth::
// may_release): it is sent once a renewal confirms them.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/rooms/client.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

class StoreHealth;

class DurableOutbox {
 public:
  // What became of submission `number` (RecordSink::Done, numbered).
  using OnOutcome = std::function<void(std::uint64_t number, WriteOutcome outcome)>;

  // `sink` may be null (no durability); it outlives the outbox's
  // submissions. `health` may be null (always free to send).
  DurableOutbox(RecordSink* sink, std::string room_code, const StoreHealth* health = nullptr)
      : sink_(sink), health_(health), room_(std::move(room_code)) {}

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

  // Runs `action` now, or once every record written before it is
  // committed, in order with the messages sent (an event's report of a
  // table, say). It runs where the release runs: on the owner's strand, or
  // on the writer's callback for the last submission.
  void after(std::function<void()> action);

  // Hands what was queued (and the version `v`, if it moved) to the sink.
  // `on_outcome` is called from the sink: the caller brings it back to its
  // strand and calls committed() or retrying() there. A sink that throws
  // instead of taking the records (out of memory) is a write that failed:
  // the records are kept and handed over again by the next submit(), first;
  // false then, and the caller pauses and calls submit() again later.
  bool submit(std::int64_t v, const OnOutcome& on_outcome);
  // The room's last submission (its closing): once it is gone nobody holds
  // the room, so every message still held travels with this write and is
  // released by the sink's callback itself once it is written. Later
  // messages go out at once.
  void submit_final(std::int64_t v);
  // Submission `number` is committed: releases, in order, the messages
  // waiting for it or an earlier one (unless the node may not send now).
  void committed(std::uint64_t number);
  // Submission `number` failed and is tried again. True when the room was
  // not stalled before: it pauses.
  bool retrying(std::uint64_t number);
  // A write failed and is not committed yet: the room is paused.
  bool stalled() const { return unsent_.has_value() || retrying_ > durable_; }
  // The node may send again (its leases are confirmed): releases what is
  // committed and was held only for that.
  void release_committed();
  // The room has moved to another server and lost its lease: nothing more
  // is written, and what is held is never sent (its records will not be
  // committed here).
  void abandon();

 private:
  struct Held {
    std::uint64_t needs = 0;
    std::shared_ptr<Client> client;
    SharedText text;
    std::function<void()> action;  // instead of a message
    void release();
  };
  struct Unsent {
    std::uint64_t number = 0;
    std::vector<Record> records;
  };
  bool pending() const { return !queued_.empty() || version_moved_; }
  bool may_release() const;
  std::vector<Record> take(std::int64_t v);
  // Hands one numbered submission to the sink; false (kept in unsent_) when it throws.
  bool hand_over(std::uint64_t number, std::vector<Record> records, const OnOutcome& on_outcome);

  RecordSink* const sink_;
  const StoreHealth* const health_;
  const std::string room_;
  std::vector<Record> queued_;
  bool version_moved_ = false;
  bool final_ = false;
  std::uint64_t submitted_ = 0;
  std::uint64_t durable_ = 0;
  std::uint64_t retrying_ = 0;  // the latest submission reported failing
  std::optional<Unsent> unsent_;
  std::uint64_t unsent_tries_ = 0;  // hand-overs refused in a row
  std::deque<Held> held_;
};

}  // namespace gofish::server
