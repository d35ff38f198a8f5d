// The terminal client's session: it greets the server, enters a room
// (create, join, spectate, or resume after a dropped connection), keeps the
// Table current, narrates every event, and then either reads commands from a
// person or lets a RemoteBot play the seat.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/cli/address.hpp"
#include "clients/cli/narrate.hpp"
#include "clients/cli/remote_bot.hpp"
#include "clients/cli/table.hpp"

namespace gofish::cli {

// Exit statuses, documented in --help and the README.
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 2,
  kExitUnreachable = 3,
  kExitBadCode = 4,  // no room has that code, or it is not a code
  kExitRoomFull = 5,
  kExitVersion = 6,  // the server speaks another protocol version
  kExitRefused = 7,  // any other refusal, or the connection was lost for good
};

struct Options {
  ServerAddress address;
  std::string name = "Player";
  bool create = false;
  std::optional<std::string> join_code;
  bool spectate = false;
  std::string preset = "classic";
  int seats = 4;
  std::vector<engine::BotLevel> bots;  // server bots, in seats 1, 2, ...
  int turn_timer_seconds = 0;
  bool table_rules = false;  // players answer asks and declare sets themselves
  bool spectators = true;    // others may watch
  bool listed = false;       // shown in the lobby while it waits for players
  bool start_when_full = false;
  std::optional<engine::BotLevel> bot;  // play the seat with this engine bot
  int games = 1;                        // with --bot (or a spectator): games before exiting
  int think_ms = 100;                   // the remote bot's pause before each decision
  bool json = false;
  Style style;
  int connect_timeout_ms = 5000;
  int resume_window_ms = 30000;  // how long to keep trying to resume after a drop
  int protocol_version = 1;
};

class Session;

class Client {
 public:
  explicit Client(Options options);
  ~Client();
  // Runs the whole session; returns the exit status.
  int run();

 private:
  std::unique_ptr<Session> session_;
};

}  // namespace gofish::cli
