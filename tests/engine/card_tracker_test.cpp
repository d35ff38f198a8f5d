// The hard bot's card model on its own: the facts it keeps exactly (cards
// seen, "Go fish", asks, sets, hand sizes), what elimination concludes, and
// that its estimates stay probabilities (each open card's places sum to one).
#include <doctest/doctest.h>

#include <cmath>

#include "engine/card_tracker.hpp"
#include "engine/rules.hpp"

using namespace gofish::engine;

namespace {

constexpr Seat kMe = 0;
constexpr Rank kSevens = 5;
constexpr Rank kKings = 11;

CardSet cards(std::initializer_list<Card> list) {
  CardSet set;
  for (Card c : list) set.add(c);
  return set;
}

// Three players, five cards each, 37 in the stock; we hold two sevens.
CardTracker dealt(const Rules& rules) {
  CardTracker tracker(rules, 3, kMe);
  tracker.observe(GameStarted{3, 0, 0, 37});
  tracker.observe(HandDealt{kMe, cards({Card(kSevens, Suit::Clubs), Card(kSevens, Suit::Hearts), Card(0, Suit::Clubs),
                                        Card(1, Suit::Clubs), Card(2, Suit::Clubs)})});
  tracker.observe(HandDealtCount{1, 5});
  tracker.observe(HandDealtCount{2, 5});
  return tracker;
}

// Every card whose place is open is somewhere: its places sum to one.
void check_probabilities(const CardTracker& tracker, int players) {
  for (int id = 0; id < kDeckSize; ++id) {
    const Card c = Card::from_id(id);
    float sum = tracker.at(c, CardTracker::kStock);
    for (Seat s = 0; s < players; ++s) sum += tracker.at(c, s);
    if (sum == 0.0F) continue;  // laid in a set
    CHECK_MESSAGE(std::abs(sum - 1.0F) < 1e-3F, "card " << id << " sums to " << sum);
  }
}

}  // namespace

TEST_CASE("card tracker: our own cards are where we hold them, the rest spread by hand size") {
  CardTracker tracker = dealt(*preset("classic"));
  tracker.refresh();
  CHECK(tracker.at(Card(kSevens, Suit::Clubs), kMe) == 1.0F);
  CHECK(tracker.at(Card(kSevens, Suit::Clubs), 1) == 0.0F);
  CHECK(tracker.size(1) == 5);
  CHECK(tracker.size(CardTracker::kStock) == 37);
  // An unseen card is in the stock 37 times in 47, in each other hand 5 in 47.
  const Card ace(12, Suit::Spades);
  CHECK(tracker.at(ace, CardTracker::kStock) == doctest::Approx(37.0 / 47).epsilon(0.01));
  CHECK(tracker.at(ace, 1) == doctest::Approx(5.0 / 47).epsilon(0.01));
  check_probabilities(tracker, 3);
}

TEST_CASE("card tracker: an ask tells that the asker holds the rank, \"Go fish\" that the asked seat lacks it") {
  CardTracker tracker = dealt(*preset("classic"));
  tracker.observe(AskedRank{1, 2, kKings});
  tracker.observe(GoFish{2, 1, false});
  tracker.refresh();
  CHECK(tracker.known_to_hold(1, kKings));
  CHECK(tracker.p_any(kKings, 1) == 1.0F);
  CHECK(tracker.p_any(kKings, 2) == 0.0F);
  CHECK(tracker.expected(kKings, 1) >= 1.0F);
  check_probabilities(tracker, 3);
}

TEST_CASE("card tracker: an ask out of turn is a penalty and tells nothing") {
  Rules rules = *preset("classic");
  rules.table_rules = true;
  CardTracker tracker = dealt(rules);
  tracker.observe(AskedRank{1, 2, kKings});
  tracker.observe(Penalty{1, PenaltyKind::kAskedOutOfTurn, kKings});
  tracker.refresh();
  CHECK_FALSE(tracker.known_to_hold(1, kKings));
  CHECK(tracker.p_any(kKings, 1) < 1.0F);
}

TEST_CASE("card tracker: a catch moves the cards, and under give-all the giver has none of the rank left") {
  CardTracker tracker = dealt(*preset("classic"));
  tracker.observe(AskedRank{kMe, 1, kSevens});
  tracker.observe(Gave{1, kMe, cards({Card(kSevens, Suit::Diamonds)})});
  tracker.refresh();
  CHECK(tracker.at(Card(kSevens, Suit::Diamonds), kMe) == 1.0F);
  CHECK(tracker.size(1) == 4);
  CHECK(tracker.size(kMe) == 6);
  CHECK(tracker.p_any(kSevens, 1) == 0.0F);
  // The table now knows we hold sevens.
  CHECK((tracker.shown() >> kSevens & 1U) == 1U);
  // The last seven is in seat 2's hand or the stock.
  const Card last(kSevens, Suit::Spades);
  CHECK(tracker.at(last, 2) + tracker.at(last, CardTracker::kStock) == doctest::Approx(1.0));
  check_probabilities(tracker, 3);
}

TEST_CASE("card tracker: a hidden draw moves a share of the stock to the drawer, and a set laid leaves the game") {
  CardTracker tracker = dealt(*preset("classic"));
  tracker.refresh();
  const float before = tracker.expected(kKings, 1);
  tracker.observe(DrewHidden{1, DrawCause::kFish});
  tracker.refresh();
  CHECK(tracker.size(1) == 6);
  CHECK(tracker.size(CardTracker::kStock) == 36);
  CHECK(tracker.expected(kKings, 1) > before);

  tracker.observe(SetLaid{2, kKings, CardSet::of_rank(kKings), SetOutcome::kScores, false});
  tracker.refresh();
  CHECK(tracker.size(2) == 1);
  for (Seat s = 0; s < 3; ++s) CHECK(tracker.p_any(kKings, s) == 0.0F);
  CHECK(tracker.at(Card(kKings, Suit::Hearts), CardTracker::kStock) == 0.0F);
  check_probabilities(tracker, 3);
}

TEST_CASE("card tracker: elimination places every card when only one place is left for it") {
  // Two players and no stock: every card we do not hold is in the other hand.
  Rules rules = *preset("classic");
  CardTracker tracker(rules, 2, kMe);
  CardSet mine;
  CardSet theirs;
  for (int id = 0; id < kDeckSize; ++id) (id % 2 == 0 ? mine : theirs).add(Card::from_id(id));
  tracker.observe(GameStarted{2, 0, 0, 0});
  tracker.observe(HandDealt{kMe, mine});
  tracker.observe(HandDealtCount{1, theirs.size()});
  tracker.refresh();
  for (Card c : theirs) CHECK(tracker.at(c, 1) == 1.0F);
  // One seat holding the other's rank for sure: the whole hand is that rank
  // only if it holds nothing else.
  CHECK(tracker.p_only(kKings, 1) == 0.0F);
}
