// How the store is doing, as this server's writers and lease keeper see it:
// the one place rooms, the rooms handler, /healthz, /readyz and /metrics ask.
//
// - Writes. Each writer lane (StoreWriter) reports after every try what
//   waits after failed writes: how many rooms and records, and since when.
//   An outage is the time during which anything waits; its start and its
//   end are logged once each, whatever the number of rooms and writes.
// - Leases (several servers on one PostgreSQL, server/rooms/lease_keeper.hpp). A node
//   whose leases could have run out, by its own clock, may have lost its
//   rooms to another node that rebuilt them from the store: from that
//   moment it sends nothing more of any room (may_release), so no client
//   sees a room go on here that goes on differently there, until a
//   renewal confirms the leases (or tells which are lost). The moment is
//   the start of the last renewal that succeeded, plus the lease TTL, less
//   a margin for the two clocks' drift.
//
// Thread-safe; may_release() is on the hot path (an atomic load, and a
// clock read with leases).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gofish::server {

class StoreHealth {
 public:
  using Clock = std::chrono::steady_clock;

  // `lanes`: the writers reporting (ShardedWriter's lanes). Past
  // `outage_limit` of the oldest waiting record, /healthz answers 503.
  explicit StoreHealth(std::size_t lanes = 1, std::chrono::milliseconds outage_limit = std::chrono::seconds(30));

  // ---- The writers
  struct Waiting {
    std::size_t rooms = 0;
    std::size_t records = 0;
    Clock::time_point oldest{};  // when the oldest waiting submission was made
  };
  // Lane `lane` tried to write. `waiting`: what waits now after failed
  // writes (zero rooms: nothing). `error`: why this try failed, empty when
  // it did not. `written`: records written by this try that had waited.
  void lane_tried(std::size_t lane, const Waiting& waiting, const std::string& error, std::size_t written);

  // ---- Leases
  // From now on rooms release nothing past the leases' validity.
  void use_leases(std::chrono::milliseconds ttl, std::chrono::milliseconds margin);
  // A renewal sent at `sent` succeeded: the leases it renewed hold until
  // `sent` + TTL at the earliest, by the database's clock.
  void leases_renewed(Clock::time_point sent);
  // Whether a room may send what it did: always without leases; with them,
  // until the leases could have run out.
  bool may_release() const {
    if (!leases_.load(std::memory_order_relaxed)) return true;
    return Clock::now().time_since_epoch().count() < valid_until_.load(std::memory_order_acquire);
  }

  // The moment the leases could run out, as far as this node knows.
  Clock::time_point leases_valid_until() const {
    return Clock::time_point(Clock::duration(valid_until_.load(std::memory_order_acquire)));
  }

  // ---- What others read
  struct Report {
    std::size_t rooms = 0;    // rooms with records waiting
    std::size_t records = 0;  // records waiting
    std::optional<Clock::duration> oldest_age;  // of the oldest waiting record
    std::uint64_t failures = 0;                 // failed writes so far
    std::uint64_t outages = 0;                  // outages begun so far
    bool leases_lapsed = false;                 // may_release() is false
  };
  Report report() const;
  // Some records wait after a failed write: a new room is not made.
  bool failing() const;
  // The /healthz answer: 200 "ok"; or, while records wait, "degraded: ..."
  // with the age of the oldest, 200 until it is `outage_limit` old and 503
  // after. Rooms stay paused either way (never closed, never dropped).
  struct Answer {
    int status = 200;
    std::string text;
  };
  Answer health() const;
  // Why /readyz answers 503 (records wait, or the leases lapsed), if it does.
  std::optional<std::string> not_ready() const;

 private:
  struct Lane {
    Waiting waiting;
    std::string error;
  };
  const std::chrono::milliseconds outage_limit_;
  mutable std::mutex mutex_;
  std::vector<Lane> lanes_;
  std::uint64_t failures_ = 0;
  std::uint64_t outages_ = 0;
  std::optional<Clock::time_point> outage_since_;  // the first failure of the outage under way
  std::size_t outage_written_ = 0;                 // waiting records written during it

  std::atomic<bool> leases_{false};
  std::chrono::milliseconds lease_ttl_{0};
  std::chrono::milliseconds lease_margin_{0};
  std::atomic<Clock::rep> valid_until_{0};  // Clock ticks
};

}  // namespace gofish::server
