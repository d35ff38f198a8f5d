#include "server/store.hpp"

#include <spdlog/spdlog.h>

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <span>

#include "server/token.hpp"

namespace gofish::server {

// The plain way, for a store with no quicker one: read every open room.
std::optional<StoredRoom> Store::load_room(const std::string& code) {
  for (StoredRoom& room : load_open_rooms()) {
    if (room.room == code) return std::move(room);
  }
  return std::nullopt;
}

std::vector<StoredRoom> Store::waiting_rooms(std::size_t) { return {}; }

std::optional<std::string> Store::room_of_token(const std::string& token_hash) {
  for (const StoredRoom& room : load_open_rooms()) {
    for (const StoredSeat& seat : room.seats) {
      if (seat.token_hash == token_hash) return room.room;
    }
  }
  return std::nullopt;
}

std::vector<std::string> Store::commit_rooms(const std::vector<RoomRecords>& batch) {
  std::vector<Record> records;
  for (const RoomRecords& room : batch) records.insert(records.end(), room.records.begin(), room.records.end());
  commit(records);
  return {};
}

// One node: every room is its own, always at the first epoch.
std::optional<std::int64_t> Store::take_lease(const std::string&, const std::string&, std::chrono::milliseconds) {
  return 1;
}
std::vector<std::string> Store::renew_leases(const std::string&, std::chrono::milliseconds) { return {}; }
void Store::release_leases(const std::string&, const std::vector<std::string>&) {}
std::optional<std::string> Store::ask_handover(const std::string&, const std::string&, const std::string&) {
  return std::nullopt;
}
std::vector<std::string> Store::handover_requests() { return {}; }

NullStore::NullStore() {
  std::array<std::uint8_t, sizeof(key_)> bytes{};
  os_random_bytes(bytes);
  std::memcpy(key_.data(), bytes.data(), bytes.size());
}

StoreWriter::StoreWriter(Store& store, std::optional<std::chrono::seconds> retention,
                         std::chrono::milliseconds prune_period)
    : store_(store), retention_(retention), prune_period_(prune_period), thread_([this] { run(); }) {}

StoreWriter::~StoreWriter() { stop(); }

void StoreWriter::submit(std::string room, std::vector<Record> records, Done done) {
  {
    std::lock_guard lock(mutex_);
    if (!stopped_) {
      queue_.push_back(Pending{std::move(room), std::move(records), std::move(done)});
      // The writer waits for the first of a batch; the rest join it.
      if (queue_.size() == 1) wake_.notify_one();
      return;
    }
  }
  // After stop(): nobody else writes, so write here.
  std::vector<Pending> batch;
  batch.push_back(Pending{std::move(room), std::move(records), std::move(done)});
  write(batch);
}

void StoreWriter::flush_now() {
  std::lock_guard lock(mutex_);
  if (queue_.empty() || flush_) return;
  flush_ = true;
  wake_.notify_one();
}

void StoreWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  stopped_ = true;
}

std::uint64_t StoreWriter::batches() const {
  std::lock_guard lock(mutex_);
  return batches_;
}

void StoreWriter::run() {
  pthread_setname_np(pthread_self(), "store-writer");
  // One vector goes back and forth with queue_, so the queue keeps the
  // capacity of the batches before it: growing it from nothing on every
  // batch, on the rooms' threads, cost reallocations and, at a few KiB,
  // glibc's consolidation of its free lists (perf under bench/run's load).
  std::vector<Pending> batch;
  for (;;) {
    batch.clear();
    {
      std::unique_lock lock(mutex_);
      const auto ready = [this] { return stopping_ || !queue_.empty(); };
      if (retention_) {
        // An idle server still lets old games go, once per prune period.
        wake_.wait_for(lock, prune_period_, ready);
      } else {
        wake_.wait(lock, ready);
      }
      if (queue_.empty() && stopping_) return;  // everything is written
      if (!queue_.empty() && commit_delay_.count() > 0) {
        // Group commit: other rooms' records join this batch meanwhile,
        // until the I/O threads have nothing more to do (flush_now).
        wake_.wait_for(lock, commit_delay_, [this] { return stopping_ || flush_; });
      }
      flush_ = false;
      batch.swap(queue_);
    }
    if (!batch.empty()) write(batch);
    maybe_prune();
  }
}

void StoreWriter::maybe_prune() {
  if (!retention_) return;
  const auto now = std::chrono::steady_clock::now();
  if (last_prune_ != std::chrono::steady_clock::time_point{} && now - last_prune_ < prune_period_) return;
  last_prune_ = now;
  const auto cutoff = std::chrono::duration_cast<std::chrono::milliseconds>(
                          (std::chrono::system_clock::now() - *retention_).time_since_epoch())
                          .count();
  try {
    if (const auto removed = store_.prune_finished(cutoff); removed > 0) {
      spdlog::info("storage: {} finished games past their retention deleted", removed);
    }
  } catch (const std::exception& error) {
    spdlog::error("storage: deleting old finished games failed: {}", error.what());
  }
}

void StoreWriter::write(std::vector<Pending>& batch) {
  // The records move to the store's batch, not copied; each submission
  // keeps its room and callback.
  std::vector<RoomRecords> rooms;
  rooms.reserve(batch.size());
  for (auto& pending : batch) rooms.push_back(RoomRecords{pending.room, std::move(pending.records)});
  // Each submission's callback and whether its records were written.
  auto results = std::make_shared<std::vector<std::pair<Done, bool>>>();
  results->reserve(batch.size());
  const auto fenced_out = [this](const std::vector<std::string>& fenced) {
    for (const std::string& room : fenced) {
      spdlog::warn("storage: room {} was fenced out: another node holds its lease; its last records are not written",
                   room);
      if (on_fenced_) on_fenced_(room);
    }
  };
  if (const auto fenced = commit(rooms)) {
    fenced_out(*fenced);
    for (auto& pending : batch) {
      const bool written = std::find(fenced->begin(), fenced->end(), pending.room) == fenced->end();
      results->emplace_back(std::move(pending.done), written);
    }
  } else {
    // One bad submission must not refuse the others': write each on its own.
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto alone = batch.size() > 1 ? commit({rooms[i]}) : std::nullopt;
      if (alone) fenced_out(*alone);
      const bool written = alone && std::find(alone->begin(), alone->end(), batch[i].room) == alone->end();
      results->emplace_back(std::move(batch[i].done), written);
    }
  }
  auto run = [results] {
    for (auto& [done, written] : *results) {
      if (done) done(written);
    }
  };
  // Once stopping (the I/O threads are done or going), here, as before.
  bool hand_over = false;
  {
    std::lock_guard lock(mutex_);
    hand_over = hand_over_ && !stopping_;
  }
  if (hand_over) {
    hand_over_(std::move(run));
  } else {
    run();
  }
}

std::optional<std::vector<std::string>> StoreWriter::commit(const std::vector<RoomRecords>& batch) {
  try {
    auto fenced = store_.commit_rooms(batch);
    std::lock_guard lock(mutex_);
    ++batches_;
    return fenced;
  } catch (const std::exception& error) {
    std::size_t records = 0;
    for (const auto& room : batch) records += room.records.size();
    spdlog::error("storage: a write of {} records failed: {}", records, error.what());
    return std::nullopt;
  }
}

}  // namespace gofish::server
