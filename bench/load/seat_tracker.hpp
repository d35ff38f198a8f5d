// A seat's own view of a game, kept up to date from the events the server
// sends that seat (no snapshot per turn) by engine::EventView, so a load-test
// player decides with the engine's bots exactly as a client that only reads
// its event stream.
//
// ready_to_ask() says when the events of the last decision are complete.
// Events arrive one frame at a time and a kept turn has no closing event, so
// the tracker asks only when nothing else can follow: its own ask has been
// answered (a catch, a lucky draw or the turn passing), no rank in its hand
// makes a set still to be laid, and nothing ends the game. Those are the
// classic rules' endings: the load generator always creates classic rooms.
#pragma once

#include "engine/event.hpp"
#include "engine/event_view.hpp"
#include "engine/rules.hpp"
#include "engine/view.hpp"

namespace gofish::load {

class SeatTracker {
 public:
  explicit SeatTracker(engine::Seat seat);

  engine::Seat seat() const { return seat_; }
  // Every engine event as this seat sees it, in order; a GameStarted begins
  // a new game.
  void observe(const engine::Event& event);

  bool in_game() const { return started_ && !over_; }
  bool over() const { return over_; }
  // True when the game waits for this seat to ask and no event of the last
  // decision is still to come.
  bool ready_to_ask() const;
  // The seat's view, with its legal decisions.
  const engine::View& view() const { return game_.view(); }

 private:
  engine::Seat seat_;
  engine::EventView game_;
  bool started_ = false;
  bool over_ = false;
  int dealt_ = 0;  // hands dealt so far in this game
  // This seat asked and the answer that settles its turn has not arrived.
  bool awaiting_answer_ = false;
};

}  // namespace gofish::load
