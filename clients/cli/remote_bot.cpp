#include "clients/cli/remote_bot.hpp"

#include <variant>

#include "engine/overloaded.hpp"


namespace gofish::cli {

RemoteBot::RemoteBot(engine::BotLevel level, std::uint64_t seed) : level_(level), rng_(seed) {}

void RemoteBot::make_for(const Table& table) {
  bot_.reset();
  if (table.has_game() && table.you()) {
    bot_ = engine::make_bot(level_, table.rules(), table.view().players, *table.you());
  }
}

void RemoteBot::observe(const engine::Event& event, const Table& table) {
  if (std::holds_alternative<engine::GameStarted>(event) || !bot_) make_for(table);
  if (bot_) bot_->observe(event);
}

void RemoteBot::restart(const Table& table) { make_for(table); }

std::optional<engine::Decision> RemoteBot::decide(const Table& table) {
  if (!table.your_move()) return std::nullopt;
  if (!bot_) make_for(table);
  const engine::View& view = table.view();
  if (view.legal.empty()) return std::nullopt;
  return bot_->decide(view, rng_);
}

}  // namespace gofish::cli
