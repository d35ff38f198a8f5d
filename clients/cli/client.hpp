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
#include "protocol/limits.hpp"

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
  // For a wss:// server: trust only the authorities in this PEM file, not the system's.
  std::optional<std::string> ca_file;
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
  // A class event (protocol/README.md, "Class events"). A pupil joins with
  // its code and plays the seat each round gives them; a teacher creates
  // one (the room options above are the tables' rules, `seats` their size)
  // and gets a text console.
  std::optional<std::string> class_code;    // --class: join as a pupil
  std::optional<std::string> create_class;  // --create-class: the class's name
  std::vector<std::string> roster;          // pupils' names; empty: pupils type their own
  engine::BotLevel class_bots = engine::BotLevel::kMedium;
  int rounds = 1;
  bool same_deal = false;
  bool coaching = false;
  // --daily: play today's deal (protocol/README.md, "Today's deal") and
  // print how the game compares with the day's others.
  bool daily = false;
  std::optional<engine::BotLevel> bot;  // play the seat with this engine bot
  int games = 1;                        // with --bot (or a spectator): games before exiting
  int think_ms = 100;                   // the remote bot's pause before each decision
  bool json = false;
  Style style;
  // The first connection: how long it may take in all before the client
  // gives up (exit 3), however many tries that takes.
  int connect_timeout_ms = 5000;
  // One try at a connection: the TCP connection, the WebSocket upgrade and
  // the server's welcome. A server answers all three in milliseconds, and a
  // proxy in front of several retries a request its server leaves
  // unanswered on another within a second (docker/haproxy.cfg, "timeout
  // server"); past this the try is given up and another made, which a proxy
  // sends to a server that answers.
  int handshake_timeout_ms = 3000;
  int resume_window_ms = 30000;  // how long to keep trying to resume after a drop
  // A connected server that sends nothing for this long, not even the pong
  // to the ping it gets after a third of it, is taken for gone (frozen, or
  // its machine lost with no reset), and the client reconnects to resume.
  // A live server answers a ping in milliseconds, busy or not; 1.5 s is
  // well past a loaded machine's hiccup, and short enough that a seat on a
  // frozen server is resumed elsewhere about when that server's leases
  // run out (README, "Running several servers"). 0: never.
  int liveness_timeout_ms = 1500;
  int protocol_version = protocol::kProtocolVersion;  // another only in tests of the version check
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
