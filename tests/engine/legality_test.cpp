// engine/legality.hpp: the legal set is exactly the asks ask_fault accepts,
// and legal_decisions depends on the facts it is given the way the rules say.
// (The random-game tests check it against Game::judge and apply in whole
// games; the event-view test checks that a viewer derives the same set.)
#include "engine/legality.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <vector>

#include "engine/random.hpp"
#include "engine/rules.hpp"

using namespace gofish::engine;

namespace {

std::vector<Rules> rule_sets() {
  std::vector<Rules> out;
  for (const auto name : preset_names()) {
    Rules rules = *preset(name);
    out.push_back(rules);
    rules.table_rules = true;
    out.push_back(rules);
    if (rules.ask_for == AskFor::kCard) {
      rules.may_ask_held_card = true;
      out.push_back(rules);
    }
  }
  return out;
}

CardSet random_hand(Rng& rng) {
  CardSet hand;
  const int size = static_cast<int>(rng.below(14));
  for (int i = 0; i < size; ++i) hand.add(Card::from_id(static_cast<int>(rng.below(kDeckSize))));
  return hand;
}

LegalityFacts asking(int players, Seat turn) {
  return LegalityFacts{players, Phase::kAsk, turn, std::nullopt, static_cast<std::uint8_t>((1U << players) - 1)};
}

}  // namespace

TEST_CASE("legality: an ask is listed exactly when ask_fault finds nothing wrong with it") {
  Rng rng(16);
  int faults = 0;
  for (const Rules& rules : rule_sets()) {
    CAPTURE(rules.preset);
    CAPTURE(rules.may_ask_held_card);
    for (int i = 0; i < 200; ++i) {
      const CardSet hand = random_hand(rng);
      CAPTURE(to_string(hand));
      const std::uint16_t ranks = askable_ranks(hand);
      const CardSet cards = askable_cards(rules, hand);
      for (Rank r = 0; r < kRanks; ++r) {
        const auto fault = ask_fault(rules, hand, r, std::nullopt);
        CHECK(((ranks >> r) & 1U) == !fault);
        if (fault) CHECK(*fault == AskFault::kRankNotHeld);
      }
      for (int id = 0; id < kDeckSize; ++id) {
        const Card card = Card::from_id(id);
        const auto fault = ask_fault(rules, hand, card.rank(), card);
        CHECK(cards.contains(card) == !fault);
        faults += fault ? 1 : 0;
        if (fault == AskFault::kCardHeld) {
          CHECK_FALSE(rules.may_ask_held_card);
          CHECK(hand.contains(card));
        }
      }
      const LegalDecisions legal = legal_decisions(rules, asking(3, 1), 1, hand);
      if (rules.ask_for == AskFor::kRank) {
        CHECK(legal.ranks == ranks);
        CHECK(legal.cards.empty());
      } else {
        CHECK(legal.cards == cards);
        CHECK(legal.ranks == 0);
      }
      CHECK(legal.declarable == (rules.table_rules ? declarable_ranks(rules, hand) : 0));
    }
  }
  CHECK(faults > 1000);
}

TEST_CASE("legality: the seat whose turn it is asks any other seat in play, and nobody else asks") {
  const Rules rules = *preset("classic");
  CardSet hand;
  hand.add(*parse_card("QH"));
  LegalityFacts facts = asking(4, 2);
  facts.in_play = 0b0111;  // seat 3 is out
  const LegalDecisions legal = legal_decisions(rules, facts, 2, hand);
  CHECK(legal.seat == 2);
  CHECK(legal.targets == 0b0011);
  CHECK(legal.count() == 2);
  CHECK(legal.contains(Decision{2, AskRank{0, *parse_rank("Q")}}));
  CHECK_FALSE(legal.contains(Decision{2, AskRank{2, *parse_rank("Q")}}));
  CHECK_FALSE(legal.contains(Decision{2, AskRank{3, *parse_rank("Q")}}));
  CHECK_FALSE(legal.contains(Decision{2, AskRank{0, *parse_rank("K")}}));

  facts.in_play = 0b1111;
  CHECK(legal_decisions(rules, facts, 2, hand).targets == 0b1011);
  CHECK(legal_decisions(rules, facts, 1, hand).empty());
  CHECK(legal_decisions(rules, facts, 7, hand).empty());
  facts.phase = Phase::kOver;
  CHECK(legal_decisions(rules, facts, 2, hand).empty());
}

TEST_CASE("legality: under table rules the asked seat answers truthfully, and only it") {
  Rules rules = *preset("specific-card");
  rules.table_rules = true;
  CardSet hand;
  hand.add(*parse_card("QH"));
  hand.add(*parse_card("2C"));
  LegalityFacts facts = asking(3, 0);
  facts.phase = Phase::kAnswer;
  facts.pending = PendingAsk{0, 2, *parse_rank("Q"), *parse_card("QH")};
  const LegalDecisions gives = legal_decisions(rules, facts, 2, hand);
  CHECK(gives.give);
  CHECK_FALSE(gives.go_fish);
  CHECK(gives.count() == 1);
  CHECK(legal_decisions(rules, facts, 0, hand).empty());  // the asker waits, even on its turn
  CHECK(legal_decisions(rules, facts, 1, hand).empty());

  facts.pending = PendingAsk{0, 2, *parse_rank("Q"), *parse_card("QS")};
  const LegalDecisions fishes = legal_decisions(rules, facts, 2, hand);
  CHECK_FALSE(fishes.give);
  CHECK(fishes.go_fish);
  CHECK(holds(hand, *parse_rank("Q"), std::nullopt));
  CHECK_FALSE(holds(hand, *parse_rank("Q"), *parse_card("QS")));
}
