// gofish-bench-encode: how fast protocol::encode spells what a server sends
// most, game events (as each viewer gets them) and ok replies.
//
// It plays --games random games of every preset (easy policy, as in
// gofish-bench-engine), keeps every event as every seat and the spectator get
// it (engine::event_for), then times encode(EventMessage) over that list,
// --repeat times, and reports the best pass; the same for encode(Ok) with an
// integer id. Only the encoding is timed: the games are played first.
// Single thread; pin it with `taskset -c 1`.
//
//   gofish-bench-encode                      # one JSON line on stdout
//   gofish-bench-encode --games 20 --repeat 1
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"
#include "engine/view.hpp"
#include "protocol/messages.hpp"

namespace {

using namespace gofish;
using Clock = std::chrono::steady_clock;

// Results flow into this so the optimiser cannot drop the work.
volatile std::uint64_t g_sink = 0;

std::vector<engine::Event> viewed_events(int games_per_preset, std::uint64_t seed) {
  std::vector<engine::Event> out;
  engine::Rng rng(seed);
  for (const auto name : engine::preset_names()) {
    const engine::Rules rules = *engine::preset(name);
    for (int g = 0; g < games_per_preset; ++g) {
      const int players = rules.min_players + g % (rules.max_players - rules.min_players + 1);
      const auto setup = engine::prepare_deal(rules, players, rng);
      auto started = engine::Game::start(rules, players, setup.deck, setup.dealer, setup.first);
      auto& game = std::get<engine::Game>(started);
      const auto keep = [&] {
        for (const engine::Event& e : game.last_events()) {
          out.push_back(engine::event_for(e, engine::Viewer::spectator()));
          for (engine::Seat s = 0; s < players; ++s) out.push_back(engine::event_for(e, engine::Viewer::of(s)));
        }
      };
      keep();
      while (!game.over()) {
        const auto legal = game.legal(game.to_act());
        game.apply(legal.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(legal.count())))));
        keep();
      }
    }
  }
  return out;
}

// The best of `repeat` passes of `work` over `n` items, in nanoseconds per item.
template <class Work>
double best_ns_per_item(int repeat, std::size_t n, Work work) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto start = Clock::now();
    work();
    const std::chrono::duration<double, std::nano> took = Clock::now() - start;
    best = std::min(best, took.count() / static_cast<double>(n));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int games = 100;
  int repeat = 5;
  std::uint64_t seed = 1;
  CLI::App app{"gofish-bench-encode: how fast game events and ok replies are encoded"};
  app.add_option("--games", games, "random games per preset")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--repeat", repeat, "timed passes; the best is reported")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "seed of the games")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::vector<engine::Event> events = viewed_events(games, seed);
  std::uint64_t bytes = 0;
  const double event_ns = best_ns_per_item(repeat, events.size(), [&] {
    std::int64_t v = 0;
    bytes = 0;
    for (const engine::Event& e : events) bytes += protocol::encode(protocol::EventMessage{++v, e}).size();
    g_sink = g_sink + bytes;
  });
  constexpr std::size_t kOks = 1'000'000;
  const double ok_ns = best_ns_per_item(repeat, kOks, [&] {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < kOks; ++i) {
      total += protocol::encode(protocol::Ok{protocol::RequestId{static_cast<std::int64_t>(i)}}).size();
    }
    g_sink = g_sink + total;
  });
  std::printf(
      "{\"events\":%zu,\"event_bytes\":%llu,\"ns_per_event_message\":%.1f,\"ns_per_ok\":%.1f,\"games_per_preset\":%d,"
      "\"repeat\":%d}\n",
      events.size(), static_cast<unsigned long long>(bytes), event_ns, ok_ns, games, repeat);
  return 0;
}
