// A viewer's View rebuilt from the events it is sent, without the Game.
//
// A client holds only its event stream (each event through event_for, so its
// own cards and everyone's counts) and, after a join or a resume, a snapshot
// of its view. EventView folds those events into the same engine::View that
// view_of builds from the Game, and derives the viewer's legal decisions with
// the legality module Game::legal uses (engine/legality.hpp), from what the
// viewer sees. Remote bots (gofish-cli --bot, gofish-load) decide from it, so
// they know exactly what their seat may know. Tests compare it with view_of after every event
// of whole games of every preset, for every seat and a spectator.
#pragma once

#include "engine/event.hpp"
#include "engine/improper_decisions.hpp"
#include "engine/legality.hpp"
#include "engine/rules.hpp"
#include "engine/view.hpp"

namespace gofish::engine {

class EventView {
 public:
  // Before the deal: `players` seats, nobody to act.
  EventView(Rules rules, Viewer viewer, int players);
  // From a snapshot's view.
  EventView(Rules rules, View view);

  // One event as this viewer saw it. A GameStarted begins a new game.
  void apply(const Event& event);

  const View& view() const { return view_; }
  const Rules& rules() const { return rules_; }
  // The total of sets laid by every seat.
  int sets_down() const;

 private:
  LegalityFacts facts() const;
  LegalDecisions derive_legal() const;
  ImproperDecisions derive_improper() const;
  SeatView& seat(Seat s) { return view_.seats[static_cast<std::size_t>(s)]; }
  bool is_viewer(Seat s) const { return view_.viewer.seat && *view_.viewer.seat == s; }

  Rules rules_;
  View view_;
};

}  // namespace gofish::engine
