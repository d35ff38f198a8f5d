#include "engine/event_view.hpp"

#include <type_traits>
#include <utility>
#include <variant>

#include "engine/bits.hpp"

namespace gofish::engine {

EventView::EventView(Rules rules, Viewer viewer, int players) : rules_(std::move(rules)) {
  view_.viewer = viewer;
  view_.players = players;
  view_.turn = -1;  // nobody is to act until the deal says who goes first
  view_.to_act = -1;
}

EventView::EventView(Rules rules, View view) : rules_(std::move(rules)), view_(std::move(view)) {}

int EventView::sets_down() const {
  int total = 0;
  for (int s = 0; s < view_.players; ++s) total += view_.seats[static_cast<std::size_t>(s)].set_count;
  return total;
}

void EventView::apply(const Event& event) {
  View& view = view_;
  const auto add_cards = [&](Seat s, CardSet cards) {
    seat(s).hand_size += cards.size();
    if (is_viewer(s)) view.hand.add(cards);
  };
  const auto remove_cards = [&](Seat s, CardSet cards) {
    seat(s).hand_size -= cards.size();
    if (is_viewer(s)) view.hand.remove(cards);
  };
  const auto give_turn = [&](Seat s) {
    view.turn = s;
    view.to_act = s;
    view.phase = Phase::kAsk;
    view.pending.reset();
  };
  const auto asked = [&](Seat s, Seat target, Rank rank, std::optional<Card> card) {
    // Under table rules an ask in turn waits for its answer; one out of turn
    // only earns a penalty (announced by an event of its own).
    if (!rules_.table_rules || s != view.turn) return;
    view.phase = Phase::kAnswer;
    view.to_act = target;
    view.pending = PendingAsk{s, target, rank, card};
  };
  std::visit(
      [&](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, GameStarted>) {
          *this = EventView(rules_, view.viewer, e.players);
          view.stock_size = e.stock;
          give_turn(e.first);
        } else if constexpr (std::is_same_v<E, HandDealt>) {
          seat(e.seat).hand_size = e.cards.size();
          if (is_viewer(e.seat)) view.hand = e.cards;
        } else if constexpr (std::is_same_v<E, HandDealtCount>) {
          seat(e.seat).hand_size = e.count;
        } else if constexpr (std::is_same_v<E, AskedRank>) {
          asked(e.seat, e.target, e.rank, std::nullopt);
        } else if constexpr (std::is_same_v<E, AskedCard>) {
          asked(e.seat, e.target, e.card.rank(), e.card);
        } else if constexpr (std::is_same_v<E, Answered>) {
          view.phase = Phase::kAsk;
          view.to_act = view.turn;
          view.pending.reset();
        } else if constexpr (std::is_same_v<E, Gave>) {
          remove_cards(e.from, e.cards);
          add_cards(e.to, e.cards);
        } else if constexpr (std::is_same_v<E, Drew>) {
          CardSet drawn;
          drawn.add(e.card);
          add_cards(e.seat, drawn);
          --view.stock_size;
        } else if constexpr (std::is_same_v<E, DrewHidden>) {
          ++seat(e.seat).hand_size;
          --view.stock_size;
        } else if constexpr (std::is_same_v<E, SetLaid>) {
          remove_cards(e.seat, e.cards);
          SeatView& owner = seat(e.seat);
          owner.set_ranks[static_cast<std::size_t>(owner.set_count)] = static_cast<std::uint8_t>(e.rank);
          if (e.outcome == SetOutcome::kScores) {
            owner.set_scores |= 1U << owner.set_count;
            ++owner.score;
          }
          ++owner.set_count;
        } else if constexpr (std::is_same_v<E, Penalty>) {
          SeatView& owner = seat(e.seat);
          if (e.kind != PenaltyKind::kIllegalCall) owner.barred_ranks |= rank_bit(e.rank);
          if (e.kind != PenaltyKind::kAskedOutOfTurn) owner.misses_next_turn = true;
        } else if constexpr (std::is_same_v<E, TurnPassed>) {
          give_turn(e.to);
        } else if constexpr (std::is_same_v<E, SatOut>) {
          seat(e.seat).status = SeatStatus::kSittingOut;
        } else if constexpr (std::is_same_v<E, WentOut>) {
          seat(e.seat).status = SeatStatus::kOut;
        } else if constexpr (std::is_same_v<E, MissedTurn>) {
          seat(e.seat).misses_next_turn = false;
        } else if constexpr (std::is_same_v<E, GameOver>) {
          view.phase = Phase::kOver;
          view.pending.reset();
          view.end_reason = e.reason;
          view.winners = e.winners;
        } else {
          // GoFish, LuckyDraw: nothing a view keeps.
          static_assert(std::is_same_v<E, GoFish> || std::is_same_v<E, LuckyDraw>);
        }
      },
      event);
  view.legal = derive_legal();
  view.improper = derive_improper();
}

// The legality module on what this viewer sees: its own hand, every seat's
// status, whose turn it is and the pending ask, the facts Game::legal hands it.
LegalityFacts EventView::facts() const {
  const View& view = view_;
  LegalityFacts facts{view.players, view.phase, view.turn, view.pending, 0};
  for (Seat s = 0; s < view.players; ++s) {
    if (view.seats[static_cast<std::size_t>(s)].status != SeatStatus::kOut) {
      facts.in_play |= seat_bit(s);
    }
  }
  return facts;
}

LegalDecisions EventView::derive_legal() const {
  const View& view = view_;
  if (!view.viewer.seat || view.to_act != *view.viewer.seat) return {};
  return legal_decisions(rules_, facts(), *view.viewer.seat, view.hand);
}

ImproperDecisions EventView::derive_improper() const {
  const View& view = view_;
  if (!view.viewer.seat || !rules_.table_rules) return {};
  ImproperDecisions improper = improper_decisions(rules_, facts(), *view.viewer.seat, view.hand);
  return improper.empty() ? ImproperDecisions{} : improper;  // none: as view_of leaves it
}

}  // namespace gofish::engine
