// Scenario fixtures: a short text names the rules, the hands dealt and the
// stock, then alternates decisions and expectations. The format is described
// in tests/engine/scenarios/README.md.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gofish::engine::test {

struct ScenarioFailure {
  int line = 0;  // 1-based line of the fixture; 0 for the file as a whole
  std::string message;
};

struct ScenarioResult {
  std::vector<ScenarioFailure> failures;
  std::string preset;                   // the preset the fixture starts from
  bool table_rules = false;
  std::set<std::string> refusals;       // refusal codes checked (and seen)
  std::set<std::string> end_reasons;    // end reasons checked (and seen)
  std::set<std::string> penalties;      // penalty kinds seen in the game's events
  int actions = 0;                      // decisions applied or refused
};

// Runs one fixture and reports every failed expectation with its line.
ScenarioResult run_scenario(std::string_view text);

}  // namespace gofish::engine::test
