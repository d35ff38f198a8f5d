#include "server/store/sharded_writer.hpp"

#include <mutex>
#include <stdexcept>
#include <thread>

#include "server/store/fnv1a.hpp"

namespace gofish::server {

ShardedWriter::ShardedWriter(const std::vector<Store*>& lanes, std::optional<std::chrono::seconds> retention,
                             std::chrono::milliseconds prune_period, StoreHealth* health) {
  if (lanes.empty()) throw std::invalid_argument("a ShardedWriter needs at least one lane");
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    lanes_.push_back(
        std::make_unique<StoreWriter>(*lanes[i], i == 0 ? retention : std::nullopt, prune_period, health, i));
  }
}

// FNV-1a: the same lane for a code in every run and on every platform.
std::size_t ShardedWriter::lane_of(const std::string& room) const {
  return static_cast<std::size_t>(fnv1a(room) % lanes_.size());
}

void ShardedWriter::submit(std::string room, std::vector<Record>&& records, Done done) {
  auto& lane = *lanes_[lane_of(room)];
  lane.submit(std::move(room), std::move(records), std::move(done));
}

void ShardedWriter::on_fenced(const std::function<void(const std::string& room)>& fenced) {
  for (auto& lane : lanes_) lane->on_fenced(fenced);
}

void ShardedWriter::commit_delay(std::chrono::microseconds delay) {
  for (auto& lane : lanes_) lane->commit_delay(delay);
}

void ShardedWriter::flush_now() {
  for (auto& lane : lanes_) lane->flush_now();
}

void ShardedWriter::run_callbacks_with(const std::function<void(StoreWriter::Callbacks)>& hand_over) {
  for (auto& lane : lanes_) lane->run_callbacks_with(hand_over);
}

StoreWriter::Unwritten ShardedWriter::stop(StoreWriter::Clock::time_point deadline) {
  // Each lane is asked first, so that they finish side by side.
  StoreWriter::Unwritten unwritten;
  std::vector<std::thread> stopping;
  std::mutex mutex;
  for (auto& lane : lanes_) {
    stopping.emplace_back([&, writer = lane.get()] {
      auto left = writer->stop(deadline);
      std::lock_guard lock(mutex);
      unwritten.insert(unwritten.end(), left.begin(), left.end());
    });
  }
  for (auto& thread : stopping) thread.join();
  return unwritten;
}

std::uint64_t ShardedWriter::batches() const {
  std::uint64_t total = 0;
  for (const auto& lane : lanes_) total += lane->batches();
  return total;
}

}  // namespace gofish::server
