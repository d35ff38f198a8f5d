// gofish-load's command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/bot_level.hpp"
#include "engine/rules.hpp"

namespace gofish::load {

enum class Mode {
  kGame,  // rooms of players deciding with the engine's bots
  kEcho,  // the same connections and message size against an echo server
  kIdle,  // seated players doing nothing: memory per connection
  // One class event (protocol/README.md, "Class events"): a teacher creates
  // it, rooms x players pupils join it by its code, the teacher's console
  // seats them and starts a round, and the pupils play at its tables.
  kClass,
};

struct Target {
  std::string host;  // an IPv4 address or a name
  std::uint16_t port = 80;
  std::string path = "/";
  bool tls = false;  // wss://
};

// The most pupils a class event takes (protocol/README.md, create_event).
inline constexpr int kMaxClassPupils = 120;

struct LoadOptions {
  std::string url = "ws://127.0.0.1:8080/ws";
  Target target;  // parsed from url
  // For wss://: the authorities the server's certificate must chain to
  // (empty: the system's).
  std::string ca_file;
  Mode mode = Mode::kGame;
  int rooms = 10;
  int players = 4;
  // --preset: a preset's name, or "all" to spread rooms over every preset.
  std::string preset = "classic";
  bool table_rules = false;
  // The rules rooms are created with: room i plays rules[i % rules.size()].
  std::vector<engine::Rules> rules{*engine::preset("classic")};
  // Think time before each decision; 0 is closed loop (decide as soon as the turn comes).
  int think_ms = 0;
  double seconds = 10;       // measuring time after the ramp-up (idle: holding time)
  double ramp_seconds = 1;   // rooms are opened evenly over this time
  std::optional<int> server_pid;
  // Other processes (more servers, a proxy, a database) whose CPU in the
  // measuring window is reported beside the server's.
  std::vector<int> watch_pids;
  int source_addresses = 1;  // 127.0.0.1 .. 127.0.0.N as local addresses
  engine::BotLevel bot = engine::BotLevel::kEasy;
  std::uint64_t seed = 0;    // 0: from the operating system
  // Connections being set up at once, so a big ramp does not overflow the
  // server's accept backlog.
  int max_pending_connects = 256;
  bool quiet = false;        // only the JSON line
};

struct OptionsExit {
  int code = 0;
  std::string output;  // help, version or the error, to print
};

std::variant<LoadOptions, OptionsExit> parse_options(int argc, const char* const* argv);

// "ws://127.0.0.1:8080/ws" -> {127.0.0.1, 8080, /ws}; nullopt unless ws://.
std::optional<Target> parse_ws_url(const std::string& url);

// The path a player of room `code` upgrades at: the target's path with
// room=CODE added to its query, which steers a proxy in front of several
// servers to the one serving the room (the server ignores it).
std::string room_path(const Target& target, const std::string& code);

std::string_view to_string(Mode mode);

}  // namespace gofish::load
