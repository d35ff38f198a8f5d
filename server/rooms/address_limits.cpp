#include "server/rooms/address_limits.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <iterator>
#include <utility>

namespace gofish::server {

namespace {

// Entries whose buckets refill while nobody touches them are dropped by a
// sweep of the whole map after this many calls.
constexpr std::size_t kCallsBetweenSweeps = 1024;

constexpr std::size_t index(AddressLimits::Pool pool) { return static_cast<std::size_t>(pool); }

}  // namespace

AddressLimits::AddressLimits(const Limits& limits, std::size_t socket_cap) : limits_(limits) {
  const auto share = [&](std::size_t cap) {
    if (cap == std::numeric_limits<std::size_t>::max()) return std::size_t{0};
    return cap * std::min<std::size_t>(limits.newcomer_share_percent, 100) / 100;
  };
  state(Pool::kSockets) = PoolState{socket_cap, limits.max_sockets_per_address, share(socket_cap), 0};
  state(Pool::kConnections) =
      PoolState{limits.max_connections, limits.max_connections_per_address, share(limits.max_connections), 0};
}

std::string AddressLimits::key_of(std::string_view ip) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(ip), ec);
  if (ec) return std::string(ip);
  if (address.is_v4()) return address.to_v4().to_string();
  const auto v6 = address.to_v6();
  if (v6.is_v4_mapped()) return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v6).to_string();
  auto bytes = v6.to_bytes();
  for (std::size_t i = 8; i < bytes.size(); ++i) bytes[i] = 0;
  return boost::asio::ip::address_v6(bytes).to_string() + "/64";
}

// ---- Slot ----

AddressLimits::Slot::Slot(Slot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), pool_(other.pool_), key_(std::move(other.key_)) {}

AddressLimits::Slot& AddressLimits::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    pool_ = other.pool_;
    key_ = std::move(other.key_);
  }
  return *this;
}

void AddressLimits::Slot::release() {
  if (auto* owner = std::exchange(owner_, nullptr)) owner->release(pool_, key_);
}

// ---- pools ----

AddressLimits::Admission AddressLimits::take(Pool pool, const std::string& key, Slot& slot) {
  std::lock_guard lock(mutex_);
  PoolState& p = state(pool);
  if (p.taken >= p.cap) return Admission::kFull;
  const auto found = entries_.find(key);
  const std::size_t held = found == entries_.end() ? 0 : found->second.held[index(pool)];
  if (held >= p.per_address) return Admission::kAddressFull;
  if (held > 0 && p.taken >= p.cap - p.newcomer_share) return Admission::kFull;
  ++p.taken;
  ++entries_[key].held[index(pool)];
  slot = Slot(this, pool, key);
  return Admission::kAdmitted;
}

void AddressLimits::release(Pool pool, const std::string& key) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.held[index(pool)] == 0) return;
  --it->second.held[index(pool)];
  --state(pool).taken;
  forget_if_idle(it, Clock::now());
}

std::size_t AddressLimits::held(Pool pool, const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  return it == entries_.end() ? 0 : it->second.held[index(pool)];
}

std::size_t AddressLimits::taken(Pool pool) const {
  std::lock_guard lock(mutex_);
  return pools_[index(pool)].taken;
}

// ---- rooms ----

AddressLimits::RoomAdmission AddressLimits::admit_room(const std::string& key, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = entries_.try_emplace(key).first;
  Entry& entry = it->second;
  if (entry.rooms >= limits_.max_rooms_per_address) return RoomAdmission::kAddressFull;
  if (!entry.creates) entry.creates.emplace(limits_.room_create_rate_per_second, limits_.room_create_burst, now);
  if (!entry.creates->try_take(now)) {
    forget_if_idle(it, now);
    return RoomAdmission::kRate;
  }
  ++entry.rooms;
  return RoomAdmission::kAdmitted;
}

void AddressLimits::room_closed(const std::string& key) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.rooms == 0) return;
  --it->second.rooms;
  forget_if_idle(it, Clock::now());
}

std::size_t AddressLimits::rooms(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  return it == entries_.end() ? 0 : it->second.rooms;
}

// ---- joins ----

bool AddressLimits::joins_refused(const std::string& key, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || !it->second.failed_joins) return false;
  const bool refused = !it->second.failed_joins->available(now);
  if (!refused) forget_if_idle(it, now);
  return refused;
}

void AddressLimits::join_failed(const std::string& key, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  Entry& entry = entries_[key];
  if (!entry.failed_joins) entry.failed_joins.emplace(limits_.failed_join_rate_per_second, limits_.failed_join_burst, now);
  entry.failed_joins->try_take(now);
}

// ---- bookkeeping ----

std::size_t AddressLimits::addresses() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

bool AddressLimits::idle(Entry& entry, Clock::time_point now) {
  return entry.held[0] == 0 && entry.held[1] == 0 && entry.rooms == 0 && (!entry.creates || entry.creates->full(now)) &&
         (!entry.failed_joins || entry.failed_joins->full(now));
}

void AddressLimits::forget_if_idle(std::unordered_map<std::string, Entry>::iterator it, Clock::time_point now) {
  if (idle(it->second, now)) entries_.erase(it);
  if (++calls_since_sweep_ < kCallsBetweenSweeps) return;
  calls_since_sweep_ = 0;
  for (auto entry = entries_.begin(); entry != entries_.end();) {
    entry = idle(entry->second, now) ? entries_.erase(entry) : std::next(entry);
  }
}

}  // namespace gofish::server
