#include "server/store/store_health.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace gofish::server {

namespace {

double seconds(StoreHealth::Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

// "1 room", "3 rooms".
std::string count(std::size_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

}  // namespace

StoreHealth::StoreHealth(std::size_t lanes, std::chrono::milliseconds outage_limit)
    : outage_limit_(outage_limit), lanes_(std::max<std::size_t>(lanes, 1)) {}

void StoreHealth::lane_tried(std::size_t lane, const Waiting& waiting, const std::string& error, std::size_t written) {
  std::lock_guard lock(mutex_);
  if (lane >= lanes_.size()) lanes_.resize(lane + 1);
  lanes_[lane] = Lane{waiting, error};
  if (!error.empty()) ++failures_;
  if (outage_since_) outage_written_ += written;
  std::size_t rooms = 0;
  std::size_t records = 0;
  for (const Lane& each : lanes_) {
    rooms += each.waiting.rooms;
    records += each.waiting.records;
  }
  const auto now = Clock::now();
  if (rooms > 0 && !outage_since_) {
    outage_since_ = now;
    outage_written_ = 0;
    ++outages_;
    // One line for the whole outage, however many rooms and tries.
    spdlog::error(
        "storage: a write failed ({}); {} with {} waiting for it are paused, and the writes are tried again until "
        "they are stored",
        error.empty() ? "no reason given" : error, count(rooms, "room"), count(records, "record"));
  } else if (rooms == 0 && outage_since_) {
    spdlog::info("storage: writing works again after {:.1f} s; the {} that waited are stored, and play goes on",
                 seconds(now - *outage_since_), count(outage_written_, "record"));
    outage_since_.reset();
  }
}

void StoreHealth::use_leases(std::chrono::milliseconds ttl, std::chrono::milliseconds margin) {
  lease_ttl_ = ttl;
  lease_margin_ = margin;
  // The leases were taken just now, as the rooms were loaded.
  valid_until_.store((Clock::now() + ttl - margin).time_since_epoch().count(), std::memory_order_release);
  leases_.store(true, std::memory_order_release);
}

void StoreHealth::leases_renewed(Clock::time_point sent) {
  const auto until = (sent + lease_ttl_ - lease_margin_).time_since_epoch().count();
  // A late reply to an older renewal never moves the moment back.
  auto current = valid_until_.load(std::memory_order_relaxed);
  while (current < until && !valid_until_.compare_exchange_weak(current, until, std::memory_order_release)) {
  }
}

StoreHealth::Report StoreHealth::report() const {
  Report report;
  {
    std::lock_guard lock(mutex_);
    std::optional<Clock::time_point> oldest;
    for (const Lane& lane : lanes_) {
      if (lane.waiting.rooms == 0) continue;
      report.rooms += lane.waiting.rooms;
      report.records += lane.waiting.records;
      if (!oldest || lane.waiting.oldest < *oldest) oldest = lane.waiting.oldest;
    }
    if (oldest) report.oldest_age = Clock::now() - *oldest;
    report.failures = failures_;
    report.outages = outages_;
  }
  report.leases_lapsed = !may_release();
  return report;
}

bool StoreHealth::failing() const {
  std::lock_guard lock(mutex_);
  return outage_since_.has_value();
}

StoreHealth::Answer StoreHealth::health() const {
  const Report now = report();
  if (!now.oldest_age && !now.leases_lapsed) return {200, "ok\n"};
  std::string text = "degraded:";
  int status = 200;
  if (now.oldest_age) {
    text += fmt::format(" {} of {} wait to be stored; the oldest for {:.1f} s", count(now.records, "record"),
                        count(now.rooms, "room"), seconds(*now.oldest_age));
    if (*now.oldest_age >= outage_limit_) status = 503;
  }
  if (now.leases_lapsed) {
    text += now.oldest_age ? ";" : "";
    text += " the room leases cannot be confirmed with the store";
  }
  text += " (rooms are paused, not closed)\n";
  return {status, text};
}

std::optional<std::string> StoreHealth::not_ready() const {
  const Report now = report();
  if (now.oldest_age) {
    return fmt::format("storage failing: {} of {} wait to be stored", count(now.records, "record"),
                       count(now.rooms, "room"));
  }
  if (now.leases_lapsed) return std::string("room leases cannot be confirmed");
  return std::nullopt;
}

}  // namespace gofish::server
