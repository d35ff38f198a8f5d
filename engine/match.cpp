#include "engine/match.hpp"

#include <stdexcept>
#include <string>
#include <variant>

#include "engine/view.hpp"

namespace gofish::engine {
namespace {

void feed(const Game& game, std::span<Bot* const> bots) {
  for (const Event& event : game.last_events()) {
    for (Seat seat = 0; seat < game.players(); ++seat) bots[seat]->observe(event_for(event, Viewer::of(seat)));
  }
}

}  // namespace

Game play_match(const Rules& rules, int players, const DealSetup& setup, std::span<Bot* const> bots, Rng& rng,
                const MatchOptions& options) {
  if (bots.size() != static_cast<std::size_t>(players)) {
    throw std::invalid_argument("play_match needs one bot per seat: " + std::to_string(players) + " seats, " +
                                std::to_string(bots.size()) + " bots");
  }
  auto started = Game::start(rules, players, setup.deck, setup.dealer, setup.first);
  if (const auto* error = std::get_if<ConfigError>(&started)) {
    throw std::invalid_argument("play_match cannot start the game (" + error->field + "): " + error->message);
  }
  Game game = std::get<Game>(std::move(started));
  feed(game, bots);
  for (int decisions = 0; !game.over(); ++decisions) {
    if (decisions >= options.max_decisions) {
      throw std::logic_error("play_match: the game did not end after " + std::to_string(decisions) + " decisions");
    }
    const Seat seat = game.to_act();
    const View view = view_of(game, Viewer::of(seat));
    if (view.legal.empty()) {
      throw std::logic_error("play_match: seat " + std::to_string(seat) + " is to act but has no legal decision");
    }
    const Decision decision = bots[seat]->decide(view, rng);
    if (auto refusal = game.apply(decision)) {
      throw std::logic_error("play_match: the bot at seat " + std::to_string(seat) + " made a refused decision (" +
                             to_string(decision) + "): " + std::string(refusal_code_name(refusal->code)) + ": " +
                             refusal->message);
    }
    feed(game, bots);
    if (options.build_all_views) {
      for (Seat s = 0; s < players; ++s) {
        const View seen = view_of(game, Viewer::of(s));
        // Reading a field keeps the work from being optimised away.
        if (seen.players != players) throw std::logic_error("play_match: a view lost its seats");
      }
    }
  }
  return game;
}

}  // namespace gofish::engine
