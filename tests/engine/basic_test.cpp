#include <doctest/doctest.h>

#include "engine/card.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"

using namespace gofish::engine;

TEST_CASE("cards print and parse in the transcript spelling") {
  CHECK(to_string(Card(8, Suit::Diamonds)) == "10D");
  CHECK(parse_card("QS") == Card(10, Suit::Spades));
  CHECK(parse_card("10h") == Card(8, Suit::Hearts));
  CHECK_FALSE(parse_card("1S"));
  for (int id = 0; id < kDeckSize; ++id) CHECK(parse_card(to_string(Card::from_id(id))) == Card::from_id(id));
}

TEST_CASE("the shuffle is a fixed function of the seed") {
  Deck a = ordered_deck();
  Deck b = ordered_deck();
  Rng ra(7), rb(7);
  shuffle(a, ra);
  shuffle(b, rb);
  CHECK(a == b);
  CHECK(is_complete_deck(a));
  CHECK(a != ordered_deck());
}

TEST_CASE("invalid configurations are refused with a reason") {
  const Rules bicycle = *preset("bicycle");
  const auto six = validate(bicycle, 6);
  REQUIRE(six);
  CHECK(six->field == "players");
  Rules big = *preset("classic");
  big.cards_dealt = 12;
  const auto error = validate(big, 6);
  REQUIRE(error);
  CHECK(error->field == "cards_dealt");
  for (auto name : preset_names()) CHECK_FALSE(validate(*preset(name)));
}
