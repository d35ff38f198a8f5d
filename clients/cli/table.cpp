#include "clients/cli/table.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "clients/cli/overloaded.hpp"

namespace gofish::cli {
namespace {

std::uint16_t rank_bit(engine::Rank rank) { return static_cast<std::uint16_t>(1U << rank); }

}  // namespace

void Table::apply_snapshot(const protocol::RoomSnapshot& snapshot) {
  if (snapshot.game_number != game_number_ || snapshot.code != code_) rematch_ready_.clear();
  v_ = snapshot.v;
  code_ = snapshot.code;
  state_ = snapshot.state;
  game_number_ = snapshot.game_number;
  host_ = snapshot.host;
  you_ = snapshot.you;
  settings_ = snapshot.settings;
  seats_ = snapshot.seats;
  spectators_ = snapshot.spectators;
  game_ = snapshot.game;
  result_ = snapshot.result;
  last_ask_.reset();
}

bool Table::apply(std::int64_t v, const protocol::RoomEvent& event) {
  if (v <= v_) return false;
  v_ = v;
  const auto seat_info = [this](engine::Seat seat) -> protocol::SeatInfo& {
    if (static_cast<std::size_t>(seat) >= seats_.size()) seats_.resize(static_cast<std::size_t>(seat) + 1);
    return seats_[static_cast<std::size_t>(seat)];
  };
  std::visit(Overloaded{
                 [&](const engine::Event& e) { apply_game_event(e); },
                 [&](const protocol::SeatJoined& e) {
                   seat_info(e.seat) = protocol::SeatInfo{protocol::Occupant::kHuman, e.name, std::nullopt, true};
                 },
                 [&](const protocol::SeatLeft& e) {
                   if (state_ == protocol::RoomState::kPlaying) {
                     seat_info(e.seat).connected = false;
                     seat_info(e.seat).bot_playing = true;
                   } else {
                     seat_info(e.seat) = protocol::SeatInfo{};
                   }
                 },
                 [&](const protocol::BotAdded& e) {
                   seat_info(e.seat) = protocol::SeatInfo{protocol::Occupant::kBot, e.name, e.level};
                 },
                 [&](const protocol::BotRemoved& e) { seat_info(e.seat) = protocol::SeatInfo{}; },
                 [&](const protocol::Kicked& e) {
                   if (state_ == protocol::RoomState::kPlaying) {
                     seat_info(e.seat).connected = false;
                     seat_info(e.seat).bot_playing = true;
                     seat_info(e.seat).kicked = true;
                   } else {
                     seat_info(e.seat) = protocol::SeatInfo{};
                   }
                 },
                 [&](const protocol::ConnectionChanged& e) {
                   seat_info(e.seat).connected = e.connected;
                   if (e.connected) seat_info(e.seat).bot_playing = false;
                 },
                 [&](const protocol::SpectatorsChanged& e) { spectators_ = e.count; },
                 [&](const protocol::HostChanged& e) { host_ = e.seat; },
                 [&](const protocol::NewGame& e) {
                   state_ = protocol::RoomState::kPlaying;
                   game_number_ = e.game;
                   result_.reset();
                   rematch_ready_.clear();
                   start_game(static_cast<int>(e.players.size()));
                 },
                 [&](const protocol::BotTakeover& e) {
                   if (e.reason != protocol::TakeoverReason::kTimeout) seat_info(e.seat).bot_playing = true;
                 },
                 [&](const protocol::TurnTimer&) {},
                 [&](const protocol::RematchVote& e) { rematch_ready_ = e.ready; },
                 [&](const protocol::ChatPosted&) {},
             },
             event);
  return true;
}

void Table::start_game(int players) {
  game_ = engine::View{};
  game_->viewer = you_ ? engine::Viewer::of(*you_) : engine::Viewer::spectator();
  game_->players = players;
  // Nobody is to act until the deal says who goes first.
  game_->turn = -1;
  game_->to_act = -1;
  last_ask_.reset();
}

void Table::apply_game_event(const engine::Event& event) {
  if (!game_) start_game(static_cast<int>(seats_.size()));
  engine::View& view = *game_;
  const auto add_cards = [&](engine::Seat seat, engine::CardSet cards) {
    seat_view(seat).hand_size += cards.size();
    if (is_you(seat)) view.hand.add(cards);
  };
  const auto remove_cards = [&](engine::Seat seat, engine::CardSet cards) {
    seat_view(seat).hand_size -= cards.size();
    if (is_you(seat)) view.hand.remove(cards);
  };
  const auto give_turn = [&](engine::Seat seat) {
    view.turn = seat;
    view.to_act = seat;
    view.phase = engine::Phase::kAsk;
    view.pending.reset();
  };
  const auto asked = [&](engine::Seat seat, engine::Seat target, engine::Rank rank, std::optional<engine::Card> card) {
    last_ask_ = event;
    // Under table rules an ask in turn waits for its answer; one out of turn
    // only earns a penalty (announced separately).
    if (!rules().table_rules || seat != view.turn) return;
    view.phase = engine::Phase::kAnswer;
    view.to_act = target;
    view.pending = engine::Game::PendingAsk{seat, target, rank, card};
  };
  std::visit(Overloaded{
                 [&](const engine::GameStarted& e) {
                   start_game(e.players);
                   view.stock_size = e.stock;
                   give_turn(e.first);
                 },
                 [&](const engine::HandDealt& e) {
                   seat_view(e.seat).hand_size = e.cards.size();
                   if (is_you(e.seat)) view.hand = e.cards;
                 },
                 [&](const engine::HandDealtCount& e) { seat_view(e.seat).hand_size = e.count; },
                 [&](const engine::AskedRank& e) { asked(e.seat, e.target, e.rank, std::nullopt); },
                 [&](const engine::AskedCard& e) { asked(e.seat, e.target, e.card.rank(), e.card); },
                 [&](const engine::Answered&) {
                   view.phase = engine::Phase::kAsk;
                   view.to_act = view.turn;
                   view.pending.reset();
                 },
                 [&](const engine::Gave& e) {
                   remove_cards(e.from, e.cards);
                   add_cards(e.to, e.cards);
                 },
                 [&](const engine::GoFish&) {},
                 [&](const engine::Drew& e) {
                   engine::CardSet drawn;
                   drawn.add(e.card);
                   add_cards(e.seat, drawn);
                   --view.stock_size;
                 },
                 [&](const engine::DrewHidden& e) {
                   ++seat_view(e.seat).hand_size;
                   --view.stock_size;
                 },
                 [&](const engine::LuckyDraw&) {},
                 [&](const engine::SetLaid& e) {
                   remove_cards(e.seat, e.cards);
                   engine::SeatView& seat = seat_view(e.seat);
                   seat.set_ranks[static_cast<std::size_t>(seat.set_count)] = e.rank;
                   if (e.outcome == engine::SetOutcome::kScores) {
                     seat.set_scores |= 1U << seat.set_count;
                     ++seat.score;
                   }
                   ++seat.set_count;
                 },
                 [&](const engine::Penalty& e) {
                   engine::SeatView& seat = seat_view(e.seat);
                   if (e.kind != engine::PenaltyKind::kIllegalCall) seat.barred_ranks |= rank_bit(e.rank);
                   if (e.kind != engine::PenaltyKind::kAskedOutOfTurn) seat.misses_next_turn = true;
                 },
                 [&](const engine::TurnPassed& e) { give_turn(e.to); },
                 [&](const engine::SatOut& e) { seat_view(e.seat).status = engine::SeatStatus::kSittingOut; },
                 [&](const engine::WentOut& e) { seat_view(e.seat).status = engine::SeatStatus::kOut; },
                 [&](const engine::MissedTurn& e) { seat_view(e.seat).misses_next_turn = false; },
                 [&](const engine::GameOver& e) {
                   view.phase = engine::Phase::kOver;
                   view.pending.reset();
                   view.end_reason = e.reason;
                   view.winners = e.winners;
                   result_ = e;
                   state_ = protocol::RoomState::kOver;
                 },
             },
             event);
  view.legal = legal();
}

std::string Table::name_of(engine::Seat seat) const {
  if (seat >= 0 && static_cast<std::size_t>(seat) < seats_.size() &&
      !seats_[static_cast<std::size_t>(seat)].name.empty()) {
    return seats_[static_cast<std::size_t>(seat)].name;
  }
  return "Seat " + std::to_string(seat + 1);
}

bool Table::your_move() const {
  return game_ && you_ && game_->phase != engine::Phase::kOver && game_->to_act == *you_;
}

// The same predicates as engine::Game::legal, applied to what this seat sees:
// its own hand, every seat's status, and the pending ask.
engine::LegalDecisions Table::legal() const {
  engine::LegalDecisions legal;
  if (!game_ || !you_ || game_->to_act != *you_) return legal;
  const engine::View& view = *game_;
  const engine::Seat me = *you_;
  legal.seat = me;
  legal.ask_for = rules().ask_for;
  if (view.phase == engine::Phase::kOver) return legal;
  if (view.phase == engine::Phase::kAnswer) {
    if (view.pending && view.pending->target == me) {
      const bool has =
          view.pending->card ? view.hand.contains(*view.pending->card) : view.hand.has_rank(view.pending->rank);
      legal.give = has;
      legal.go_fish = !has;
    }
    return legal;
  }
  if (view.turn != me) return legal;
  for (engine::Seat s = 0; s < view.players; ++s) {
    if (s != me && view.seats[static_cast<std::size_t>(s)].status != engine::SeatStatus::kOut) {
      legal.targets = static_cast<std::uint8_t>(legal.targets | (1U << s));
    }
  }
  if (legal.ask_for == engine::AskFor::kRank) {
    legal.ranks = view.hand.ranks();
  } else {
    for (std::uint16_t held = view.hand.ranks(); held != 0; held &= static_cast<std::uint16_t>(held - 1)) {
      legal.cards.add(engine::CardSet::of_rank(std::countr_zero(held)));
    }
    if (!rules().may_ask_held_card) legal.cards.remove(view.hand);
  }
  if (rules().table_rules) legal.declarable = view.hand.ranks_with_at_least(rules().set_size);
  return legal;
}

}  // namespace gofish::cli
