#include "server/durable_outbox.hpp"

#include <algorithm>
#include <exception>

#include <spdlog/spdlog.h>

namespace gofish::server {

bool DurableOutbox::write(Record record) {
  if (!sink_ || final_) return false;
  const bool first = !pending();
  queued_.push_back(std::move(record));
  return first;
}

bool DurableOutbox::version_moved() {
  if (!sink_ || final_) return false;
  const bool first = !pending();
  version_moved_ = true;
  return first;
}

void DurableOutbox::send(const std::shared_ptr<Client>& client, SharedText text) {
  const std::uint64_t needs = submitted_ + (pending() ? 1 : 0);
  if (needs <= durable_ || (final_ && !pending())) {
    client->send(std::move(text));
  } else {
    held_.push_back(Held{needs, client, std::move(text)});
  }
}

std::vector<Record> DurableOutbox::take(std::int64_t v) {
  // A game started in this turn: the version goes to the room's row, which a
  // store reads beside the latest game's decisions. Otherwise a turn that
  // ends with a decision (the usual action) carries the version in it.
  const bool started = std::any_of(queued_.begin(), queued_.end(), [](const Record& record) {
    return std::holds_alternative<record::GameStarted>(record);
  });
  auto* decision = queued_.empty() ? nullptr : std::get_if<record::DecisionAccepted>(&queued_.back());
  if (version_moved_ && decision && !started) {
    decision->v = v;
  } else if (version_moved_ || started) {
    queued_.push_back(record::RoomVersion{room_, v});
  }
  version_moved_ = false;
  std::vector<Record> records;
  records.swap(queued_);
  return records;
}

void DurableOutbox::submit(std::int64_t v, std::function<void(std::uint64_t, bool)> on_commit) {
  if (!sink_ || !pending()) return;
  const std::uint64_t number = ++submitted_;
  try {
    sink_->submit(room_, take(v), [number, on_commit = std::move(on_commit)](bool written) { on_commit(number, written); });
  } catch (const std::exception& error) {
    // The sink refused the records (out of memory): a failed write, whose
    // messages go out all the same, as when a commit fails.
    spdlog::error("room {}: the store writer refused a write ({}); what it recorded may not survive a restart",
                  room_, error.what());
    committed(number, false);
  }
}

void DurableOutbox::submit_final(std::int64_t v) {
  final_ = true;
  if (!sink_ || !pending()) return;
  ++submitted_;
  // Commits and their callbacks run in submission order, so these follow
  // everything sent before.
  auto orphans = std::make_shared<std::deque<Held>>(std::move(held_));
  held_.clear();
  auto release = [orphans](bool) {
    for (Held& held : *orphans) held.client->send(std::move(held.text));
  };
  try {
    sink_->submit(room_, take(v), release);
  } catch (const std::exception&) {
    release(false);
  }
}

void DurableOutbox::abandon() {
  final_ = true;
  queued_.clear();
  version_moved_ = false;
  held_.clear();
}

void DurableOutbox::committed(std::uint64_t number, bool /*written*/) {
  durable_ = std::max(durable_, number);
  while (!held_.empty() && held_.front().needs <= durable_) {
    held_.front().client->send(std::move(held_.front().text));
    held_.pop_front();
  }
}

}  // namespace gofish::server
