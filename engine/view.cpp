#include "engine/view.hpp"

#include <type_traits>
#include <variant>

namespace gofish::engine {
namespace {

// Which events carry what only their own seat may see. Every event type is
// named, so a new one fails to compile here until its visibility has been
// decided; the static_assert below then fails until event_for hides it.
constexpr bool owner_only(const GameStarted*) { return false; }
constexpr bool owner_only(const HandDealt*) { return true; }
constexpr bool owner_only(const HandDealtCount*) { return false; }
constexpr bool owner_only(const AskedRank*) { return false; }
constexpr bool owner_only(const AskedCard*) { return false; }
constexpr bool owner_only(const Answered*) { return false; }
constexpr bool owner_only(const Gave*) { return false; }
constexpr bool owner_only(const GoFish*) { return false; }
constexpr bool owner_only(const Drew*) { return true; }
constexpr bool owner_only(const DrewHidden*) { return false; }
constexpr bool owner_only(const LuckyDraw*) { return false; }
constexpr bool owner_only(const SetLaid*) { return false; }
constexpr bool owner_only(const Penalty*) { return false; }
constexpr bool owner_only(const TurnPassed*) { return false; }
constexpr bool owner_only(const SatOut*) { return false; }
constexpr bool owner_only(const WentOut*) { return false; }
constexpr bool owner_only(const MissedTurn*) { return false; }
constexpr bool owner_only(const GameOver*) { return false; }

template <class... Es>
constexpr bool hides_exactly_the_owner_only_events(const std::variant<Es...>*) {
  return ((owner_only(static_cast<const Es*>(nullptr)) == (std::is_same_v<Es, HandDealt> || std::is_same_v<Es, Drew>)) &&
          ...);
}
static_assert(hides_exactly_the_owner_only_events(static_cast<const Event*>(nullptr)),
              "event_for must hide every owner-only event, and only those");

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
    seat.set_count = game.set_count_[s];
    seat.set_ranks = game.set_ranks_[s];
    seat.set_scores = game.scoring_[s];
    seat.score = game.score_[s];
  }
  view.stock_size = game.stock_size();
  view.phase = game.phase();
  view.turn = game.turn();
  view.to_act = game.to_act();
  view.pending = game.pending_ask();
  if (seated && *viewer.seat == game.to_act()) view.legal = game.legal(*viewer.seat);
  if (seated && game.rules().table_rules) {
    ImproperDecisions improper = game.improper(*viewer.seat);
    if (!improper.empty()) view.improper = improper;  // none: left as default, as a client reads it
  }
  view.end_reason = game.end_reason();
  view.winners = game.winners();
  return view;
}

Event event_for(const Event& event, Viewer viewer) {
  const auto owns = [&](Seat seat) { return viewer.seat && *viewer.seat == seat; };
  // Two tests on the type index rather than a visit: a visit is an indirect
  // jump that the processor mispredicts as event types vary, and it runs for
  // every event and every viewer. Which types are tested here is checked
  // against owner_only above at compile time.
  if (const auto* dealt = std::get_if<HandDealt>(&event); dealt && !owns(dealt->seat)) {
    return HandDealtCount{dealt->seat, dealt->cards.size()};
  }
  if (const auto* drew = std::get_if<Drew>(&event); drew && !owns(drew->seat)) return DrewHidden{drew->seat, drew->cause};
  return event;
}

}  // namespace gofish::engine
