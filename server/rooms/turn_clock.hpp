// What the next decision waits for: a bot's move after the room's bot delay,
// or a human's turn timer. Both are keyed by the number of decisions made so
// far, so an unrelated event (a chat line, a reconnect) neither delays a bot
// nor restarts a timer. The room decides who is to act; this only keeps time.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>

#include "engine/card.hpp"
#include "protocol/messages.hpp"
#include "server/rooms/guarded_timer.hpp"

namespace gofish::server {

class TurnClock {
 public:
  // `bot_delay` is the server's (--bot-delay-ms), which the room's pace
  // scales; `turn_timer_seconds` 0 means humans have no turn timer.
  TurnClock(const TimerSource& timers, const boost::asio::any_io_executor& executor,
            std::chrono::milliseconds bot_delay, protocol::BotPace pace, int turn_timer_seconds);

  // A bot is to act after `key` decisions: `move` runs once the bot delay has
  // passed, once for that key however often this is called.
  void wait_for_bot(std::size_t key, std::function<void()> move);
  // A human in `seat` is to act after `key` decisions. Returns the turn timer
  // when one was started (the room announces it); `timeout` runs when it
  // runs out.
  std::optional<protocol::TurnTimer> wait_for_human(engine::Seat seat, std::size_t key, std::function<void()> timeout);
  // Nothing to wait for: between games, or the room closed.
  void stop();
  // In `timeout`: the turn timer that ran out, now forgotten.
  std::optional<protocol::TurnTimer> take_expired();
  // The turn timer running now, for snapshots.
  const std::optional<protocol::TurnTimer>& timer() const { return turn_; }
  std::chrono::milliseconds bot_delay() const { return bot_delay_; }

  // --bot-delay-ms at a room's pace: relaxed is twice as slow, quick 2.5
  // times as fast.
  static std::chrono::milliseconds paced(std::chrono::milliseconds bot_delay, protocol::BotPace pace);

 private:
  void stop_turn_timer();

  const TimerSource& timers_;  // the room's clock: a turn timer's deadline is on its wall clock
  const std::chrono::milliseconds bot_delay_;
  const int turn_timer_seconds_;
  GuardedTimer bot_timer_;
  std::optional<std::size_t> bot_key_;  // the decision count the bot's move is armed for
  GuardedTimer turn_timer_;
  std::optional<std::size_t> turn_key_;
  std::optional<protocol::TurnTimer> turn_;
};

}  // namespace gofish::server
