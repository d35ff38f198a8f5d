// Replays and golden event files.
//
// A game is a function of its rules, deck, dealer, first player and
// decisions, so a simulated game's transcript must replay to the same events,
// step by step, and the same result. The golden files pin down what each
// viewer is told in one fixed game per preset: tests/golden/<game>/seat<N>.txt
// and spectator.txt hold to_string of every event as that viewer receives it
// (event_for), with the decisions between them. See tests/golden/README.md
// for how to regenerate them (GOFISH_REGENERATE_GOLDEN=1) and review the diff.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"
#include "engine/testing.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"
#include "support.hpp"

using namespace gofish::engine;
using namespace gofish::engine::test;

namespace {

// ------------------------------------------------------------------ replay

TEST_CASE("simulated games replay from their transcripts, event for event") {
  int games = 0;
  for (const auto name : preset_names()) {
    for (bool table_rules : {false, true}) {
      const Rules rules = rules_for(name, table_rules);
      for (int players = rules.min_players; players <= rules.max_players; ++players) {
        for (std::uint64_t seed = 0; seed < 10; ++seed) {
          Rng rng(seed * 31 + static_cast<std::uint64_t>(players));
          Game game = start_random(rules, players, rng);
          std::vector<std::string> events;
          for (const Event& e : game.last_events()) events.push_back(full_text(e));
          while (!game.over()) {
            REQUIRE_FALSE(game.apply(random_legal(game, rng)));
            for (const Event& e : game.last_events()) events.push_back(full_text(e));
          }
          const Transcript transcript = make_transcript(game);
          INFO(name << (table_rules ? " (table rules)" : "") << ", " << players << " players, seed " << seed);
          CHECK(transcript.actions == game.decisions());
          CHECK(transcript.players == players);
          CHECK(transcript.dealer == game.dealer());
          CHECK(transcript.first == game.first());
          CHECK(transcript.deck == GameInspector::deck(game));
          CHECK_FALSE(replay_check(transcript));

          // Step by step: the replay tells the same story.
          auto started = Game::start(transcript.rules, transcript.players, transcript.deck, transcript.dealer,
                                     transcript.first);
          REQUIRE(std::holds_alternative<Game>(started));
          Game again = std::get<Game>(std::move(started));
          std::vector<std::string> replayed;
          for (const Event& e : again.last_events()) replayed.push_back(full_text(e));
          for (const Decision& d : transcript.actions) {
            REQUIRE_FALSE(again.apply(d));
            for (const Event& e : again.last_events()) replayed.push_back(full_text(e));
          }
          CHECK(replayed == events);
          CHECK(GameInspector::same_state(again, game));
          CHECK(make_transcript(again) == transcript);
          ++games;
        }
      }
    }
  }
  MESSAGE(games << " games replayed");
}

// ------------------------------------------------------------------ golden files

const std::filesystem::path kGoldenDir = std::filesystem::path(GOFISH_SOURCE_DIR) / "tests/golden";
constexpr int kGoldenPlayers = 3;  // every preset allows 3 (authors needs at least 3)
constexpr std::uint64_t kSetupSeed = 20240601;
constexpr std::uint64_t kPolicySeed = 7;

struct GoldenGame {
  std::string dir;  // under tests/golden
  Rules rules;
};

std::vector<GoldenGame> golden_games() {
  std::vector<GoldenGame> out;
  for (const auto name : preset_names()) out.push_back({std::string(name), rules_for(name)});
  out.push_back({"classic-table-rules", rules_for("classic", true)});
  return out;
}

// One fixed game: the set-up from a fixed seed (prepare_deal: shuffle, and
// for bicycle and authors the ceremony and cut), then uniformly random legal
// decisions from a fixed seed. Only the engine is involved, never the bots.
// Returns each viewer's file, in order seat 0, 1, 2, spectator.
std::vector<std::string> golden_texts(const GoldenGame& g) {
  Rng setup_rng(kSetupSeed);
  const DealSetup setup = prepare_deal(g.rules, kGoldenPlayers, setup_rng);
  auto started = Game::start(g.rules, kGoldenPlayers, setup.deck, setup.dealer, setup.first);
  REQUIRE(std::holds_alternative<Game>(started));
  Game game = std::get<Game>(std::move(started));
  std::vector<Viewer> viewers;
  for (Seat s = 0; s < kGoldenPlayers; ++s) viewers.push_back(Viewer::of(s));
  viewers.push_back(Viewer::spectator());
  std::vector<std::string> texts;
  for (const Viewer& v : viewers) {
    std::string header = "# " + g.dir + ", " + std::to_string(kGoldenPlayers) + " players, set-up seed " +
                         std::to_string(kSetupSeed) + ", random legal decisions from seed " +
                         std::to_string(kPolicySeed) + "\n# as seen by " +
                         (v.seat ? "seat " + std::to_string(*v.seat) : std::string("a spectator")) +
                         "; lines starting with > are decisions\n";
    texts.push_back(header);
  }
  const auto add_events = [&] {
    for (std::size_t i = 0; i < viewers.size(); ++i) {
      for (const Event& e : game.last_events()) texts[i] += to_string(event_for(e, viewers[i])) + "\n";
    }
  };
  add_events();
  Rng policy(kPolicySeed);
  while (!game.over()) {
    const Decision d = random_legal(game, policy);
    REQUIRE_FALSE(game.apply(d));
    for (std::string& text : texts) text += "> " + to_string(d) + "\n";
    add_events();
  }
  return texts;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// nullopt when equal; otherwise the first differing line as
// "file:line: expected ... / got ..." and how many lines differ.
std::optional<std::string> golden_diff(const std::string& file, const std::string& expected, const std::string& actual) {
  const auto want = lines_of(expected);
  const auto got = lines_of(actual);
  std::optional<std::string> first;
  int differing = 0;
  for (std::size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    const std::string* w = i < want.size() ? &want[i] : nullptr;
    const std::string* a = i < got.size() ? &got[i] : nullptr;
    if (w && a && *w == *a) continue;
    ++differing;
    if (!first) {
      first = file + ":" + std::to_string(i + 1) + ": expected \"" + (w ? *w : std::string("<end of file>")) +
              "\"\n    got \"" + (a ? *a : std::string("<end of output>")) + "\"";
    }
  }
  if (!first) return std::nullopt;
  return *first + "\n  (" + std::to_string(differing) + " differing lines; to accept the new output run with " +
         "GOFISH_REGENERATE_GOLDEN=1 and review `git diff tests/golden`)";
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool regenerate() {
  const char* env = std::getenv("GOFISH_REGENERATE_GOLDEN");
  return env != nullptr && std::string(env) == "1";
}

}  // namespace

TEST_CASE("golden event files: each viewer's stream of one fixed game per preset") {
  for (const GoldenGame& g : golden_games()) {
    const std::vector<std::string> texts = golden_texts(g);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string file = i < static_cast<std::size_t>(kGoldenPlayers) ? "seat" + std::to_string(i) + ".txt"
                                                                             : std::string("spectator.txt");
      const std::filesystem::path path = kGoldenDir / g.dir / file;
      const std::string shown = "tests/golden/" + g.dir + "/" + file;
      if (regenerate()) {
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << texts[i];
        MESSAGE("wrote " << shown);
        continue;
      }
      if (!std::filesystem::exists(path)) {
        ADD_FAIL_CHECK_AT(shown.c_str(), 1, "missing; run the test with GOFISH_REGENERATE_GOLDEN=1 to write it");
        continue;
      }
      if (const auto diff = golden_diff(shown, read_text(path), texts[i])) FAIL_CHECK(*diff);
    }
  }
}

TEST_CASE("golden files differ per viewer and hide what they must") {
  for (const GoldenGame& g : golden_games()) {
    const std::vector<std::string> texts = golden_texts(g);
    INFO(g.dir);
    // Each seat sees its own hand dealt; the spectator sees only counts.
    for (Seat s = 0; s < kGoldenPlayers; ++s) {
      CHECK(texts[static_cast<std::size_t>(s)].find("seat " + std::to_string(s) + " is dealt ") != std::string::npos);
      CHECK(texts[static_cast<std::size_t>(s)] != texts.back());
    }
    for (const std::string& line : lines_of(texts.back())) {
      if (line.starts_with("#") || line.starts_with(">")) continue;
      const bool private_deal = line.find(" is dealt ") != std::string::npos && line.find(" cards") == std::string::npos;
      const bool private_draw = line.find(" draws ") != std::string::npos && line.find(" draws a card") == std::string::npos;
      CHECK_MESSAGE(!private_deal, line);
      CHECK_MESSAGE(!private_draw, line);
    }
  }
}

TEST_CASE("the golden comparison reports the first differing line") {
  CHECK_FALSE(golden_diff("f.txt", "a\nb\nc\n", "a\nb\nc\n"));
  const auto diff = golden_diff("f.txt", "a\nb\nc\n", "a\nB\nc\n");
  REQUIRE(diff);
  CHECK(diff->find("f.txt:2: expected \"b\"") != std::string::npos);
  CHECK(diff->find("got \"B\"") != std::string::npos);
  CHECK(diff->find("1 differing lines") != std::string::npos);
  const auto shorter = golden_diff("f.txt", "a\nb\n", "a\n");
  REQUIRE(shorter);
  CHECK(shorter->find("f.txt:2:") != std::string::npos);
  CHECK(shorter->find("<end of output>") != std::string::npos);
}
