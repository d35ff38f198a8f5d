// The server's configuration: command-line flags, each with a GOFISH_*
// environment variable (a flag given on the command line wins). Parsing is a
// function of argv and the environment so tests can drive it directly.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/edge/server_config.hpp"
#include "server/rooms/limits.hpp"

namespace gofish::server {

// What the network server reads (bind, port, web_root, threads, origins,
// trusted proxies, limits) is the edge's ServerConfig (server/edge/
// server_config.hpp); the rest is the storage's and the process's.
struct Config : ServerConfig {
  std::filesystem::path data_dir = "data";
  // Where rooms are kept: "sqlite" (<data_dir>/gofish.sqlite), "postgres"
  // (the database postgres_url names) or "none" (nothing survives a restart;
  // the baseline for measuring durability).
  std::string storage = "sqlite";
  // "at-start" or "on-demand"; with --storage postgres the default is
  // on-demand, and at-start loads only the rooms whose lease this node can
  // take (several servers share the database).
  std::string load_rooms = "at-start";
  // This server's name among the servers sharing a PostgreSQL database (its
  // leases are held under it); empty: the host name and process id.
  std::string node_id;
  // libpq's connection URI (postgresql://user:password@host:port/database)
  // or key=value string, for --storage postgres. libpq fills in what it
  // leaves out from the PG* environment variables and ~/.pgpass.
  std::string postgres_url;
  // Connections the store's writer commits through side by side, for
  // --storage postgres (ShardedWriter); each room's records use one. One
  // by default: with the database on the same machine, more made fewer
  // actions/s (docs/BENCHMARKS.md, Durability cost).
  unsigned postgres_writers = 1;
  // PRAGMA synchronous in WAL mode: "normal" survives a crash of the process,
  // "full" survives power loss too, at an fsync per commit.
  std::string sqlite_synchronous = "normal";
  // How long a finished game's transcript is kept (whole seconds).
  std::int64_t finished_game_retention_seconds = 7 * 24 * 3600;
  std::string log_level = "info";  // trace, debug, info, warn, error, critical, off

  // Start even though a used database has lost its seat-token key: make a
  // new key, knowing every stored seat token stops working (server/store/sqlite_store.hpp).
  bool new_token_key = false;
  // One-off actions on the store (<data_dir>/gofish.sqlite, or PostgreSQL)
  // instead of serving; the
  // program exits once done. Rooms the server could not rebuild are set
  // aside in the store (server/store/store.hpp): list them, or put one back so the next
  // start tries it again (after a repair, or a fixed server).
  bool list_set_aside = false;
  std::optional<std::string> restore_set_aside;  // a room code
};

// parse_config's answer when the program should exit instead of serving:
// --help or --version (code 0, text for stdout) or a bad value (code 2, text
// for stderr).
struct ConfigExit {
  int exit_code = 0;
  std::string text;
};

std::variant<Config, ConfigExit> parse_config(int argc, const char* const* argv);

// Where the built web client may be, in order, for an executable in
// <prefix>/<dir>/: <prefix>/web (a build tree: build/server beside build/web),
// <prefix>/share/gofish/web (an install), /usr/share/gofish/web.
std::vector<std::filesystem::path> web_root_candidates(const std::filesystem::path& executable);
// The first candidate holding an index.html.
std::optional<std::filesystem::path> find_web_root(const std::filesystem::path& executable);

}  // namespace gofish::server
