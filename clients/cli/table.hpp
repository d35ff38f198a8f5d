// The client's picture of its room: the latest snapshot with every event since
// applied to it, from one viewer's seat.
//
// The game part is an engine::EventView: a snapshot's view, then each event
// as this seat saw it (its own cards, everyone's counts), with the seat's
// legal decisions derived as the engine derives them, so a remote bot decides
// from exactly what its seat may know. The tests check the result against
// the engine's own view_of after every event of whole games.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/event_view.hpp"
#include "engine/view.hpp"
#include "protocol/messages.hpp"

namespace gofish::cli {

class Table {
 public:
  // A snapshot replaces everything (after a create, a join or a resume).
  void apply_snapshot(const protocol::RoomSnapshot& snapshot);
  // Applies one event; false when its version was seen already.
  bool apply(std::int64_t v, const protocol::RoomEvent& event);
  // An engine event alone, as this seat saw it (the room-level wrapper aside).
  void apply_game_event(const engine::Event& event);

  bool in_room() const { return v_ >= 0; }
  std::int64_t v() const { return v_; }
  const std::string& code() const { return code_; }
  protocol::RoomState state() const { return state_; }
  int game_number() const { return game_number_; }
  engine::Seat host() const { return host_; }
  std::optional<engine::Seat> you() const { return you_; }
  const protocol::RoomSettings& settings() const { return settings_; }
  const engine::Rules& rules() const { return settings_.rules; }
  const std::vector<protocol::SeatInfo>& seats() const { return seats_; }
  int spectators() const { return spectators_; }
  bool has_game() const { return game_.has_value(); }
  const engine::View& view() const { return game_->view(); }
  const std::optional<engine::GameOver>& result() const { return result_; }
  const std::vector<engine::Seat>& rematch_ready() const { return rematch_ready_; }
  // The latest ask, for "Go fish! Bob has no nines."
  const std::optional<engine::Event>& last_ask() const { return last_ask_; }

  // "Bob", or "Seat 2" for an empty seat.
  std::string name_of(engine::Seat seat) const;
  bool is_you(engine::Seat seat) const { return you_ && *you_ == seat; }
  // True when the game waits for this viewer's decision.
  bool your_move() const;
  // The viewer's legal decisions now, as the engine would list them
  // (engine::EventView derives them from what this seat has seen).
  engine::LegalDecisions legal() const;

 private:
  void start_game(int players);

  std::int64_t v_ = -1;
  std::string code_;
  protocol::RoomState state_ = protocol::RoomState::kWaiting;
  int game_number_ = 0;
  engine::Seat host_ = 0;
  std::optional<engine::Seat> you_;
  protocol::RoomSettings settings_;
  std::vector<protocol::SeatInfo> seats_;
  int spectators_ = 0;
  std::optional<engine::EventView> game_;
  std::optional<engine::GameOver> result_;
  std::vector<engine::Seat> rematch_ready_;
  std::optional<engine::Event> last_ask_;
};

}  // namespace gofish::cli
