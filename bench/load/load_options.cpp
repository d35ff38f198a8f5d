#include "bench/load/load_options.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <map>
#include <sstream>

namespace gofish::load {

std::string room_path(const Target& target, const std::string& code) {
  return target.path + (target.path.find('?') == std::string::npos ? "?" : "&") + "room=" + code;
}

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::kGame:
      return "game";
    case Mode::kEcho:
      return "echo";
    case Mode::kIdle:
      return "idle";
    case Mode::kClass: return "class";
  }
  return "?";
}

std::optional<Target> parse_ws_url(const std::string& url) {
  Target target;
  std::string rest;
  if (url.starts_with("ws://")) {
    rest = url.substr(5);
  } else if (url.starts_with("wss://")) {
    rest = url.substr(6);
    target.tls = true;
    target.port = 443;
  } else {
    return std::nullopt;
  }
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  target.path = slash == std::string::npos ? "/" : rest.substr(slash);
  const auto colon = authority.rfind(':');
  target.host = authority.substr(0, colon);
  if (target.host.empty()) return std::nullopt;
  if (colon != std::string::npos) {
    const std::string port = authority.substr(colon + 1);
    unsigned value = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (error != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      return std::nullopt;
    }
    target.port = static_cast<std::uint16_t>(value);
  }
  return target;
}

namespace {

// Fills options.rules from --preset and --table-rules; a sentence when they
// cannot make a room of options.players seats.
std::optional<std::string> resolve_rules(LoadOptions& options) {
  std::vector<std::string_view> names;
  if (options.preset == "all") {
    names.assign(engine::preset_names().begin(), engine::preset_names().end());
    if (options.rooms < static_cast<int>(names.size())) {
      return "--preset all spreads rooms over the " + std::to_string(names.size()) + " presets: give --rooms " +
             std::to_string(names.size()) + " or more";
    }
  } else if (engine::preset(options.preset)) {
    names.push_back(options.preset);
  } else {
    std::string known;
    for (const auto name : engine::preset_names()) known += std::string(name) + ", ";
    return "--preset: no preset is called " + options.preset + " (" + known + "or all)";
  }
  options.rules.clear();
  for (const auto name : names) {
    engine::Rules rules = *engine::preset(name);
    rules.table_rules = options.table_rules;
    if (auto error = engine::validate(rules, options.players)) {
      return "--preset " + options.preset + ": " + error->message;
    }
    options.rules.push_back(std::move(rules));
  }
  return std::nullopt;
}

}  // namespace

std::variant<LoadOptions, OptionsExit> parse_options(int argc, const char* const* argv) {
  LoadOptions options;
  CLI::App app{
      "gofish-load: rooms of players over real WebSocket connections against gofish-server (or the "
      "echo server); the last output line is one JSON object with every figure",
      "gofish-load"};
  app.get_formatter()->column_width(40);
  app.add_option("--url", options.url, "Server WebSocket URL (ws:// or wss://)")->capture_default_str();
  app.add_option("--ca-file", options.ca_file,
                 "For wss://: PEM file of the authorities to trust (default: the system's)")
      ->check(CLI::ExistingFile);
  const std::map<std::string, Mode> modes{
      {"game", Mode::kGame}, {"echo", Mode::kEcho}, {"idle", Mode::kIdle}, {"class", Mode::kClass}};
  std::string mode = "game";
  app.add_option("--mode", mode,
                 "game: players decide with bots; echo: same connections and message size against an echo "
                 "server; idle: seated players doing nothing (memory per connection); class: one class event of "
                 "--rooms tables of --players pupils (at most 120), its teacher's console open, pupils deciding "
                 "after 0.5 to 1.5 times --think-ms")
      ->check(CLI::IsMember(modes))
      ->capture_default_str();
  app.add_option("--rooms", options.rooms, "Rooms running at once")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--players", options.players, "Players per room")->check(CLI::Range(2, 6))->capture_default_str();
  std::string presets_help = "The rules rooms are created with: a preset (";
  for (const auto name : engine::preset_names()) presets_help += std::string(name) + ", ";
  presets_help += "or all, which spreads rooms over every preset in turn)";
  app.add_option("--preset", options.preset, presets_help)->capture_default_str();
  app.add_flag("--table-rules", options.table_rules,
               "Table rules on top of the preset: the asked player answers and players declare their sets");
  app.add_option("--think-ms", options.think_ms, "Think time before each decision (0: closed loop)")
      ->check(CLI::Range(0, 600000))
      ->capture_default_str();
  app.add_option("--seconds", options.seconds, "Measuring time after the ramp-up (idle: holding time)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  app.add_option("--ramp-seconds", options.ramp_seconds, "Rooms are opened evenly over this time")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_option("--server-pid", options.server_pid,
                 "The server's process id: its CPU time and memory are read from /proc");
  app.add_option("--watch-pid", options.watch_pids,
                 "Another process whose CPU in the measuring window is reported (repeatable, or a comma list)")
      ->delimiter(',');
  app.add_option("--source-addresses", options.source_addresses,
                 "Spread connections over local addresses 127.0.0.1..127.0.0.N (past the ephemeral-port limit)")
      ->check(CLI::Range(1, 254))
      ->capture_default_str();
  const std::map<std::string, engine::BotLevel> bots{
      {"easy", engine::BotLevel::kEasy}, {"medium", engine::BotLevel::kMedium}, {"hard", engine::BotLevel::kHard}};
  std::string bot = "easy";
  app.add_option("--bot", bot, "The bot level players decide with")->check(CLI::IsMember(bots))->capture_default_str();
  app.add_option("--seed", options.seed, "Seed for the bots (0: from the operating system)")->capture_default_str();
  app.add_option("--max-pending-connects", options.max_pending_connects, "Connections being set up at once")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_flag("--quiet", options.quiet, "Print only the JSON line");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    std::ostringstream out;
    const int code = app.exit(error, out, out);
    return OptionsExit{code, out.str()};
  }
  if (auto error = resolve_rules(options)) return OptionsExit{2, *error + "\n"};
  options.mode = modes.at(mode);
  if (options.mode == Mode::kClass && options.rooms * options.players > kMaxClassPupils) {
    return OptionsExit{2, "--mode class: a class takes at most " + std::to_string(kMaxClassPupils) +
                              " pupils; --rooms x --players is " + std::to_string(options.rooms * options.players) +
                              "\n"};
  }
  options.bot = bots.at(bot);
  const auto target = parse_ws_url(options.url);
  if (!target) return OptionsExit{2, "--url: expected ws://HOST[:PORT]/PATH or wss://..., got " + options.url + "\n"};
  options.target = *target;
  return options;
}

}  // namespace gofish::load
