#include "bench/load/seat_tracker.hpp"

#include <type_traits>
#include <variant>

namespace gofish::load {

namespace {

constexpr int kSetSize = 4;  // classic books
constexpr int kAllSets = engine::kDeckSize / kSetSize;

}  // namespace

void SeatTracker::move_cards(engine::Seat from, engine::Seat to, engine::CardSet cards) {
  seats_[from].hand_size -= cards.size();
  seats_[to].hand_size += cards.size();
  if (from == seat_) hand_.remove(cards);
  if (to == seat_) hand_.add(cards);
}

void SeatTracker::observe(const engine::Event& event) {
  std::visit(
      [this](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, engine::GameStarted>) {
          *this = SeatTracker(seat_);
          started_ = true;
          players_ = e.players;
          turn_ = e.first;
          stock_ = e.stock;
        } else if constexpr (std::is_same_v<E, engine::HandDealt>) {
          if (e.seat == seat_) hand_ = e.cards;
          seats_[e.seat].hand_size = e.cards.size();
          ++dealt_;
        } else if constexpr (std::is_same_v<E, engine::HandDealtCount>) {
          seats_[e.seat].hand_size = e.count;
          ++dealt_;
        } else if constexpr (std::is_same_v<E, engine::AskedRank> || std::is_same_v<E, engine::AskedCard>) {
          if (e.seat == seat_) awaiting_answer_ = true;
        } else if constexpr (std::is_same_v<E, engine::Gave>) {
          move_cards(e.from, e.to, e.cards);
          if (e.to == seat_) awaiting_answer_ = false;  // a catch: ask again
        } else if constexpr (std::is_same_v<E, engine::Drew>) {
          ++seats_[e.seat].hand_size;
          --stock_;
          if (e.seat == seat_) hand_.add(e.card);
        } else if constexpr (std::is_same_v<E, engine::DrewHidden>) {
          ++seats_[e.seat].hand_size;
          --stock_;
        } else if constexpr (std::is_same_v<E, engine::LuckyDraw>) {
          if (e.seat == seat_) awaiting_answer_ = false;  // the card came with Drew
        } else if constexpr (std::is_same_v<E, engine::SetLaid>) {
          engine::SeatView& owner = seats_[e.seat];
          owner.hand_size -= e.cards.size();
          if (e.seat == seat_) hand_.remove(e.cards);
          if (e.outcome == engine::SetOutcome::kScores) {
            owner.set_scores |= std::uint32_t{1} << owner.set_count;
            ++owner.score;
          }
          owner.set_ranks[static_cast<std::size_t>(owner.set_count++)] = e.rank;
          ++sets_down_;
        } else if constexpr (std::is_same_v<E, engine::TurnPassed>) {
          turn_ = e.to;
          awaiting_answer_ = false;
        } else if constexpr (std::is_same_v<E, engine::SatOut>) {
          seats_[e.seat].status = engine::SeatStatus::kSittingOut;
        } else if constexpr (std::is_same_v<E, engine::WentOut>) {
          seats_[e.seat].status = engine::SeatStatus::kOut;
        } else if constexpr (std::is_same_v<E, engine::GameOver>) {
          over_ = true;
          awaiting_answer_ = false;
        }
        // GoFish, Answered, Penalty, MissedTurn: nothing a classic seat keeps.
      },
      event);
}

bool SeatTracker::ready_to_ask() const {
  if (!in_game() || dealt_ < players_ || turn_ != seat_ || awaiting_answer_) return false;
  // A whole book in hand is laid by the server in an event still to come.
  if (hand_.ranks_with_at_least(kSetSize) != 0) return false;
  // Classic endings, also announced by an event still to come.
  if (stock_ <= 0 || sets_down_ >= kAllSets) return false;
  for (int s = 0; s < players_; ++s) {
    if (seats_[s].hand_size <= 0) return false;
  }
  return true;
}

engine::View SeatTracker::view() const {
  engine::View view;
  view.viewer = engine::Viewer::of(seat_);
  view.players = players_;
  view.hand = hand_;
  view.seats = seats_;
  view.stock_size = stock_;
  view.phase = over_ ? engine::Phase::kOver : engine::Phase::kAsk;
  view.turn = turn_;
  view.to_act = turn_;
  view.legal.seat = seat_;
  if (ready_to_ask()) {
    for (engine::Seat s = 0; s < players_; ++s) {
      if (s != seat_ && seats_[s].status != engine::SeatStatus::kOut) {
        view.legal.targets |= static_cast<std::uint8_t>(1U << s);
      }
    }
    view.legal.ranks = hand_.ranks();
  }
  return view;
}

}  // namespace gofish::load
