#include "engine/transcript.hpp"

namespace gofish::engine {

Transcript make_transcript(const Game& game) {
  Transcript t;
  t.rules = game.rules_;
  t.players = game.players_;
  t.deck = game.deck_;
  t.dealer = game.dealer_;
  t.first = game.first_;
  t.actions = game.decisions_;
  t.books.resize(static_cast<std::size_t>(game.players_));
  for (Seat s = 0; s < game.players_; ++s) {
    for (int i = 0; i < game.set_count(s); ++i) {
      const Game::LaidSet set = game.laid_set(s, i);
      if (set.outcome == SetOutcome::kScores) t.books[static_cast<std::size_t>(s)].push_back(set.rank);
    }
    if ((game.winners_ >> s) & 1U) t.winners.push_back(s);
  }
  return t;
}

std::variant<Game, std::string> replay(const Transcript& t) {
  auto started = Game::start(t.rules, t.players, t.deck, t.dealer, t.first);
  if (auto* error = std::get_if<ConfigError>(&started)) return "the set-up is refused: " + error->message;
  Game game = std::get<Game>(std::move(started));
  for (std::size_t i = 0; i < t.actions.size(); ++i) {
    if (auto refusal = game.apply(t.actions[i])) {
      return "action " + std::to_string(i) + " (" + to_string(t.actions[i]) + ") is refused: " + refusal->message;
    }
  }
  return game;
}

std::optional<std::string> replay_check(const Transcript& t) {
  auto replayed = replay(t);
  if (auto* error = std::get_if<std::string>(&replayed)) return *error;
  const Game& game = std::get<Game>(replayed);
  if (!game.over()) return std::string("the game is not over after the last action");
  const Transcript again = make_transcript(game);
  if (again.books != t.books) return std::string("the sets laid down differ from the recorded result");
  if (again.winners != t.winners) return std::string("the winners differ from the recorded result");
  return std::nullopt;
}

}  // namespace gofish::engine
