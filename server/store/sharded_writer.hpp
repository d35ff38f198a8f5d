// Several StoreWriters side by side, each with its own connection to the
// store, so that commits may overlap: with PostgreSQL's default durability
// each COMMIT waits for a WAL flush, and one connection waits for one at a
// time (`--postgres-writers`). Whether that pays depends on what limits:
// with the database on the server's machine its CPU did, and four lanes
// made fewer actions/s than one (docs/BENCHMARKS.md), so one is the
// default; a database far away, whose commits take long, is where more
// lanes are meant to help.
//
// A room's records always go to the same lane (by a hash of its code), so
// they are committed in the order the room submitted them and their
// callbacks run in that order too; rooms on different lanes are independent
// (no record of one room depends on another's). Finished games are pruned
// by the first lane only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/store/store.hpp"

namespace gofish::server {

class ShardedWriter final : public RecordSink {
 public:
  // One lane per store, in order; each store is used by its lane's thread
  // only (with the first also for pruning). The stores outlive the writer.
  // Each lane reports to `health` (may be null) under its number.
  explicit ShardedWriter(const std::vector<Store*>& lanes, std::optional<std::chrono::seconds> retention = std::nullopt,
                         std::chrono::milliseconds prune_period = std::chrono::minutes(1),
                         StoreHealth* health = nullptr);

  void submit(std::string room, std::vector<Record>&& records, Done done) override;
  // As StoreWriter's, for every lane.
  void on_fenced(const std::function<void(const std::string& room)>& fenced);
  void commit_delay(std::chrono::microseconds delay);
  void flush_now();
  void run_callbacks_with(const std::function<void(StoreWriter::Callbacks)>& hand_over);
  // Every lane's StoreWriter::stop, with one deadline: what none could write.
  StoreWriter::Unwritten stop(StoreWriter::Clock::time_point deadline = StoreWriter::Clock::time_point::max());
  std::uint64_t batches() const;
  std::size_t lanes() const { return lanes_.size(); }
  // The lane a room's records go to.
  std::size_t lane_of(const std::string& room) const;

 private:
  std::vector<std::unique_ptr<StoreWriter>> lanes_;
};

}  // namespace gofish::server
