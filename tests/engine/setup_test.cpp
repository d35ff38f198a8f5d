// The dealer ceremony, the cut and the first player (engine/setup.hpp;
// docs/RULES.md R13-R15): bicycle and authors draw one face-up card each, the
// lowest deals (ace high, two low), tied seats draw again; the seat on the
// dealer's right cuts where it chooses, else at random; the dealer's left
// asks first. The others pick the dealer at random.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "engine/card.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"

using namespace gofish::engine;

namespace {

// The ceremony's rounds checked against the rule, independently of how
// setup.cpp picks the dealer: every seat draws in the first round; in each
// round the seats holding the lowest rank (two low, ace high) and only they
// draw in the next; the last round has one lowest card and its seat deals.
void check_ceremony(const DealSetup& setup, int players) {
  REQUIRE_FALSE(setup.ceremony.empty());
  std::vector<Seat> expected_seats;
  for (Seat s = 0; s < players; ++s) expected_seats.push_back(s);
  for (std::size_t r = 0; r < setup.ceremony.size(); ++r) {
    const CeremonyRound& round = setup.ceremony[r];
    CHECK(round.seats == expected_seats);
    REQUIRE(round.cards.size() == round.seats.size());
    std::set<int> ids;
    for (Card c : round.cards) ids.insert(c.id());
    CHECK(ids.size() == round.cards.size());  // one pack per round: no card twice
    int lowest = kRanks;
    for (Card c : round.cards) lowest = std::min(lowest, c.rank());
    std::vector<Seat> tied;
    for (std::size_t i = 0; i < round.cards.size(); ++i) {
      if (round.cards[i].rank() == lowest) tied.push_back(round.seats[i]);
    }
    if (r + 1 < setup.ceremony.size()) {
      CHECK(tied.size() > 1);  // only a tie for lowest draws again
    } else {
      REQUIRE(tied.size() == 1);
      CHECK(setup.dealer == tied[0]);
    }
    expected_seats = tied;
  }
}

}  // namespace

TEST_CASE("ranks run from two (low) to ace (high)") {
  CHECK(parse_rank("2") == 0);
  CHECK(parse_rank("A") == kRanks - 1);
  for (Rank r = 0; r + 1 < kRanks; ++r) CHECK(Card(r, Suit::Spades).rank() < Card(r + 1, Suit::Clubs).rank());
}

TEST_CASE("the ceremony: lowest card deals, ace high, two low, ties draw again") {
  int with_ties = 0, three_rounds = 0, two_beats_ace = 0;
  for (const char* name : {"bicycle", "authors"}) {
    const Rules rules = *preset(name);
    for (int players = rules.min_players; players <= rules.max_players; ++players) {
      for (std::uint64_t seed = 0; seed < 300; ++seed) {
        Rng rng(seed * 7919 + static_cast<std::uint64_t>(players));
        const DealSetup setup = prepare_deal(rules, players, rng);
        INFO(name << ", " << players << " players, seed " << seed);
        check_ceremony(setup, players);
        with_ties += setup.ceremony.size() > 1 ? 1 : 0;
        three_rounds += setup.ceremony.size() > 2 ? 1 : 0;
        const CeremonyRound& first = setup.ceremony.front();
        bool has_two = false, has_ace = false;
        for (Card c : first.cards) {
          has_two = has_two || c.rank() == 0;
          has_ace = has_ace || c.rank() == kRanks - 1;
        }
        if (has_two && has_ace && setup.ceremony.size() == 1) {
          ++two_beats_ace;
          for (std::size_t i = 0; i < first.cards.size(); ++i) {
            if (first.seats[i] == setup.dealer) CHECK(first.cards[i].rank() == 0);
          }
        }
        // An ace never deals while anyone drew a lower card.
        for (std::size_t i = 0; i < first.cards.size(); ++i) {
          if (first.seats[i] == setup.dealer && first.cards[i].rank() == kRanks - 1) {
            for (Card c : first.cards) CHECK(c.rank() == kRanks - 1);
          }
        }
        // The cutter is on the dealer's right; the dealer's left asks first.
        REQUIRE(setup.cutter);
        CHECK(*setup.cutter == (setup.dealer + players - 1) % players);
        CHECK(setup.first == (setup.dealer + 1) % players);
        CHECK(valid_cut_position(setup.cut_position));
        CHECK(is_complete_deck(setup.deck));
      }
    }
  }
  // The seeds must reach the cases the rule is about.
  CHECK(with_ties > 100);
  CHECK(three_rounds > 5);
  CHECK(two_beats_ace > 20);
}

TEST_CASE("the cut: at the cutter's chosen position, else at random") {
  const Rules bicycle = *preset("bicycle");
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    Rng base_rng(seed);
    const DealSetup at_one = prepare_deal(bicycle, 4, base_rng, 1);
    CHECK(at_one.cut_position == 1);
    for (int position : {2, 17, 26, 51}) {
      Rng rng(seed);
      const DealSetup setup = prepare_deal(bicycle, 4, rng, position);
      INFO("seed " << seed << ", cut at " << position);
      CHECK(setup.cut_position == position);
      CHECK(setup.dealer == at_one.dealer);
      // Same shuffle, cut elsewhere: the deck is the same cycle, turned.
      Deck turned = at_one.deck;
      std::rotate(turned.begin(), turned.begin() + (position - 1), turned.end());
      CHECK(setup.deck == turned);
    }
  }
  // cut() itself: the first `position` cards go to the bottom.
  const Deck ordered = ordered_deck();
  const Deck cut_five = cut(ordered, 5);
  CHECK(cut_five[0] == ordered[5]);
  CHECK(cut_five[51] == ordered[4]);
  CHECK(cut_five[47] == ordered[0]);
  CHECK_FALSE(valid_cut_position(0));
  CHECK_FALSE(valid_cut_position(52));
  CHECK(valid_cut_position(1));
  CHECK(valid_cut_position(51));

  // No position, or one outside 1..51: a random valid position.
  std::set<int> positions;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    for (std::optional<int> asked : {std::optional<int>{}, std::optional<int>{0}, std::optional<int>{52},
                                     std::optional<int>{-3}}) {
      Rng rng(seed);
      const DealSetup setup = prepare_deal(bicycle, 3, rng, asked);
      CHECK(valid_cut_position(setup.cut_position));
      positions.insert(setup.cut_position);
    }
  }
  CHECK(positions.size() > 40);
}

TEST_CASE("without a ceremony: a random dealer, classic's first player is random, pairs' is the dealer's left") {
  for (const char* name : {"classic", "specific-card", "keep-playing", "pairs"}) {
    const Rules rules = *preset(name);
    for (int players = rules.min_players; players <= rules.max_players; ++players) {
      std::set<Seat> dealers, firsts;
      bool first_apart_from_left = false;
      for (std::uint64_t seed = 0; seed < 200; ++seed) {
        Rng rng(seed);
        const DealSetup setup = prepare_deal(rules, players, rng);
        INFO(name << ", " << players << " players, seed " << seed);
        CHECK(setup.ceremony.empty());
        CHECK_FALSE(setup.cutter);
        CHECK(is_complete_deck(setup.deck));
        REQUIRE(setup.dealer >= 0);
        REQUIRE(setup.dealer < players);
        REQUIRE(setup.first >= 0);
        REQUIRE(setup.first < players);
        dealers.insert(setup.dealer);
        firsts.insert(setup.first);
        if (rules.first_player == FirstPlayer::kLeftOfDealer) CHECK(setup.first == (setup.dealer + 1) % players);
        first_apart_from_left = first_apart_from_left || setup.first != (setup.dealer + 1) % players;
      }
      INFO(name << ", " << players << " players");
      CHECK(static_cast<int>(dealers.size()) == players);
      CHECK(static_cast<int>(firsts.size()) == players);
      CHECK(first_apart_from_left == (rules.first_player == FirstPlayer::kRandom));
    }
  }
}

TEST_CASE("set-up is a fixed function of the seed") {
  for (const auto name : preset_names()) {
    const Rules rules = *preset(name);
    Rng a(42), b(42), c(43);
    const DealSetup x = prepare_deal(rules, 4, a);
    const DealSetup y = prepare_deal(rules, 4, b);
    const DealSetup z = prepare_deal(rules, 4, c);
    CHECK(x.deck == y.deck);
    CHECK(x.dealer == y.dealer);
    CHECK(x.first == y.first);
    CHECK(x.cut_position == y.cut_position);
    CHECK(x.deck != z.deck);
  }
}

TEST_CASE("invalid configurations are refused, naming the field") {
  const auto six = validate(*preset("bicycle"), 6);
  REQUIRE(six);
  CHECK(six->field == "players");
  CHECK_FALSE(six->message.empty());
  CHECK_FALSE(validate(*preset("bicycle"), 5));
  REQUIRE(validate(*preset("authors"), 2));
  CHECK(validate(*preset("authors"), 2)->field == "players");
  Rules big = *preset("classic");
  big.cards_dealt = 9;  // 54 cards for 6 players
  REQUIRE(validate(big, 6));
  CHECK(validate(big, 6)->field == "cards_dealt");
  CHECK_FALSE(validate(big, 5));  // 45 cards: fine
  // A host changing one field of a preset.
  Rules held = *preset("specific-card");
  CHECK_FALSE(set_rules_field(held, "may_ask_held_card", "true"));
  CHECK(held.may_ask_held_card);
  CHECK(held.preset == "specific-card");
  CHECK_FALSE(validate(held, 4));
  Rules rank_held = *preset("classic");
  CHECK_FALSE(set_rules_field(rank_held, "may_ask_held_card", "true"));
  REQUIRE(validate(rank_held));
  CHECK(validate(rank_held)->field == "may_ask_held_card");
  Rules typo = *preset("classic");
  const auto unknown = set_rules_field(typo, "cards_delt", "4");
  REQUIRE(unknown);
  CHECK(unknown->field == "cards_delt");
  CHECK(typo == *preset("classic"));
  REQUIRE(set_rules_field(typo, "after_miss", "to_right"));
  CHECK(typo == *preset("classic"));
  // Every player count a preset allows is dealable.
  for (const auto name : preset_names()) {
    const Rules rules = *preset(name);
    for (int players = rules.min_players; players <= rules.max_players; ++players) {
      INFO(name << " with " << players);
      CHECK_FALSE(validate(rules, players));
    }
    CHECK(validate(rules, rules.min_players - 1));
    CHECK(validate(rules, rules.max_players + 1));
  }
}

TEST_CASE("hand sizes by preset and player count") {
  struct Row {
    const char* preset;
    int players;
    int cards;
  };
  for (const Row row : {Row{"classic", 2, 7}, Row{"classic", 3, 5}, Row{"classic", 6, 5}, Row{"specific-card", 2, 7},
                        Row{"keep-playing", 4, 5}, Row{"bicycle", 2, 7}, Row{"bicycle", 3, 7}, Row{"bicycle", 4, 5},
                        Row{"bicycle", 5, 5}, Row{"authors", 3, 18}, Row{"authors", 4, 13}, Row{"authors", 5, 11},
                        Row{"authors", 6, 9}, Row{"pairs", 2, 5}, Row{"pairs", 6, 5}}) {
    INFO(row.preset << " with " << row.players);
    CHECK(hand_size(*preset(row.preset), row.players) == row.cards);
  }
}
