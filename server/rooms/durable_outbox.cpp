#include "server/rooms/durable_outbox.hpp"

#include <algorithm>
#include <exception>

#include <spdlog/spdlog.h>

#include "server/store/store_health.hpp"

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

bool DurableOutbox::may_release() const { return health_ == nullptr || health_->may_release(); }

void DurableOutbox::send(const std::shared_ptr<Client>& client, SharedText text) {
  if (!sink_ || final_) return client->send(std::move(text));
  const std::uint64_t needs = submitted_ + (pending() ? 1 : 0);
  if (needs <= durable_ && held_.empty() && may_release()) {
    client->send(std::move(text));
  } else {
    held_.push_back(Held{needs, client, std::move(text), {}});
  }
}

void DurableOutbox::after(std::function<void()> action) {
  if (!sink_ || final_) return action();
  const std::uint64_t needs = submitted_ + (pending() ? 1 : 0);
  if (needs <= durable_ && held_.empty() && may_release()) {
    action();
  } else {
    held_.push_back(Held{needs, nullptr, nullptr, std::move(action)});
  }
}

void DurableOutbox::Held::release() {
  if (action) return action();
  client->send(std::move(text));
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

bool DurableOutbox::hand_over(std::uint64_t number, std::vector<Record> records, const OnOutcome& on_outcome) {
  try {
    // A sink that throws leaves the records where they were.
    sink_->submit(room_, std::move(records),
                  [number, on_outcome](WriteOutcome outcome) { on_outcome(number, outcome); });
  } catch (const std::exception& error) {
    // Not taken: kept, and handed over again before anything later (said once).
    if (!unsent_tries_++) {
      spdlog::error("room {}: the store writer refused a write ({}); it is tried again", room_, error.what());
    }
    unsent_ = Unsent{number, std::move(records)};
    return false;
  }
  unsent_tries_ = 0;
  return true;
}

bool DurableOutbox::submit(std::int64_t v, const OnOutcome& on_outcome) {
  if (!sink_) return true;
  if (unsent_) {
    Unsent again = std::move(*unsent_);
    unsent_.reset();
    if (!hand_over(again.number, std::move(again.records), on_outcome)) return false;
  }
  if (!pending()) return true;
  return hand_over(++submitted_, take(v), on_outcome);
}

void DurableOutbox::submit_final(std::int64_t v) {
  final_ = true;
  if (!sink_) return;
  if (unsent_) {
    // The writer refused an earlier write and the room closes: its records
    // and everything after them are lost, and nothing held is sent.
    spdlog::error("room {}: closing with a write the store writer refused; its last records are lost", room_);
    unsent_.reset();
    queued_.clear();
    version_moved_ = false;
    held_.clear();
    return;
  }
  if (!pending() && held_.empty()) return;
  // Commits and their callbacks run in submission order, so these follow
  // everything sent before; an empty submission (nothing new queued) is
  // committed once those before it are.
  auto orphans = std::make_shared<std::deque<Held>>(std::move(held_));
  held_.clear();
  const StoreHealth* health = health_;
  auto release = [orphans, health](WriteOutcome outcome) {
    if (outcome == WriteOutcome::kRetrying) return;
    // Fenced out, or past the node's leases: never sent.
    if (outcome != WriteOutcome::kWritten || (health && !health->may_release())) return;
    for (Held& held : *orphans) held.release();
  };
  std::vector<Record> records = take(v);
  ++submitted_;
  try {
    sink_->submit(room_, std::move(records), release);
  } catch (const std::exception& error) {
    spdlog::error("room {}: the store writer refused the room's last write ({}); it is lost", room_, error.what());
  }
}

void DurableOutbox::abandon() {
  final_ = true;
  queued_.clear();
  version_moved_ = false;
  unsent_.reset();
  held_.clear();
}

void DurableOutbox::committed(std::uint64_t number) {
  durable_ = std::max(durable_, number);
  release_committed();
}

bool DurableOutbox::retrying(std::uint64_t number) {
  if (number <= durable_) return false;  // written meanwhile: the news came late
  const bool was = stalled();
  retrying_ = std::max(retrying_, number);
  return !was;
}

void DurableOutbox::release_committed() {
  if (!may_release()) return;
  while (!held_.empty() && held_.front().needs <= durable_) {
    Held next = std::move(held_.front());
    held_.pop_front();
    next.release();
  }
}

}  // namespace gofish::server
