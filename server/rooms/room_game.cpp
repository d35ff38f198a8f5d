#include "server/rooms/room_game.hpp"

#include <exception>

#include "engine/view.hpp"

namespace gofish::server {

std::variant<RoomGame, std::string> RoomGame::start(const engine::Rules& rules, const engine::Deck& deck,
                                                    engine::Seat dealer, engine::Seat first, int number,
                                                    std::string id, std::vector<protocol::Player> players,
                                                    const std::vector<protocol::BotLevel>& levels) {
  const int seats = static_cast<int>(levels.size());
  auto started = engine::Game::start(rules, seats, deck, dealer, first);
  if (const auto* error = std::get_if<engine::ConfigError>(&started)) return error->message;
  RoomGame game(std::get<engine::Game>(std::move(started)), number, std::move(id), std::move(players));
  for (int seat = 0; seat < seats; ++seat) {
    game.bots_.push_back(engine::make_bot(levels[static_cast<std::size_t>(seat)], rules, seats, seat));
  }
  game.observe_last_events();
  return game;
}

std::optional<engine::Refusal> RoomGame::apply(const engine::Judgement& judgement) {
  if (auto refusal = game_.apply(judgement)) return refusal;
  observe_last_events();
  return std::nullopt;
}

void RoomGame::observe_last_events() {
  for (const engine::Event& event : game_.last_events()) {
    if (const auto* over = std::get_if<engine::GameOver>(&event)) result_ = *over;
    for (std::size_t seat = 0; seat < bots_.size(); ++seat) {
      bots_[seat]->observe(engine::event_for(event, engine::Viewer::of(static_cast<engine::Seat>(seat))));
    }
  }
}

std::pair<std::optional<engine::Decision>, std::string> RoomGame::bot_decision(engine::Seat seat, engine::Rng& rng) {
  const engine::View view = engine::view_of(game_, engine::Viewer::of(seat));
  if (view.legal.empty() || static_cast<std::size_t>(seat) >= bots_.size()) return {std::nullopt, "no legal decision"};
  std::string problem;
  engine::Decision decision = view.legal.nth(0);
  try {
    decision = bots_[static_cast<std::size_t>(seat)]->decide(view, rng);
  } catch (const std::exception& error) {
    problem = std::string("the bot failed: ") + error.what();
  }
  if (decision.seat != seat || !view.legal.contains(decision)) {
    if (problem.empty()) problem = "the bot chose an illegal decision";
    decision = view.legal.nth(0);
  }
  return {decision, problem};
}

}  // namespace gofish::server
