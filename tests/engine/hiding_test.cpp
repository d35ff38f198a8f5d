// Hiding as a property (README, "Hiding happens in one place"). At a random
// point of a random game, for a random viewer (a seat or a spectator), the
// cards that viewer has not seen are re-dealt in every way the test can find
// that is consistent with what is public; the viewer's view (view_of) and
// event stream (event_for over every event so far) must not change.
//
// "Consistent with what is public" is defined here, apart from the hiding
// code: an alternative deck is kept only when the same decisions are all
// accepted and, after the start and after every decision, the public facts
// match (support.hpp: public_fact of every event, public_state of the game:
// hand sizes, stock size, whose turn, phase, sets by seat and rank, the cards
// handed over, lucky draws shown, go-fish answers, penalties, the end) and so
// does the viewer's own hand. Alternatives come from swapping the cards of
// deck positions the viewer never saw (dealt or drawn to someone else, or
// still in the stock), mostly cards of the same rank, which keeps rank-based
// play intact. The test counts the kept alternatives that change what some
// other seat holds or has drawn, and requires many per preset.
//
// A negative control runs the same property against a deliberately leaky
// event_for (a drawn card passed on unredacted) and leaky views (another
// seat's hand; under table rules another seat's improper decisions), and
// requires the property to catch each.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/testing.hpp"
#include "engine/view.hpp"
#include "support.hpp"

using namespace gofish::engine;
using namespace gofish::engine::test;

namespace {

using EventFilter = std::function<Event(const Event&, Viewer)>;
using ViewFn = std::function<View(const Game&, Viewer)>;

int pick(Rng& rng, int n) { return static_cast<int>(rng.below(static_cast<std::uint32_t>(n))); }

struct Played {
  Rules rules;
  int players = 0;
  Deck deck{};
  Seat dealer = 0;
  Seat first = 0;
  std::vector<Decision> decisions;  // the prefix played up to the chosen point
};

// What everyone knows after one step (the start or a decision), plus what
// the viewer holds.
std::vector<std::string> step_facts(const Game& game, const std::vector<Event>& events, Viewer viewer) {
  std::vector<std::string> facts;
  for (const Event& e : events) facts.push_back(public_fact(e));
  facts.push_back(public_state(game));
  if (viewer.seat) facts.push_back("own hand " + to_string(GameInspector::hand(game, *viewer.seat)));
  return facts;
}

std::vector<std::string> stream_of(const std::vector<std::vector<Event>>& steps, Viewer viewer, const EventFilter& filter) {
  std::vector<std::string> out;
  for (const auto& events : steps) {
    for (const Event& e : events) out.push_back(full_text(filter(e, viewer)));
  }
  return out;
}

// A whole replay of `played` from `deck`: the events of every step and the
// game after each step. nullopt when a decision is refused.
struct Replay {
  std::vector<std::vector<Event>> steps;
  std::vector<std::vector<std::string>> facts;
  std::vector<Game> games;  // after each step
};

std::optional<Replay> replay_on(const Played& p, const Deck& deck, Viewer viewer,
                                const std::vector<std::vector<std::string>>* must_match) {
  auto started = Game::start(p.rules, p.players, deck, p.dealer, p.first);
  if (!std::holds_alternative<Game>(started)) return std::nullopt;
  Game game = std::get<Game>(std::move(started));
  Replay r;
  const auto record = [&]() -> bool {
    r.steps.push_back(game.last_events());
    r.facts.push_back(step_facts(game, game.last_events(), viewer));
    r.games.push_back(game);
    return must_match == nullptr || (*must_match)[r.facts.size() - 1] == r.facts.back();
  };
  if (!record()) return std::nullopt;
  for (const Decision& d : p.decisions) {
    if (game.apply(d)) return std::nullopt;
    if (!record()) return std::nullopt;
  }
  return r;
}

struct Tally {
  int samples = 0;
  int kept = 0;           // alternatives consistent with the public record
  int kept_nontrivial = 0;  // ... that change another seat's cards or draws, not just the unseen stock
  int rejected = 0;
  int property_failures = 0;  // kept alternatives where the viewer's view or stream changed
  std::string first_failure;
};

// Runs the property once: one game, one point, one viewer, `attempts`
// alternative decks.
void sample(const Rules& rules, int players, std::uint64_t seed, int attempts, const EventFilter& filter,
            const ViewFn& view_fn, Tally& tally) {
  Rng rng(seed);
  Game full = start_random(rules, players, rng);
  Played p{rules, players, GameInspector::deck(full), full.dealer(), full.first(), {}};
  std::vector<Decision> all;
  while (!full.over() && all.size() < 3000) {
    const Decision d = random_legal(full, rng);
    REQUIRE_FALSE(full.apply(d));
    all.push_back(d);
  }
  // A random point, anywhere from the deal to the end.
  const auto point = static_cast<std::size_t>(pick(rng, static_cast<int>(all.size()) + 1));
  p.decisions.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(point));
  const int who = pick(rng, players + 1);
  const Viewer viewer = who == players ? Viewer::spectator() : Viewer::of(who);

  const auto original = replay_on(p, p.deck, viewer, nullptr);
  REQUIRE(original);
  const Game& now = original->games.back();

  // Deck positions the viewer saw: its dealt cards and its draws. Positions
  // whose card was shown to everyone (or named in a card ask) are left
  // alone: moving them would only be rejected.
  const int dealt = kDeckSize - std::get<GameStarted>(original->steps.front().front()).stock;
  std::vector<bool> movable(kDeckSize, true);
  for (int i = 0; i < dealt; ++i) {
    if (viewer.seat && (p.dealer + 1 + i) % players == *viewer.seat) movable[static_cast<std::size_t>(i)] = false;
  }
  CardSet shown;
  int next_draw = dealt;
  for (const auto& events : original->steps) {
    for (const Event& e : events) {
      if (const auto* drew = std::get_if<Drew>(&e)) {
        if (viewer.seat && drew->seat == *viewer.seat) movable[static_cast<std::size_t>(next_draw)] = false;
        ++next_draw;
      } else if (const auto* gave = std::get_if<Gave>(&e)) {
        shown.add(gave->cards);
      } else if (const auto* lucky = std::get_if<LuckyDraw>(&e)) {
        shown.add(lucky->card);
      } else if (const auto* laid = std::get_if<SetLaid>(&e)) {
        shown.add(laid->cards);
      } else if (const auto* asked = std::get_if<AskedCard>(&e)) {
        shown.add(asked->card);
      } else if (const auto* over = std::get_if<GameOver>(&e)) {
        for (CardSet hand : over->hands) shown.add(hand);
      }
    }
  }
  const int drawn_end = GameInspector::next_card(now);
  REQUIRE(next_draw == drawn_end);
  std::vector<int> hidden;
  for (int i = 0; i < kDeckSize; ++i) {
    if (movable[static_cast<std::size_t>(i)] && !shown.contains(p.deck[static_cast<std::size_t>(i)])) hidden.push_back(i);
  }
  ++tally.samples;
  if (hidden.size() < 2) return;

  const std::vector<std::string> original_stream = stream_of(original->steps, viewer, filter);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    Deck alt = p.deck;
    const int swaps = 1 + pick(rng, 3);
    for (int s = 0; s < swaps; ++s) {
      const int a = hidden[static_cast<std::size_t>(pick(rng, static_cast<int>(hidden.size())))];
      std::vector<int> partners;
      if (pick(rng, 10) < 7) {
        for (int b : hidden) {
          if (b != a && alt[static_cast<std::size_t>(b)].rank() == alt[static_cast<std::size_t>(a)].rank()) partners.push_back(b);
        }
      }
      if (partners.empty()) {
        for (int b : hidden) {
          if (b != a) partners.push_back(b);
        }
      }
      std::swap(alt[static_cast<std::size_t>(a)], alt[static_cast<std::size_t>(partners[static_cast<std::size_t>(pick(rng, static_cast<int>(partners.size())))])]);
    }
    if (alt == p.deck) continue;
    const auto other = replay_on(p, alt, viewer, &original->facts);
    if (!other) {
      ++tally.rejected;
      continue;
    }
    ++tally.kept;
    bool nontrivial = false;
    for (int i = 0; i < drawn_end; ++i) nontrivial = nontrivial || alt[static_cast<std::size_t>(i)] != p.deck[static_cast<std::size_t>(i)];
    tally.kept_nontrivial += nontrivial ? 1 : 0;

    // The property: nothing the viewer is given may differ.
    std::string failure;
    for (std::size_t step = 0; step < other->games.size() && failure.empty(); ++step) {
      if (!(view_fn(other->games[step], viewer) == view_fn(original->games[step], viewer))) {
        failure = "the view differs after step " + std::to_string(step);
      }
    }
    if (failure.empty() && stream_of(other->steps, viewer, filter) != original_stream) failure = "the event stream differs";
    if (!failure.empty()) {
      if (tally.property_failures++ == 0) {
        tally.first_failure = rules.preset + ", " + std::to_string(players) + " players, seed " + std::to_string(seed) +
                              ", viewer " + (viewer.seat ? "seat " + std::to_string(*viewer.seat) : "spectator") +
                              ", after " + std::to_string(point) + " decisions: " + failure;
      }
    }
  }
}

Tally run_property(std::string_view name, bool table_rules, int samples, int attempts, const EventFilter& filter,
                   const ViewFn& view_fn, std::uint64_t salt) {
  const Rules rules = rules_for(name, table_rules);
  Tally tally;
  Rng pick_players(salt);
  for (int i = 0; i < samples; ++i) {
    const int players = rules.min_players + pick(pick_players, rules.max_players - rules.min_players + 1);
    sample(rules, players, salt * 7777 + static_cast<std::uint64_t>(i), attempts, filter, view_fn, tally);
  }
  return tally;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
constexpr int kSamples = 8;
#else
constexpr int kSamples = 40;
#endif
constexpr int kAttempts = 24;

const EventFilter kEngineFilter = [](const Event& e, Viewer v) { return event_for(e, v); };
const ViewFn kEngineView = [](const Game& g, Viewer v) { return view_of(g, v); };

void check_preset(std::string_view name) {
  for (bool table_rules : {false, true}) {
    const Tally t = run_property(name, table_rules, kSamples, kAttempts, kEngineFilter, kEngineView,
                                 table_rules ? 2 : 1);
    const std::string label = std::string(name) + (table_rules ? " (table rules)" : "");
    MESSAGE(label << ": " << t.samples << " game points, " << t.kept << " alternative deals kept (" << t.kept_nontrivial
                  << " changing other hands or draws), " << t.rejected << " rejected as publicly different");
    if (t.property_failures > 0) FAIL(label << ": " << t.property_failures << " leaks; first: " << t.first_failure);
    // The generator must find real alternatives, or the property says nothing.
    CHECK(t.kept_nontrivial >= kSamples * 2);
  }
}

}  // namespace

TEST_CASE("hiding: classic") { check_preset("classic"); }
TEST_CASE("hiding: specific-card") { check_preset("specific-card"); }
TEST_CASE("hiding: keep-playing") { check_preset("keep-playing"); }
TEST_CASE("hiding: bicycle") { check_preset("bicycle"); }
TEST_CASE("hiding: authors") { check_preset("authors"); }
TEST_CASE("hiding: pairs") { check_preset("pairs"); }

// The property must be able to fail: a test-local event_for that passes a
// drawn card on to everyone, and a view that shows the next seat's hand.
TEST_CASE("hiding: the property catches a leak") {
  const EventFilter leaky_drew = [](const Event& e, Viewer v) {
    if (std::holds_alternative<Drew>(e)) return e;
    return event_for(e, v);
  };
  const ViewFn leaky_view = [](const Game& g, Viewer v) {
    View view = view_of(g, v);
    view.hand = GameInspector::hand(g, v.seat ? (*v.seat + 1) % g.players() : 0);
    return view;
  };
  for (const char* name : {"classic", "bicycle", "pairs"}) {
    const Tally drew = run_property(name, false, kSamples, kAttempts, leaky_drew, kEngineView, 3);
    INFO(name << ": " << drew.kept << " kept alternatives");
    CHECK(drew.property_failures > 0);
  }
  for (const char* name : {"classic", "authors"}) {
    const Tally hand = run_property(name, false, kSamples, kAttempts, kEngineFilter, leaky_view, 4);
    INFO(name << ": " << hand.kept << " kept alternatives");
    CHECK(hand.property_failures > 0);
  }
}

// Under table rules a view carries the viewer's improper decisions (those
// the judge accepts with a penalty); they tell of the hand they come from.
// A view that shows the improper decisions of the seat to act to everyone
// must be caught (card asks: a seat's improper asks name the cards it holds).
TEST_CASE("hiding: the property catches another seat's improper decisions") {
  const ViewFn leaky_improper = [](const Game& g, Viewer v) {
    View view = view_of(g, v);
    view.improper = g.improper(g.to_act());
    return view;
  };
  const Tally t = run_property("specific-card", true, kSamples, kAttempts, kEngineFilter, leaky_improper, 5);
  INFO(t.kept << " kept alternatives");
  CHECK(t.property_failures > 0);
}
