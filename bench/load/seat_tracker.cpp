#include "bench/load/seat_tracker.hpp"

#include <variant>

namespace gofish::load {

namespace {

std::string seat_text(std::optional<engine::Seat> seat) {
  return seat ? "seat " + std::to_string(*seat) : std::string("no seat");
}

// The asks a list offers: none when there is no target or nothing to ask for.
bool offers_asks(const engine::LegalDecisions& legal) {
  if (legal.targets == 0) return false;
  return legal.ask_for == engine::AskFor::kRank ? legal.ranks != 0 : !legal.cards.empty();
}

}  // namespace

bool same_decisions(const engine::LegalDecisions& a, const engine::LegalDecisions& b) {
  if (a.seat != b.seat || a.give != b.give || a.go_fish != b.go_fish || a.declarable != b.declarable) return false;
  const bool asks = offers_asks(a);
  if (asks != offers_asks(b)) return false;
  if (!asks) return true;
  if (a.ask_for != b.ask_for || a.targets != b.targets) return false;
  return a.ask_for == engine::AskFor::kRank ? a.ranks == b.ranks : a.cards == b.cards;
}

SeatTracker::SeatTracker(engine::Seat seat, const engine::Rules& rules, int players)
    : seat_(seat), players_(players), game_(rules, engine::Viewer::of(seat), players) {}

std::optional<std::string> SeatTracker::snapshot(std::int64_t v) {
  std::optional<std::string> problem;
  if (in_play_) problem = "a room snapshot in the middle of a game, at v " + std::to_string(v);
  v_ = v;
  return problem;
}

std::optional<std::string> SeatTracker::observe(std::int64_t v, const protocol::RoomEvent& event) {
  std::optional<std::string> problem;
  if (v_ && v != *v_ + 1) {
    problem = "the event at v " + std::to_string(v) + " follows v " + std::to_string(*v_) + " (versions are gapless)";
  }
  v_ = v;
  if (const auto* game_event = std::get_if<engine::Event>(&event)) {
    to_act_ = false;  // the game moved on: wait for its turn
    game_over_ = false;
    game_.apply(*game_event);
    if (std::holds_alternative<engine::GameStarted>(*game_event)) {
      ++games_started_;
      in_play_ = true;
      ended_ = false;
    } else if (std::holds_alternative<engine::GameOver>(*game_event)) {
      in_play_ = false;
      ended_ = true;
    }
  }
  return problem;
}

std::optional<std::string> SeatTracker::resync(const protocol::RoomSnapshot& snapshot) {
  std::optional<std::string> problem;
  if (snapshot.you != seat_) {
    problem = "a room snapshot for " + seat_text(snapshot.you) + " sent to seat " + std::to_string(seat_);
  } else if (v_ && snapshot.v < *v_) {
    problem = "a room snapshot at v " + std::to_string(snapshot.v) + " after the event at v " + std::to_string(*v_);
  }
  v_ = snapshot.v;
  const engine::Rules rules = game_.rules();
  if (snapshot.game) {
    game_ = engine::EventView(rules, *snapshot.game);
  } else {
    game_ = engine::EventView(rules, engine::Viewer::of(seat_), players_);
  }
  in_play_ = snapshot.state == protocol::RoomState::kPlaying;
  ended_ = snapshot.state == protocol::RoomState::kOver;
  to_act_ = false;
  game_over_ = false;
  games_started_ = snapshot.game_number;
  return problem;
}

std::optional<std::string> SeatTracker::turn(const protocol::Turn& turn) {
  std::optional<std::string> problem;
  const auto note = [&problem](std::string sentence) {
    if (!problem) problem = std::move(sentence);
  };
  if (!v_ || turn.v != *v_) {
    note("a turn at v " + std::to_string(turn.v) + " after " +
         (v_ ? "the event at v " + std::to_string(*v_) : std::string("no version")));
  }
  const engine::View& view = game_.view();
  const std::optional<engine::Seat> expected = in_play_ ? std::optional(view.to_act) : std::nullopt;
  if (turn.seat != expected) {
    note("the turn names " + seat_text(turn.seat) + " to act, the events " + seat_text(expected));
  }
  legal_ = engine::LegalDecisions{};
  legal_.seat = seat_;
  legal_.ask_for = rules().ask_for;
  if (turn.seat == seat_) {
    if (turn.legal) legal_ = *turn.legal;
    if (!same_decisions(legal_, view.legal)) {
      note("seat " + std::to_string(seat_) + " was sent " + std::to_string(legal_.count()) +
           " legal decisions that differ from the " + std::to_string(view.legal.count()) + " its events allow");
    }
  } else if (turn.legal) {
    note("seat " + std::to_string(seat_) + " was sent legal decisions while " + seat_text(turn.seat) + " is to act");
  }
  to_act_ = turn.seat == seat_ && !legal_.empty();
  game_over_ = ended_ && !turn.seat;
  ended_ = false;
  return problem;
}

}  // namespace gofish::load
