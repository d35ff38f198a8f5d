// The improper list (engine/improper_decisions.hpp): a decision is listed
// exactly when the judge accepts it with a penalty, and with that penalty,
// for every seat (the one to act or not) of many table-rules states of every
// preset: states made up at random and states reached by playing, mistakes
// included. Beside it the proper list stays what the judge calls proper, and
// the two never share a decision. The comparison is shown to catch a wrong
// list.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/game.hpp"
#include "engine/improper_decisions.hpp"
#include "engine/legality.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/testing.hpp"
#include "support.hpp"

using namespace gofish::engine;
using namespace gofish::engine::test;

namespace {

constexpr Rank kTwo = 0;
constexpr Rank kNine = 7;
constexpr Rank kAce = 12;

Decision ask_rank(Seat seat, Seat target, Rank rank) { return Decision{seat, AskRank{target, rank}}; }
Decision ask_card(Seat seat, Seat target, Card card) { return Decision{seat, AskCard{target, card}}; }
Decision answer(Seat seat, bool give) { return Decision{seat, Answer{give}}; }
Decision declare(Seat seat, Rank rank) { return Decision{seat, Declare{rank}}; }

// Every decision the test can name for `seat` at a table of `players`,
// out-of-range seats, ranks and cards included.
std::vector<Decision> every_decision(Seat seat, int players) {
  std::vector<Decision> all = {answer(seat, true), answer(seat, false)};
  for (Rank r = -1; r <= kRanks; ++r) all.push_back(declare(seat, r));
  for (Seat target = -1; target <= players; ++target) {
    for (Rank r = -1; r <= kRanks; ++r) all.push_back(ask_rank(seat, target, r));
    for (int id = 0; id <= kDeckSize; ++id) all.push_back(ask_card(seat, target, Card::from_id(id)));
  }
  return all;
}

struct Tally {
  int disagreements = 0;
  int penalised = 0;
};

// Judges every decision of `seat` and compares with both lists; counts (and
// with `report`, reports) each disagreement.
Tally compare(const Rules& rules, const LegalityFacts& facts, Seat seat, CardSet hand,
              const ImproperDecisions& improper, bool report) {
  Tally tally;
  const LegalDecisions legal = legal_decisions(rules, facts, seat, hand);
  int listed = 0;
  for (const Decision& d : every_decision(seat, facts.players)) {
    const Judgement j = judge(rules, facts, hand, d);
    const std::optional<PenaltyKind> listed_penalty = improper.penalty(d);
    const bool ok = j.penalty() == listed_penalty && j.proper() == legal.contains(d) &&
                    improper.decisions.contains(d) == listed_penalty.has_value() &&
                    !(legal.contains(d) && improper.decisions.contains(d));
    if (!ok) {
      ++tally.disagreements;
      if (report) FAIL_CHECK("judge and lists disagree on " << to_string(d));
    }
    if (j.penalty()) ++tally.penalised;
    if (improper.decisions.contains(d)) ++listed;
  }
  if (listed != improper.count()) {
    ++tally.disagreements;
    if (report) FAIL_CHECK("the improper list counts " << improper.count() << " but holds " << listed);
  }
  if (improper.decisions.seat != seat || improper.decisions.give || improper.decisions.declarable != 0) {
    ++tally.disagreements;
    if (report) FAIL_CHECK("the improper list names another seat, or a give or a declaration");
  }
  return tally;
}

std::vector<Rules> every_rules(bool strict_too) {
  std::vector<Rules> all;
  for (const auto name : preset_names()) {
    for (const bool table : {true, false}) {
      if (!table && !strict_too) continue;
      Rules rules = rules_for(name, table);
      all.push_back(rules);
      if (rules.ask_for == AskFor::kCard) {
        rules.may_ask_held_card = true;
        all.push_back(rules);
      }
    }
  }
  return all;
}

CardSet random_hand(Rng& rng) {
  CardSet hand;
  for (int i = static_cast<int>(rng.below(20)); i > 0; --i) hand.add(Card::from_id(static_cast<int>(rng.below(kDeckSize))));
  return hand;
}

// A game's hands, one per seat, from the game itself: the facts and the
// hand the judge is given are those of Game::judge and Game::improper.
LegalityFacts facts_of(const Game& game) {
  LegalityFacts facts{game.players(), game.phase(), game.turn(), game.pending_ask(), 0};
  for (Seat s = 0; s < game.players(); ++s) {
    if (game.status(s) != SeatStatus::kOut) facts.in_play |= seat_bit(s);
  }
  return facts;
}

}  // namespace

TEST_CASE("improper: penalised exactly when listed, in random states of every preset") {
  Rng rng(32);
  int penalised = 0;
  for (const Rules& rules : every_rules(true)) {
    CAPTURE(rules.preset);
    CAPTURE(rules.table_rules);
    CAPTURE(rules.may_ask_held_card);
    for (int round = 0; round < 60; ++round) {
      const LegalityFacts facts = random_facts(rules, rng);
      const CardSet hand = random_hand(rng);
      CAPTURE(to_string(hand));
      for (Seat seat = -1; seat <= facts.players; ++seat) {
        const ImproperDecisions improper = improper_decisions(rules, facts, seat, hand);
        if (!rules.table_rules) CHECK(improper.empty());
        penalised += compare(rules, facts, seat, hand, improper, true).penalised;
      }
    }
  }
  CHECK(penalised > 10000);  // the states above are mostly not dead ends
}

TEST_CASE("improper: penalised exactly when listed, in played table-rules games of every preset") {
  Rng rng(35);
  for (const Rules& rules : every_rules(false)) {
    CAPTURE(rules.preset);
    CAPTURE(rules.may_ask_held_card);
    int states = 0;
    int penalties = 0;
    int asks_out_of_turn = 0;
    for (int g = 0; g < 6; ++g) {
      const int players =
          rules.min_players + static_cast<int>(rng.below(static_cast<std::uint32_t>(rules.max_players - rules.min_players + 1)));
      Game game = start_random(rules, players, rng);
      for (int step = 0; step < 300 && game.phase() != Phase::kOver; ++step) {
        ++states;
        const LegalityFacts facts = facts_of(game);
        std::vector<ImproperDecisions> improper;
        for (Seat seat = 0; seat < players; ++seat) {
          improper.push_back(game.improper(seat));
          CHECK(improper.back() == improper_decisions(rules, facts, seat, GameInspector::hand(game, seat)));
          CHECK(game.legal(seat) == legal_decisions(rules, facts, seat, GameInspector::hand(game, seat)));
          compare(rules, facts, seat, GameInspector::hand(game, seat), improper.back(), true);
          if (improper.back().has_asks() && improper.back().ask_penalty == PenaltyKind::kAskedOutOfTurn) {
            CHECK_FALSE((game.phase() == Phase::kAsk && seat == game.turn()));
            ++asks_out_of_turn;
          }
        }
        // Mostly proper play; now and then a listed mistake, by anyone.
        const Seat mistaken = static_cast<Seat>(rng.below(static_cast<std::uint32_t>(players)));
        const ImproperDecisions& wrong = improper[static_cast<std::size_t>(mistaken)];
        Decision d;
        if (rng.below(8) == 0 && !wrong.empty()) {
          d = wrong.decisions.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(wrong.count()))));
          const Judgement j = game.judge(d);
          REQUIRE(j.penalty() == wrong.penalty(d));
          ++penalties;
        } else {
          d = random_legal(game, rng);
        }
        REQUIRE_FALSE(game.apply(d));
      }
    }
    CHECK(states > 100);
    CHECK(penalties > 5);
    CHECK(asks_out_of_turn > 100);
  }
}

TEST_CASE("improper: what each seat is offered, case by case") {
  const Rules table = rules_for("classic", true);
  const Rules card_table = rules_for("specific-card", true);
  CardSet hand;  // two nines and the ace of spades
  hand.add(Card(kNine, Suit::Clubs));
  hand.add(Card(kNine, Suit::Hearts));
  hand.add(Card(kAce, Suit::Spades));
  const LegalityFacts asking{4, Phase::kAsk, 1, std::nullopt, 0b0111};  // seat 3 is out
  const LegalityFacts answering{4, Phase::kAnswer, 1, PendingAsk{1, 2, kNine, std::nullopt}, 0b1111};

  // Out of turn: any rank of any seat in play, asked_out_of_turn.
  const ImproperDecisions early = improper_decisions(table, asking, 0, hand);
  CHECK(early.decisions.targets == 0b0110);
  CHECK(early.decisions.ranks == 0x1FFF);
  CHECK(early.ask_penalty == PenaltyKind::kAskedOutOfTurn);
  CHECK(early.penalty(ask_rank(0, 2, kTwo)) == PenaltyKind::kAskedOutOfTurn);
  CHECK_FALSE(early.penalty(ask_rank(0, 3, kTwo)));  // out of the game: refused
  // On its turn: the ranks it does not hold, illegal_call.
  const ImproperDecisions own = improper_decisions(table, asking, 1, hand);
  CHECK(own.decisions.ranks == (0x1FFF & ~(rank_bit(kNine) | rank_bit(kAce))));
  CHECK(own.ask_penalty == PenaltyKind::kIllegalCall);
  CHECK_FALSE(own.penalty(ask_rank(1, 2, kNine)));  // proper
  // A card game: every card it may not properly ask for, its own included.
  const ImproperDecisions cards = improper_decisions(card_table, asking, 1, hand);
  CHECK(cards.decisions.cards.contains(Card(kNine, Suit::Hearts)));
  CHECK(cards.decisions.cards.contains(Card(kTwo, Suit::Clubs)));
  CHECK_FALSE(cards.decisions.cards.contains(Card(kNine, Suit::Spades)));
  // The seat asked and holding nines: a false "Go fish", and asks out of turn.
  const ImproperDecisions asked = improper_decisions(table, answering, 2, hand);
  CHECK(asked.decisions.go_fish);
  CHECK_FALSE(asked.decisions.give);
  CHECK(asked.penalty(answer(2, false)) == PenaltyKind::kFalseGoFish);
  CHECK(asked.ask_penalty == PenaltyKind::kAskedOutOfTurn);
  // Holding none: its "Go fish" is proper, and nothing about answers is listed.
  CHECK_FALSE(improper_decisions(table, answering, 2, CardSet::of_rank(kTwo)).decisions.go_fish);
  // The asker, waiting for its answer: nothing at all.
  CHECK(improper_decisions(table, answering, 1, hand).empty());
  // Strict rules, a finished game, a seat that is out or not at the table: nothing.
  CHECK(improper_decisions(rules_for("classic", false), asking, 0, hand).empty());
  CHECK(improper_decisions(table, LegalityFacts{4, Phase::kOver, 1, std::nullopt, 0b1111}, 0, hand).empty());
  CHECK(improper_decisions(table, asking, 3, hand).empty());
  CHECK(improper_decisions(table, asking, 4, hand).empty());
}

TEST_CASE("improper: the comparison catches a wrong list") {
  // A test that cannot fail proves nothing: lists that are wrong in each way
  // the function could be must each be caught.
  const Rules table = rules_for("classic", true);
  const Rules card_table = rules_for("specific-card", true);
  CardSet hand = CardSet::of_rank(kNine);
  hand.add(Card(kAce, Suit::Spades));
  const LegalityFacts asking{4, Phase::kAsk, 1, std::nullopt, 0b1111};
  const LegalityFacts answering{4, Phase::kAnswer, 1, PendingAsk{1, 2, kNine, std::nullopt}, 0b1111};
  struct Case {
    const char* what;
    const Rules& rules;
    const LegalityFacts& facts;
    Seat seat;
    std::function<void(ImproperDecisions&)> spoil;
  };
  const std::vector<Case> cases = {
      {"a rank held offered as an illegal call", table, asking, 1,
       [](ImproperDecisions& i) { i.decisions.ranks |= rank_bit(kNine); }},
      {"an out-of-turn ask left out", table, asking, 0,
       [](ImproperDecisions& i) { i.decisions.ranks &= static_cast<std::uint16_t>(~rank_bit(kTwo)); }},
      {"the wrong penalty", table, asking, 0,
       [](ImproperDecisions& i) { i.ask_penalty = PenaltyKind::kIllegalCall; }},
      {"asking oneself", table, asking, 0, [](ImproperDecisions& i) { i.decisions.targets |= seat_bit(0); }},
      {"a false Go fish left out", table, answering, 2, [](ImproperDecisions& i) { i.decisions.go_fish = false; }},
      {"a give listed", table, answering, 2, [](ImproperDecisions& i) { i.decisions.give = true; }},
      {"the waiting asker asking", table, answering, 1,
       [](ImproperDecisions& i) {
         i.decisions.targets = 0b0100;
         i.decisions.ranks = 1;
       }},
      {"a card held, where that is proper", card_table, asking, 0,
       [](ImproperDecisions& i) { i.decisions.cards.remove(Card(kNine, Suit::Clubs)); }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    ImproperDecisions right = improper_decisions(c.rules, c.facts, c.seat, hand);
    CHECK(compare(c.rules, c.facts, c.seat, hand, right, true).disagreements == 0);
    ImproperDecisions wrong = right;
    c.spoil(wrong);
    CHECK(compare(c.rules, c.facts, c.seat, hand, wrong, false).disagreements > 0);
  }
}
