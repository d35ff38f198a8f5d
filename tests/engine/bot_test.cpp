// Bots and the match runner: legal decisions everywhere, no hidden
// information, replayable games, and the memory each level claims to have.
// Win rates are not tested here (they are statistics, not pass/fail facts);
// docs/BOTS.md gives them with the gofish-sim command that measures them.
#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "engine/bot.hpp"
#include "engine/match.hpp"
#include "engine/setup.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"

using namespace gofish::engine;

namespace {

constexpr BotLevel kLevels[] = {BotLevel::kEasy, BotLevel::kMedium, BotLevel::kHard};

// Wraps a bot and checks, at every call, what the runner promises a bot:
// only its own private events, a view of its own seat, a non-empty legal set;
// and what the bot promises back: a member of that set.
class Checked final : public Bot {
 public:
  Checked(std::unique_ptr<Bot> inner, Seat seat) : inner_(std::move(inner)), seat_(seat) {}

  void observe(const Event& event) override {
    if (const auto* dealt = std::get_if<HandDealt>(&event)) {
      if (dealt->seat != seat_) failures_.push_back("saw the hand dealt to seat " + std::to_string(dealt->seat));
    }
    if (const auto* drew = std::get_if<Drew>(&event)) {
      if (drew->seat != seat_) failures_.push_back("saw the card drawn by seat " + std::to_string(drew->seat));
    }
    ++events_;
    inner_->observe(event);
  }

  Decision decide(const View& view, Rng& rng) override {
    if (view.viewer != Viewer::of(seat_)) failures_.push_back("was given another viewer's view");
    if (view.legal.empty()) failures_.push_back("was asked to decide with nothing legal");
    const Decision decision = inner_->decide(view, rng);
    if (!view.legal.contains(decision)) failures_.push_back("chose an illegal decision: " + to_string(decision));
    ++decisions_;
    return decision;
  }

  const std::vector<std::string>& failures() const { return failures_; }
  int events() const { return events_; }

 private:
  std::unique_ptr<Bot> inner_;
  Seat seat_;
  std::vector<std::string> failures_;
  int events_ = 0;
  int decisions_ = 0;
};

struct Played {
  Game game;
  std::vector<std::unique_ptr<Checked>> bots;
};

// One game with the line-up `levels(seat)`, every bot wrapped in Checked.
template <class LevelOf>
Played play(const Rules& rules, int players, std::uint64_t seed, LevelOf level_of, MatchOptions options = {}) {
  Rng rng(seed);
  const DealSetup setup = prepare_deal(rules, players, rng);
  std::vector<std::unique_ptr<Checked>> bots;
  std::vector<Bot*> raw;
  for (Seat s = 0; s < players; ++s) {
    bots.push_back(std::make_unique<Checked>(make_bot(level_of(s), rules, players, s), s));
    raw.push_back(bots.back().get());
  }
  Game game = play_match(rules, players, setup, raw, rng, options);
  return Played{std::move(game), std::move(bots)};
}

// The table as a bot at `seat` sees it: its view and its event stream.
std::vector<std::string> seen_events(const std::vector<Event>& events, Seat seat) {
  std::vector<std::string> out;
  for (const Event& e : events) out.push_back(to_string(event_for(e, Viewer::of(seat))));
  return out;
}

}  // namespace

// A bot's only inputs are a View and events: it is never handed a Game.
static_assert(std::is_same_v<decltype(&Bot::decide), Decision (Bot::*)(const View&, Rng&)>);
static_assert(std::is_same_v<decltype(&Bot::observe), void (Bot::*)(const Event&)>);
static_assert(std::is_same_v<decltype(&make_bot), std::unique_ptr<Bot> (*)(BotLevel, const Rules&, int, Seat)>);

TEST_CASE("bot levels are spelled easy, medium and hard") {
  for (BotLevel level : kLevels) CHECK(parse_bot_level(to_string(level)) == level);
  CHECK_FALSE(parse_bot_level("expert"));
  CHECK_FALSE(parse_bot_level(""));
}

TEST_CASE("every level makes only legal decisions in every preset and seat count, strict and table rules") {
  int games = 0;
  long decisions = 0;
  for (auto name : preset_names()) {
    for (bool table : {false, true}) {
      Rules rules = *preset(name);
      rules.table_rules = table;
      for (int players = rules.min_players; players <= rules.max_players; ++players) {
        for (std::uint64_t seed = 1; seed <= 12; ++seed) {
          // Mixed line-ups, so every level sits in every seat across the seeds.
          const auto level_of = [&](Seat s) { return kLevels[(static_cast<std::uint64_t>(s) + seed) % 3]; };
          const std::string preset_name(name);
          CAPTURE(preset_name);
          CAPTURE(table);
          CAPTURE(players);
          CAPTURE(seed);
          std::optional<Played> played;
          REQUIRE_NOTHROW(played.emplace(play(rules, players, seed, level_of)));
          CHECK(played->game.over());
          for (const auto& bot : played->bots) {
            for (const auto& failure : bot->failures()) FAIL_CHECK(failure);
            CHECK(bot->events() > 0);
          }
          CHECK_FALSE(replay_check(make_transcript(played->game)));
          ++games;
          decisions += static_cast<long>(played->game.decisions().size());
        }
      }
    }
  }
  CHECK(games > 500);
  CHECK(decisions > games * 5);
}

TEST_CASE("a line-up of one level only also finishes every preset") {
  for (auto name : preset_names()) {
    const Rules rules = *preset(name);
    for (BotLevel level : kLevels) {
      for (std::uint64_t seed = 100; seed < 110; ++seed) {
        const std::string preset_name(name);
        const std::string level_name(to_string(level));
        CAPTURE(preset_name);
        CAPTURE(level_name);
        CAPTURE(seed);
        const int players = std::min(4, rules.max_players);
        std::optional<Played> played;
        REQUIRE_NOTHROW(played.emplace(play(rules, players, seed, [&](Seat) { return level; })));
        for (const auto& bot : played->bots) {
          for (const auto& failure : bot->failures()) FAIL_CHECK(failure);
        }
        CHECK_FALSE(replay_check(make_transcript(played->game)));
      }
    }
  }
}

TEST_CASE("the match runner is a function of the seed, with or without building every view") {
  const Rules rules = *preset("classic");
  const auto level_of = [](Seat s) { return kLevels[s % 3]; };
  MatchOptions server;
  server.build_all_views = true;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Played a = play(rules, 4, seed, level_of);
    const Played b = play(rules, 4, seed, level_of, server);
    CHECK(a.game.decisions() == b.game.decisions());
    CHECK(make_transcript(a.game) == make_transcript(b.game));
  }
}

TEST_CASE("the match runner refuses a bot whose decision the game refuses") {
  // Always asks seat 0 for twos: refused as soon as that is not legal.
  class Stubborn final : public Bot {
   public:
    explicit Stubborn(Seat seat) : seat_(seat) {}
    void observe(const Event&) override {}
    Decision decide(const View&, Rng&) override { return Decision{seat_, AskRank{seat_, 0}}; }

   private:
    Seat seat_;
  };
  const Rules rules = *preset("classic");
  Rng rng(5);
  const DealSetup setup = prepare_deal(rules, 3, rng);
  Stubborn s0(0), s1(1), s2(2);
  std::vector<Bot*> bots{&s0, &s1, &s2};
  CHECK_THROWS_AS(play_match(rules, 3, setup, bots, rng), std::logic_error);
  try {
    play_match(rules, 3, setup, bots, rng);
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    CHECK(what.find("refused") != std::string::npos);
    CHECK(what.find("asked_self") != std::string::npos);
  }
  std::vector<Bot*> two{&s0, &s1};
  CHECK_THROWS_AS(play_match(rules, 3, setup, two, rng), std::invalid_argument);
  CHECK_THROWS_AS(play_match(rules, 9, setup, bots, rng), std::invalid_argument);
}

// Two games whose decks differ only in cards seat 0 cannot see: a card in
// another seat's hand swapped with the bottom card of the stock. As long as
// seat 0's view and event stream are the same in both games, a bot at seat 0
// must decide the same way in both, at every level.
TEST_CASE("a bot decides the same when only cards it cannot see differ") {
  const Rules rules = *preset("classic");
  constexpr int kPlayers = 4;
  constexpr Seat kMe = 0;
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    Rng deal_rng(seed);
    const DealSetup setup = prepare_deal(rules, kPlayers, deal_rng);
    // The first card dealt to the seat across the table from seat 0.
    const Seat other = 2;
    const int position = (other - setup.dealer - 1 + kPlayers) % kPlayers;
    Deck swapped = setup.deck;
    std::swap(swapped[static_cast<std::size_t>(position)], swapped[kDeckSize - 1]);
    auto a = std::get<Game>(Game::start(rules, kPlayers, setup.deck, setup.dealer, setup.first));
    auto b = std::get<Game>(Game::start(rules, kPlayers, swapped, setup.dealer, setup.first));

    // Bots play game a; their decisions are replayed in game b.
    std::vector<std::unique_ptr<Bot>> players;
    for (Seat s = 0; s < kPlayers; ++s) players.push_back(make_bot(kLevels[s % 3], rules, kPlayers, s));
    std::vector<std::unique_ptr<Bot>> in_a, in_b;  // one bot of each level at seat 0, per game
    for (BotLevel level : kLevels) {
      in_a.push_back(make_bot(level, rules, kPlayers, kMe));
      in_b.push_back(make_bot(level, rules, kPlayers, kMe));
    }
    const auto feed_all = [&](const Game& game, std::vector<std::unique_ptr<Bot>>& watchers, bool table) {
      for (const Event& e : game.last_events()) {
        for (auto& w : watchers) w->observe(event_for(e, Viewer::of(kMe)));
        if (table) {
          for (Seat s = 0; s < kPlayers; ++s) players[s]->observe(event_for(e, Viewer::of(s)));
        }
      }
    };
    if (seen_events(a.last_events(), kMe) != seen_events(b.last_events(), kMe)) continue;  // a set from the deal
    feed_all(a, in_a, true);
    feed_all(b, in_b, false);
    Rng play_rng(seed * 7919);
    while (!a.over() && !b.over()) {
      const Seat seat = a.to_act();
      if (seat == kMe) {
        const View view_a = view_of(a, Viewer::of(kMe));
        const View view_b = view_of(b, Viewer::of(kMe));
        REQUIRE(view_a == view_b);  // the same stream so far must give the same view
        for (std::size_t i = 0; i < in_a.size(); ++i) {
          Rng ra(seed + i), rb(seed + i);
          CHECK(in_a[i]->decide(view_a, ra) == in_b[i]->decide(view_b, rb));
          ++compared;
        }
      }
      const Decision d = players[seat]->decide(view_of(a, Viewer::of(seat)), play_rng);
      REQUIRE_FALSE(a.apply(d));
      if (b.apply(d)) break;  // the swapped card changed what is legal: the games part
      if (seen_events(a.last_events(), kMe) != seen_events(b.last_events(), kMe)) break;  // seat 0 can tell now
      feed_all(a, in_a, true);
      feed_all(b, in_b, false);
    }
  }
  CHECK(compared > 100);
}

// ------------------------------------------------------------------ memory

namespace {

// A view for seat 0 of a 3-seat rank game, its turn, holding `hand`.
View rank_view(CardSet hand, std::array<int, 3> sizes, int stock) {
  View view;
  view.viewer = Viewer::of(0);
  view.players = 3;
  view.hand = hand;
  for (Seat s = 0; s < 3; ++s) view.seats[s].hand_size = sizes[s];
  view.stock_size = stock;
  view.turn = 0;
  view.to_act = 0;
  view.legal.seat = 0;
  view.legal.ask_for = AskFor::kRank;
  view.legal.targets = 0b110;
  view.legal.ranks = hand.ranks();
  return view;
}

CardSet cards(std::initializer_list<const char*> names) {
  CardSet out;
  for (const char* name : names) out.add(*parse_card(name));
  return out;
}

// The start of a 3-seat classic game as seat 0 sees it.
std::vector<Event> start_events(CardSet hand) {
  return {GameStarted{3, 2, 0, 37}, HandDealt{0, hand}, HandDealtCount{1, 5}, HandDealtCount{2, 5}};
}

}  // namespace

TEST_CASE("medium and hard ask a player who showed the rank they hold") {
  const Rules rules = *preset("classic");
  const CardSet hand = cards({"7C", "9D", "KS", "2H", "5C"});
  for (BotLevel level : {BotLevel::kMedium, BotLevel::kHard}) {
    const std::string level_name(to_string(level));
    CAPTURE(level_name);
    auto bot = make_bot(level, rules, 3, 0);
    for (const Event& e : start_events(hand)) bot->observe(e);
    // Seat 2 asks seat 1 for sevens and misses: seat 2 holds a seven.
    bot->observe(AskedRank{2, 1, 5});
    bot->observe(GoFish{1, 2, false});
    bot->observe(DrewHidden{2, DrawCause::kFish});
    bot->observe(TurnPassed{2, 1});
    bot->observe(AskedRank{1, 0, 12});  // seat 1 asks us for aces: we have none
    bot->observe(GoFish{0, 1, false});
    bot->observe(DrewHidden{1, DrawCause::kFish});
    bot->observe(TurnPassed{1, 0});
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      Rng rng(seed);
      CHECK(bot->decide(rank_view(hand, {5, 6, 6}, 35), rng) == Decision{0, AskRank{2, 5}});
    }
  }
}

TEST_CASE("medium and hard ask for cards they saw handed over") {
  const Rules rules = *preset("classic");
  const CardSet hand = cards({"7C", "9D", "KS", "2H", "5C"});
  for (BotLevel level : {BotLevel::kMedium, BotLevel::kHard}) {
    const std::string level_name(to_string(level));
    CAPTURE(level_name);
    auto bot = make_bot(level, rules, 3, 0);
    for (const Event& e : start_events(hand)) bot->observe(e);
    // Seat 1 takes seat 2's nines, then misses on kings and the turn passes.
    bot->observe(AskedRank{1, 2, 7});
    bot->observe(Gave{2, 1, cards({"9H", "9S"})});
    bot->observe(AskedRank{1, 2, 11});
    bot->observe(GoFish{2, 1, false});
    bot->observe(DrewHidden{1, DrawCause::kFish});
    bot->observe(TurnPassed{1, 2});
    bot->observe(AskedRank{2, 1, 12});
    bot->observe(GoFish{1, 2, false});
    bot->observe(DrewHidden{2, DrawCause::kFish});
    bot->observe(TurnPassed{2, 0});
    Rng rng(3);
    const Decision d = bot->decide(rank_view(hand, {5, 8, 4}, 35), rng);
    // Nines from seat 1 (seen handed over) and kings from seat 1 (it asked for
    // them) are both sure catches; either is right, nothing else is.
    const bool nines = d == Decision{0, AskRank{1, 7}};
    const bool kings = d == Decision{0, AskRank{1, 11}};
    CHECK((nines || kings));
  }
}

TEST_CASE("hard deduces a card's place by elimination in authors") {
  // Authors, 3 seats, the whole pack dealt: the dealer's left (seat 1) gets
  // 18 cards, seats 2 and 0 get 17. We hold three queens. Seat 2 asks seat 1
  // for the queen of clubs, so seat 2 holds a queen; the only queen we lack
  // is the queen of spades, so seat 2 has it, though nobody has shown it.
  // Without that deduction seat 1, with the larger hand, looks likelier.
  const Rules rules = *preset("authors");
  CardSet hand;
  for (int id = 0; id < 14; ++id) hand.add(Card::from_id(id));
  hand.add(cards({"QC", "QD", "QH"}));
  REQUIRE(hand.size() == 17);
  auto bot = make_bot(BotLevel::kHard, rules, 3, 0);
  bot->observe(GameStarted{3, 0, 1, 0});
  bot->observe(HandDealt{0, hand});
  bot->observe(HandDealtCount{1, 18});
  bot->observe(HandDealtCount{2, 17});
  bot->observe(AskedCard{1, 2, *parse_card("AS")});
  bot->observe(GoFish{2, 1, true});
  bot->observe(TurnPassed{1, 2});
  bot->observe(AskedCard{2, 1, *parse_card("QC")});
  bot->observe(GoFish{1, 2, true});
  bot->observe(TurnPassed{2, 0});
  View view;
  view.viewer = Viewer::of(0);
  view.players = 3;
  view.hand = hand;
  view.seats[0].hand_size = 17;
  view.seats[1].hand_size = 18;
  view.seats[2].hand_size = 17;
  view.legal.seat = 0;
  view.legal.ask_for = AskFor::kCard;
  view.legal.targets = 0b110;
  for (Rank r = 0; r < kRanks; ++r) {
    if (hand.has_rank(r)) view.legal.cards.add(CardSet::of_rank(r));
  }
  view.legal.cards.remove(hand);
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed);
    CHECK(bot->decide(view, rng) == Decision{0, AskCard{2, *parse_card("QS")}});
  }
}
