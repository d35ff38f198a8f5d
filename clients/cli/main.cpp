// gofish-cli: play Go Fish from a terminal, or let an engine bot play a seat
// over the network (see README.md, "Terminal client").
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "clients/cli/client.hpp"
#include "fairness/deal_check.hpp"
#include "protocol/limits.hpp"
#include "protocol/text.hpp"

namespace {

constexpr const char* kExitCodes =
    "Exit status: 0 done; 1 (verify) the deal did not check; 2 bad usage; 3 the server cannot be reached; 4 no room "
    "(or class) has that code;\n"
    "5 the room (or class) is full; 6 the server speaks another protocol version; 7 refused otherwise, the\n"
    "connection was lost for good, or the room closed.";

bool terminal_has_color() {
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) != 0 && term != nullptr && std::string(term) != "dumb" &&
         std::getenv("NO_COLOR") == nullptr;
}

// A whole-number option within [low, high], its default shown in --help.
void add_bounded(CLI::App& app, const std::string& flag, int& value, int low, int high, const std::string& help) {
  app.add_option(flag, value, help)->check(CLI::Range(low, high))->capture_default_str();
}

int usage_error(const std::string& sentence) {
  std::cerr << "gofish-cli: " << sentence << " (see gofish-cli --help)\n";
  return gofish::cli::kExitUsage;
}

// gofish-cli verify FILE: a finished game's deal against its fairness
// record (docs/FAIRNESS.md), then its replay. No server involved.
int verify(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "gofish-cli: cannot read " << path << "\n";
    return gofish::cli::kExitUsage;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const gofish::fairness::Verdict verdict = gofish::fairness::check_transcript_lines(text.str());
  // A seed not revealed yet is no failure (docs/FAIRNESS.md, "Shared deals").
  (verdict.fair || verdict.pending ? std::cout : std::cerr) << verdict.sentence << "\n";
  return verdict.fair || verdict.pending ? gofish::cli::kExitOk : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // A command of its own, before the options of a game: the file is the only argument.
  if (argc >= 2 && std::string(argv[1]) == "verify") {
    if (argc != 3) return usage_error("verify takes one transcript file: gofish-cli verify FILE");
    return verify(argv[2]);
  }
  using gofish::cli::Options;
  Options options;
  std::string server = "ws://localhost:8080";
  std::string positional;
  std::string bots_text;
  std::string bot_text;
  bool no_color = false;
  bool no_spectators = false;
  std::string class_code;
  std::string class_name;
  std::string roster_file;
  std::string class_bots_text = "medium";

  CLI::App app{
      "gofish-cli: play Go Fish against people and bots on a gofish-server, from a terminal.\n"
      "Without --join or --spectate it creates a room (you are the host); an invite link\n"
      "(http://host:port/r/CODE) as the server joins that room. Over TLS: wss://host:port or\n"
      "https://host:port/r/CODE; the server's certificate must be valid for that host.\n"
      "gofish-cli verify FILE checks a finished game's transcript: its deal (docs/FAIRNESS.md) and its replay.",
      "gofish-cli"};
  app.footer(kExitCodes);
  app.add_option("server", positional,
                 "Server address (ws://host:port or wss://host:port) or invite link (http(s)://host:port/r/CODE)");
  app.add_option("--server", server, "Server address, when not given first")->capture_default_str();
  std::string ca_file;
  app.add_option("--ca-file", ca_file,
                 "wss:// only: trust the certificate authorities in this PEM file instead of the system's")
      ->check(CLI::ExistingFile);
  app.add_option("--name", options.name, "Your display name")->capture_default_str();
  auto* create = app.add_flag("--create", options.create, "Create a room (the default)");
  auto* join = app.add_option("--join", options.join_code, "Join the room with this code");
  app.add_flag("--spectate", options.spectate, "Watch the room (with --join or an invite link)");
  join->excludes(create);
  app.add_option("--preset", options.preset,
                 "Rules preset for a new room: classic, specific-card, keep-playing, bicycle, authors, pairs")
      ->capture_default_str();
  add_bounded(app, "--seats", options.seats, 2, 6, "Seats at a new room's table, 2 to 6");
  app.add_option("--bots", bots_text, "Server bots for a new room, in seats 2, 3, ...: e.g. medium,easy");
  // The protocol's default bounds; a server configured otherwise says so when
  // it refuses the room.
  const gofish::protocol::ParseLimits wire;
  const std::string timer_range =
      std::to_string(wire.min_turn_timer_seconds) + " to " + std::to_string(wire.max_turn_timer_seconds);
  add_bounded(app, "--timer", options.turn_timer_seconds, 0, wire.max_turn_timer_seconds,
              "Turn timer in seconds for a new room (0: none, else " + timer_range + ")");
  app.add_flag("--table-rules", options.table_rules,
               "New room: players answer asks and declare their sets themselves, with penalties");
  app.add_flag("--no-spectators", no_spectators, "New room: nobody may watch");
  app.add_flag("--listed", options.listed, "New room: show it in the lobby while it waits for players");
  app.add_flag("--start-when-full", options.start_when_full, "As host, start the game as soon as every seat is filled");
  // A class event: the room options above are its tables' (--seats their size).
  auto* pupil = app.add_option("--class", class_code, "Join the class with this code, as a pupil named --name")
                    ->group("Classes");
  auto* teacher =
      app.add_option("--create-class", class_name,
                     "Create a class with this name and open its console (--preset, --seats, --timer, "
                     "--table-rules give its tables)")
          ->group("Classes");
  pupil->excludes(teacher)->excludes(join)->excludes(create);
  teacher->excludes(join)->excludes(create);
  app.add_option("--roster", roster_file, "New class: a file of the pupils' names, one a line")
      ->check(CLI::ExistingFile)
      ->group("Classes");
  app.add_option("--class-bots", class_bots_text, "New class: the bots filling the empty seats: easy, medium or hard")
      ->capture_default_str()
      ->group("Classes");
  add_bounded(app, "--rounds", options.rounds, 1, gofish::protocol::kMaxEventRounds, "New class: rounds to play");
  app.add_flag("--same-deal", options.same_deal, "New class: every table of a round gets the same deal")
      ->group("Classes");
  app.add_flag("--coaching", options.coaching, "New class: the teacher may see the hands (pupils are told)")
      ->group("Classes");
  app.add_flag("--daily", options.daily,
               "Play today's deal (the day's cards, against three bots) and print how you did");
  app.add_option("--bot", bot_text, "Let the engine's bot play your seat: easy, medium or hard");
  add_bounded(app, "--games", options.games, 1, 10000,
              "With --bot or --spectate: games to play or watch, then print a summary");
  add_bounded(app, "--think-ms", options.think_ms, 0, 60000, "With --bot: pause before each move, in milliseconds");
  app.add_flag("--json", options.json, "Print every server message as one JSON line on stdout, nothing else");
  app.add_flag("--no-color", no_color, "No colours, even on a colour terminal");
  add_bounded(app, "--connect-timeout-ms", options.connect_timeout_ms, 100, 600000,
              "Give up connecting after this long (tries that time out are made again meanwhile)");
  add_bounded(app, "--handshake-timeout-ms", options.handshake_timeout_ms, 100, 600000,
              "Give up one try at connecting (TCP, WebSocket upgrade, the server's welcome) after this long, "
              "and make another");
  add_bounded(app, "--resume-window-ms", options.resume_window_ms, 0, 3600000,
              "After a dropped connection, keep trying to resume this long");
  add_bounded(app, "--liveness-timeout-ms", options.liveness_timeout_ms, 0, 3600000,
              "Take a connected server that sends nothing this long (pinged after a third of it) for gone, and "
              "reconnect (0: never)");
  // For tests of the version check: say hello with another protocol version.
  app.add_option("--protocol-version", options.protocol_version)->group("");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);
    return usage_error(error.what());
  }

  auto address = gofish::cli::parse_server_address(positional.empty() ? server : positional);
  if (auto* problem = std::get_if<std::string>(&address)) return usage_error(*problem);
  options.address = std::get<gofish::cli::ServerAddress>(address);
  if (!ca_file.empty()) {
    if (!options.address.tls) return usage_error("--ca-file is for a wss:// or https:// server.");
    options.ca_file = ca_file;
  }
  if (options.address.invite_code && !options.join_code) options.join_code = options.address.invite_code;
  if (options.join_code) {
    const auto code = gofish::protocol::normalize_room_code(*options.join_code);
    if (!code) {
      std::cerr << "gofish-cli: '" << *options.join_code
                << "' is not a room code: a code is five letters and digits, without 0, O, 1, I or L.\n";
      return gofish::cli::kExitBadCode;
    }
    options.join_code = *code;
  }
  if (!class_code.empty()) {
    const auto code = gofish::protocol::normalize_event_code(class_code);
    if (!code) {
      std::cerr << "gofish-cli: '" << class_code
                << "' is not a class code: a code is six letters and digits, without 0, O, 1, I or L.\n";
      return gofish::cli::kExitBadCode;
    }
    if (options.spectate) return usage_error("--class joins as a pupil, who plays: it cannot --spectate.");
    options.class_code = *code;
  }
  if (!class_name.empty()) {
    options.create_class = class_name;
    const auto level = gofish::engine::parse_bot_level(class_bots_text);
    if (!level) return usage_error("--class-bots is easy, medium or hard, not '" + class_bots_text + "'.");
    options.class_bots = *level;
    if (!bot_text.empty()) return usage_error("--bot plays a seat; a class's teacher has none.");
    if (!roster_file.empty()) {
      std::ifstream roster(roster_file);
      for (std::string line; std::getline(roster, line);) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) continue;
        const auto last = line.find_last_not_of(" \t\r");
        options.roster.push_back(line.substr(first, last - first + 1));
      }
    }
  } else if (!roster_file.empty()) {
    return usage_error("--roster is for a new class (--create-class).");
  }
  if (options.daily) {
    if (options.join_code || options.class_code || options.create_class || options.spectate) {
      return usage_error("--daily plays a room of its own: it goes with neither --join, --spectate nor a class.");
    }
    options.games = 1;  // a rematch is an ordinary game, not counted
  }
  if (options.spectate && !options.join_code)
    return usage_error("--spectate needs a room: --join CODE or an invite link.");
  if (!gofish::engine::preset(options.preset))
    return usage_error("There is no preset called '" + options.preset + "'.");
  if (!bot_text.empty()) {
    options.bot = gofish::engine::parse_bot_level(bot_text);
    if (!options.bot) return usage_error("--bot is easy, medium or hard, not '" + bot_text + "'.");
    if (options.spectate) return usage_error("--bot plays a seat, so it cannot --spectate.");
  }
  for (std::size_t start = 0; !bots_text.empty() && start <= bots_text.size();) {
    const auto comma = bots_text.find(',', start);
    const std::string level = bots_text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto parsed = gofish::engine::parse_bot_level(level);
    if (!parsed) return usage_error("--bots lists easy, medium or hard, not '" + level + "'.");
    options.bots.push_back(*parsed);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(options.bots.size()) > options.seats - 1) {
    return usage_error("--bots names more bots than the " + std::to_string(options.seats - 1) + " free seats.");
  }
  if (options.turn_timer_seconds != 0 && options.turn_timer_seconds < wire.min_turn_timer_seconds) {
    return usage_error("--timer is 0 (no timer) or " + timer_range + " seconds.");
  }
  options.spectators = !no_spectators;
  options.style.color = !no_color && !options.json && terminal_has_color();
  return gofish::cli::Client(std::move(options)).run();
}
