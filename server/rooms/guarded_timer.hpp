// A timer that can be re-armed and cancelled at any moment without a stale
// expiry slipping through: every arm() starts a new generation, and only the
// latest generation's expiry calls back. A room has four (a bot's move, the
// turn timer, each seat's grace period, the idle expiry), all of this kind.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "server/rooms/timer_source.hpp"

namespace gofish::server {

class GuardedTimer {
 public:
  using Duration = TimerSource::Duration;

  GuardedTimer(const TimerSource& source, const boost::asio::any_io_executor& executor);
  ~GuardedTimer();
  GuardedTimer(const GuardedTimer&) = delete;
  GuardedTimer& operator=(const GuardedTimer&) = delete;

  // Calls `fire` (on the executor) once `delay` has passed, unless the timer
  // is armed again or cancelled first. Replaces whatever was armed.
  void arm(Duration delay, std::function<void()> fire);
  void cancel();
  // Armed and not yet fired or cancelled.
  bool armed() const { return state_->armed; }

 private:
  struct State {
    std::uint64_t generation = 0;
    bool armed = false;
  };
  std::unique_ptr<TimerSource::Timer> timer_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace gofish::server
