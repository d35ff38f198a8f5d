#include "server/rooms/guarded_timer.hpp"

#include <boost/asio/steady_timer.hpp>

namespace gofish::server {

namespace {

class SteadyTimer final : public TimerSource::Timer {
 public:
  explicit SteadyTimer(const boost::asio::any_io_executor& executor) : timer_(executor) {}
  void start(TimerSource::Duration delay, std::function<void()> fire) override {
    timer_.expires_after(delay);
    timer_.async_wait([fire = std::move(fire)](const boost::system::error_code& ec) {
      if (!ec) fire();
    });
  }
  void cancel() override { timer_.cancel(); }

 private:
  boost::asio::steady_timer timer_;
};

class SteadyTimers final : public TimerSource {
 public:
  std::unique_ptr<Timer> make(const boost::asio::any_io_executor& executor) const override {
    return std::make_unique<SteadyTimer>(executor);
  }
  SteadyTime steady_now() const override { return std::chrono::steady_clock::now(); }
  WallTime wall_now() const override { return std::chrono::system_clock::now(); }
};

}  // namespace

std::shared_ptr<const TimerSource> steady_timers() {
  static const auto source = std::make_shared<const SteadyTimers>();
  return source;
}

GuardedTimer::GuardedTimer(const TimerSource& source, const boost::asio::any_io_executor& executor)
    : timer_(source.make(executor)) {}

GuardedTimer::~GuardedTimer() { cancel(); }

void GuardedTimer::arm(Duration delay, std::function<void()> fire) {
  const std::uint64_t generation = ++state_->generation;
  state_->armed = true;
  // Weak: an expiry already queued when the timer goes away finds no state.
  timer_->start(delay, [weak = std::weak_ptr<State>(state_), generation, fire = std::move(fire)] {
    const auto state = weak.lock();
    if (!state || state->generation != generation) return;
    state->armed = false;
    fire();
  });
}

void GuardedTimer::cancel() {
  if (!state_->armed) return;
  ++state_->generation;
  state_->armed = false;
  timer_->cancel();
}

}  // namespace gofish::server
