#include "server/rooms/lease_keeper.hpp"

#include <spdlog/spdlog.h>

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <system_error>
#include <vector>

namespace gofish::server {

namespace {
// How long a wait leaves out a socket that woke the last one for nothing.
constexpr std::chrono::milliseconds kQuietSocket{20};

int make_stop_fd() {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "leases: eventfd");
  return fd;
}
}  // namespace

LeaseKeeper::LeaseKeeper(Store& store, std::shared_ptr<Registry> registry, std::string node,
                         std::chrono::milliseconds ttl, std::chrono::milliseconds renew_period, StoreHealth* health)
    : store_(store),
      registry_(std::move(registry)),
      node_(std::move(node)),
      ttl_(ttl),
      renew_period_(renew_period),
      health_(health),
      stop_fd_(make_stop_fd()),
      last_renewal_(std::chrono::steady_clock::now()),
      thread_([this] { run(); }) {}

LeaseKeeper::~LeaseKeeper() {
  stop();
  ::close(stop_fd_);
}

void LeaseKeeper::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(stop_fd_, &one, sizeof one);
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
    if (std::chrono::steady_clock::now() >= next_renewal) {
      next_renewal = std::chrono::steady_clock::now() + renew_period_;
      renew();
    }
    check_lapse();
    // Awake too when the leases could run out, to pause the rooms then.
    auto until = next_renewal;
    if (health_ && !lapsed_) until = std::min(until, health_->leases_valid_until());
    if (wait(until)) return;
  }
}

bool LeaseKeeper::wait(std::chrono::steady_clock::time_point deadline) {
  const int socket = socket_idle_ ? -1 : store_.handover_socket();
  if (socket_idle_) deadline = std::min(deadline, std::chrono::steady_clock::now() + kQuietSocket);
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {socket, POLLIN, 0}};
  // EINTR is as good as a timeout: the caller looks at the clock again.
  ::poll(fds, socket >= 0 ? 2 : 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return true;
  }
  // Reads what came (and, should the connection have dropped, connects
  // again) whatever woke the wait: a request that came during a renewal's
  // round trip is then not left for the next one.
  socket_idle_ = !hand_over_requested() && socket >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
  return false;
}

void LeaseKeeper::check_lapse() {
  if (!health_ || lapsed_ || health_->may_release()) return;
  lapsed_ = true;
  std::chrono::steady_clock::time_point last;
  {
    std::lock_guard lock(mutex_);
    last = last_renewal_;
  }
  spdlog::warn("leases: not renewed for {} ms; every room of this server is paused until a renewal confirms its "
               "lease, since another server may take a room whose lease is {} ms old",
               std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - last).count(),
               ttl_.count());
  registry_->leases_confirmed(false);
}

void LeaseKeeper::renew() {
  // Only rooms held before the renewal started can be judged by it: a room
  // taken meanwhile is listed or not depending on timing.
  const auto before = registry_->held_codes();
  // The database counts the TTL from when it runs the renewal, which is
  // after it was sent: counted from here, the leases hold at least as long.
  const auto sent = std::chrono::steady_clock::now();
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
  if (!health_) return;
  health_->leases_renewed(sent);
  if (lapsed_ && health_->may_release()) {
    lapsed_ = false;
    spdlog::info("leases: renewed again; the rooms this server still holds go on");
    registry_->leases_confirmed(true);
  }
}

bool LeaseKeeper::hand_over_requested() {
  std::vector<std::string> codes;
  try {
    codes = store_.handover_requests();
  } catch (const std::exception& error) {
    spdlog::debug("leases: reading handover requests failed: {}", error.what());
    return false;
  }
  if (codes.empty()) return false;
  // A node that asked again and again while this one was paused has left
  // one request per try: each room is handed over once, and a request for a
  // room no longer here (handed over already) only releases the lease row.
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  // Requests read after this node's leases could have run out (it was
  // paused, or could not renew) may come from a node that took the room
  // over once the lease ran out, without a handover: the log says which.
  const auto now = std::chrono::steady_clock::now();
  std::chrono::milliseconds unrenewed;
  {
    std::lock_guard lock(mutex_);
    unrenewed = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_renewal_);
  }
  const bool ran_out = health_ ? now >= health_->leases_valid_until() : unrenewed > ttl_;
  for (const auto& code : codes) {
    {
      std::lock_guard lock(mutex_);
      if (!handing_over_.insert(code).second) continue;  // already on its way
    }
    registry_->hand_over(code, [this, code, ran_out, unrenewed](bool was_here) {
      if (was_here && ran_out) {
        spdlog::info("room {}: another server asked for it after this server's lease ran out (not renewed for {} ms, "
                     "lease {} ms), so that server took it over; letting it go",
                     code, unrenewed.count(), ttl_.count());
      } else if (was_here) {
        spdlog::info("room {}: another server asked for it; handed over, releasing its lease", code);
      }
      try {
        store_.release_leases(node_, {code});
      } catch (const std::exception& error) {
        spdlog::error("room {}: releasing its lease failed ({}); it expires by itself", code, error.what());
      }
      std::lock_guard lock(mutex_);
      handing_over_.erase(code);
    });
  }
  return true;
}

}  // namespace gofish::server
