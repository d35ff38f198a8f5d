// The legality judge (engine/legality.hpp `judge`, Game::judge): for each kind
// of decision in each phase, the three answers (proper, penalised under table
// rules, refused), every table-rules penalty and every refusal reason; that
// it calls a decision proper exactly when the legal set lists it; and that
// Game::apply judges again a judgement of another state.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "engine/game.hpp"
#include "engine/legality.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "support.hpp"

using namespace gofish::engine;
using gofish::engine::test::random_facts;

namespace {

constexpr Rank kTwo = 0;
constexpr Rank kNine = 7;
constexpr Rank kAce = 12;

Rules rules_of(std::string_view name, bool table_rules) {
  Rules rules = *preset(name);
  rules.table_rules = table_rules;
  return rules;
}
const Rules kStrictRank = rules_of("classic", false);
const Rules kTableRank = rules_of("classic", true);
const Rules kStrictCard = rules_of("specific-card", false);
const Rules kTableCard = rules_of("specific-card", true);

// Four seats, seat 1 to ask, everyone in play but seat 3 when `three_out`.
LegalityFacts asking(bool three_out = false) {
  return LegalityFacts{4, Phase::kAsk, 1, std::nullopt, static_cast<std::uint8_t>(three_out ? 0b0111 : 0b1111)};
}
// Table rules: seat 1 has asked seat 2 for nines (or the nine of hearts).
LegalityFacts answering(std::optional<Card> card = std::nullopt) {
  return LegalityFacts{4, Phase::kAnswer, 1, PendingAsk{1, 2, kNine, card}, 0b1111};
}
LegalityFacts over() { return LegalityFacts{4, Phase::kOver, 1, std::nullopt, 0b1111}; }

// A hand with two nines and the ace of spades.
const CardSet kHand = [] {
  CardSet hand;
  hand.add(Card(kNine, Suit::Clubs));
  hand.add(Card(kNine, Suit::Hearts));
  hand.add(Card(kAce, Suit::Spades));
  return hand;
}();
// A hand with all four twos and a nine.
const CardSet kSetHand = [] {
  CardSet hand = CardSet::of_rank(kTwo);
  hand.add(Card(kNine, Suit::Diamonds));
  return hand;
}();

Judgement judged(const Rules& rules, const LegalityFacts& facts, CardSet hand, Decision d) {
  return judge(rules, facts, hand, d);
}

void expect_proper(const Judgement& j) {
  INFO(to_string(j.decision()));
  CHECK(j.verdict() == Verdict::kProper);
  CHECK(j.proper());
  CHECK(j.accepted());
  CHECK_FALSE(j.penalty());
  CHECK_FALSE(j.refusal());
}

void expect_penalised(const Judgement& j, PenaltyKind kind) {
  INFO(to_string(j.decision()));
  CHECK(j.verdict() == Verdict::kPenalised);
  CHECK_FALSE(j.proper());
  CHECK(j.accepted());
  REQUIRE(j.penalty());
  CHECK(*j.penalty() == kind);
  CHECK_FALSE(j.refusal());
}

void expect_refused(const Judgement& j, RefusalCode code) {
  INFO(to_string(j.decision()));
  CHECK(j.verdict() == Verdict::kRefused);
  CHECK_FALSE(j.accepted());
  CHECK_FALSE(j.penalty());
  REQUIRE(j.refusal());
  CHECK(refusal_code_name(j.refusal()->code) == refusal_code_name(code));
  CHECK_FALSE(j.refusal()->message.empty());
}

Decision ask_rank(Seat seat, Seat target, Rank rank) { return Decision{seat, AskRank{target, rank}}; }
Decision ask_card(Seat seat, Seat target, Card card) { return Decision{seat, AskCard{target, card}}; }
Decision answer(Seat seat, bool give) { return Decision{seat, Answer{give}}; }
Decision declare(Seat seat, Rank rank) { return Decision{seat, Declare{rank}}; }

}  // namespace

TEST_CASE("judge: whatever the decision, a finished game, an unknown seat and a seat that is out are refused") {
  const std::vector<Decision> decisions = {ask_rank(1, 2, kNine), ask_card(1, 2, Card(kNine, Suit::Spades)),
                                           answer(2, true), declare(1, kTwo)};
  for (const Rules& rules : {kStrictRank, kTableRank, kStrictCard, kTableCard}) {
    CAPTURE(rules.preset);
    CAPTURE(rules.table_rules);
    for (const Decision& d : decisions) {
      expect_refused(judged(rules, over(), kHand, d), RefusalCode::kGameOver);
      for (const Seat seat : {-1, 4, 6}) {
        Decision from = d;
        from.seat = seat;
        expect_refused(judged(rules, asking(), CardSet{}, from), RefusalCode::kUnknownSeat);
      }
      Decision from_out = d;
      from_out.seat = 3;
      expect_refused(judged(rules, asking(true), kHand, from_out), RefusalCode::kOutOfGame);
    }
  }
}

TEST_CASE("judge: strict rank asks") {
  const LegalityFacts facts = asking(true);
  expect_proper(judged(kStrictRank, facts, kHand, ask_rank(1, 2, kNine)));
  expect_proper(judged(kStrictRank, facts, kHand, ask_rank(1, 0, kAce)));
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(0, 2, kNine)), RefusalCode::kNotYourTurn);
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(1, -1, kNine)), RefusalCode::kUnknownSeat);
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(1, 4, kNine)), RefusalCode::kUnknownSeat);
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(1, 1, kNine)), RefusalCode::kAskedSelf);
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(1, 3, kNine)), RefusalCode::kTargetOut);
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(1, 2, kTwo)), RefusalCode::kRankNotHeld);
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(1, 2, -1)), RefusalCode::kInvalidRank);
  expect_refused(judged(kStrictRank, facts, kHand, ask_rank(1, 2, 13)), RefusalCode::kInvalidRank);
  expect_refused(judged(kStrictRank, facts, kHand, ask_card(1, 2, Card(kNine, Suit::Spades))),
                 RefusalCode::kCardAskInRankGame);
}

TEST_CASE("judge: strict card asks") {
  const LegalityFacts facts = asking(true);
  const Card nine_of_spades(kNine, Suit::Spades);
  expect_proper(judged(kStrictCard, facts, kHand, ask_card(1, 2, nine_of_spades)));
  expect_refused(judged(kStrictCard, facts, kHand, ask_card(2, 1, nine_of_spades)), RefusalCode::kNotYourTurn);
  expect_refused(judged(kStrictCard, facts, kHand, ask_card(1, 5, nine_of_spades)), RefusalCode::kUnknownSeat);
  expect_refused(judged(kStrictCard, facts, kHand, ask_card(1, 1, nine_of_spades)), RefusalCode::kAskedSelf);
  expect_refused(judged(kStrictCard, facts, kHand, ask_card(1, 3, nine_of_spades)), RefusalCode::kTargetOut);
  expect_refused(judged(kStrictCard, facts, kHand, ask_card(1, 2, Card(kTwo, Suit::Clubs))),
                 RefusalCode::kRankNotHeld);
  expect_refused(judged(kStrictCard, facts, kHand, ask_card(1, 2, Card(kNine, Suit::Hearts))), RefusalCode::kCardHeld);
  expect_refused(judged(kStrictCard, facts, kHand, ask_card(1, 2, Card::from_id(kDeckSize))),
                 RefusalCode::kInvalidRank);
  expect_refused(judged(kStrictCard, facts, kHand, ask_rank(1, 2, kNine)), RefusalCode::kRankAskInCardGame);
  // Where the rules allow it, asking for a card you hold is proper.
  Rules may_ask_held = kStrictCard;
  may_ask_held.may_ask_held_card = true;
  expect_proper(judged(may_ask_held, facts, kHand, ask_card(1, 2, Card(kNine, Suit::Hearts))));
}

TEST_CASE("judge: table-rules asks are proper, penalised or refused") {
  const LegalityFacts facts = asking(true);
  expect_proper(judged(kTableRank, facts, kHand, ask_rank(1, 2, kNine)));
  // 001: an ask out of turn is taken, and penalised; whether its rank is
  // held does not matter.
  expect_penalised(judged(kTableRank, facts, kHand, ask_rank(0, 2, kNine)), PenaltyKind::kAskedOutOfTurn);
  expect_penalised(judged(kTableRank, facts, kHand, ask_rank(2, 0, kTwo)), PenaltyKind::kAskedOutOfTurn);
  // An illegal call: a rank not held, or a card held where that is not allowed.
  expect_penalised(judged(kTableRank, facts, kHand, ask_rank(1, 2, kTwo)), PenaltyKind::kIllegalCall);
  expect_penalised(judged(kTableCard, facts, kHand, ask_card(1, 2, Card(kTwo, Suit::Clubs))),
                   PenaltyKind::kIllegalCall);
  expect_penalised(judged(kTableCard, facts, kHand, ask_card(1, 2, Card(kNine, Suit::Hearts))),
                   PenaltyKind::kIllegalCall);
  expect_proper(judged(kTableCard, facts, kHand, ask_card(1, 2, Card(kNine, Suit::Spades))));
  // Who is asked is still checked.
  expect_refused(judged(kTableRank, facts, kHand, ask_rank(0, 6, kNine)), RefusalCode::kUnknownSeat);
  expect_refused(judged(kTableRank, facts, kHand, ask_rank(1, 1, kNine)), RefusalCode::kAskedSelf);
  expect_refused(judged(kTableRank, facts, kHand, ask_rank(0, 3, kNine)), RefusalCode::kTargetOut);
  expect_refused(judged(kTableRank, facts, kHand, ask_rank(1, 2, kRanks)), RefusalCode::kInvalidRank);
  // While an answer is awaited: the asker waits; anyone else asks out of turn.
  const LegalityFacts waiting = answering();
  expect_refused(judged(kTableRank, waiting, kHand, ask_rank(1, 2, kNine)), RefusalCode::kAwaitingAnswer);
  expect_penalised(judged(kTableRank, waiting, kHand, ask_rank(2, 0, kNine)), PenaltyKind::kAskedOutOfTurn);
  expect_penalised(judged(kTableRank, waiting, kHand, ask_rank(0, 1, kNine)), PenaltyKind::kAskedOutOfTurn);
}

TEST_CASE("judge: answers") {
  // Strict rules: the server answers.
  expect_refused(judged(kStrictRank, asking(), kHand, answer(2, true)), RefusalCode::kTableRulesOnly);
  expect_refused(judged(kStrictRank, asking(), kHand, answer(2, false)), RefusalCode::kTableRulesOnly);
  // Nobody is waiting for an answer, or not from this seat.
  expect_refused(judged(kTableRank, asking(), kHand, answer(2, true)), RefusalCode::kNotAsked);
  expect_refused(judged(kTableRank, answering(), kHand, answer(1, false)), RefusalCode::kNotAsked);
  expect_refused(judged(kTableRank, answering(), kHand, answer(0, false)), RefusalCode::kNotAsked);
  // The asked seat holds nines: "give" is proper, "Go fish" is 001's false Go fish.
  expect_proper(judged(kTableRank, answering(), kHand, answer(2, true)));
  expect_penalised(judged(kTableRank, answering(), kHand, answer(2, false)), PenaltyKind::kFalseGoFish);
  // It holds none: "Go fish" is proper, "give" is refused.
  expect_proper(judged(kTableRank, answering(), CardSet::of_rank(kTwo), answer(2, false)));
  expect_refused(judged(kTableRank, answering(), CardSet::of_rank(kTwo), answer(2, true)), RefusalCode::kNothingToGive);
  // A card ask: what counts is that exact card.
  const LegalityFacts card_ask = answering(Card(kNine, Suit::Hearts));
  expect_proper(judged(kTableCard, card_ask, kHand, answer(2, true)));
  expect_penalised(judged(kTableCard, card_ask, kHand, answer(2, false)), PenaltyKind::kFalseGoFish);
  const LegalityFacts other_card = answering(Card(kNine, Suit::Spades));
  expect_proper(judged(kTableCard, other_card, kHand, answer(2, false)));
  expect_refused(judged(kTableCard, other_card, kHand, answer(2, true)), RefusalCode::kNothingToGive);
}

TEST_CASE("judge: declarations") {
  expect_refused(judged(kStrictRank, asking(), kSetHand, declare(1, kTwo)), RefusalCode::kTableRulesOnly);
  expect_proper(judged(kTableRank, asking(), kSetHand, declare(1, kTwo)));
  expect_refused(judged(kTableRank, answering(), kSetHand, declare(1, kTwo)), RefusalCode::kAwaitingAnswer);
  expect_refused(judged(kTableRank, answering(), kSetHand, declare(2, kTwo)), RefusalCode::kAwaitingAnswer);
  expect_refused(judged(kTableRank, asking(), kSetHand, declare(0, kTwo)), RefusalCode::kNotYourTurn);
  expect_refused(judged(kTableRank, asking(), kSetHand, declare(1, -1)), RefusalCode::kInvalidRank);
  expect_refused(judged(kTableRank, asking(), kSetHand, declare(1, kRanks)), RefusalCode::kInvalidRank);
  expect_refused(judged(kTableRank, asking(), kSetHand, declare(1, kNine)), RefusalCode::kNoSuchSet);
  // Pairs: two cards of a rank are a set.
  expect_proper(judged(rules_of("pairs", true), asking(), kHand, declare(1, kNine)));
}

TEST_CASE("judge: every refusal reason and every penalty is reachable") {
  // The cases above, gathered, so that a new reason or penalty without a
  // case here fails this test.
  std::set<std::string> reasons;
  std::set<int> penalties;
  Rules may_ask_held = kStrictCard;
  may_ask_held.may_ask_held_card = true;
  const std::vector<LegalityFacts> states = {asking(), asking(true), answering(), answering(Card(kNine, Suit::Hearts)),
                                             over()};
  for (const Rules& rules : {kStrictRank, kTableRank, kStrictCard, kTableCard, may_ask_held}) {
    for (const LegalityFacts& facts : states) {
      for (const CardSet hand : {kHand, kSetHand, CardSet{}}) {
        for (Seat seat = -1; seat <= 4; ++seat) {
          std::vector<Decision> all = {answer(seat, true), answer(seat, false)};
          for (Rank r = -1; r <= kRanks; ++r) all.push_back(declare(seat, r));
          for (Seat target = -1; target <= 4; ++target) {
            for (Rank r = -1; r <= kRanks; ++r) all.push_back(ask_rank(seat, target, r));
            for (int id = 0; id <= kDeckSize; ++id) all.push_back(ask_card(seat, target, Card::from_id(id)));
          }
          for (const Decision& d : all) {
            const Judgement j = judge(rules, facts, hand, d);
            if (j.refusal()) reasons.insert(std::string(refusal_code_name(j.refusal()->code)));
            if (j.penalty()) penalties.insert(static_cast<int>(*j.penalty()));
          }
        }
      }
    }
  }
  for (int code = 0; code <= static_cast<int>(RefusalCode::kTableRulesOnly); ++code) {
    const std::string name(refusal_code_name(static_cast<RefusalCode>(code)));
    CAPTURE(name);
    CHECK(reasons.count(name) == 1);
  }
  CHECK(penalties == std::set<int>{static_cast<int>(PenaltyKind::kAskedOutOfTurn),
                                   static_cast<int>(PenaltyKind::kIllegalCall),
                                   static_cast<int>(PenaltyKind::kFalseGoFish)});
}

TEST_CASE("judge: a decision is proper exactly when the legal set lists it") {
  Rng rng(4);
  std::vector<Rules> all_rules;
  for (const auto name : preset_names()) {
    for (const bool table : {false, true}) {
      Rules rules = rules_of(name, table);
      all_rules.push_back(rules);
      if (rules.ask_for == AskFor::kCard) {
        rules.may_ask_held_card = true;
        all_rules.push_back(rules);
      }
    }
  }
  int proper = 0;
  for (const Rules& rules : all_rules) {
    CAPTURE(rules.preset);
    CAPTURE(rules.table_rules);
    for (int round = 0; round < 60; ++round) {
      const LegalityFacts facts = random_facts(rules, rng);
      const int players = facts.players;
      CardSet hand;
      for (int i = static_cast<int>(rng.below(14)); i > 0; --i) hand.add(Card::from_id(static_cast<int>(rng.below(kDeckSize))));
      for (Seat seat = -1; seat <= players; ++seat) {
        const LegalDecisions legal = legal_decisions(rules, facts, seat, hand);
        std::vector<Decision> all = {answer(seat, true), answer(seat, false)};
        for (Rank r = -1; r <= kRanks; ++r) all.push_back(declare(seat, r));
        for (Seat target = -1; target <= players; ++target) {
          for (Rank r = -1; r <= kRanks; ++r) all.push_back(ask_rank(seat, target, r));
          for (int id = 0; id <= kDeckSize; ++id) all.push_back(ask_card(seat, target, Card::from_id(id)));
        }
        int listed = 0;
        for (const Decision& d : all) {
          const Judgement j = judge(rules, facts, hand, d);
          if (j.proper() != legal.contains(d)) FAIL_CHECK("judge and legal set disagree on " << to_string(d));
          if (!rules.table_rules) CHECK(j.verdict() != Verdict::kPenalised);
          listed += j.proper() ? 1 : 0;
        }
        CHECK(listed == legal.count());
        proper += listed;
      }
    }
  }
  CHECK(proper > 1000);  // the states above are not all dead ends
}

TEST_CASE("judge: Game::apply judges again a judgement of another state") {
  const Rules rules = *preset("classic");
  auto started = Game::start(rules, 3, ordered_deck(), 0, 1);
  REQUIRE(std::holds_alternative<Game>(started));
  Game game = std::get<Game>(started);
  const Decision first = game.legal(game.to_act()).nth(0);
  const Judgement judgement = game.judge(first);
  REQUIRE(judgement.proper());

  // Applied to a copy, it is judged again there (same state, same answer).
  Game copy = game;
  REQUIRE_FALSE(copy.apply(judgement));
  REQUIRE_FALSE(game.apply(judgement));
  CHECK(copy.last_events().size() == game.last_events().size());
  CHECK(copy.decisions() == game.decisions());

  // Applied again after the game moved on, it is judged in the new state:
  // exactly what applying the bare decision now does.
  Game reference = game;
  const auto again = game.apply(judgement);
  const auto bare = reference.apply(first);
  REQUIRE(again.has_value() == bare.has_value());
  if (again) CHECK(again->code == bare->code);
  CHECK(game.decisions() == reference.decisions());
}
