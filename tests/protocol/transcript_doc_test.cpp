// docs/TRANSCRIPT.md specifies the transcript format in words; these checks
// keep the page and the code together: its example is a real game that
// parses and replays to its result, is exactly what transcript_to_json writes
// for that game, and the page names every field the code writes; and the
// deal and the stock work as the page says, for every preset.
// (tests/engine/sim_test.cmake, mode doc, runs `gofish-sim --replay` on the
// same example.)
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"
#include "engine/transcript.hpp"
#include "protocol/rules_json.hpp"

using namespace gofish;
using nlohmann::json;

namespace {

std::string read_page() {
  std::ifstream in(std::string(GOFISH_SOURCE_DIR) + "/docs/TRANSCRIPT.md");
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The text of every fenced block whose info string is `info`.
std::vector<std::string> blocks(const std::string& page, const std::string& info) {
  std::vector<std::string> out;
  std::istringstream in(page);
  std::string line;
  std::string* open = nullptr;
  bool in_other = false;
  while (std::getline(in, line)) {
    if (line.starts_with("```")) {
      if (open != nullptr || in_other) {
        open = nullptr;
        in_other = false;
      } else if (line.substr(3) == info) {
        out.emplace_back();
        open = &out.back();
      } else {
        in_other = true;
      }
      continue;
    }
    if (open != nullptr) *open += line + "\n";
  }
  return out;
}

bool names(const std::string& page, const std::string& field) {
  return page.find("`" + field + "`") != std::string::npos;
}

}  // namespace

TEST_CASE("docs/TRANSCRIPT.md: the example is a real game that replays to its result") {
  const std::string page = read_page();
  const auto examples = blocks(page, "json transcript");
  REQUIRE(examples.size() == 1);
  const json example = json::parse(examples[0]);
  const auto parsed = protocol::transcript_from_json(example);
  if (const auto* error = std::get_if<std::string>(&parsed)) FAIL("the example does not parse: " << *error);
  const engine::Transcript& t = std::get<engine::Transcript>(parsed);
  CHECK_FALSE(engine::replay_check(t));
  CHECK(t.actions.size() >= 3);
  // Exactly what the code writes for that game, in the same order, besides
  // the extra fields gofish-sim adds (which the page names): no field
  // missing, none made up.
  nlohmann::ordered_json core = nlohmann::ordered_json::parse(examples[0]);
  for (const char* extra : {"bots", "game", "seed"}) {
    CAPTURE(extra);
    CHECK(core.contains(extra));
    CHECK(names(page, extra));
    core.erase(extra);
  }
  CHECK(protocol::transcript_to_json(t).dump() == core.dump());
}

TEST_CASE("docs/TRANSCRIPT.md: names every field a transcript has") {
  const std::string page = read_page();
  engine::Transcript t;
  t.rules = *engine::preset("classic");
  t.players = 2;
  const json written = protocol::transcript_to_json(t);
  for (const auto& [key, value] : written.items()) {
    CAPTURE(key);
    CHECK(names(page, key));
  }
  for (const char* key : {"books", "winners", "seat", "target", "rank", "card", "answer", "declare"}) {
    CAPTURE(key);
    CHECK(names(page, key));
  }
  for (const auto& [field, value] : engine::rules_fields(t.rules)) {
    CAPTURE(field);
    CHECK(names(page, std::string(field)));
  }
  CHECK(page.find("gofish-sim --replay") != std::string::npos);
}

// "Card i of deck, for i below the number dealt, goes to seat
// (dealer + 1 + i) mod players; the stock is the rest, drawn from the front."
TEST_CASE("docs/TRANSCRIPT.md: the deck maps to the deal and the stock as the page says") {
  engine::Rng rng(2026);
  int draws = 0;
  for (const auto name : engine::preset_names()) {
    const engine::Rules rules = *engine::preset(name);
    for (int players = rules.min_players; players <= rules.max_players; ++players) {
      CAPTURE(name);
      CAPTURE(players);
      const auto setup = engine::prepare_deal(rules, players, rng);
      auto started = engine::Game::start(rules, players, setup.deck, setup.dealer, setup.first);
      REQUIRE(std::holds_alternative<engine::Game>(started));
      engine::Game game = std::get<engine::Game>(std::move(started));
      const int dealt = rules.deal_whole_pack ? engine::kDeckSize : engine::hand_size(rules, players) * players;
      std::vector<engine::CardSet> hands(static_cast<std::size_t>(players));
      for (int i = 0; i < dealt; ++i) {
        hands[static_cast<std::size_t>((setup.dealer + 1 + i) % players)].add(setup.deck[static_cast<std::size_t>(i)]);
      }
      int next = dealt;  // the front of the stock
      const auto check = [&](const std::vector<engine::Event>& events) {
        for (const engine::Event& e : events) {
          if (const auto* d = std::get_if<engine::HandDealt>(&e)) {
            CHECK(d->cards == hands[static_cast<std::size_t>(d->seat)]);
          }
          if (const auto* d = std::get_if<engine::Drew>(&e)) {
            REQUIRE(next < engine::kDeckSize);
            CHECK(d->card == setup.deck[static_cast<std::size_t>(next++)]);
            ++draws;
          }
        }
      };
      check(game.last_events());
      CHECK(game.stock_size() == engine::kDeckSize - dealt);
      while (!game.over()) {
        const auto legal = game.legal(game.to_act());
        REQUIRE_FALSE(game.apply(legal.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(legal.count()))))));
        check(game.last_events());
      }
    }
  }
  CHECK(draws > 100);
}
