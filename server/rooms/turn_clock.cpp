#include "server/rooms/turn_clock.hpp"

namespace gofish::server {

TurnClock::TurnClock(const TimerSource& timers, const boost::asio::any_io_executor& executor,
                     std::chrono::milliseconds bot_delay, protocol::BotPace pace, int turn_timer_seconds)
    : timers_(timers),
      bot_delay_(paced(bot_delay, pace)),
      turn_timer_seconds_(turn_timer_seconds),
      bot_timer_(timers, executor),
      turn_timer_(timers, executor) {}

std::chrono::milliseconds TurnClock::paced(std::chrono::milliseconds bot_delay, protocol::BotPace pace) {
  switch (pace) {
    case protocol::BotPace::kRelaxed: return bot_delay * 2;
    case protocol::BotPace::kQuick: return bot_delay * 2 / 5;
    case protocol::BotPace::kNormal: break;
  }
  return bot_delay;
}

void TurnClock::wait_for_bot(std::size_t key, std::function<void()> move) {
  stop_turn_timer();
  if (bot_key_ == key && bot_timer_.armed()) return;
  bot_key_ = key;
  bot_timer_.arm(bot_delay_, std::move(move));
}

std::optional<protocol::TurnTimer> TurnClock::wait_for_human(engine::Seat seat, std::size_t key,
                                                             std::function<void()> timeout) {
  bot_timer_.cancel();
  if (turn_timer_seconds_ <= 0 || (turn_key_ == key && turn_ && turn_->seat == seat)) return std::nullopt;
  turn_key_ = key;
  const std::chrono::seconds length(turn_timer_seconds_);
  const auto deadline = timers_.wall_ms() + std::chrono::milliseconds(length).count();
  turn_ = protocol::TurnTimer{seat, turn_timer_seconds_, deadline};
  turn_timer_.arm(length, std::move(timeout));
  return turn_;
}

void TurnClock::stop() {
  bot_timer_.cancel();
  stop_turn_timer();
}

std::optional<protocol::TurnTimer> TurnClock::take_expired() {
  auto expired = std::move(turn_);
  turn_.reset();
  turn_key_.reset();
  return expired;
}

void TurnClock::stop_turn_timer() {
  turn_.reset();
  turn_key_.reset();
  turn_timer_.cancel();
}

}  // namespace gofish::server
