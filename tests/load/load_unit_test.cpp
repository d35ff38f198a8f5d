// gofish-load's parts that need no network: the latency histogram, the
// command line, and the seat tracker a player decides from, checked against
// the engine's own views over many games.
#include <doctest/doctest.h>

#include <array>
#include <optional>
#include <vector>

#include "bench/load/latency_histogram.hpp"
#include "bench/load/load_options.hpp"
#include "bench/load/seat_tracker.hpp"
#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/setup.hpp"
#include "engine/view.hpp"

namespace gofish::load {

namespace {

std::variant<LoadOptions, OptionsExit> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gofish-load");
  return parse_options(static_cast<int>(args.size()), args.data());
}

}  // namespace

TEST_CASE("histogram: exact below 64 us, then within 1/64 of the value") {
  for (std::uint64_t v = 0; v < 64; ++v) CHECK(LatencyHistogram::bucket_upper_bound(LatencyHistogram::bucket_of(v)) == v);
  for (std::uint64_t v : {64ULL, 65ULL, 127ULL, 128ULL, 1000ULL, 4095ULL, 123456ULL, 98765432ULL}) {
    const auto bucket = LatencyHistogram::bucket_of(v);
    const auto upper = LatencyHistogram::bucket_upper_bound(bucket);
    CHECK(upper >= v);
    CHECK(static_cast<double>(upper - v) <= static_cast<double>(v) / 64.0);
    CHECK(LatencyHistogram::bucket_of(upper) == bucket);
    CHECK(LatencyHistogram::bucket_of(upper + 1) == bucket + 1);
  }
}

TEST_CASE("histogram: percentiles of 1..10000 us are ordered and close") {
  LatencyHistogram histogram;
  CHECK(histogram.percentile(99) == 0);
  for (std::uint64_t v = 1; v <= 10000; ++v) histogram.record(v);
  CHECK(histogram.count() == 10000);
  CHECK(histogram.max() == 10000);
  CHECK(histogram.mean() == doctest::Approx(5000.5));
  const std::array<double, 5> percents{50, 90, 99, 99.9, 100};
  std::uint64_t previous = 0;
  for (double percent : percents) {
    const auto value = histogram.percentile(percent);
    const double exact = percent * 100;
    CHECK(static_cast<double>(value) >= exact);
    CHECK(static_cast<double>(value) <= exact * (1 + 1.0 / 64));
    CHECK(value >= previous);
    previous = value;
  }
  CHECK(histogram.percentile(100) == 10000);

  LatencyHistogram other;
  other.record(50'000);
  histogram.merge(other);
  CHECK(histogram.count() == 10001);
  CHECK(histogram.max() == 50'000);
  histogram.clear();
  CHECK(histogram.count() == 0);
  CHECK(histogram.percentile(50) == 0);
}

TEST_CASE("options: defaults, a full command line and refusals") {
  const auto defaults = parse({});
  REQUIRE(std::holds_alternative<LoadOptions>(defaults));
  CHECK(std::get<LoadOptions>(defaults).target.port == 8080);
  CHECK(std::get<LoadOptions>(defaults).mode == Mode::kGame);

  const auto full = parse({"--url", "ws://127.0.0.1:9001/ws", "--rooms", "500", "--players", "4", "--think-ms", "250",
                           "--seconds", "20", "--server-pid", "42", "--source-addresses", "8", "--mode", "idle",
                           "--bot", "medium"});
  REQUIRE(std::holds_alternative<LoadOptions>(full));
  const auto& options = std::get<LoadOptions>(full);
  CHECK(options.target.host == "127.0.0.1");
  CHECK(options.target.port == 9001);
  CHECK(options.target.path == "/ws");
  CHECK(options.rooms == 500);
  CHECK(options.think_ms == 250);
  CHECK(options.seconds == 20);
  CHECK(options.server_pid == 42);
  CHECK(options.source_addresses == 8);
  CHECK(options.mode == Mode::kIdle);
  CHECK(options.bot == engine::BotLevel::kMedium);

  for (const auto& bad : std::vector<std::vector<const char*>>{
           {"--players", "1"}, {"--rooms", "0"}, {"--mode", "fast"}, {"--url", "http://x/ws"}, {"--url", "ws://h:0/"}}) {
    const auto refused = parse(bad);
    REQUIRE(std::holds_alternative<OptionsExit>(refused));
    CHECK(std::get<OptionsExit>(refused).code != 0);
  }
  CHECK(parse_ws_url("ws://localhost")->port == 80);
  CHECK(parse_ws_url("ws://localhost")->path == "/");
  CHECK(!parse_ws_url("ws://:8080/ws"));
  CHECK(!parse_ws_url("ws://host:80x/"));
}

// Every seat follows its own event stream through random classic games. Once
// a decision's events are all in, the seat to act must be ready with exactly
// the engine's view; a seat that says it is ready part-way through a batch
// must end the batch still to act with the same legal decisions.
TEST_CASE("seat tracker: the engine's own view for the seat to act, in classic games") {
  const engine::Rules rules = *engine::preset("classic");
  engine::Rng rng(20261125);
  int decisions = 0;
  for (int players = 2; players <= 6; ++players) {
    for (int round = 0; round < 60; ++round) {
      const engine::DealSetup setup = engine::prepare_deal(rules, players, rng);
      auto started = engine::Game::start(rules, players, setup.deck, setup.dealer, setup.first);
      REQUIRE(std::holds_alternative<engine::Game>(started));
      engine::Game& game = std::get<engine::Game>(started);
      std::vector<SeatTracker> trackers;
      for (engine::Seat s = 0; s < players; ++s) trackers.emplace_back(s);

      const auto feed = [&](const std::vector<engine::Event>& events) {
        std::vector<std::optional<engine::LegalDecisions>> early(static_cast<std::size_t>(players));
        for (const auto& event : events) {
          for (auto& tracker : trackers) {
            tracker.observe(engine::event_for(event, engine::Viewer::of(tracker.seat())));
            if (tracker.ready_to_ask() && !early[static_cast<std::size_t>(tracker.seat())]) {
              early[static_cast<std::size_t>(tracker.seat())] = tracker.view().legal;
            }
          }
        }
        for (auto& tracker : trackers) {
          const engine::Seat s = tracker.seat();
          const bool to_act = !game.over() && game.to_act() == s;
          CHECK(tracker.ready_to_ask() == to_act);
          CHECK(tracker.over() == game.over());
          if (early[static_cast<std::size_t>(s)]) {
            CHECK(to_act);
            CHECK(*early[static_cast<std::size_t>(s)] == game.legal(s));
          }
          if (to_act) CHECK(tracker.view() == engine::view_of(game, engine::Viewer::of(s)));
        }
      };

      feed(game.last_events());
      while (!game.over()) {
        const auto legal = game.legal(game.to_act()).list();
        REQUIRE(!legal.empty());
        REQUIRE(!game.apply(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]));
        ++decisions;
        feed(game.last_events());
      }
    }
  }
  CHECK(decisions > 1000);
}

}  // namespace gofish::load
