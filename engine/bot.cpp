#include "engine/bot.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <variant>

#include "engine/bits.hpp"
#include "engine/card_tracker.hpp"
#include "engine/overloaded.hpp"

namespace gofish::engine {
namespace {


// What every level does before choosing an ask: under table rules, lay down
// complete sets (a set not shown by the end of the turn does not score) and
// answer honestly (the only legal answer is the true one).
std::optional<Decision> table_duty(const View& view) {
  const LegalDecisions& legal = view.legal;
  if (legal.declarable != 0) return Decision{legal.seat, Declare{std::countr_zero(legal.declarable)}};
  if (legal.give) return Decision{legal.seat, Answer{true}};
  if (legal.go_fish) return Decision{legal.seat, Answer{false}};
  return std::nullopt;
}

Decision random_legal(const LegalDecisions& legal, Rng& rng) {
  return legal.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(legal.count()))));
}

// Reservoir choice among equally good options: ties are broken at random so
// that a bot has no fixed, exploitable order.
class BestPick {
 public:
  // Returns true when `score` is the new best (or tied and won the draw).
  bool offer(double score, Rng& rng) {
    constexpr double kTie = 1e-9;
    if (score > best_ + kTie) {
      best_ = score;
      ties_ = 1;
      return true;
    }
    if (score >= best_ - kTie) {
      ++ties_;
      return rng.below(static_cast<std::uint32_t>(ties_)) == 0;
    }
    return false;
  }

 private:
  double best_ = -1e300;
  int ties_ = 0;
};

// ------------------------------------------------------------------ easy

class EasyBot final : public Bot {
 public:
  void observe(const Event&) override {}
  Decision decide(const View& view, Rng& rng) override {
    if (auto duty = table_duty(view)) return *duty;
    return random_legal(view.legal, rng);
  }
};

// ------------------------------------------------------------------ medium

// Public facts as a careful human player would remember them: per seat, the
// ranks (or cards) it is known to hold and the ones it is known to lack.
class MediumBot final : public Bot {
 public:
  MediumBot(const Rules& rules, Seat seat) : rules_(rules), me_(seat) {}

  void observe(const Event& event) override {
    std::visit(Overloaded{
                   [&](const AskedRank& e) {
                     holds_[e.seat] |= rank_bit(e.rank);
                     lacks_[e.seat] = without_rank(lacks_[e.seat], e.rank);
                     last_rank_ = e.rank;
                     last_card_.reset();
                   },
                   [&](const AskedCard& e) {
                     holds_[e.seat] |= rank_bit(e.card.rank());
                     lacks_[e.seat] = without_rank(lacks_[e.seat], e.card.rank());
                     if (!rules_.may_ask_held_card) lacks_cards_[e.seat].add(e.card);
                     last_rank_ = e.card.rank();
                     last_card_ = e.card;
                   },
                   [&](const Penalty& e) {
                     // An illegal call or an ask out of turn says nothing true about the hand.
                     if (e.kind != PenaltyKind::kFalseGoFish) holds_[e.seat] = without_rank(holds_[e.seat], e.rank);
                   },
                   [&](const Gave& e) {
                     const Rank rank = e.cards.lowest().rank();
                     known_[e.to].add(e.cards);
                     known_[e.from].remove(e.cards);
                     lacks_cards_[e.to].remove(e.cards);
                     holds_[e.to] |= rank_bit(rank);
                     lacks_[e.to] = without_rank(lacks_[e.to], rank);
                     holds_[e.from] = without_rank(holds_[e.from], rank);
                     if (rules_.give == GiveRule::kAll) lacks_[e.from] |= rank_bit(rank);
                   },
                   [&](const GoFish& e) {
                     if (last_card_) {
                       lacks_cards_[e.seat].add(*last_card_);
                       known_[e.seat].remove(*last_card_);
                     } else {
                       lacks_[e.seat] |= rank_bit(last_rank_);
                       holds_[e.seat] = without_rank(holds_[e.seat], last_rank_);
                     }
                   },
                   [&](const Drew& e) { forget_lacks(e.seat); },
                   [&](const DrewHidden& e) { forget_lacks(e.seat); },
                   [&](const LuckyDraw& e) {
                     known_[e.seat].add(e.card);
                     holds_[e.seat] |= rank_bit(e.card.rank());
                   },
                   [&](const SetLaid& e) {
                     gone_.add(e.cards);
                     known_[e.seat].remove(e.cards);
                     holds_[e.seat] = without_rank(holds_[e.seat], e.rank);
                   },
                   [](const auto&) {},
               },
               event);
  }

  Decision decide(const View& view, Rng& rng) override {
    if (auto duty = table_duty(view)) return *duty;
    const LegalDecisions& legal = view.legal;
    const CardSet hand = view.hand;
    BestPick pick;
    std::optional<Decision> choice;
    // A player known to hold a rank (or card) we hold: a sure catch. Prefer
    // the rank we hold most of, the one closest to a set.
    for (Seat t = 0; t < view.players; ++t) {
      if (!(legal.targets & seat_bit(t)) || t == me_) continue;
      for (Rank r = 0; r < kRanks; ++r) {
        if (!hand.has_rank(r)) continue;
        if (legal.ask_for == AskFor::kRank) {
          if (!(legal.ranks & rank_bit(r)) || !(holds_[t] & rank_bit(r))) continue;
          if (pick.offer(hand.count(r), rng)) choice = Decision{me_, AskRank{t, r}};
        } else {
          for (Card c : known_[t].cards_of(r)) {
            if (!legal.cards.contains(c) || hand.contains(c)) continue;
            if (pick.offer(hand.count(r), rng)) choice = Decision{me_, AskCard{t, c}};
          }
        }
      }
    }
    if (choice) return *choice;
    // Otherwise the largest rank, from someone with cards not known to lack it.
    for (Seat t = 0; t < view.players; ++t) {
      if (!(legal.targets & seat_bit(t)) || t == me_) continue;
      const bool has_cards = view.seats[t].hand_size > 0;
      for (Rank r = 0; r < kRanks; ++r) {
        if (!hand.has_rank(r)) continue;
        double score = hand.count(r) + (has_cards ? 10.0 : 0.0);
        if (legal.ask_for == AskFor::kRank) {
          if (!(legal.ranks & rank_bit(r))) continue;
          if (!(lacks_[t] & rank_bit(r))) score += 5.0;
          if (pick.offer(score, rng)) choice = Decision{me_, AskRank{t, r}};
        } else {
          for (Card c : CardSet::of_rank(r)) {
            if (!legal.cards.contains(c) || hand.contains(c) || gone_.contains(c)) continue;
            const bool elsewhere = [&] {
              for (Seat o = 0; o < view.players; ++o) {
                if (o != t && known_[o].contains(c)) return true;
              }
              return false;
            }();
            if (elsewhere) continue;
            const double card_score = score + (lacks_cards_[t].contains(c) ? 0.0 : 5.0);
            if (pick.offer(card_score, rng)) choice = Decision{me_, AskCard{t, c}};
          }
        }
      }
    }
    if (choice && legal.contains(*choice)) return *choice;
    return random_legal(legal, rng);
  }

 private:
  void forget_lacks(Seat seat) {
    lacks_[seat] = 0;
    lacks_cards_[seat] = CardSet{};
  }

  Rules rules_;
  Seat me_;
  std::array<std::uint16_t, kMaxSeats> holds_{};
  std::array<std::uint16_t, kMaxSeats> lacks_{};
  std::array<CardSet, kMaxSeats> known_{};
  std::array<CardSet, kMaxSeats> lacks_cards_{};
  CardSet gone_;
  Rank last_rank_ = 0;
  std::optional<Card> last_card_;
};

// ------------------------------------------------------------------ hard

class HardBot final : public Bot {
 public:
  HardBot(const Rules& rules, int players, Seat seat) : rules_(rules), me_(seat), tracker_(rules, players, seat) {}

  void observe(const Event& event) override { tracker_.observe(event); }

  Decision decide(const View& view, Rng& rng) override {
    if (auto duty = table_duty(view)) return *duty;
    tracker_.refresh();
    const LegalDecisions& legal = view.legal;
    BestPick pick;
    std::optional<Decision> choice;
    for (Seat t = 0; t < view.players; ++t) {
      if (!(legal.targets & seat_bit(t))) continue;
      if (legal.ask_for == AskFor::kRank) {
        for (std::uint16_t ranks = legal.ranks; ranks != 0; ranks &= static_cast<std::uint16_t>(ranks - 1)) {
          const Rank r = std::countr_zero(ranks);
          if (pick.offer(score_ask(view, t, r, std::nullopt), rng)) choice = Decision{me_, AskRank{t, r}};
        }
      } else {
        for (Card c : legal.cards) {
          if (pick.offer(score_ask(view, t, c.rank(), c), rng)) choice = Decision{me_, AskCard{t, c}};
        }
      }
    }
    if (choice) return *choice;
    return random_legal(legal, rng);
  }

 private:
  // Weights of the parts of an ask's worth, relative to a catch (1). Tuned
  // with gofish-sim against medium bots in classic (docs/BOTS.md).
  static constexpr double kSetWeight = 0.8;    // a catch that finishes a set
  static constexpr double kCardWeight = 0.1;   // each card expected from a give-all catch
  static constexpr double kShowCost = 0.3;     // per card of a rank the table did not know we hold
  static constexpr double kEndWeight = 1.0;    // ending the game while leading or trailing
  static constexpr double kLuckyTurnEnds = 0.3;  // a lucky draw that only shows a card (bicycle)

  // How a game ending now with our score at `mine` would look: 1 for a win
  // of our own, 0.5 for a shared win, -1 for a loss.
  double result_value(const View& view, int mine) const {
    int best_other = 0;
    for (Seat s = 0; s < view.players; ++s) {
      if (s != me_) best_other = std::max(best_other, view.seats[s].score);
    }
    if (mine > best_other) return 1.0;
    return mine == best_other ? 0.5 : -1.0;
  }

  // The part of an ask's worth that comes from ending the game. Where an
  // empty hand or an empty stock ends it, a catch that empties the target's
  // hand (or ours, by laying a set) and a miss that draws the last card stop
  // the game: good when we lead, bad when we trail.
  double ending_value(const View& view, Seat target, Rank rank, double p_catch, double p_set,
                      double p_lucky_set) const {
    const int now = view.seats[me_].score;
    const double stay = 0.5 * result_value(view, now);
    double value = 0;
    if (rules_.empty_hand == EmptyHand::kEndsGame && p_catch > 0) {
      const double q_set = std::min(1.0, p_set / p_catch);
      const int mine = view.hand.count(rank);
      const bool ours_empties = view.hand.size() == mine && (rules_.give == GiveRule::kAll || mine + 1 >= rules_.set_size);
      const double target_empties =
          rules_.give == GiveRule::kAll || view.seats[target].hand_size == 1 ? tracker_.p_only(rank, target) : 0.0;
      const double ends = ours_empties ? std::max(q_set, target_empties) : target_empties;
      const double result = q_set * result_value(view, now + 1) + (1 - q_set) * result_value(view, now);
      value += p_catch * ends * (result - stay);
    }
    if (rules_.stock_out_ends_game && tracker_.size(CardTracker::kStock) == 1) {
      const double result = p_lucky_set * result_value(view, now + 1) + (1 - p_lucky_set) * result_value(view, now);
      value += (1 - p_catch) * (result - stay);
    }
    return kEndWeight * value;
  }

  // The worth of asking `target` for `rank` (or, in card games, for `card`).
  double score_ask(const View& view, Seat target, Rank rank, std::optional<Card> card) const {
    const CardSet hand = view.hand;
    if (card && hand.contains(*card)) return -1.0;  // a sure miss, legal only where the room allows it
    const int mine = hand.count(rank);
    const bool finishes = mine + 1 >= rules_.set_size;
    double p_catch = 0;
    double p_set = 0;
    double lucky_mass = 0;  // expected cards in the stock that would be a lucky draw
    double cards = 0;
    if (card) {
      p_catch = tracker_.at(*card, target);
      p_set = finishes ? p_catch : 0.0;
      lucky_mass = tracker_.at(*card, CardTracker::kStock);
    } else {
      p_catch = tracker_.p_any(rank, target);
      for (Card c : CardSet::of_rank(rank)) lucky_mass += tracker_.at(c, CardTracker::kStock);
      if (finishes) {
        p_set = p_catch;  // any card of the rank finishes it
      } else if (rules_.give == GiveRule::kAll) {
        p_set = 1.0;  // finished only if the target holds every card we lack
        for (Card c : CardSet::of_rank(rank)) {
          if (!hand.contains(c)) p_set *= tracker_.at(c, target);
        }
      }
      cards = rules_.give == GiveRule::kAll ? tracker_.expected(rank, target) : p_catch;
    }
    const int stock = tracker_.size(CardTracker::kStock);
    const double p_lucky = stock > 0 ? lucky_mass / stock : 0.0;
    const double lucky = rules_.lucky_draw == LuckyDrawRule::kAskAgain ? p_lucky : kLuckyTurnEnds * p_lucky;
    double score = p_catch + kSetWeight * p_set + kCardWeight * cards + (1 - p_catch) * lucky;
    // Asking shows the table we hold the rank, and a player who holds the
    // rest will ask for our cards: cheap for ranks the table already knows,
    // dear for a rank we hold several of.
    if (!(tracker_.shown() & rank_bit(rank))) score -= kShowCost * mine;
    score += ending_value(view, target, rank, p_catch, p_set, finishes ? p_lucky : 0.0);
    return score;
  }

  Rules rules_;
  Seat me_;
  CardTracker tracker_;
};

}  // namespace

std::unique_ptr<Bot> make_bot(BotLevel level, const Rules& rules, int players, Seat seat) {
  switch (level) {
    case BotLevel::kEasy: return std::make_unique<EasyBot>();
    case BotLevel::kMedium: return std::make_unique<MediumBot>(rules, seat);
    case BotLevel::kHard: return std::make_unique<HardBot>(rules, players, seat);
  }
  return std::make_unique<EasyBot>();
}

}  // namespace gofish::engine
