// Runs every fixture in tests/engine/scenarios/ (format: the README there) and
// checks that, together, they cover every preset, every refusal code, every
// end reason and every table-rules penalty. Set GOFISH_SCENARIO=name to run
// only the fixtures whose file name contains `name`.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/decision.hpp"
#include "engine/event.hpp"
#include "engine/rules.hpp"
#include "scenario.hpp"

using namespace gofish::engine;
using namespace gofish::engine::test;

namespace {

const std::filesystem::path kScenarioDir = std::filesystem::path(GOFISH_SOURCE_DIR) / "tests/engine/scenarios";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Fixture {
  std::string name;  // path relative to the source tree, for messages
  ScenarioResult result;
};

// Every fixture, run once and shared by the test cases below.
const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = [] {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(kScenarioDir)) {
      if (entry.path().extension() == ".txt") paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    const char* only = std::getenv("GOFISH_SCENARIO");
    std::vector<Fixture> out;
    for (const auto& path : paths) {
      if (only != nullptr && path.filename().string().find(only) == std::string::npos) continue;
      out.push_back({"tests/engine/scenarios/" + path.filename().string(), run_scenario(read_file(path))});
    }
    return out;
  }();
  return all;
}

bool filtered() { return std::getenv("GOFISH_SCENARIO") != nullptr; }

}  // namespace

TEST_CASE("every scenario fixture passes") {
  REQUIRE_FALSE(fixtures().empty());
  int failures = 0;
  for (const Fixture& f : fixtures()) {
    for (const ScenarioFailure& failure : f.result.failures) {
      ++failures;
      // Reported at the fixture's own file and line.
      ADD_FAIL_CHECK_AT(f.name.c_str(), failure.line, failure.message);
    }
  }
  MESSAGE(fixtures().size() << " fixtures, " << failures << " failures");
}

TEST_CASE("the fixtures cover every preset, refusal, end reason and penalty") {
  if (filtered()) return;  // coverage is about the whole set
  std::map<std::string, int> per_preset;
  std::set<std::string> refusals, end_reasons, penalties;
  int table_rules = 0;
  for (const Fixture& f : fixtures()) {
    ++per_preset[f.result.preset];
    table_rules += f.result.table_rules ? 1 : 0;
    refusals.insert(f.result.refusals.begin(), f.result.refusals.end());
    end_reasons.insert(f.result.end_reasons.begin(), f.result.end_reasons.end());
    penalties.insert(f.result.penalties.begin(), f.result.penalties.end());
  }
  for (std::string_view name : preset_names()) {
    INFO("preset " << name);
    CHECK(per_preset[std::string(name)] >= 3);
  }
  CHECK(table_rules >= 5);
  for (int code = 0; code <= static_cast<int>(RefusalCode::kTableRulesOnly); ++code) {
    const std::string name(refusal_code_name(static_cast<RefusalCode>(code)));
    INFO("refusal code " << name << " is checked by no fixture");
    CHECK(refusals.contains(name));
  }
  for (EndReason reason : {EndReason::kHandEmpty, EndReason::kStockOut, EndReason::kAllSetsDown,
                           EndReason::kNoOneCanPlay}) {
    INFO("end reason " << to_string(reason) << " is checked by no fixture");
    CHECK(end_reasons.contains(std::string(to_string(reason))));
  }
  for (PenaltyKind kind : {PenaltyKind::kAskedOutOfTurn, PenaltyKind::kIllegalCall, PenaltyKind::kFalseGoFish}) {
    INFO("penalty " << to_string(kind) << " happens in no fixture");
    CHECK(penalties.contains(std::string(to_string(kind))));
  }
}

// The runner itself must be able to fail, and say where.
TEST_CASE("the scenario runner reports wrong expectations with their line") {
  const std::string good = R"(preset classic
players 2
dealer 1
first 0
hand 0: 9C 9H 2S 3D 4C 5H 6S
hand 1: 9D KS KH 7C 7D 8H JS
stock: QS
ask 0 1 9
expect: seat 1 gives seat 0 9D
expect turn 0
)";
  const ScenarioResult ok = run_scenario(good);
  for (const auto& f : ok.failures) FAIL_CHECK("line " << f.line << ": " << f.message);

  SUBCASE("a wrong event") {
    std::string text = good + "expect: seat 1 gives seat 0 9S\n";
    const ScenarioResult r = run_scenario(text);
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].line == 11);
  }
  SUBCASE("a wrong turn") {
    const ScenarioResult r = run_scenario(good + "expect turn 1\n");
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].line == 11);
  }
  SUBCASE("a refusal that does not happen") {
    const ScenarioResult r = run_scenario(good + "refuse not_your_turn: ask 0 1 2\n");
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].line == 11);
  }
  SUBCASE("a refusal with another code") {
    const ScenarioResult r = run_scenario(good + "refuse rank_not_held: ask 1 0 K\n");
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].line == 11);
    CHECK(r.failures[0].message.find("not_your_turn") != std::string::npos);
  }
  SUBCASE("a wrong hand") {
    const ScenarioResult r = run_scenario(good + "expect hand 0: 9C 9D 2S 3D 4C 5H 6S\n");
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].message.find("9H") != std::string::npos);
  }
  SUBCASE("hands that no deal can produce") {
    const ScenarioResult r = run_scenario(
        "preset classic\nplayers 2\ndealer 1\nhand 0: 9C\nhand 1: 9D KS KH\nexpect turn 0\n");
    REQUIRE_FALSE(r.failures.empty());
    CHECK(r.failures[0].message.find("cannot come from a deal") != std::string::npos);
  }
  SUBCASE("a fixture that checks nothing") {
    const ScenarioResult r = run_scenario("preset classic\nplayers 2\ndealer 1\nhand 0: 9C 9H 2S 3D 4C 5H 6S\n"
                                          "hand 1: 9D KS KH 7C 7D 8H JS\nask 0 1 9\n");
    CHECK_FALSE(r.failures.empty());
  }
}
