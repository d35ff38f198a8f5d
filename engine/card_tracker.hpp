// The hard bot's model of where every card is (engine/bot.cpp uses it).
//
// For every card, a probability for each place it may be: each hand and the
// stock. Certain facts (a card seen moving, a "Go fish", a set laid, the hand
// sizes) are kept exactly; on top of them the probabilities are estimates:
// a hidden draw moves 1/stock of each card's stock share to the drawer, and
// before a decision the table is fitted to the hand sizes (alternately
// scaling each place to its free slots and each card to a total of one).
//
// Stored by place (prob_[place][card]) with a 0/1 mask of the cards whose
// place is open, so the fit runs as straight loops over 52 floats.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "engine/bits.hpp"
#include "engine/card.hpp"
#include "engine/event.hpp"
#include "engine/rules.hpp"

namespace gofish::engine {

class CardTracker {
 public:
  static constexpr int kStock = kMaxSeats;  // the place index of the stock
  static constexpr int kPlaces = kMaxSeats + 1;

  CardTracker(const Rules& rules, int players, Seat me);

  void observe(const Event& event);

  // Exact propagation, then the fit. Call before asking questions.
  void refresh();

  float at(Card c, int place) const { return prob_[place][c.id()]; }
  int size(int place) const { return size_[place]; }
  bool known_to_hold(Seat seat, Rank rank) const { return holds_[seat] & rank_bit(rank); }
  // Ranks the table has seen us hold (asked for, received, drawn lucky) and
  // that we have not lost since.
  std::uint16_t shown() const { return shown_; }

  // Probability that `seat` holds at least one card of `rank`.
  float p_any(Rank rank, Seat seat) const;

  // Expected number of cards of `rank` in `seat`'s hand.
  float expected(Rank rank, Seat seat) const;

  // Probability that every card in `seat`'s hand is of `rank`, given that it
  // holds one (so handing over the whole rank would empty it).
  float p_only(Rank rank, Seat seat) const;

 private:
  struct Ask {
    Seat seat = 0;
    Rank rank = 0;
    std::optional<Card> card;
  };

  void start_prior();
  void note_ask(Seat seat, Rank rank, std::optional<Card> card);

  // The asker holds a card of the rank, and in card games (unless asking for
  // a held card is allowed) not the card asked for.
  void commit_ask();
  void gave(const Gave& e);
  void draw_hidden(Seat seat);
  void locate(int id, int place);
  void remove(int id);
  void exclude(int id, int place);
  void normalize(int id);

  std::array<int, kPlaces> located_counts() const;

  // Exact elimination: a place whose free slots equal the cards that may be
  // there holds them all; a place with no free slot holds none of them; a
  // card with one possible place is there; a seat known to hold a rank with
  // one possible card of it holds that card.
  void propagate();
  void fit();

  // The open cards' share of one place, summed in four lanes (a float sum is
  // not reassociated by the compiler, and one chain is latency-bound).
  float open_mass(const std::array<float, kDeckSize>& column) const;

  static constexpr std::int8_t kUnknown = -1;
  static constexpr std::int8_t kGone = -2;
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

}  // namespace gofish::engine
