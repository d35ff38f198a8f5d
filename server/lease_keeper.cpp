#include "server/lease_keeper.hpp"

#include <spdlog/spdlog.h>

#include <pthread.h>

#include <algorithm>
#include <exception>
#include <vector>

namespace gofish::server {

namespace {
// How often handover requests are looked for: a node asking waits at most
// about this long before the owner starts handing over. A look reads only
// what the connection has already received (no round trip).
constexpr std::chrono::milliseconds kHandoverPoll{20};
}  // namespace

LeaseKeeper::LeaseKeeper(Store& store, std::shared_ptr<Registry> registry, std::string node,
                         std::chrono::milliseconds ttl, std::chrono::milliseconds renew_period)
    : store_(store),
      registry_(std::move(registry)),
      node_(std::move(node)),
      ttl_(ttl),
      renew_period_(renew_period),
      last_renewal_(std::chrono::steady_clock::now()),
      thread_([this] { run(); }) {}

LeaseKeeper::~LeaseKeeper() { stop(); }

void LeaseKeeper::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> LeaseKeeper::problem() const {
  std::lock_guard lock(mutex_);
  if (!last_error_.empty()) return "lease renewal failed: " + last_error_;
  if (std::chrono::steady_clock::now() - last_renewal_ > ttl_) return std::string("lease renewal is late");
  return std::nullopt;
}

void LeaseKeeper::run() {
  pthread_setname_np(pthread_self(), "lease-keeper");
  auto next_renewal = std::chrono::steady_clock::now();
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, kHandoverPoll, [this] { return stopping_; })) return;
    }
    hand_over_requested();
    if (std::chrono::steady_clock::now() >= next_renewal) {
      next_renewal = std::chrono::steady_clock::now() + renew_period_;
      renew();
    }
  }
}

void LeaseKeeper::renew() {
  // Only rooms held before the renewal started can be judged by it: a room
  // taken meanwhile is listed or not depending on timing.
  const auto before = registry_->held_codes();
  std::vector<std::string> held;
  try {
    held = store_.renew_leases(node_, ttl_);
  } catch (const std::exception& error) {
    std::lock_guard lock(mutex_);
    if (last_error_.empty()) spdlog::error("leases: renewing failed: {}", error.what());
    last_error_ = error.what();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (!last_error_.empty()) spdlog::info("leases: renewed again");
    last_error_.clear();
    last_renewal_ = std::chrono::steady_clock::now();
  }
  for (const auto& code : before) {
    if (std::find(held.begin(), held.end(), code) == held.end()) registry_->lost(code);
  }
}

void LeaseKeeper::hand_over_requested() {
  std::vector<std::string> codes;
  try {
    codes = store_.handover_requests();
  } catch (const std::exception& error) {
    spdlog::debug("leases: reading handover requests failed: {}", error.what());
    return;
  }
  // A node that asked again and again while this one was paused has left
  // one request per try: each room is handed over once, and a request for a
  // room no longer here (handed over already) only releases the lease row.
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  for (const auto& code : codes) {
    registry_->hand_over(code, [this, code](bool was_here) {
      if (was_here) spdlog::info("room {}: another server asked for it; handed over, releasing its lease", code);
      try {
        store_.release_leases(node_, {code});
      } catch (const std::exception& error) {
        spdlog::error("room {}: releasing its lease failed ({}); it expires by itself", code, error.what());
      }
    });
  }
}

}  // namespace gofish::server
