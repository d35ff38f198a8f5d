// Where a room's timers and its sense of the time come from. The server's
// run on the real clocks (steady_timers()); a room test passes a source whose
// clock it moves by hand, so timers fire exactly when the test says, and the
// room's chat rate, latencies, turn deadlines and written timestamps see the
// same moved clock, with no sleeping. Nothing in the room reads a clock
// except through its TimerSource.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace gofish::server {

class TimerSource {
 public:
  using Duration = std::chrono::milliseconds;
  using SteadyTime = std::chrono::steady_clock::time_point;
  using WallTime = std::chrono::system_clock::time_point;

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

  // Now on the clock the timers run on (for intervals: rates, latencies).
  virtual SteadyTime steady_now() const = 0;
  // Now on the wall clock (for what clients or the store are told: turn
  // deadlines, when a game finished). A fake moves both together.
  virtual WallTime wall_now() const = 0;
  // wall_now() in milliseconds since the Unix epoch.
  std::int64_t wall_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(wall_now().time_since_epoch()).count();
  }
};

// Timers on the steady clock (boost::asio::steady_timer), and the real
// steady and wall clocks.
std::shared_ptr<const TimerSource> steady_timers();

}  // namespace gofish::server
