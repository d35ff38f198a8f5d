#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/random.hpp"
#include "engine/setup.hpp"
#include "protocol/rules_json.hpp"

using namespace gofish;
using nlohmann::json;

TEST_CASE("every preset survives a JSON round trip, with every field spelled out") {
  for (auto name : engine::preset_names()) {
    const engine::Rules rules = *engine::preset(name);
    const json encoded = protocol::rules_to_json(rules);
    CHECK(encoded.size() == engine::rules_field_info().size());
    const auto decoded = protocol::rules_from_json(encoded);
    REQUIRE(std::holds_alternative<engine::Rules>(decoded));
    CHECK(std::get<engine::Rules>(decoded) == rules);
  }
}

TEST_CASE("a host changes one field of a preset") {
  const auto decoded = protocol::rules_from_json(json{{"preset", "specific-card"}, {"may_ask_held_card", true}});
  REQUIRE(std::holds_alternative<engine::Rules>(decoded));
  CHECK(std::get<engine::Rules>(decoded).may_ask_held_card);
  const auto wrong = protocol::rules_from_json(json{{"preset", "classic"}, {"set_size", "four"}});
  REQUIRE(std::holds_alternative<engine::ConfigError>(wrong));
  CHECK(std::get<engine::ConfigError>(wrong).field == "set_size");
  const auto unknown = protocol::rules_from_json(json{{"colour", "blue"}});
  REQUIRE(std::holds_alternative<engine::ConfigError>(unknown));
}

TEST_CASE("a transcript round-trips through JSON and replays") {
  const engine::Rules rules = *engine::preset("classic");
  engine::Rng rng(3);
  const auto setup = engine::prepare_deal(rules, 3, rng);
  auto game = std::get<engine::Game>(engine::Game::start(rules, 3, setup.deck, setup.dealer, setup.first));
  while (!game.over()) {
    const auto legal = game.legal(game.to_act());
    REQUIRE_FALSE(game.apply(legal.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(legal.count()))))));
  }
  const engine::Transcript t = engine::make_transcript(game);
  const json encoded = protocol::transcript_to_json(t);
  CHECK(encoded["format"] == "gofish-transcript/1");
  const auto decoded = protocol::transcript_from_json(json::parse(encoded.dump()));
  REQUIRE(std::holds_alternative<engine::Transcript>(decoded));
  CHECK(std::get<engine::Transcript>(decoded) == t);
  CHECK_FALSE(engine::replay_check(t));
}
