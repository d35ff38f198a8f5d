// A seat's own view of a game, kept up to date from the events the server
// sends that seat (no snapshot per turn), so a load-test player decides with
// the engine's bots exactly as a client that only reads its event stream.
//
// Covers strict rank-asking rules with the classic ending (a game ends when a
// hand or the stock is empty): the load generator always creates classic
// rooms. Under those rules the seat knows its own hand, every hand size, the
// stock and the sets, which is all of engine::View for a seat to act.
//
// ready_to_ask() also says when the events of the last decision are complete.
// Events arrive one frame at a time and a kept turn has no closing event, so
// the tracker asks only when nothing else can follow: its own ask has been
// answered (a catch, a lucky draw or the turn passing), no rank in its hand
// makes a set still to be laid, and nothing ends the game.
#pragma once

#include <array>

#include "engine/card.hpp"
#include "engine/event.hpp"
#include "engine/view.hpp"

namespace gofish::load {

class SeatTracker {
 public:
  explicit SeatTracker(engine::Seat seat) : seat_(seat) {}

  engine::Seat seat() const { return seat_; }
  // Every engine event as this seat sees it, in order; a GameStarted begins
  // a new game.
  void observe(const engine::Event& event);

  bool in_game() const { return started_ && !over_; }
  bool over() const { return over_; }
  // True when the game waits for this seat to ask and no event of the last
  // decision is still to come.
  bool ready_to_ask() const;
  // The seat's view; its legal decisions are filled when ready_to_ask().
  engine::View view() const;

 private:
  void move_cards(engine::Seat from, engine::Seat to, engine::CardSet cards);

  engine::Seat seat_;
  bool started_ = false;
  bool over_ = false;
  int players_ = 0;
  int dealt_ = 0;  // hands dealt so far in this game
  engine::Seat turn_ = 0;
  // This seat asked and the answer that settles its turn has not arrived.
  bool awaiting_answer_ = false;
  engine::CardSet hand_;
  int stock_ = 0;
  int sets_down_ = 0;
  std::array<engine::SeatView, engine::kMaxSeats> seats_{};
};

}  // namespace gofish::load
