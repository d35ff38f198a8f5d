#include "clients/cli/table.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "engine/overloaded.hpp"


namespace gofish::cli {

void Table::apply_snapshot(const protocol::RoomSnapshot& snapshot) {
  if (snapshot.game_number != game_number_ || snapshot.code != code_) rematch_ready_.clear();
  v_ = snapshot.v;
  code_ = snapshot.code;
  state_ = snapshot.state;
  game_number_ = snapshot.game_number;
  host_ = snapshot.host;
  you_ = snapshot.you;
  settings_ = snapshot.settings;
  seats_ = snapshot.seats;
  spectators_ = snapshot.spectators;
  if (snapshot.game) {
    game_.emplace(settings_.rules, *snapshot.game);
  } else {
    game_.reset();
  }
  result_ = snapshot.result;
  last_ask_.reset();
}

bool Table::apply(std::int64_t v, const protocol::RoomEvent& event) {
  if (v <= v_) return false;
  v_ = v;
  const auto seat_info = [this](engine::Seat seat) -> protocol::SeatInfo& {
    if (static_cast<std::size_t>(seat) >= seats_.size()) seats_.resize(static_cast<std::size_t>(seat) + 1);
    return seats_[static_cast<std::size_t>(seat)];
  };
  std::visit(Overloaded{
                 [&](const engine::Event& e) { apply_game_event(e); },
                 [&](const protocol::SeatJoined& e) {
                   seat_info(e.seat) = protocol::SeatInfo{protocol::Occupant::kHuman, e.name, std::nullopt, true};
                 },
                 [&](const protocol::SeatLeft& e) {
                   if (state_ == protocol::RoomState::kPlaying) {
                     seat_info(e.seat).connected = false;
                     seat_info(e.seat).bot_playing = true;
                   } else {
                     seat_info(e.seat) = protocol::SeatInfo{};
                   }
                 },
                 [&](const protocol::BotAdded& e) {
                   seat_info(e.seat) = protocol::SeatInfo{protocol::Occupant::kBot, e.name, e.level};
                 },
                 [&](const protocol::BotRemoved& e) { seat_info(e.seat) = protocol::SeatInfo{}; },
                 [&](const protocol::Kicked& e) {
                   if (state_ == protocol::RoomState::kPlaying) {
                     seat_info(e.seat).connected = false;
                     seat_info(e.seat).bot_playing = true;
                     seat_info(e.seat).kicked = true;
                   } else {
                     seat_info(e.seat) = protocol::SeatInfo{};
                   }
                 },
                 [&](const protocol::ConnectionChanged& e) {
                   seat_info(e.seat).connected = e.connected;
                   if (e.connected) seat_info(e.seat).bot_playing = false;
                 },
                 [&](const protocol::SpectatorsChanged& e) { spectators_ = e.count; },
                 [&](const protocol::HostChanged& e) { host_ = e.seat; },
                 [&](const protocol::NewGame& e) {
                   state_ = protocol::RoomState::kPlaying;
                   game_number_ = e.game;
                   result_.reset();
                   rematch_ready_.clear();
                   start_game(static_cast<int>(e.players.size()));
                 },
                 [&](const protocol::BotTakeover& e) {
                   if (e.reason != protocol::TakeoverReason::kTimeout) seat_info(e.seat).bot_playing = true;
                 },
                 [&](const protocol::TurnTimer&) {},
                 [&](const protocol::RematchVote& e) { rematch_ready_ = e.ready; },
                 [&](const protocol::ChatPosted&) {},
                 [&](const protocol::ChatModeChanged&) {},
                 [&](const protocol::DealCommitted&) {},
             },
             event);
  return true;
}

void Table::start_game(int players) {
  game_.emplace(settings_.rules, you_ ? engine::Viewer::of(*you_) : engine::Viewer::spectator(), players);
  last_ask_.reset();
}

void Table::apply_game_event(const engine::Event& event) {
  if (!game_) start_game(static_cast<int>(seats_.size()));
  if (std::holds_alternative<engine::AskedRank>(event) || std::holds_alternative<engine::AskedCard>(event)) {
    last_ask_ = event;
  }
  if (std::holds_alternative<engine::GameStarted>(event)) last_ask_.reset();
  game_->apply(event);
  if (const auto* over = std::get_if<engine::GameOver>(&event)) {
    result_ = *over;
    state_ = protocol::RoomState::kOver;
  }
}

std::string Table::name_of(engine::Seat seat) const {
  if (seat >= 0 && static_cast<std::size_t>(seat) < seats_.size() &&
      !seats_[static_cast<std::size_t>(seat)].name.empty()) {
    return seats_[static_cast<std::size_t>(seat)].name;
  }
  return "Seat " + std::to_string(seat + 1);
}

bool Table::your_move() const {
  return game_ && you_ && view().phase != engine::Phase::kOver && view().to_act == *you_;
}

engine::LegalDecisions Table::legal() const { return game_ ? game_->view().legal : engine::LegalDecisions{}; }

}  // namespace gofish::cli
