#include "engine/card_tracker.hpp"

#include <algorithm>
#include <bit>
#include <variant>

#include "engine/bits.hpp"
#include "engine/overloaded.hpp"

namespace gofish::engine {

CardTracker::CardTracker(const Rules& rules, int players, Seat me) : rules_(rules), players_(players), me_(me) {
  where_.fill(kUnknown);
  open_.fill(1.0F);
  for (Seat s = 0; s < players; ++s) {
    if (s != me) places_[place_count_++] = s;
  }
  places_[place_count_++] = kStock;
}

void CardTracker::observe(const Event& event) {
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
                     holds_[e.seat] = without_rank(holds_[e.seat], last_ask_.rank);
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
                   holds_[e.seat] = without_rank(holds_[e.seat], e.rank);
                   if (e.seat == me_) shown_ = without_rank(shown_, e.rank);
                 },
                 [](const auto&) {},
             },
             event);
}

// Exact propagation, then the fit. Call before asking questions.
void CardTracker::refresh() {
  if (!prior_ready_) start_prior();
  if (pending_inference_) commit_ask();
  propagate();
  fit();
}

// Probability that `seat` holds at least one card of `rank`.
float CardTracker::p_any(Rank rank, Seat seat) const {
  if (known_to_hold(seat, rank)) return 1.0F;
  if (at_[seat].has_rank(rank)) return 1.0F;
  float none = 1.0F;
  for (Card c : CardSet::of_rank(rank)) none *= 1.0F - prob_[seat][c.id()] * open_[c.id()];
  return 1.0F - none;
}

// Expected number of cards of `rank` in `seat`'s hand.
float CardTracker::expected(Rank rank, Seat seat) const {
  float sum = 0;
  for (Card c : CardSet::of_rank(rank)) sum += prob_[seat][c.id()];
  return std::max(sum, known_to_hold(seat, rank) ? 1.0F : 0.0F);
}

// Probability that every card in `seat`'s hand is of `rank`, given that it
// holds one (so handing over the whole rank would empty it).
float CardTracker::p_only(Rank rank, Seat seat) const {
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

void CardTracker::start_prior() {
  prior_ready_ = true;
  const int others = kDeckSize - size_[me_];
  if (others <= 0) return;
  for (int i = 0; i < place_count_; ++i) {
    const int p = places_[i];
    const float share = static_cast<float>(size_[p]) / static_cast<float>(others);
    for (int id = 0; id < kDeckSize; ++id) prob_[p][id] = open_[id] * share;
  }
}

void CardTracker::note_ask(Seat seat, Rank rank, std::optional<Card> card) {
  last_ask_ = Ask{seat, rank, card};
  pending_inference_ = true;
}

// The asker holds a card of the rank, and in card games (unless asking for
// a held card is allowed) not the card asked for.
void CardTracker::commit_ask() {
  pending_inference_ = false;
  const Ask& a = last_ask_;
  if (a.seat == me_) {
    shown_ |= rank_bit(a.rank);
    return;
  }
  holds_[a.seat] |= rank_bit(a.rank);
  if (a.card && !rules_.may_ask_held_card) exclude(a.card->id(), a.seat);
}

void CardTracker::gave(const Gave& e) {
  const Rank rank = e.cards.lowest().rank();
  for (Card c : e.cards) locate(c.id(), e.to);
  size_[e.from] -= e.cards.size();
  size_[e.to] += e.cards.size();
  if (e.to == me_) shown_ |= rank_bit(rank);
  holds_[e.from] = without_rank(holds_[e.from], rank);
  if (rules_.give == GiveRule::kAll) {
    // Every card of the rank was handed over.
    for (Card c : CardSet::of_rank(rank)) exclude(c.id(), e.from);
    if (e.from == me_) shown_ = without_rank(shown_, rank);
  } else if (rules_.give == GiveRule::kOne) {
    // The engine hands over the lowest suit, so the lower suits were not there.
    for (Card c : CardSet::of_rank(rank)) {
      if (c.id() < e.cards.lowest().id()) exclude(c.id(), e.from);
    }
  }
}

void CardTracker::draw_hidden(Seat seat) {
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

void CardTracker::locate(int id, int place) {
  if (where_[id] >= 0) at_[where_[id]].remove(Card::from_id(id));
  at_[place].add(Card::from_id(id));
  where_[id] = static_cast<std::int8_t>(place);
  open_[id] = 0.0F;
  for (auto& column : prob_) column[id] = 0.0F;
  prob_[place][id] = 1.0F;
}

void CardTracker::remove(int id) {
  if (where_[id] >= 0) at_[where_[id]].remove(Card::from_id(id));
  where_[id] = kGone;
  open_[id] = 0.0F;
  for (auto& column : prob_) column[id] = 0.0F;
}

void CardTracker::exclude(int id, int place) {
  if (where_[id] != kUnknown || prob_[place][id] == 0.0F) return;
  prob_[place][id] = 0.0F;
  normalize(id);
}

void CardTracker::normalize(int id) {
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

std::array<int, CardTracker::kPlaces> CardTracker::located_counts() const {
  std::array<int, kPlaces> counts{};
  for (int p = 0; p < kPlaces; ++p) counts[p] = at_[p].size();
  return counts;
}

// Exact elimination: a place whose free slots equal the cards that may be
// there holds them all; a place with no free slot holds none of them; a
// card with one possible place is there; a seat known to hold a rank with
// one possible card of it holds that card.
void CardTracker::propagate() {
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
          holds_[s] = without_rank(holds_[s], r);  // contradiction: forget the claim
        } else if (count == 1) {
          locate(last, s);
          changed = true;
        }
      }
    }
    if (!changed) return;
  }
}

void CardTracker::fit() {
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
float CardTracker::open_mass(const std::array<float, kDeckSize>& column) const {
  static_assert(kDeckSize % 4 == 0);
  std::array<float, 4> lanes{};
  for (int id = 0; id < kDeckSize; id += 4) {
    for (int k = 0; k < 4; ++k) lanes[k] += column[id + k] * open_[id + k];
  }
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

}  // namespace gofish::engine
