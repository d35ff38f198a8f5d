// The random-game harness: every preset at every player count it allows,
// strict and under table rules, many seeds each. At every step it checks the
// invariants of support.hpp (52 cards each in one place, a valid seat to
// act, legal decisions empty exactly when the game is over, a consistent
// end), that legal decisions are accepted (the one played and, on copies, a
// sample of others), and that a sample of decisions outside the legal set is
// refused with the game unchanged, every member and the last events compared
// (under table rules the irregular moves of docs/RULES.md R28-R31 are
// accepted instead, and must carry their penalty). Every finished game
// replays from its transcript to the same state.
//
// GOFISH_HARNESS_SEEDS overrides the seeds per configuration (default 200;
// 12 in sanitizer builds, which are Debug builds and run 20 to 50 times slower).
#include <doctest/doctest.h>

#include <bit>
#include <cstdlib>
#include <map>
#include <string>
#include <variant>

#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/testing.hpp"
#include "engine/transcript.hpp"
#include "support.hpp"

using namespace gofish::engine;
using namespace gofish::engine::test;

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
constexpr int kDefaultSeeds = 12;
#else
constexpr int kDefaultSeeds = 200;
#endif
constexpr int kMaxDecisions = 4000;  // a safety net; see the "capped" check below

int seeds_per_configuration() {
  if (const char* env = std::getenv("GOFISH_HARNESS_SEEDS")) return std::max(1, std::atoi(env));
  return kDefaultSeeds;
}

struct Stats {
  int games = 0;
  long decisions = 0;
  long illegal_refused = 0;
  long irregular_accepted = 0;
  long other_legal_accepted = 0;
  int capped = 0;
  int shared_wins = 0;
  std::map<std::string, int> end_reasons;
};

int pick(Rng& rng, int n) { return static_cast<int>(rng.below(static_cast<std::uint32_t>(n))); }

// A decision that is probably not legal: either anything at all (seats and
// ranks out of range included), or a legal decision with one part changed.
Decision random_decision(const Game& game, const LegalDecisions& legal, Rng& rng) {
  const int players = game.players();
  const auto any_seat = [&] {
    const int roll = pick(rng, 10);
    if (roll < 8) return pick(rng, players);
    return roll == 8 ? -1 : players + pick(rng, 3);
  };
  const auto any_rank = [&] {
    const int roll = pick(rng, 20);
    if (roll < 18) return pick(rng, kRanks);
    return roll == 18 ? -1 : kRanks + pick(rng, 3);
  };
  const auto any_card = [&] { return Card::from_id(pick(rng, 20) < 19 ? pick(rng, kDeckSize) : kDeckSize + pick(rng, 8)); };
  if (!legal.empty() && pick(rng, 2) == 0) {
    Decision d = legal.nth(pick(rng, legal.count()));
    switch (pick(rng, 3)) {
      case 0: d.seat = any_seat(); break;
      case 1:
        if (d.is_ask()) d.target = any_seat();
        if (d.kind == DecisionKind::kAnswer) d.give = !d.give;
        if (d.kind == DecisionKind::kDeclare) d.rank = any_rank();
        break;
      default:
        if (d.kind == DecisionKind::kAskRank) d.rank = any_rank();
        if (d.kind == DecisionKind::kAskCard) d.card = any_card();
        if (!d.is_ask()) d.seat = any_seat();
        break;
    }
    return d;
  }
  const Seat seat = any_seat();
  switch (pick(rng, 4)) {
    case 0: return Decision{seat, AskRank{any_seat(), any_rank()}};
    case 1: return Decision{seat, AskCard{any_seat(), any_card()}};
    case 2: return Decision{seat, Answer{pick(rng, 2) == 0}};
    default: return Decision{seat, Declare{any_rank()}};
  }
}

bool has_penalty(const std::vector<Event>& events, Seat seat, PenaltyKind kind, Rank rank) {
  for (const Event& e : events) {
    if (const auto* p = std::get_if<Penalty>(&e)) {
      if (p->seat == seat && p->kind == kind && p->rank == rank) return true;
    }
  }
  return false;
}

// Under table rules a decision outside the legal set may be an irregularity
// the table allows, at a price. nullopt when `after` is exactly that.
std::optional<std::string> check_irregular(const Game& before, const Decision& d, const Game& after) {
  const std::vector<Event>& events = after.last_events();
  const auto ask = [&]() -> std::optional<std::pair<Seat, std::pair<Rank, std::optional<Card>>>> {
    if (d.kind == DecisionKind::kAskRank) return std::pair{d.target, std::pair{d.rank, std::optional<Card>{}}};
    if (d.kind == DecisionKind::kAskCard) {
      return std::pair{d.target, std::pair{d.card.rank(), std::optional<Card>{d.card}}};
    }
    return std::nullopt;
  }();
  if (ask) {
    const Rank rank = ask->second.first;
    if (d.seat != before.turn()) {
      // R28: nothing but the penalty happens.
      if (!has_penalty(events, d.seat, PenaltyKind::kAskedOutOfTurn, rank)) return "out-of-turn ask without its penalty";
      if (after.turn() != before.turn() || after.phase() != before.phase() || after.pending_ask() != before.pending_ask()) {
        return "an out-of-turn ask moved the game on";
      }
      for (Seat s = 0; s < before.players(); ++s) {
        if (GameInspector::hand(after, s) != GameInspector::hand(before, s)) return "an out-of-turn ask moved cards";
      }
      if ((after.barred_ranks(d.seat) & (1U << rank)) == 0) return "the rank was not barred";
      return std::nullopt;
    }
    // R29: an ask on your turn for a rank you lack (or a card you hold).
    const CardSet hand = GameInspector::hand(before, d.seat);
    const std::optional<Card> card = ask->second.second;
    const bool illegal = !hand.has_rank(rank) || (card && !before.rules().may_ask_held_card && hand.contains(*card));
    if (!illegal) return "an accepted ask on turn that is neither legal nor an illegal call";
    if (!has_penalty(events, d.seat, PenaltyKind::kIllegalCall, rank)) return "illegal call without its penalty";
    if (!after.misses_next_turn(d.seat)) return "the illegal caller does not miss its next turn";
    if (after.phase() != Phase::kAnswer) return "an illegal call is not answered";
    return std::nullopt;
  }
  if (d.kind == DecisionKind::kAnswer) {
    const auto pending = before.pending_ask();
    if (d.give || !pending || pending->target != d.seat) return "an accepted answer that is not a false go fish";
    if (!has_penalty(events, d.seat, PenaltyKind::kFalseGoFish, pending->rank)) return "false go fish without its penalty";
    bool gave = false;
    for (const Event& e : events) gave = gave || std::holds_alternative<Gave>(e);
    if (!gave) return "after a false go fish the cards were not handed over";
    return std::nullopt;
  }
  return "an accepted declaration outside the legal set";
}

// Who has the turn after an ask in strict mode, by RULES.md: a catch keeps
// it; a miss keeps it after a lucky draw where that asks again, or a set
// completed by the fished card where that plays again; otherwise it goes to
// the seat asked or to the asker's left, when that seat can simply play (in,
// holding cards, no missed turn due). The other cases (skips) are left to
// the scenario fixtures.
std::optional<std::string> check_turn_after_ask(const Game& before, const Decision& d, const Game& after) {
  if (after.over() || before.rules().table_rules) return std::nullopt;
  const Rules& rules = before.rules();
  Seat target = 0;
  Rank rank = 0;
  std::optional<Card> card;
  if (!d.is_ask()) return std::nullopt;
  target = d.target;
  rank = d.asked_rank();
  if (d.kind == DecisionKind::kAskCard) card = d.card;
  bool caught = false;
  std::optional<Card> fished;
  bool completed = false;
  for (const Event& e : after.last_events()) {
    if (const auto* g = std::get_if<Gave>(&e)) caught = caught || (g->from == target && g->to == d.seat);
    if (const auto* drew = std::get_if<Drew>(&e)) {
      if (drew->seat == d.seat && drew->cause == DrawCause::kFish) fished = drew->card;
    }
    if (const auto* laid = std::get_if<SetLaid>(&e)) completed = completed || (fished && laid->seat == d.seat && laid->rank == fished->rank());
  }
  const bool asker_plays = after.status(d.seat) == SeatStatus::kIn;
  if (caught) {
    if (asker_plays && after.turn() != d.seat) return "a catch did not keep the turn";
    return std::nullopt;
  }
  const bool lucky = fished && (card ? *fished == *card : fished->rank() == rank);
  if ((lucky && rules.lucky_draw == LuckyDrawRule::kAskAgain) || (completed && rules.play_again_after_set)) {
    if (asker_plays && after.turn() != d.seat) return "a lucky draw or a completed set did not keep the turn";
    return std::nullopt;
  }
  const Seat next = rules.after_miss == AfterMiss::kToAsked ? target : (d.seat + 1) % before.players();
  if (after.status(next) == SeatStatus::kIn && after.hand_size(next) > 0 && !before.misses_next_turn(next) &&
      after.turn() != next) {
    return "after a miss the turn went to seat " + std::to_string(after.turn()) + ", not seat " + std::to_string(next);
  }
  return std::nullopt;
}

void play_one(const Rules& rules, int players, std::uint64_t seed, Stats& stats) {
  Rng rng(seed);
  Game game = start_random(rules, players, rng);
  Ledger ledger;
  ledger.observe(game.last_events());
  const std::string where =
      rules.preset + (rules.table_rules ? " (table rules)" : "") + ", " + std::to_string(players) + " players, seed " +
      std::to_string(seed);
  int steps = 0;
  for (;; ++steps) {
    INFO(where << ", step " << steps);
    if (auto broken = ledger.check(game)) {
      FAIL(*broken << "\n" << GameInspector::describe(game));
    }
    if (game.over() || steps >= kMaxDecisions) break;
    const Seat actor = game.to_act();
    const LegalDecisions legal = game.legal(actor);
    REQUIRE_FALSE(legal.empty());
    const Game before = game;

    // A sample of other decisions: refused and nothing changed, or (table
    // rules) an irregularity with its penalty.
    bool kept_irregular = false;
    for (int i = 0; i < 3 && !kept_irregular; ++i) {
      const Decision d = random_decision(game, legal, rng);
      if (d.seat == actor && legal.contains(d)) continue;
      const Judgement judged = game.judge(d);
      CHECK_FALSE(judged.proper());  // not listed, so not proper
      const auto refusal = game.apply(judged);
      CHECK(refusal.has_value() == (judged.verdict() == Verdict::kRefused));
      if (refusal) {
        ++stats.illegal_refused;
        CHECK_FALSE(refusal->message.empty());
        CHECK(refusal_code_name(refusal->code) != "unknown");
        if (!GameInspector::same_state(before, game)) {
          FAIL("the refused " << to_string(d) << " changed the game:\nbefore:\n"
                              << GameInspector::describe(before) << "\nafter:\n" << GameInspector::describe(game));
        }
        continue;
      }
      INFO("accepted outside the legal set: " << to_string(d));
      REQUIRE(rules.table_rules);
      const auto wrong = check_irregular(before, d, game);
      if (wrong) FAIL(*wrong);
      ++stats.irregular_accepted;
      if (pick(rng, 10) == 0) {
        kept_irregular = true;  // play on from the irregularity now and then
        ledger.observe(game.last_events());
        ++stats.decisions;
      } else {
        game = before;
      }
    }
    if (kept_irregular) continue;

    // Every legal decision is accepted: a sample on copies, then one for real.
    for (int i = 0; i < 2 && legal.count() > 1; ++i) {
      const Decision other = legal.nth(pick(rng, legal.count()));
      Game copy = before;
      const auto refusal = copy.apply(other);
      if (refusal) FAIL("the legal " << to_string(other) << " was refused: " << refusal->message);
      Ledger copy_ledger = ledger;
      copy_ledger.observe(copy.last_events());
      if (auto broken = copy_ledger.check(copy)) FAIL("after the legal " << to_string(other) << ": " << *broken);
      ++stats.other_legal_accepted;
    }
    const Decision d = legal.nth(pick(rng, legal.count()));
    const Judgement judged = game.judge(d);
    CHECK(judged.proper());
    const auto refusal = game.apply(judged);
    if (refusal) FAIL("the legal " << to_string(d) << " was refused: " << refusal->message);
    REQUIRE_FALSE(game.last_events().empty());
    REQUIRE(game.decisions().back() == d);
    if (const auto wrong = check_turn_after_ask(before, d, game)) FAIL(to_string(d) << ": " << *wrong);
    if (!rules.table_rules) {
      for (const Event& e : game.last_events()) {
        CHECK_FALSE(std::holds_alternative<Penalty>(e));
        CHECK_FALSE(std::holds_alternative<Answered>(e));
      }
    }
    ledger.observe(game.last_events());
    ++stats.decisions;
  }
  ++stats.games;
  if (!game.over()) {
    ++stats.capped;
    return;
  }
  ++stats.end_reasons[std::string(to_string(*game.end_reason()))];
  stats.shared_wins += std::popcount(game.winners()) > 1 ? 1 : 0;

  // The transcript replays to the same result, and to the same game.
  const Transcript transcript = make_transcript(game);
  INFO(where);
  const auto mismatch = replay_check(transcript);
  if (mismatch) FAIL("replay_check: " << *mismatch);
  auto replayed = replay(transcript);
  REQUIRE(std::holds_alternative<Game>(replayed));
  if (!GameInspector::same_state(std::get<Game>(replayed), game)) FAIL("the replayed game differs from the original");
}

void run_preset(std::string_view name) {
  const int seeds = seeds_per_configuration();
  for (bool table_rules : {false, true}) {
    const Rules rules = rules_for(name, table_rules);
    Stats stats;
    for (int players = rules.min_players; players <= rules.max_players; ++players) {
      for (int seed = 0; seed < seeds; ++seed) {
        play_one(rules, players, static_cast<std::uint64_t>(seed) * 1000003ULL + static_cast<std::uint64_t>(players), stats);
      }
    }
    std::string reasons;
    for (const auto& [reason, count] : stats.end_reasons) reasons += " " + reason + "=" + std::to_string(count);
    const std::string label = std::string(name) + (table_rules ? " (table rules)" : "");
    MESSAGE(label << ": " << stats.games << " games, " << stats.decisions
                 << " decisions, " << stats.illegal_refused << " refusals checked, " << stats.other_legal_accepted
                 << " other legal decisions checked, " << stats.irregular_accepted << " irregular moves accepted, "
                 << stats.shared_wins << " shared wins; ends:" << reasons);
    // A game that never ends would hide behind the cap: none may reach it.
    CHECK(stats.capped == 0);
    CHECK(stats.illegal_refused > stats.games);
    if (table_rules) CHECK(stats.irregular_accepted > stats.games / 2);
  }
}

}  // namespace

TEST_CASE("random games: classic") { run_preset("classic"); }
TEST_CASE("random games: specific-card") { run_preset("specific-card"); }
TEST_CASE("random games: keep-playing") { run_preset("keep-playing"); }
TEST_CASE("random games: bicycle") { run_preset("bicycle"); }
TEST_CASE("random games: authors") { run_preset("authors"); }
TEST_CASE("random games: pairs") { run_preset("pairs"); }

// replay_check must be able to fail.
TEST_CASE("a transcript with a different result does not replay") {
  Rng rng(5);
  Game game = start_random(rules_for("classic"), 3, rng);
  while (!game.over()) REQUIRE_FALSE(game.apply(random_legal(game, rng)));
  Transcript good = make_transcript(game);
  CHECK_FALSE(replay_check(good));
  Transcript other_winner = good;
  other_winner.winners = {(good.winners.front() + 1) % 3};
  CHECK(replay_check(other_winner));
  Transcript cut_short = good;
  cut_short.actions.pop_back();
  CHECK(replay_check(cut_short));
  Transcript other_deck = good;
  std::swap(other_deck.deck[0], other_deck.deck[51]);
  CHECK(replay_check(other_deck));
}
