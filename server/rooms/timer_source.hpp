// Where a room's timers come from. The server's run on the steady clock
// (steady_timers()); a room test passes a source whose clock it moves by hand,
// so timers fire exactly when the test says, with no sleeping.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <functional>
#include <memory>

namespace gofish::server {

class TimerSource {
 public:
  using Duration = std::chrono::milliseconds;

  // One timer. `fire` runs on the timer's executor once `delay` has passed,
  // unless start() or cancel() is called again first. A timer destroyed
  // first never fires.
  class Timer {
   public:
    virtual ~Timer() = default;
    virtual void start(Duration delay, std::function<void()> fire) = 0;
    virtual void cancel() = 0;
  };

  virtual ~TimerSource() = default;
  virtual std::unique_ptr<Timer> make(const boost::asio::any_io_executor& executor) const = 0;
};

// Timers on the steady clock (boost::asio::steady_timer).
std::shared_ptr<const TimerSource> steady_timers();

}  // namespace gofish::server
