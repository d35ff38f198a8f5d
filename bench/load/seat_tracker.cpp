#include "bench/load/seat_tracker.hpp"

#include <variant>

namespace gofish::load {

namespace {

const engine::Rules& classic() {
  static const engine::Rules rules = *engine::preset("classic");
  return rules;
}

}  // namespace

SeatTracker::SeatTracker(engine::Seat seat) : seat_(seat), game_(classic(), engine::Viewer::of(seat), 0) {}

void SeatTracker::observe(const engine::Event& event) {
  game_.apply(event);
  if (std::holds_alternative<engine::GameStarted>(event)) {
    started_ = true;
    over_ = false;
    dealt_ = 0;
    awaiting_answer_ = false;
  } else if (std::holds_alternative<engine::HandDealt>(event) || std::holds_alternative<engine::HandDealtCount>(event)) {
    ++dealt_;
  } else if (const auto* asked = std::get_if<engine::AskedRank>(&event)) {
    if (asked->seat == seat_) awaiting_answer_ = true;
  } else if (const auto* gave = std::get_if<engine::Gave>(&event)) {
    if (gave->to == seat_) awaiting_answer_ = false;  // a catch: ask again
  } else if (const auto* lucky = std::get_if<engine::LuckyDraw>(&event)) {
    if (lucky->seat == seat_) awaiting_answer_ = false;  // the card came with Drew
  } else if (std::holds_alternative<engine::TurnPassed>(event)) {
    awaiting_answer_ = false;
  } else if (std::holds_alternative<engine::GameOver>(event)) {
    over_ = true;
    awaiting_answer_ = false;
  }
}

bool SeatTracker::ready_to_ask() const {
  const engine::View& view = game_.view();
  if (!in_game() || dealt_ < view.players || view.turn != seat_ || awaiting_answer_) return false;
  const int set_size = classic().set_size;
  // A whole book in hand is laid by the server in an event still to come.
  if (view.hand.ranks_with_at_least(set_size) != 0) return false;
  // Classic endings, also announced by an event still to come.
  if (view.stock_size <= 0 || game_.sets_down() >= engine::total_sets(classic())) return false;
  for (int s = 0; s < view.players; ++s) {
    if (view.seats[static_cast<std::size_t>(s)].hand_size <= 0) return false;
  }
  return true;
}

}  // namespace gofish::load
