// One load-test seat's picture of its game, and a check of what the server
// tells it.
//
// The server closes every decision's events (and a game's deal) with a `turn`
// naming the seat to act, and the copy for that seat lists its legal
// decisions. A player acts on that turn alone. Independently, the tracker
// folds the seat's own events into engine::EventView, the view a client
// rebuilds without snapshots, and checks each turn against it: the room
// version the turn follows, the seat to act (none once a game is over), and,
// for this seat, the same legal decisions; a turn that hands this seat
// decisions when another is to act is a leak. Every disagreement is reported
// as a sentence, so gofish-load doubles as a correctness probe of the server
// under load, for every preset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/event.hpp"
#include "engine/event_view.hpp"
#include "engine/legality.hpp"
#include "engine/rules.hpp"
#include "engine/view.hpp"
#include "protocol/messages.hpp"

namespace gofish::load {

class SeatTracker {
 public:
  SeatTracker(engine::Seat seat, const engine::Rules& rules, int players);

  engine::Seat seat() const { return seat_; }
  const engine::Rules& rules() const { return game_.rules(); }

  // The room snapshot that follows `created` or `joined`: events continue
  // from v + 1. A disagreement as a sentence, or nullopt.
  std::optional<std::string> snapshot(std::int64_t v);
  // A room event at version v (game events as this seat was sent them).
  std::optional<std::string> observe(std::int64_t v, const protocol::RoomEvent& event);
  // A turn: the end of a decision's (or a deal's) events.
  std::optional<std::string> turn(const protocol::Turn& turn);
  // The room snapshot that answers a resume instead of a replay (the gap was
  // too long, or the room moved to a server without its history): the events
  // in between are not coming, so the seat's picture starts again from the
  // snapshot, in the middle of a game or not. Reported: a snapshot for another
  // seat, or one behind a version already seen.
  std::optional<std::string> resync(const protocol::RoomSnapshot& snapshot);

  // The last room version seen: what a resume sends as last_v.
  std::optional<std::int64_t> last_v() const { return v_; }
  // Games started in the room so far, as far as this seat knows (a resync
  // takes the snapshot's count), so a game that ended is counted once even
  // when its end is seen again after a resume.
  int games_started() const { return games_started_; }

  // The last turn gave this seat decisions, and none has been made since.
  bool to_act() const { return to_act_; }
  // The decision was sent: wait for the next turn.
  void acted() { to_act_ = false; }
  // The last turn closed a game that is over (the host starts the next one).
  bool game_over() const { return game_over_; }
  // The seat's view as folded from its events.
  const engine::View& view() const { return game_.view(); }
  // The legal decisions the server sent with the last turn for this seat.
  const engine::LegalDecisions& legal() const { return legal_; }

 private:
  engine::Seat seat_;
  int players_;
  engine::EventView game_;
  std::optional<std::int64_t> v_;  // the last room version seen
  bool in_play_ = false;           // a game was dealt and is not over
  bool ended_ = false;             // a game ended and its turn has not come yet
  bool to_act_ = false;
  bool game_over_ = false;
  int games_started_ = 0;
  engine::LegalDecisions legal_;
};

// Whether two lists of legal decisions offer the same decisions (the wire's
// compact form drops targets when no card can be asked for, and spells no
// ask_for when there is no ask).
bool same_decisions(const engine::LegalDecisions& a, const engine::LegalDecisions& b);

}  // namespace gofish::load
