// A game of Go Fish: a pure function of its rules, seat count, deck order,
// dealer, first player and the players' decisions.
//
// `judge` decides once whether a decision is proper, penalised (table rules)
// or refused, with the one judge of engine/legality.hpp; `apply` takes that
// judgement, then mutates and records: a refused decision returns its typed
// reason and leaves the game exactly as it was. `legal` lists what the same
// judge calls proper, so the legal-decision list and `apply` cannot
// disagree. Hands and the stock are private members: the only ways out are
// `view_of` and `event_for` (view.hpp), which hide what a viewer must not see,
// and the transcript of a finished game (transcript.hpp).
//
// Readings of the rules (see docs/RULES.md for the whole list):
// - Sets are laid down the moment a card arrives (catch, fish or automatic
//   draw), before the end check and before the next turn is decided; sets
//   held from the deal are laid before the first ask.
// - The empty-hand rule applies whenever a seat is due to ask with no cards,
//   at the start of its turn and when its own turn continues.
// - When the seat that should get the turn is out, sits out, or must miss a
//   turn, the turn goes to the first seat clockwise from it that can play.
// - "The stock runs out" is checked after the action that took the last card
//   has been resolved, sets included. A miss with an empty stock draws nothing.
// - In pairs (give one card) the lowest suit of the rank is handed over.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "engine/card.hpp"
#include "engine/decision.hpp"
#include "engine/event.hpp"
#include "engine/improper_decisions.hpp"
#include "engine/judgement.hpp"
#include "engine/legality.hpp"
#include "engine/rules.hpp"

namespace gofish::engine {

struct View;
struct Viewer;
struct Transcript;

class Game {
 public:
  // Deals one card at a time clockwise from the dealer's left, then lays down
  // the sets held from the deal. The events of the start are in last_events().
  static std::variant<Game, ConfigError> start(const Rules& rules, int players, const Deck& deck, Seat dealer,
                                                 Seat first);

  // The judge's answer for `decision` in this state (engine/legality.hpp).
  // judge and legal are inline: they are on every decision's path.
  Judgement judge(Decision decision) const {
    Judgement judgement = engine::judge(rules_, facts_, hand_of(decision.seat), decision);
    judgement.game_ = this;
    judgement.state_ = decisions_.size();
    return judgement;
  }
  // Applies a judged decision; a refused one returns its refusal and changes
  // nothing. A judgement of another state (another game, or this one before
  // a later decision) is judged again, never trusted. On success the
  // decision's events are in last_events().
  std::optional<Refusal> apply(const Judgement& judgement);
  // apply(judge(decision)).
  std::optional<Refusal> apply(Decision decision) { return apply(judge(decision)); }
  const std::vector<Event>& last_events() const { return events_; }

  LegalDecisions legal(Seat seat) const { return legal_decisions(rules_, facts_, seat, hand_of(seat)); }
  // Table rules: what `seat` may do that the judge accepts with a penalty
  // (engine/improper_decisions.hpp); empty under strict rules.
  ImproperDecisions improper(Seat seat) const;

  const Rules& rules() const { return rules_; }
  int players() const { return players_; }
  Seat dealer() const { return dealer_; }
  Seat first() const { return first_; }
  Phase phase() const { return facts_.phase; }
  bool over() const { return facts_.phase == Phase::kOver; }
  // The seat whose decision is awaited (under table rules, the asked seat
  // while an answer is due).
  Seat to_act() const { return facts_.phase == Phase::kAnswer ? facts_.pending->target : facts_.turn; }
  Seat turn() const { return facts_.turn; }
  const std::vector<Decision>& decisions() const { return decisions_; }

  // Public facts, safe for anyone.
  int hand_size(Seat seat) const { return hands_[seat].size(); }
  int stock_size() const { return kDeckSize - next_card_; }
  SeatStatus status(Seat seat) const { return status_[seat]; }
  bool misses_next_turn(Seat seat) const { return (misses_next_ >> seat) & 1U; }
  std::uint16_t barred_ranks(Seat seat) const { return barred_[seat]; }
  struct LaidSet {
    Rank rank;
    SetOutcome outcome;
  };
  // Every set the seat laid down, in order (unscored ones included).
  std::vector<LaidSet> sets(Seat seat) const;
  int score(Seat seat) const;
  int sets_down() const { return sets_down_; }
  std::optional<EndReason> end_reason() const { return end_reason_; }
  std::uint8_t winners() const { return winners_; }
  // Table rules: the ask awaiting an answer.
  using PendingAsk = engine::PendingAsk;
  const std::optional<PendingAsk>& pending_ask() const { return facts_.pending; }

 private:
  friend struct GameInspector;  // tests only (engine/testing.hpp)
  friend View view_of(const Game&, Viewer);
  friend Transcript make_transcript(const Game&);

  Game() = default;

  LaidSet laid_set(Seat seat, int index) const;
  int set_count(Seat seat) const { return set_count_[seat]; }

  // what the judge is told (engine/legality.hpp)
  const LegalityFacts& legality_facts() const { return facts_; }
  // The seat's hand; empty for a seat not at the table.
  CardSet hand_of(Seat seat) const { return seat >= 0 && seat < players_ ? hands_[seat] : CardSet{}; }
  std::uint8_t in_play() const { return facts_.in_play; }

  // mutation
  void deal();
  // An ask's or an answer's parts, and its judgement, from which the penalty
  // is read here (measured faster than passing it as a std::optional).
  void do_ask(Seat seat, Seat target, Rank rank, std::optional<Card> card, const Judgement& judgement);
  void answer(Seat seat, bool give, const Judgement& judgement);
  void declare(Seat seat, Rank rank);
  void resolve_ask(Seat seat, Seat target, Rank rank, std::optional<Card> card, bool has_cards);
  int lay_sets(Seat seat, bool from_deal, SetOutcome outcome = SetOutcome::kScores);
  void lay_sets_of(Seat seat, Rank rank);
  void lay_set(Seat seat, Rank rank, CardSet cards, SetOutcome outcome, bool from_deal);
  void forfeit_undeclared(Seat seat);
  void bar_rank(Seat seat, Rank rank);
  // draw and take_turn are inline (defined in game.cpp, the only file that
  // calls them): nearly every decision draws or passes the turn, and as calls
  // each saved and restored six registers; inlined, bare is about 7% faster.
  inline Card draw(Seat seat, DrawCause cause);
  void mark_out_if_empty(Seat seat);
  void go_out(Seat seat);
  bool check_end();
  void finish(EndReason reason);
  enum class EmptyHandTurn { kPlays, kSkipped, kEnded };
  EmptyHandTurn empty_hand_turn(Seat seat);
  void continue_turn(Seat seat);
  void pass_turn(Seat from, Seat candidate);
  inline bool take_turn(Seat from, Seat seat);
  // Built in place: an Event is about a hundred bytes.
  template <class E>
  void emit(const E& event) {
    events_.emplace_back(std::in_place_type<E>, event);
  }

  Rules rules_;
  int players_ = 0;
  Seat dealer_ = 0;
  Seat first_ = 0;
  Deck deck_{};
  int next_card_ = 0;  // index in deck_ of the top of the stock
  std::array<CardSet, kMaxSeats> hands_{};
  std::array<SeatStatus, kMaxSeats> status_{};
  // Sets laid by each seat: their ranks in the order laid, and as masks over
  // that order (bit i: the seat's i-th set) the ones that score and the ones
  // not shown in time (table rules). A set that does neither is barred: its
  // rank is in barred_ (a rank once barred stays barred). Kept in the form a
  // View wants, so view_of copies them instead of decoding every set.
  std::array<std::array<std::uint8_t, kDeckSize / 2>, kMaxSeats> set_ranks_{};
  std::array<std::uint32_t, kMaxSeats> scoring_{};
  std::array<std::uint8_t, kMaxSeats> score_{};  // the bits set in scoring_
  std::array<std::uint32_t, kMaxSeats> unshown_{};
  std::array<std::uint8_t, kMaxSeats> set_count_{};
  std::array<std::uint16_t, kMaxSeats> barred_{};
  std::uint8_t misses_next_ = 0;
  int sets_down_ = 0;
  // What the judge is told: the seat count, the phase, whose turn it is, the
  // ask awaiting an answer (table rules) and the seats in play (every seat at
  // the table whose status is not kOut). Kept in the judge's own form, so
  // judging and listing pass it as it is.
  LegalityFacts facts_;
  std::optional<EndReason> end_reason_;
  std::uint8_t winners_ = 0;
  std::vector<Decision> decisions_;
  std::vector<Event> events_;
};

}  // namespace gofish::engine
