// What one client address holds of what every client shares, and how fast it
// may ask for more:
// - places in two pools, open TCP sockets and open WebSocket connections,
//   each under a cap on the whole pool, a cap per address, and a share of
//   the pool's cap kept for addresses that hold no place in it yet;
// - the rooms it created that are still open, and the rate at which it
//   creates them;
// - the rate of its failed joins (a code that names no room, a token that
//   names no seat), beyond which it may not join at all for a while.
//
// Addresses are keys from key_of(). Thread-safe: one mutex, held for a map
// lookup. The caller passes the time, so tests need no clock. An address's
// entry is dropped once it holds nothing and its buckets are full again, so
// the map only holds addresses with something open or done lately.
//
// No Boost here (the rooms layer includes it); tested without sockets in
// tests/server/address_limits_test.cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "protocol/token_bucket.hpp"
#include "server/rooms/limits.hpp"

namespace gofish::server {

class AddressLimits {
 public:
  using Clock = TokenBucket::Clock;

  enum class Pool { kSockets, kConnections };
  enum class Admission {
    kAdmitted,
    kFull,         // the pool is full, or only its share for newcomers is left
    kAddressFull,  // this address holds its cap
  };
  enum class RoomAdmission {
    kAdmitted,     // the room counts for the address until room_closed()
    kRate,         // creating faster than room_create_rate
    kAddressFull,  // max_rooms_per_address rooms open
  };

  // `socket_cap`: the cap on all open sockets (from the descriptor limit).
  explicit AddressLimits(const Limits& limits, std::size_t socket_cap = std::numeric_limits<std::size_t>::max());
  AddressLimits(const AddressLimits&) = delete;
  AddressLimits& operator=(const AddressLimits&) = delete;

  // The key of a peer's IP address in text: the address itself, an IPv4
  // address mapped into IPv6 as the IPv4 address, an IPv6 address as its /64
  // network (one host usually holds a whole /64). Text that is not an IP
  // address is its own key.
  static std::string key_of(std::string_view ip);

  // A place held in a pool, given back when destroyed or released.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { release(); }
    explicit operator bool() const { return owner_ != nullptr; }
    void release();

   private:
    friend class AddressLimits;
    Slot(AddressLimits* owner, Pool pool, std::string key) : owner_(owner), pool_(pool), key_(std::move(key)) {}
    AddressLimits* owner_ = nullptr;
    Pool pool_ = Pool::kSockets;
    std::string key_;
  };

  // Takes a place in `pool` for `key` into `slot` if the caps allow.
  Admission take(Pool pool, const std::string& key, Slot& slot);
  std::size_t held(Pool pool, const std::string& key) const;
  std::size_t taken(Pool pool) const;

  // A room created by `key`, if its rate and cap allow; counted until
  // room_closed(key).
  RoomAdmission admit_room(const std::string& key, Clock::time_point now);
  void room_closed(const std::string& key);
  std::size_t rooms(const std::string& key) const;

  // Whether `key` is refused joins now (its failed joins used up their burst).
  bool joins_refused(const std::string& key, Clock::time_point now);
  // A join or resume from `key` named no room or seat.
  void join_failed(const std::string& key, Clock::time_point now);

  // Addresses with an entry (for tests: entries are dropped once idle).
  std::size_t addresses() const;

 private:
  struct PoolState {
    std::size_t cap = 0;
    std::size_t per_address = 0;
    std::size_t newcomer_share = 0;  // the last places, for addresses holding none
    std::size_t taken = 0;
  };
  struct Entry {
    std::size_t held[2] = {0, 0};
    std::size_t rooms = 0;
    std::optional<TokenBucket> creates;
    std::optional<TokenBucket> failed_joins;
  };

  void release(Pool pool, const std::string& key);
  // Drops the entry if it holds nothing; every so often sweeps them all.
  void forget_if_idle(std::unordered_map<std::string, Entry>::iterator it, Clock::time_point now);
  static bool idle(Entry& entry, Clock::time_point now);
  PoolState& state(Pool pool) { return pools_[static_cast<std::size_t>(pool)]; }

  const Limits limits_;
  mutable std::mutex mutex_;
  PoolState pools_[2];
  std::unordered_map<std::string, Entry> entries_;
  std::size_t calls_since_sweep_ = 0;
};

}  // namespace gofish::server
