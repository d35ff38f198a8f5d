// Keeps this node's room leases (several servers on one PostgreSQL database,
// server/store/postgres_store.hpp) on a thread of its own:
// - renews every lease of the node in one statement, every renew period
//   (about a second, well inside the TTL); a room the registry holds whose
//   lease the renewal no longer lists was taken over by another node while
//   this one could not renew (paused, cut off): the registry lets it go and
//   its players are sent `moved` (Registry::lost);
// - hands rooms over when another node asks (NOTIFY): the room commits what
//   it has, then the lease is released. Between renewals the thread sleeps
//   on the store's handover socket, so a request is taken up as it comes
//   and an idle node does not wake for nothing;
// - says whether the node is ready (/readyz): the last renewal succeeded,
//   less than a TTL ago;
// - keeps the node from speaking for rooms it may have lost: it tells the
//   store's health when each renewal was sent (StoreHealth::leases_renewed),
//   so rooms send nothing past the moment their leases could run out, and
//   when that moment passes it pauses every room (Registry::
//   leases_confirmed), until a renewal confirms the leases again (the rooms
//   it no longer holds are let go first).
// On SIGTERM the server releases every lease once its writes are committed
// (server/app/main.cpp), so other nodes take the rooms at once.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "server/rooms/registry.hpp"
#include "server/store/store.hpp"
#include "server/store/store_health.hpp"

namespace gofish::server {

class LeaseKeeper {
 public:
  // `store` and `registry` outlive the keeper (or stop() is called first).
  // `health` (may be null) outlives the keeper; it must be told of the
  // leases (StoreHealth::use_leases) before the first room is taken.
  LeaseKeeper(Store& store, std::shared_ptr<Registry> registry, std::string node, std::chrono::milliseconds ttl,
              std::chrono::milliseconds renew_period, StoreHealth* health = nullptr);
  ~LeaseKeeper();  // stop()
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // Stops the thread; no renewal or handover after it returns.
  void stop();
  // Why the node is not ready (the database fails, or the last renewal is
  // older than the TTL), or nothing when it is.
  std::optional<std::string> problem() const;

 private:
  void run();
  void renew();
  // The leases could have run out since the last renewal: every room pauses (once).
  void check_lapse();
  // Hands over the rooms other nodes asked for; false when none had asked.
  bool hand_over_requested();

  Store& store_;
  const std::shared_ptr<Registry> registry_;
  const std::string node_;
  const std::chrono::milliseconds ttl_;
  const std::chrono::milliseconds renew_period_;
  StoreHealth* const health_;
  bool lapsed_ = false;  // the rooms were paused for it (on the keeper's thread)

  // Waits until `deadline`, or less: until the store's handover socket is
  // readable or stop() is called. True when stopping.
  bool wait(std::chrono::steady_clock::time_point deadline);

  mutable std::mutex mutex_;
  bool stopping_ = false;
  // Written by stop(), to wake the thread from its wait.
  int stop_fd_ = -1;
  // The socket woke the last wait and nothing was read from it: the next
  // wait leaves it out for a moment, so that a socket that stays readable
  // cannot make the thread spin.
  bool socket_idle_ = false;
  // Rooms being handed over: until one's lease is released, another
  // request for it is ignored. The room is no longer in the registry, and
  // releasing its lease then would let the asker take the room before the
  // handover's last records are committed; the fence would keep them out,
  // and the new owner would start from the records before them.
  std::set<std::string> handing_over_;
  std::chrono::steady_clock::time_point last_renewal_;  // the last that succeeded
  std::string last_error_;                              // of the last renewal that failed, "" after a success
  std::thread thread_;
};

}  // namespace gofish::server
