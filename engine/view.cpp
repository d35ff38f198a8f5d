#include "engine/view.hpp"

namespace gofish::engine {
namespace {
template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;
}  // namespace

View view_of(const Game& game, Viewer viewer) {
  View view;
  view.viewer = viewer;
  view.players = game.players_;
  const bool seated = viewer.seat && *viewer.seat >= 0 && *viewer.seat < game.players_;
  if (seated) view.hand = game.hands_[*viewer.seat];
  for (Seat s = 0; s < game.players_; ++s) {
    SeatView& seat = view.seats[s];
    seat.hand_size = game.hands_[s].size();
    seat.status = game.status_[s];
    seat.misses_next_turn = game.misses_next_turn(s);
    seat.barred_ranks = game.barred_[s];
    seat.set_count = game.set_count(s);
    for (int i = 0; i < seat.set_count; ++i) {
      const Game::LaidSet set = game.laid_set(s, i);
      seat.set_ranks[static_cast<std::size_t>(i)] = set.rank;
      if (set.outcome == SetOutcome::kScores) {
        seat.set_scores |= 1U << i;
        ++seat.score;
      }
    }
  }
  view.stock_size = game.stock_size();
  view.phase = game.phase();
  view.turn = game.turn();
  view.to_act = game.to_act();
  view.pending = game.pending_ask();
  if (seated && *viewer.seat == game.to_act()) view.legal = game.legal(*viewer.seat);
  view.end_reason = game.end_reason();
  view.winners = game.winners();
  return view;
}

Event event_for(const Event& event, Viewer viewer) {
  const auto owns = [&](Seat seat) { return viewer.seat && *viewer.seat == seat; };
  // Every event type is named, so a new one fails to compile here until its
  // visibility has been decided.
  return std::visit(Overloaded{
                        [&](const HandDealt& e) -> Event {
                          if (owns(e.seat)) return e;
                          return HandDealtCount{e.seat, e.cards.size()};
                        },
                        [&](const Drew& e) -> Event {
                          if (owns(e.seat)) return e;
                          return DrewHidden{e.seat, e.cause};
                        },
                        [](const GameStarted& e) -> Event { return e; },
                        [](const HandDealtCount& e) -> Event { return e; },
                        [](const AskedRank& e) -> Event { return e; },
                        [](const AskedCard& e) -> Event { return e; },
                        [](const Answered& e) -> Event { return e; },
                        [](const Gave& e) -> Event { return e; },
                        [](const GoFish& e) -> Event { return e; },
                        [](const DrewHidden& e) -> Event { return e; },
                        [](const LuckyDraw& e) -> Event { return e; },
                        [](const SetLaid& e) -> Event { return e; },
                        [](const Penalty& e) -> Event { return e; },
                        [](const TurnPassed& e) -> Event { return e; },
                        [](const SatOut& e) -> Event { return e; },
                        [](const WentOut& e) -> Event { return e; },
                        [](const MissedTurn& e) -> Event { return e; },
                        [](const GameOver& e) -> Event { return e; },
                    },
                    event);
}

}  // namespace gofish::engine
