// Test-only access to a game's private state: hands, the deck and the stock
// order, and an every-member comparison.
//
// Tests need to see everything (to check that 52 cards are conserved, that a
// refused decision leaves the game bit-for-bit unchanged, that a re-dealt
// game differs only where a viewer cannot see). The server and the protocol
// must never include this header: hiding happens in view.hpp alone, and
// tests/engine/includes_test keeps this file out of every non-test target's
// sources.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "engine/card.hpp"
#include "engine/decision.hpp"
#include "engine/event.hpp"
#include "engine/game.hpp"

namespace gofish::engine {

// Every field of an event, spelled out, so that two events compare equal
// exactly when their texts do (to_string(Event) is for people and leaves some
// fields out, such as the hands revealed at game over).
inline std::string full_text(const Event& event) {
  const auto seat = [](Seat s) { return std::to_string(s); };
  const auto cards = [](CardSet c) { return "[" + to_string(c) + "]"; };
  struct Visitor {
    decltype(seat) s;
    decltype(cards) c;
    std::string operator()(const GameStarted& e) const {
      return "GameStarted players=" + std::to_string(e.players) + " dealer=" + s(e.dealer) + " first=" + s(e.first) +
             " stock=" + std::to_string(e.stock);
    }
    std::string operator()(const HandDealt& e) const { return "HandDealt seat=" + s(e.seat) + " cards=" + c(e.cards); }
    std::string operator()(const HandDealtCount& e) const {
      return "HandDealtCount seat=" + s(e.seat) + " count=" + std::to_string(e.count);
    }
    std::string operator()(const AskedRank& e) const {
      return "AskedRank seat=" + s(e.seat) + " target=" + s(e.target) + " rank=" + std::to_string(e.rank);
    }
    std::string operator()(const AskedCard& e) const {
      return "AskedCard seat=" + s(e.seat) + " target=" + s(e.target) + " card=" + to_string(e.card);
    }
    std::string operator()(const Answered& e) const {
      return "Answered seat=" + s(e.seat) + " give=" + std::to_string(e.give);
    }
    std::string operator()(const Gave& e) const {
      return "Gave from=" + s(e.from) + " to=" + s(e.to) + " cards=" + c(e.cards);
    }
    std::string operator()(const GoFish& e) const {
      return "GoFish seat=" + s(e.seat) + " asker=" + s(e.asker) + " stock_empty=" + std::to_string(e.stock_empty);
    }
    std::string operator()(const Drew& e) const {
      return "Drew seat=" + s(e.seat) + " card=" + to_string(e.card) + " cause=" + std::string(to_string(e.cause));
    }
    std::string operator()(const DrewHidden& e) const {
      return "DrewHidden seat=" + s(e.seat) + " cause=" + std::string(to_string(e.cause));
    }
    std::string operator()(const LuckyDraw& e) const {
      return "LuckyDraw seat=" + s(e.seat) + " card=" + to_string(e.card);
    }
    std::string operator()(const SetLaid& e) const {
      return "SetLaid seat=" + s(e.seat) + " rank=" + std::to_string(e.rank) + " cards=" + c(e.cards) +
             " outcome=" + std::string(to_string(e.outcome)) + " from_deal=" + std::to_string(e.from_deal);
    }
    std::string operator()(const Penalty& e) const {
      return "Penalty seat=" + s(e.seat) + " kind=" + std::string(to_string(e.kind)) + " rank=" + std::to_string(e.rank);
    }
    std::string operator()(const TurnPassed& e) const { return "TurnPassed from=" + s(e.from) + " to=" + s(e.to); }
    std::string operator()(const SatOut& e) const { return "SatOut seat=" + s(e.seat); }
    std::string operator()(const WentOut& e) const { return "WentOut seat=" + s(e.seat); }
    std::string operator()(const MissedTurn& e) const { return "MissedTurn seat=" + s(e.seat); }
    std::string operator()(const GameOver& e) const {
      std::string out = "GameOver reason=" + std::string(to_string(e.reason)) + " players=" + std::to_string(e.players);
      for (std::size_t i = 0; i < e.hands.size(); ++i) {
        out += " hand" + std::to_string(i) + "=" + c(e.hands[i]) + " score" + std::to_string(i) + "=" +
               std::to_string(e.scores[i]);
      }
      return out + " winners=" + std::to_string(e.winners);
    }
  };
  return std::visit(Visitor{seat, cards}, event);
}

struct GameInspector {
  static CardSet hand(const Game& game, Seat seat) { return game.hands_[static_cast<std::size_t>(seat)]; }
  static const Deck& deck(const Game& game) { return game.deck_; }
  // Index in deck() of the top card of the stock.
  static int next_card(const Game& game) { return game.next_card_; }
  // The cards still in the stock, top first.
  static std::vector<Card> stock_order(const Game& game) {
    return {game.deck_.begin() + game.next_card_, game.deck_.end()};
  }
  static CardSet stock(const Game& game) {
    CardSet out;
    for (int i = game.next_card_; i < kDeckSize; ++i) out.add(game.deck_[static_cast<std::size_t>(i)]);
    return out;
  }

  // Every member, compared. A member added to Game must be added here too.
  static bool same_state(const Game& a, const Game& b) {
    if (!(a.rules_ == b.rules_ && a.players_ == b.players_ && a.dealer_ == b.dealer_ && a.first_ == b.first_ &&
          a.deck_ == b.deck_ && a.next_card_ == b.next_card_ && a.hands_ == b.hands_ && a.status_ == b.status_ && a.facts_.in_play == b.facts_.in_play &&
          a.set_ranks_ == b.set_ranks_ && a.scoring_ == b.scoring_ && a.score_ == b.score_ && a.unshown_ == b.unshown_ && a.set_count_ == b.set_count_ && a.barred_ == b.barred_ &&
          a.misses_next_ == b.misses_next_ && a.sets_down_ == b.sets_down_ && a.facts_.phase == b.facts_.phase &&
          a.facts_.turn == b.facts_.turn && a.facts_.players == b.facts_.players && a.facts_.pending == b.facts_.pending &&
          a.end_reason_ == b.end_reason_ && a.winners_ == b.winners_ && a.decisions_ == b.decisions_ &&
          a.events_.size() == b.events_.size())) {
      return false;
    }
    for (std::size_t i = 0; i < a.events_.size(); ++i) {
      if (full_text(a.events_[i]) != full_text(b.events_[i])) return false;
    }
    return true;
  }

  // Every member, spelled out: for comparisons and for failure messages.
  static std::string describe(const Game& g) {
    std::string out;
    for (const auto& [name, value] : rules_fields(g.rules_)) out += name + "=" + value + " ";
    out += "\nplayers=" + std::to_string(g.players_) + " dealer=" + std::to_string(g.dealer_) +
           " first=" + std::to_string(g.first_) + " next_card=" + std::to_string(g.next_card_) + "\ndeck=";
    for (Card c : g.deck_) out += to_string(c) + " ";
    for (int s = 0; s < kMaxSeats; ++s) {
      const auto i = static_cast<std::size_t>(s);
      out += "\nseat " + std::to_string(s) + ": hand=[" + to_string(g.hands_[i]) +
             "] status=" + std::to_string(static_cast<int>(g.status_[i])) +
             " barred=" + std::to_string(g.barred_[i]) + " sets=";
      for (std::size_t k = 0; k < g.set_ranks_[i].size(); ++k) out += std::to_string(g.set_ranks_[i][k]) + ",";
      out += " scoring=" + std::to_string(g.scoring_[i]) + " score=" + std::to_string(g.score_[i]) + " unshown=" + std::to_string(g.unshown_[i]);
      out += " set_count=" + std::to_string(g.set_count_[i]);
    }
    out += "\nin_play=" + std::to_string(g.facts_.in_play) + " misses_next=" + std::to_string(g.misses_next_) + " sets_down=" + std::to_string(g.sets_down_) +
           " phase=" + std::to_string(static_cast<int>(g.facts_.phase)) + " turn=" + std::to_string(g.facts_.turn) +
           " pending=" + (g.facts_.pending ? std::to_string(g.facts_.pending->seat) + ">" + std::to_string(g.facts_.pending->target) + ":" + std::to_string(g.facts_.pending->rank) + (g.facts_.pending->card ? "/" + to_string(*g.facts_.pending->card) : std::string()) : std::string("none")) +
           " end_reason=" + (g.end_reason_ ? std::string(to_string(*g.end_reason_)) : std::string("none")) +
           " winners=" + std::to_string(g.winners_) + "\ndecisions:";
    for (const Decision& d : g.decisions_) out += "\n  " + to_string(d);
    out += "\nevents:";
    for (const Event& e : g.events_) out += "\n  " + full_text(e);
    return out;
  }
};

}  // namespace gofish::engine
