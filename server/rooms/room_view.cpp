#include "server/rooms/room_view.hpp"

#include "engine/view.hpp"

namespace gofish::server {

protocol::RoomSnapshot RoomView::snapshot(std::optional<engine::Seat> you) const {
  protocol::RoomSnapshot m;
  m.v = v_;
  m.code = code_;
  m.settings = settings_;
  m.host = seats_.host();
  m.seats = seats_.infos();
  m.spectators = static_cast<int>(seats_.spectators().size());
  m.state = state_;
  m.you = you;
  m.game_number = game_number_;
  if (game_) {
    m.players = game_->players();
    m.game = engine::view_of(game_->game(), you ? engine::Viewer::of(*you) : engine::Viewer::spectator());
    if (state_ == protocol::RoomState::kOver) m.result = game_->result();
  }
  m.timer = timer_;
  if (state_ != protocol::RoomState::kPlaying && next_deal_) {
    m.next_deal = protocol::without_seed(*next_deal_);
  }
  return m;
}

protocol::Turn RoomView::turn(std::optional<engine::Seat> viewer) const {
  protocol::Turn turn{v_, std::nullopt, std::nullopt, std::nullopt};
  if (state_ != protocol::RoomState::kPlaying || !game_) return turn;
  const engine::Game& game = game_->game();
  turn.seat = game.to_act();
  if (!viewer) return turn;
  if (viewer == turn.seat) {
    engine::LegalDecisions legal = game.legal(*viewer);
    if (!legal.empty()) turn.legal = legal;
  }
  // Table rules: any seat in play may make a mistake, to act or not.
  if (game.rules().table_rules) {
    engine::ImproperDecisions improper = game.improper(*viewer);
    if (!improper.empty()) turn.improper = improper;
  }
  return turn;
}

std::vector<engine::CardSet> RoomView::coach_hands() const {
  std::vector<engine::CardSet> hands;
  if (!game_) return hands;
  const engine::Game& game = game_->game();
  for (engine::Seat seat = 0; seat < game.players(); ++seat) {
    hands.push_back(engine::view_of(game, engine::Viewer::of(seat)).hand);
  }
  return hands;
}

}  // namespace gofish::server
