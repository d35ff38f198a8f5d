#include "clients/wasm/table.hpp"

#include <utility>

#include "engine/setup.hpp"
#include "engine/view.hpp"

namespace gofish::wasm {

Table::Table(engine::Game game, std::uint64_t seed) : game_(std::move(game)), rng_(seed) {}

std::variant<Table, engine::ConfigError> Table::deal(const engine::Rules& rules, int players, std::uint64_t seed) {
  if (auto error = engine::validate(rules, players)) return *error;
  engine::Rng rng(seed);
  const engine::DealSetup setup = engine::prepare_deal(rules, players, rng);
  auto started = engine::Game::start(rules, players, setup.deck, setup.dealer, setup.first);
  if (auto* error = std::get_if<engine::ConfigError>(&started)) return *error;
  Table table(std::get<engine::Game>(std::move(started)), seed);
  table.rng_ = rng;  // the bots draw where the deal stopped, as in engine::play_match
  table.record();
  return table;
}

std::variant<Table, std::string> Table::replay(const engine::Transcript& transcript) {
  auto started =
      engine::Game::start(transcript.rules, transcript.players, transcript.deck, transcript.dealer, transcript.first);
  if (auto* error = std::get_if<engine::ConfigError>(&started)) {
    return "the set-up is refused (" + error->field + "): " + error->message;
  }
  Table table(std::get<engine::Game>(std::move(started)), 0);
  table.record();
  for (std::size_t i = 0; i < transcript.actions.size(); ++i) {
    if (auto refusal = table.apply(transcript.actions[i])) {
      return "action " + std::to_string(i) + " (" + engine::to_string(transcript.actions[i]) +
             ") is refused: " + refusal->message;
    }
  }
  return table;
}

std::optional<engine::Refusal> Table::apply(engine::Decision decision) {
  if (auto refusal = game_.apply(decision)) return refusal;
  record();
  return std::nullopt;
}

engine::Decision Table::bot_decision(engine::Seat seat, engine::BotLevel level) {
  auto& seat_bots = bots_[static_cast<std::size_t>(seat)];
  SeatBot* found = nullptr;
  for (SeatBot& candidate : seat_bots) {
    if (candidate.level == level) found = &candidate;
  }
  if (found == nullptr) {
    SeatBot made{level, engine::make_bot(level, game_.rules(), game_.players(), seat)};
    for (const engine::Event& event : events_) made.bot->observe(engine::event_for(event, engine::Viewer::of(seat)));
    seat_bots.push_back(std::move(made));
    found = &seat_bots.back();
  }
  return found->bot->decide(engine::view_of(game_, engine::Viewer::of(seat)), rng_);
}

void Table::record() {
  for (const engine::Event& event : game_.last_events()) {
    events_.push_back(event);
    for (engine::Seat seat = 0; seat < game_.players(); ++seat) {
      const engine::Event seen = engine::event_for(event, engine::Viewer::of(seat));
      for (SeatBot& seat_bot : bots_[static_cast<std::size_t>(seat)]) seat_bot.bot->observe(seen);
    }
  }
}

}  // namespace gofish::wasm
