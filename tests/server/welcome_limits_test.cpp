// welcome.limits is a view of the server's one Limits: every field a client is
// told comes from the configured value (a flag), and the parser enforces the
// same values it announces. A field filled from anywhere else (a default, a
// second struct, another field) fails here.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rooms_support.hpp"
#include "server/app/config.hpp"
#include "server/rooms/limits.hpp"

namespace gofish::server::testing {
namespace {

Config parse_flags(std::vector<std::string> args) {
  args.insert(args.begin(), "gofish-server");
  std::vector<const char*> argv;
  for (const auto& arg : args) argv.push_back(arg.c_str());
  auto result = parse_config(static_cast<int>(argv.size()), argv.data());
  if (const auto* exit = std::get_if<ConfigExit>(&result)) FAIL("unexpected exit: " << exit->text);
  return std::get<Config>(std::move(result));
}

std::string read_readme() {
  std::ifstream in(std::string(GOFISH_SOURCE_DIR) + "/protocol/README.md");
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The `limits` object of every welcome example in protocol/README.md, compact
// (the session) or pretty-printed (the message reference).
std::vector<nlohmann::json> readme_welcome_limits() {
  const std::string readme = read_readme();
  std::vector<nlohmann::json> out;
  for (const std::string welcome : {R"("type":"welcome")", R"("type": "welcome")"}) {
    for (auto at = readme.find(welcome); at != std::string::npos; at = readme.find(welcome, at + 1)) {
      const auto key = readme.find("\"limits\"", at);
      REQUIRE(key != std::string::npos);
      const auto open = readme.find('{', key);
      const auto close = readme.find('}', open);  // the limits hold no object
      REQUIRE(close != std::string::npos);
      out.push_back(nlohmann::json::parse(readme.substr(open, close - open + 1)));
    }
  }
  return out;
}

nlohmann::json limits_json(const protocol::WelcomeLimits& limits) {
  protocol::Welcome welcome;
  welcome.limits = limits;
  return nlohmann::json::parse(protocol::encode(welcome)).at("limits");
}

}  // namespace

TEST_CASE("welcome: every limit a client is told is the configured one, set through the flags") {
  const Config flagged = parse_flags({
      "--max-message-bytes=3001",
      "--message-rate=37.5",
      "--message-burst=41",
      "--chat-rate=0.25",
      "--chat-burst=3",
      "--max-name-chars=11",
      "--max-chat-chars=23",
      "--min-turn-timer-seconds=7",
      "--max-turn-timer-seconds=77",
      "--max-spectators=5",
      "--idle-timeout-ms=45000",
      "--seat-grace-ms=9000",
  });
  Config config = rooms_config();
  config.limits = flagged.limits;
  config.limits.bot_delay = 0ms;
  config.limits.parse.max_id_bytes = 33;  // no flag: a wire constant, but still the one the server holds
  // Every field differs from its default and from every other field. The
  // pace is worked out from the message rate and burst (server/rooms/limits.cpp).
  const protocol::WelcomeLimits expected{3001, 37.5, 41, 0.25, 3, 11, 23, 33, 7, 77, 5, 45'000, 9'000, 30.0, 39};
  CHECK(welcome_limits(config.limits) == expected);

  RoomsServer server(config);
  Peer ann(server.port(), /*hello=*/false);
  CHECK(ann.expect<protocol::Welcome>(protocol::Hello{}).limits == expected);

  // The parser enforces what was announced, not its own defaults.
  CHECK(ann.error_of(create_request(std::string(12, 'a'), "classic", 2)) == "room/bad_name");
  auto timer = create_request(std::string(11, 'a'), "classic", 2);
  timer.settings.turn_timer_seconds = 78;
  CHECK(ann.error_of(timer) == "protocol/bad_message");
  timer.settings.turn_timer_seconds = 7;  // under the default minimum of 10
  ann.expect<protocol::Created>(timer);
  CHECK(ann.error_of(protocol::Chat{std::string(24, 'x'), ""}) == "chat/too_long");
  CHECK(!std::holds_alternative<protocol::Error>(ann.request(protocol::Chat{std::string(23, 'x'), ""})));
}

TEST_CASE("welcome: the pace a client is asked to keep is under the server's message bucket") {
  for (const double rate : {0.5, 1.0, 10.0, 37.5, 1000.0}) {
    for (const std::size_t burst : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{20}, std::size_t{500}}) {
      CAPTURE(rate);
      CAPTURE(burst);
      Limits limits;
      limits.message_rate_per_second = rate;
      limits.message_burst = burst;
      const protocol::WelcomeLimits told = welcome_limits(limits);
      CHECK(told.pace_messages_per_second > 0);
      CHECK(told.pace_messages_per_second < told.messages_per_second);
      CHECK(told.pace_message_burst >= 1);
      CHECK(told.pace_message_burst <= told.message_burst);
      if (burst > 2) CHECK(told.pace_message_burst < told.message_burst);
    }
  }
  // A default server: 8 a second with bursts of 18, against its 10 and 20.
  const protocol::WelcomeLimits defaults = welcome_limits(Limits{});
  CHECK(defaults.pace_messages_per_second == 8.0);
  CHECK(defaults.pace_message_burst == 18);
}

TEST_CASE("welcome: the README's welcome examples show a default server's limits") {
  const auto examples = readme_welcome_limits();
  CHECK(examples.size() >= 2);
  const auto defaults = limits_json(welcome_limits(Limits{}));
  for (const auto& example : examples) CHECK(example == defaults);
  // and the defaults the README names in prose
  CHECK(defaults.at("max_frame_bytes") == 4096);
  CHECK(defaults.at("idle_timeout_ms") == 60000);
}

}  // namespace gofish::server::testing
