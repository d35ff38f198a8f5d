#include "engine/bot.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <variant>

#include "engine/overloaded.hpp"

namespace gofish::engine {
namespace {

constexpr std::uint16_t rank_bit(Rank rank) { return static_cast<std::uint16_t>(1U << rank); }
constexpr std::uint16_t without(std::uint16_t mask, Rank rank) {
  return static_cast<std::uint16_t>(mask & ~rank_bit(rank));
}

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
                     lacks_[e.seat] = without(lacks_[e.seat], e.rank);
                     last_rank_ = e.rank;
                     last_card_.reset();
                   },
                   [&](const AskedCard& e) {
                     holds_[e.seat] |= rank_bit(e.card.rank());
                     lacks_[e.seat] = without(lacks_[e.seat], e.card.rank());
                     if (!rules_.may_ask_held_card) lacks_cards_[e.seat].add(e.card);
                     last_rank_ = e.card.rank();
                     last_card_ = e.card;
                   },
                   [&](const Penalty& e) {
                     // An illegal call or an ask out of turn says nothing true about the hand.
                     if (e.kind != PenaltyKind::kFalseGoFish) holds_[e.seat] = without(holds_[e.seat], e.rank);
                   },
                   [&](const Gave& e) {
                     const Rank rank = e.cards.lowest().rank();
                     known_[e.to].add(e.cards);
                     known_[e.from].remove(e.cards);
                     lacks_cards_[e.to].remove(e.cards);
                     holds_[e.to] |= rank_bit(rank);
                     lacks_[e.to] = without(lacks_[e.to], rank);
                     holds_[e.from] = without(holds_[e.from], rank);
                     if (rules_.give == GiveRule::kAll) lacks_[e.from] |= rank_bit(rank);
                   },
                   [&](const GoFish& e) {
                     if (last_card_) {
                       lacks_cards_[e.seat].add(*last_card_);
                       known_[e.seat].remove(*last_card_);
                     } else {
                       lacks_[e.seat] |= rank_bit(last_rank_);
                       holds_[e.seat] = without(holds_[e.seat], last_rank_);
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
                     holds_[e.seat] = without(holds_[e.seat], e.rank);
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
      if (!(legal.targets & (1U << t)) || t == me_) continue;
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
      if (!(legal.targets & (1U << t)) || t == me_) continue;
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

constexpr int kStock = kMaxSeats;  // the place index of the stock
constexpr int kPlaces = kMaxSeats + 1;
constexpr std::int8_t kUnknown = -1;
constexpr std::int8_t kGone = -2;

// For every card, a probability for each place it may be: each hand and the
// stock. Certain facts (a card seen moving, a "Go fish", a set laid, the hand
// sizes) are kept exactly; on top of them the probabilities are estimates:
// a hidden draw moves 1/stock of each card's stock share to the drawer, and
// before a decision the table is fitted to the hand sizes (alternately
// scaling each place to its free slots and each card to a total of one).
//
// Stored by place (prob_[place][card]) with a 0/1 mask of the cards whose
// place is open, so the fit runs as straight loops over 52 floats.
class CardTracker {
 public:
  CardTracker(const Rules& rules, int players, Seat me) : rules_(rules), players_(players), me_(me) {
    where_.fill(kUnknown);
    open_.fill(1.0F);
    for (Seat s = 0; s < players; ++s) {
      if (s != me) places_[place_count_++] = s;
    }
    places_[place_count_++] = kStock;
  }

  void observe(const Event& event) {
    const bool deal_event = std::holds_alternative<GameStarted>(event) || std::holds_alternative<HandDealt>(event) ||
                            std::holds_alternative<HandDealtCount>(event);
    if (!deal_event && !prior_ready_) start_prior();
    if (pending_inference_) {
      const auto* penalty = std::get_if<Penalty>(&event);
      if (penalty && penalty->seat == last_ask_.seat && penalty->kind != PenaltyKind::kFalseGoFish) {
        // The ask was out of turn or an illegal call: it says nothing true
        // about the hand, except that a rank-game illegal call lacks the rank.
        pending_inference_ = false;
        if (penalty->kind == PenaltyKind::kIllegalCall && !last_ask_.card && last_ask_.seat != me_) {
          for (Card c : CardSet::of_rank(last_ask_.rank)) exclude(c.id(), last_ask_.seat);
        }
      } else if (!penalty) {
        commit_ask();
      }
    }
    std::visit(Overloaded{
                   [&](const GameStarted& e) { size_[kStock] = e.stock; },
                   [&](const HandDealt& e) {
                     for (Card c : e.cards) locate(c.id(), e.seat);
                     size_[e.seat] = e.cards.size();
                   },
                   [&](const HandDealtCount& e) { size_[e.seat] = e.count; },
                   [&](const AskedRank& e) { note_ask(e.seat, e.rank, std::nullopt); },
                   [&](const AskedCard& e) { note_ask(e.seat, e.card.rank(), e.card); },
                   [&](const Gave& e) { gave(e); },
                   [&](const GoFish& e) {
                     if (last_ask_.card) {
                       exclude(last_ask_.card->id(), e.seat);
                     } else {
                       for (Card c : CardSet::of_rank(last_ask_.rank)) exclude(c.id(), e.seat);
                       holds_[e.seat] = without(holds_[e.seat], last_ask_.rank);
                     }
                   },
                   [&](const Drew& e) {
                     locate(e.card.id(), e.seat);
                     --size_[kStock];
                     ++size_[e.seat];
                   },
                   [&](const DrewHidden& e) { draw_hidden(e.seat); },
                   [&](const LuckyDraw& e) {
                     locate(e.card.id(), e.seat);
                     if (e.seat == me_) shown_ |= rank_bit(e.card.rank());
                   },
                   [&](const SetLaid& e) {
                     for (Card c : e.cards) remove(c.id());
                     size_[e.seat] -= e.cards.size();
                     holds_[e.seat] = without(holds_[e.seat], e.rank);
                     if (e.seat == me_) shown_ = without(shown_, e.rank);
                   },
                   [](const auto&) {},
               },
               event);
  }

  // Exact propagation, then the fit. Call before asking questions.
  void refresh() {
    if (!prior_ready_) start_prior();
    if (pending_inference_) commit_ask();
    propagate();
    fit();
  }

  float at(Card c, int place) const { return prob_[place][c.id()]; }
  int size(int place) const { return size_[place]; }
  bool known_to_hold(Seat seat, Rank rank) const { return holds_[seat] & rank_bit(rank); }
  // Ranks the table has seen us hold (asked for, received, drawn lucky) and
  // that we have not lost since.
  std::uint16_t shown() const { return shown_; }

  // Probability that `seat` holds at least one card of `rank`.
  float p_any(Rank rank, Seat seat) const {
    if (known_to_hold(seat, rank)) return 1.0F;
    if (at_[seat].has_rank(rank)) return 1.0F;
    float none = 1.0F;
    for (Card c : CardSet::of_rank(rank)) none *= 1.0F - prob_[seat][c.id()] * open_[c.id()];
    return 1.0F - none;
  }

  // Expected number of cards of `rank` in `seat`'s hand.
  float expected(Rank rank, Seat seat) const {
    float sum = 0;
    for (Card c : CardSet::of_rank(rank)) sum += prob_[seat][c.id()];
    return std::max(sum, known_to_hold(seat, rank) ? 1.0F : 0.0F);
  }

  // Probability that every card in `seat`'s hand is of `rank`, given that it
  // holds one (so handing over the whole rank would empty it).
  float p_only(Rank rank, Seat seat) const {
    const int hand_size = size_[seat];
    if (hand_size <= 0) return 0.0F;
    const int known = at_[seat].size();
    const int known_rank = at_[seat].count(rank);
    if (known > known_rank) return 0.0F;
    int slots = hand_size - known;
    if (slots <= 0) return 1.0F;
    float unknown_rank = 0;
    for (Card c : CardSet::of_rank(rank)) {
      if (where_[c.id()] == kUnknown) unknown_rank += prob_[seat][c.id()];
    }
    if (known_rank == 0) {
      // One of the open slots holds the rank for sure.
      --slots;
      unknown_rank = std::max(0.0F, unknown_rank - 1.0F);
      if (slots == 0) return 1.0F;
    }
    const float share = std::min(1.0F, unknown_rank / static_cast<float>(slots));
    float p = 1.0F;
    for (int i = 0; i < slots; ++i) p *= share;
    return p;
  }

 private:
  struct Ask {
    Seat seat = 0;
    Rank rank = 0;
    std::optional<Card> card;
  };

  void start_prior() {
    prior_ready_ = true;
    const int others = kDeckSize - size_[me_];
    if (others <= 0) return;
    for (int i = 0; i < place_count_; ++i) {
      const int p = places_[i];
      const float share = static_cast<float>(size_[p]) / static_cast<float>(others);
      for (int id = 0; id < kDeckSize; ++id) prob_[p][id] = open_[id] * share;
    }
  }

  void note_ask(Seat seat, Rank rank, std::optional<Card> card) {
    last_ask_ = Ask{seat, rank, card};
    pending_inference_ = true;
  }

  // The asker holds a card of the rank, and in card games (unless asking for
  // a held card is allowed) not the card asked for.
  void commit_ask() {
    pending_inference_ = false;
    const Ask& a = last_ask_;
    if (a.seat == me_) {
      shown_ |= rank_bit(a.rank);
      return;
    }
    holds_[a.seat] |= rank_bit(a.rank);
    if (a.card && !rules_.may_ask_held_card) exclude(a.card->id(), a.seat);
  }

  void gave(const Gave& e) {
    const Rank rank = e.cards.lowest().rank();
    for (Card c : e.cards) locate(c.id(), e.to);
    size_[e.from] -= e.cards.size();
    size_[e.to] += e.cards.size();
    if (e.to == me_) shown_ |= rank_bit(rank);
    holds_[e.from] = without(holds_[e.from], rank);
    if (rules_.give == GiveRule::kAll) {
      // Every card of the rank was handed over.
      for (Card c : CardSet::of_rank(rank)) exclude(c.id(), e.from);
      if (e.from == me_) shown_ = without(shown_, rank);
    } else if (rules_.give == GiveRule::kOne) {
      // The engine hands over the lowest suit, so the lower suits were not there.
      for (Card c : CardSet::of_rank(rank)) {
        if (c.id() < e.cards.lowest().id()) exclude(c.id(), e.from);
      }
    }
  }

  void draw_hidden(Seat seat) {
    const int stock = size_[kStock];
    if (stock > 0) {
      const float share = 1.0F / static_cast<float>(stock);
      for (int id = 0; id < kDeckSize; ++id) {
        if (where_[id] == kStock) {
          where_[id] = kUnknown;  // it was in the stock; now it may have been drawn
          open_[id] = 1.0F;
          at_[kStock].remove(Card::from_id(id));
        }
        const float moved = prob_[kStock][id] * share * open_[id];
        prob_[seat][id] += moved;
        prob_[kStock][id] -= moved;
      }
    }
    --size_[kStock];
    ++size_[seat];
  }

  void locate(int id, int place) {
    if (where_[id] >= 0) at_[where_[id]].remove(Card::from_id(id));
    at_[place].add(Card::from_id(id));
    where_[id] = static_cast<std::int8_t>(place);
    open_[id] = 0.0F;
    for (auto& column : prob_) column[id] = 0.0F;
    prob_[place][id] = 1.0F;
  }

  void remove(int id) {
    if (where_[id] >= 0) at_[where_[id]].remove(Card::from_id(id));
    where_[id] = kGone;
    open_[id] = 0.0F;
    for (auto& column : prob_) column[id] = 0.0F;
  }

  void exclude(int id, int place) {
    if (where_[id] != kUnknown || prob_[place][id] == 0.0F) return;
    prob_[place][id] = 0.0F;
    normalize(id);
  }

  void normalize(int id) {
    float sum = 0;
    for (int i = 0; i < place_count_; ++i) sum += prob_[places_[i]][id];
    if (sum <= 0) {
      // Only reachable if the facts contradict each other (they should not):
      // fall back to every place with room for the card.
      for (int i = 0; i < place_count_; ++i) {
        const int p = places_[i];
        prob_[p][id] = size_[p] > 0 ? 1.0F : 0.0F;
        sum += prob_[p][id];
      }
      if (sum <= 0) return;
    }
    const float inverse = 1.0F / sum;
    for (int i = 0; i < place_count_; ++i) prob_[places_[i]][id] *= inverse;
  }

  std::array<int, kPlaces> located_counts() const {
    std::array<int, kPlaces> counts{};
    for (int p = 0; p < kPlaces; ++p) counts[p] = at_[p].size();
    return counts;
  }

  // Exact elimination: a place whose free slots equal the cards that may be
  // there holds them all; a place with no free slot holds none of them; a
  // card with one possible place is there; a seat known to hold a rank with
  // one possible card of it holds that card.
  void propagate() {
    for (int round = 0; round < 16; ++round) {
      bool changed = false;
      // One pass for the places each open card may be in (bit i: places_[i]).
      std::array<std::uint8_t, kDeckSize> support{};
      std::array<int, kPlaces> candidates{};
      for (int i = 0; i < place_count_; ++i) {
        const auto& column = prob_[places_[i]];
        int count = 0;
        for (int id = 0; id < kDeckSize; ++id) {
          const bool possible = column[id] > 0 && open_[id] > 0;
          support[id] = static_cast<std::uint8_t>(support[id] | (possible ? 1U << i : 0U));
          count += possible ? 1 : 0;
        }
        candidates[i] = count;
      }
      const auto located = located_counts();
      for (int i = 0; i < place_count_ && !changed; ++i) {
        const int p = places_[i];
        const int free = size_[p] - located[p];
        if (candidates[i] == 0 || (free > 0 && candidates[i] != free)) continue;
        for (int id = 0; id < kDeckSize; ++id) {
          if (!((support[id] >> i) & 1U)) continue;
          if (free <= 0) {
            exclude(id, p);
          } else {
            locate(id, p);
          }
        }
        changed = true;
      }
      if (changed) continue;
      for (int id = 0; id < kDeckSize; ++id) {
        const unsigned bits = support[id];
        if (bits != 0 && (bits & (bits - 1)) == 0) {
          locate(id, places_[std::countr_zero(support[id])]);
          changed = true;
        }
      }
      for (Seat s = 0; s < players_; ++s) {
        for (std::uint16_t ranks = holds_[s]; ranks != 0; ranks &= static_cast<std::uint16_t>(ranks - 1)) {
          const Rank r = std::countr_zero(ranks);
          int count = 0;
          int last = 0;
          bool held = false;
          for (Card c : CardSet::of_rank(r)) {
            held = held || where_[c.id()] == s;
            if (open_[c.id()] > 0 && prob_[s][c.id()] > 0) {
              ++count;
              last = c.id();
            }
          }
          if (held) continue;
          if (count == 0) {
            holds_[s] = without(holds_[s], r);  // contradiction: forget the claim
          } else if (count == 1) {
            locate(last, s);
            changed = true;
          }
        }
      }
      if (!changed) return;
    }
  }

  void fit() {
    const auto located = located_counts();
    for (int round = 0; round < kFitRounds; ++round) {
      for (int i = 0; i < place_count_; ++i) {
        const int p = places_[i];
        const int free = size_[p] - located[p];
        auto& column = prob_[p];
        const float sum = open_mass(column);
        if (sum <= 0 || free <= 0) continue;
        const float scale = static_cast<float>(free) / sum - 1.0F;
        for (int id = 0; id < kDeckSize; ++id) column[id] *= 1.0F + open_[id] * scale;
      }
      // A seat that asked for a rank holds at least one card of it.
      for (Seat s = 0; s < players_; ++s) {
        for (std::uint16_t ranks = holds_[s]; ranks != 0; ranks &= static_cast<std::uint16_t>(ranks - 1)) {
          const Rank r = std::countr_zero(ranks);
          float mass = 0;
          bool held = false;
          for (Card c : CardSet::of_rank(r)) {
            held = held || where_[c.id()] == s;
            mass += prob_[s][c.id()] * open_[c.id()];
          }
          if (held || mass <= 0 || mass >= 1) continue;
          for (Card c : CardSet::of_rank(r)) prob_[s][c.id()] /= mass;
        }
      }
      std::array<float, kDeckSize> inverse{};
      for (int id = 0; id < kDeckSize; ++id) inverse[id] = 0.0F;
      for (int i = 0; i < place_count_; ++i) {
        const auto& column = prob_[places_[i]];
        for (int id = 0; id < kDeckSize; ++id) inverse[id] += column[id];
      }
      for (int id = 0; id < kDeckSize; ++id) inverse[id] = open_[id] > 0 && inverse[id] > 0 ? 1.0F / inverse[id] : 1.0F;
      for (int i = 0; i < place_count_; ++i) {
        auto& column = prob_[places_[i]];
        for (int id = 0; id < kDeckSize; ++id) column[id] *= inverse[id];
      }
    }
  }

  // The open cards' share of one place, summed in four lanes (a float sum is
  // not reassociated by the compiler, and one chain is latency-bound).
  float open_mass(const std::array<float, kDeckSize>& column) const {
    static_assert(kDeckSize % 4 == 0);
    std::array<float, 4> lanes{};
    for (int id = 0; id < kDeckSize; id += 4) {
      for (int k = 0; k < 4; ++k) lanes[k] += column[id + k] * open_[id + k];
    }
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  }

  static constexpr int kFitRounds = 2;

  Rules rules_;
  int players_;
  Seat me_;
  std::array<int, kPlaces> places_{};  // the places cards may hide in: other seats, then the stock
  int place_count_ = 0;
  std::array<std::array<float, kDeckSize>, kPlaces> prob_{};
  std::array<float, kDeckSize> open_{};         // 1 while a card's place is not known for sure
  std::array<std::int8_t, kDeckSize> where_{};  // a place, kUnknown, or kGone (laid in a set)
  std::array<CardSet, kPlaces> at_{};           // the cards known to be in each place
  std::array<int, kPlaces> size_{};             // cards in each hand and in the stock
  std::array<std::uint16_t, kMaxSeats> holds_{};  // ranks a seat asked for and has not lost since
  std::uint16_t shown_ = 0;
  bool prior_ready_ = false;
  Ask last_ask_;
  bool pending_inference_ = false;
};

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
      if (!(legal.targets & (1U << t))) continue;
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
    if (rules_.stock_out_ends_game && tracker_.size(kStock) == 1) {
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
      lucky_mass = tracker_.at(*card, kStock);
    } else {
      p_catch = tracker_.p_any(rank, target);
      for (Card c : CardSet::of_rank(rank)) lucky_mass += tracker_.at(c, kStock);
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
    const int stock = tracker_.size(kStock);
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

std::optional<BotLevel> parse_bot_level(std::string_view text) {
  if (text == "easy") return BotLevel::kEasy;
  if (text == "medium") return BotLevel::kMedium;
  if (text == "hard") return BotLevel::kHard;
  return std::nullopt;
}

std::string_view to_string(BotLevel level) {
  switch (level) {
    case BotLevel::kEasy: return "easy";
    case BotLevel::kMedium: return "medium";
    case BotLevel::kHard: return "hard";
  }
  return "unknown";
}

std::unique_ptr<Bot> make_bot(BotLevel level, const Rules& rules, int players, Seat seat) {
  switch (level) {
    case BotLevel::kEasy: return std::make_unique<EasyBot>();
    case BotLevel::kMedium: return std::make_unique<MediumBot>(rules, seat);
    case BotLevel::kHard: return std::make_unique<HardBot>(rules, players, seat);
  }
  return std::make_unique<EasyBot>();
}

}  // namespace gofish::engine
