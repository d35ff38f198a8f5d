#include "engine/game.hpp"

#include <array>
#include <bit>
#include <cassert>
#include <string>

#include "engine/bits.hpp"
#include "engine/setup.hpp"

namespace gofish::engine {
namespace {

std::string seat_name(Seat seat) { return "seat " + std::to_string(seat); }

// The `n` lowest cards of `cards` (the lowest suits, for one rank).
CardSet lowest_cards(CardSet cards, int n) {
  std::uint64_t rest = cards.mask();
  std::uint64_t out = 0;
  for (int taken = 0; taken != n && rest != 0; ++taken) {
    out |= rest & (~rest + 1);  // the lowest card left
    rest &= rest - 1;
  }
  return CardSet::from_mask(out);
}

}  // namespace

// ---------------------------------------------------------------- start

std::variant<Game, ConfigError> Game::start(const Rules& rules, int players, const Deck& deck, Seat dealer,
                                            Seat first) {
  if (auto error = validate(rules, players)) return *error;
  if (!is_complete_deck(deck)) return ConfigError{"deck", "The deck must hold each of the 52 cards exactly once."};
  if (dealer < 0 || dealer >= players) return ConfigError{"dealer", "The dealer must be one of the seats."};
  if (first < 0 || first >= players) return ConfigError{"first", "The first player must be one of the seats."};
  if (rules.first_player == FirstPlayer::kLeftOfDealer && first != left_of(dealer, players)) {
    return ConfigError{"first", "Under these rules the player to the dealer's left asks first."};
  }
  Game game;
  game.rules_ = rules;
  game.players_ = players;
  game.facts_.players = players;
  game.dealer_ = dealer;
  game.first_ = first;
  game.deck_ = deck;
  game.facts_.turn = first;
  game.facts_.in_play = static_cast<std::uint8_t>((1U << players) - 1U);
  game.decisions_.reserve(128);
  game.events_.reserve(32);
  game.deal();
  return game;
}

void Game::deal() {
  const int dealt = rules_.deal_whole_pack ? kDeckSize : engine::hand_size(rules_, players_) * players_;
  for (int i = 0; i < dealt; ++i) hands_[(dealer_ + 1 + i) % players_].add(deck_[i]);
  next_card_ = dealt;
  emit(GameStarted{players_, dealer_, first_, stock_size()});
  for (int i = 1; i <= players_; ++i) {
    const Seat seat = (dealer_ + i) % players_;
    emit(HandDealt{seat, hands_[seat]});
  }
  // Under table rules the owners declare dealt sets themselves.
  if (!rules_.table_rules) {
    for (int i = 1; i <= players_; ++i) lay_sets((dealer_ + i) % players_, true);
  }
  for (Seat s = 0; s < players_; ++s) mark_out_if_empty(s);
  if (check_end()) return;
  continue_turn(first_);
}

// ---------------------------------------------------------------- validation

void Game::go_out(Seat seat) {
  status_[seat] = SeatStatus::kOut;
  facts_.in_play &= static_cast<std::uint8_t>(~seat_bit(seat));
  emit(WentOut{seat});
}

ImproperDecisions Game::improper(Seat seat) const {
  return improper_decisions(rules_, facts_, seat, hand_of(seat));
}

// ---------------------------------------------------------------- apply

std::optional<Refusal> Game::apply(const Judgement& judgement) {
  if (judgement.game_ != this || judgement.state_ != decisions_.size()) return apply(judge(judgement.decision()));
  if (!judgement.accepted()) return judgement.refusal();
  const Decision& d = judgement.decision();
  events_.clear();
  switch (d.kind) {
    case DecisionKind::kAskRank: do_ask(d.seat, d.target, d.rank, std::nullopt, judgement); break;
    case DecisionKind::kAskCard: do_ask(d.seat, d.target, d.card.rank(), d.card, judgement); break;
    case DecisionKind::kAnswer: answer(d.seat, d.give, judgement); break;
    case DecisionKind::kDeclare: declare(d.seat, d.rank); break;
  }
  decisions_.push_back(d);
  return std::nullopt;
}

void Game::do_ask(Seat seat, Seat target, Rank rank, std::optional<Card> card, const Judgement& judgement) {
  const std::optional<PenaltyKind> penalty = judgement.penalty();
  if (card) {
    emit(AskedCard{seat, target, *card});
  } else {
    emit(AskedRank{seat, target, rank});
  }
  if (!rules_.table_rules) {
    resolve_ask(seat, target, rank, card, holds(hands_[target], rank, card));
    return;
  }
  if (penalty == PenaltyKind::kAskedOutOfTurn) {
    // 001: asking out of turn. The ask has no other effect.
    bar_rank(seat, rank);
    emit(Penalty{seat, PenaltyKind::kAskedOutOfTurn, rank});
    return;
  }
  if (penalty == PenaltyKind::kIllegalCall) {
    misses_next_ |= seat_bit(seat);
    emit(Penalty{seat, PenaltyKind::kIllegalCall, rank});
  }
  facts_.phase = Phase::kAnswer;
  facts_.pending = PendingAsk{seat, target, rank, card};
}

// Table rules: the asked seat's reply to the pending ask.
void Game::answer(Seat seat, bool give, const Judgement& judgement) {
  const Seat asker = facts_.turn;
  const PendingAsk pending = *facts_.pending;
  const std::optional<PenaltyKind> penalty = judgement.penalty();
  // A proper answer is the truth; a penalised one is a false "Go fish".
  const bool has = give || penalty.has_value();
  emit(Answered{seat, give});
  if (penalty) {
    // 001: failure to give up a card. Handed over all the same.
    bar_rank(seat, pending.rank);
    misses_next_ |= seat_bit(seat);
    emit(Penalty{seat, PenaltyKind::kFalseGoFish, pending.rank});
  }
  facts_.phase = Phase::kAsk;
  facts_.pending.reset();
  resolve_ask(asker, seat, pending.rank, pending.card, has);
}

// Table rules: `seat` lays down a set of `rank` it holds.
void Game::declare(Seat seat, Rank rank) {
  lay_set(seat, rank, lowest_cards(hands_[seat].cards_of(rank), rules_.set_size), SetOutcome::kScores, false);
  mark_out_if_empty(seat);
  if (check_end()) return;
  continue_turn(seat);
}

void Game::resolve_ask(Seat seat, Seat target, Rank rank, std::optional<Card> card, bool has_cards) {
  if (has_cards) {
    CardSet moved;
    if (card) {
      moved.add(*card);
    } else if (rules_.give == GiveRule::kAll) {
      moved = hands_[target].cards_of(rank);
    } else {
      moved.add(hands_[target].cards_of(rank).lowest());
    }
    hands_[target].remove(moved);
    hands_[seat].add(moved);
    emit(Gave{target, seat, moved});
    if (!rules_.table_rules) lay_sets_of(seat, rank);
    mark_out_if_empty(target);
    mark_out_if_empty(seat);
    if (check_end()) return;
    continue_turn(seat);
    return;
  }
  const bool stock_empty = stock_size() == 0;
  emit(GoFish{target, seat, stock_empty});
  bool again = false;
  if (!stock_empty) {
    const Card drawn = draw(seat, DrawCause::kFish);
    const bool lucky = card ? drawn == *card : drawn.rank() == rank;
    // The card is shown only where a lucky draw earns another ask (000, 002);
    // under bicycle rules it is just a fish and stays private (R22).
    if (lucky && rules_.lucky_draw == LuckyDrawRule::kAskAgain) emit(LuckyDraw{seat, drawn});
    const bool completes_set = hands_[seat].count(drawn.rank()) >= rules_.set_size;
    if (!rules_.table_rules) lay_sets_of(seat, drawn.rank());
    mark_out_if_empty(seat);
    if (check_end()) return;
    again = (lucky && rules_.lucky_draw == LuckyDrawRule::kAskAgain) || (completes_set && rules_.play_again_after_set);
  }
  if (again) {
    continue_turn(seat);
  } else {
    pass_turn(seat, rules_.after_miss == AfterMiss::kToAsked ? target : left_of(seat, players_));
  }
}

// ---------------------------------------------------------------- cards

inline Card Game::draw(Seat seat, DrawCause cause) {
  const Card card = deck_[next_card_++];
  hands_[seat].add(card);
  emit(Drew{seat, card, cause});
  return card;
}

int Game::lay_sets(Seat seat, bool from_deal, SetOutcome outcome) {
  int laid = 0;
  // Laying a set of one rank leaves the other ranks' counts alone, so the
  // ranks holding a whole set can be found once, up front, in rank order.
  std::uint16_t full = hands_[seat].ranks_with_at_least(rules_.set_size);
  for (; full != 0; full &= static_cast<std::uint16_t>(full - 1)) {
    const Rank r = std::countr_zero(full);
    while (hands_[seat].count(r) >= rules_.set_size) {
      lay_set(seat, r, lowest_cards(hands_[seat].cards_of(r), rules_.set_size), outcome, from_deal);
      ++laid;
    }
  }
  return laid;
}

// Strict rules lay every whole set the moment its last card arrives (the
// deal's sets before the first ask), so a hand never keeps one: after cards
// of `rank` arrive, only that rank can need laying. Pairs can lay two.
void Game::lay_sets_of(Seat seat, Rank rank) {
  while (hands_[seat].count(rank) >= rules_.set_size) {
    lay_set(seat, rank, lowest_cards(hands_[seat].cards_of(rank), rules_.set_size), SetOutcome::kScores, false);
  }
}

void Game::lay_set(Seat seat, Rank rank, CardSet cards, SetOutcome outcome, bool from_deal) {
  if (outcome == SetOutcome::kScores && (barred_[seat] & rank_bit(rank))) outcome = SetOutcome::kBarred;
  hands_[seat].remove(cards);
  const int index = set_count_[seat]++;
  set_ranks_[seat][index] = static_cast<std::uint8_t>(rank);
  if (outcome == SetOutcome::kScores) {
    scoring_[seat] |= 1U << index;
    ++score_[seat];
  }
  if (outcome == SetOutcome::kNotShown) unshown_[seat] |= 1U << index;
  ++sets_down_;
  emit(SetLaid{seat, rank, cards, outcome, from_deal});
}

// 001: no set of `rank` ever scores for `seat`, those laid before included.
void Game::bar_rank(Seat seat, Rank rank) {
  barred_[seat] |= rank_bit(rank);
  for (int i = 0; i < set_count_[seat]; ++i) {
    if (set_ranks_[seat][i] == rank) scoring_[seat] &= ~(1U << i);
  }
  score_[seat] = static_cast<std::uint8_t>(bit_count(scoring_[seat]));
}

void Game::forfeit_undeclared(Seat seat) {
  // 001: a set not shown before the end of its owner's turn does not score.
  lay_sets(seat, false, SetOutcome::kNotShown);
  // Laying them down can empty the hand, which in authors is out at once.
  mark_out_if_empty(seat);
}

void Game::mark_out_if_empty(Seat seat) {
  if (rules_.empty_hand == EmptyHand::kOut && hands_[seat].empty() && status_[seat] != SeatStatus::kOut) {
    go_out(seat);
  }
}

// ---------------------------------------------------------------- turns

Game::EmptyHandTurn Game::empty_hand_turn(Seat seat) {
  switch (rules_.empty_hand) {
    case EmptyHand::kEndsGame:
      finish(EndReason::kHandEmpty);
      return EmptyHandTurn::kEnded;
    case EmptyHand::kDrawElseSitOut:
    case EmptyHand::kDrawElseOut:
      if (stock_size() > 0) {
        const Card drawn = draw(seat, DrawCause::kEmptyHand);
        if (!rules_.table_rules) lay_sets_of(seat, drawn.rank());
        if (check_end()) return EmptyHandTurn::kEnded;
        if (hands_[seat].empty()) return EmptyHandTurn::kSkipped;
        return EmptyHandTurn::kPlays;
      }
      if (rules_.empty_hand == EmptyHand::kDrawElseSitOut) {
        status_[seat] = SeatStatus::kSittingOut;
        emit(SatOut{seat});
      } else {
        go_out(seat);
      }
      return EmptyHandTurn::kSkipped;
    case EmptyHand::kOut:
      go_out(seat);
      return EmptyHandTurn::kSkipped;
  }
  return EmptyHandTurn::kSkipped;
}

// Gives `seat` the turn if it can ask; false when it cannot (the game may be over).
inline bool Game::take_turn(Seat from, Seat seat) {
  if (status_[seat] != SeatStatus::kIn) return false;
  if (from != seat) emit(TurnPassed{from, seat});
  facts_.turn = seat;
  facts_.phase = Phase::kAsk;
  if (hands_[seat].empty()) {
    if (empty_hand_turn(seat) != EmptyHandTurn::kPlays) return false;
  }
  // With nobody left to ask, a seat can still declare the sets it holds.
  if (ask_targets(in_play(), seat) == 0 && !(rules_.table_rules && declarable_ranks(rules_, hands_[seat]) != 0)) {
    finish(EndReason::kNoOneCanPlay);
    return false;
  }
  return true;
}

void Game::continue_turn(Seat seat) {
  if (take_turn(seat, seat) || over()) return;
  pass_turn(seat, left_of(seat, players_));
}

void Game::pass_turn(Seat from, Seat candidate) {
  if (rules_.table_rules) {
    forfeit_undeclared(from);
    if (check_end()) return;
  }
  Seat seat = candidate;
  Seat last = from;
  // Two rounds suffice: a round clears every missed-turn flag and settles
  // every empty hand, so a third finds nobody new.
  for (int tries = 0; tries < 2 * players_ + 1; ++tries, seat = left_of(seat, players_)) {
    if (status_[seat] != SeatStatus::kIn) continue;
    if (misses_next_ & seat_bit(seat)) {
      misses_next_ &= static_cast<std::uint8_t>(~seat_bit(seat));
      emit(MissedTurn{seat});
      continue;
    }
    if (take_turn(last, seat)) return;
    if (over()) return;
    last = seat;
  }
  finish(EndReason::kNoOneCanPlay);
}

// ---------------------------------------------------------------- the end

bool Game::check_end() {
  if (facts_.phase == Phase::kOver) return true;
  // sets_down_ == total_sets(rules_), without a call and a division: a valid
  // set size divides the 52 cards.
  if (sets_down_ * rules_.set_size == kDeckSize) {
    finish(EndReason::kAllSetsDown);
    return true;
  }
  if (rules_.empty_hand == EmptyHand::kEndsGame) {
    for (Seat s = 0; s < players_; ++s) {
      if (hands_[s].empty()) {
        finish(EndReason::kHandEmpty);
        return true;
      }
    }
  }
  if (rules_.stock_out_ends_game && stock_size() == 0) {
    finish(EndReason::kStockOut);
    return true;
  }
  return false;
}

int Game::score(Seat seat) const { return score_[seat]; }

void Game::finish(EndReason reason) {
  facts_.phase = Phase::kOver;
  end_reason_ = reason;
  std::array<int, kMaxSeats> scores{};
  int best = -1;
  for (Seat s = 0; s < players_; ++s) {
    scores[s] = score(s);
    best = std::max(best, scores[s]);
  }
  std::uint8_t winners = 0;
  for (Seat s = 0; s < players_; ++s) {
    if (scores[s] == best) winners |= seat_bit(s);
  }
  if (rules_.tie_break == TieBreak::kFewestCardsInHand && bit_count(winners) > 1) {
    int fewest = kDeckSize + 1;
    for (Seat s = 0; s < players_; ++s) {
      if (winners & seat_bit(s)) fewest = std::min(fewest, hands_[s].size());
    }
    for (Seat s = 0; s < players_; ++s) {
      if ((winners & seat_bit(s)) && hands_[s].size() != fewest) winners &= static_cast<std::uint8_t>(~seat_bit(s));
    }
  }
  winners_ = winners;
  GameOver over{reason, players_, {}, {}, winners};
  for (Seat s = 0; s < players_; ++s) {
    over.hands[s] = hands_[s];
    over.scores[s] = scores[s];
  }
  emit(over);
}

// ---------------------------------------------------------------- public facts

Game::LaidSet Game::laid_set(Seat seat, int index) const {
  const std::uint32_t bit = 1U << index;
  const SetOutcome outcome = (scoring_[seat] & bit)    ? SetOutcome::kScores
                             : (unshown_[seat] & bit) ? SetOutcome::kNotShown
                                                      : SetOutcome::kBarred;
  return LaidSet{set_ranks_[seat][index], outcome};
}

std::vector<Game::LaidSet> Game::sets(Seat seat) const {
  std::vector<LaidSet> out;
  for (int i = 0; i < set_count_[seat]; ++i) out.push_back(laid_set(seat, i));
  return out;
}

std::string to_string(const Decision& d) {
  switch (d.kind) {
    case DecisionKind::kAskRank:
      return seat_name(d.seat) + " asks " + seat_name(d.target) + " for " + std::string(rank_plural(d.rank));
    case DecisionKind::kAskCard:
      return seat_name(d.seat) + " asks " + seat_name(d.target) + " for " + to_string(d.card);
    case DecisionKind::kAnswer: return seat_name(d.seat) + (d.give ? " gives" : " says Go fish");
    case DecisionKind::kDeclare: return seat_name(d.seat) + " declares " + std::string(rank_plural(d.rank));
  }
  return seat_name(d.seat) + " decides something unknown";
}

std::string_view refusal_code_name(RefusalCode code) {
  switch (code) {
    case RefusalCode::kGameOver: return "game_over";
    case RefusalCode::kNotYourTurn: return "not_your_turn";
    case RefusalCode::kOutOfGame: return "out_of_game";
    case RefusalCode::kUnknownSeat: return "unknown_seat";
    case RefusalCode::kAskedSelf: return "asked_self";
    case RefusalCode::kTargetOut: return "target_out";
    case RefusalCode::kRankNotHeld: return "rank_not_held";
    case RefusalCode::kCardAskInRankGame: return "card_ask_in_rank_game";
    case RefusalCode::kRankAskInCardGame: return "rank_ask_in_card_game";
    case RefusalCode::kCardHeld: return "card_held";
    case RefusalCode::kInvalidRank: return "invalid_rank";
    case RefusalCode::kAwaitingAnswer: return "awaiting_answer";
    case RefusalCode::kNotAsked: return "not_asked";
    case RefusalCode::kNothingToGive: return "nothing_to_give";
    case RefusalCode::kNoSuchSet: return "no_such_set";
    case RefusalCode::kTableRulesOnly: return "table_rules_only";
  }
  return "unknown";
}

}  // namespace gofish::engine
