// gofish-server: parse the configuration, find the web client, serve until
// SIGINT or SIGTERM, then shut down within the grace period (exit code 0).
// Or, with --list-set-aside / --restore-set-aside, act on the store and exit.
//
// Exit codes: 0 done; 1 an unexpected failure; 2 a bad flag or value (or no
// such set-aside room); 3 a database that cannot be used as a whole (not
// SQLite, a newer schema, a failed integrity check, a lost seat-token key;
// a PostgreSQL server that refuses the login, or cannot be reached within
// --store-connect-wait-ms); 4 stopped with records a failing store never
// took (after --store-drain-ms of tries; the log names their rooms, and
// nothing they held was sent).
// A single room that cannot be rebuilt does not stop the start: it is set
// aside (RoomsHandler::restore).
#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

#include "gofish/version.hpp"
#include "protocol/text.hpp"
#include "server/app/config.hpp"
#include "server/edge/memory_allocator.hpp"
#include "server/edge/server.hpp"
#include "server/rooms/event_results_api.hpp"
#include "server/rooms/lease_keeper.hpp"
#include "server/rooms/metrics.hpp"
#include "server/rooms/rooms_handler.hpp"
#include "server/rooms/transcript_api.hpp"
#include "server/store/postgres_store.hpp"
#include "server/store/sharded_writer.hpp"
#include "server/store/sqlite_store.hpp"
#include "server/store/store.hpp"
#include "server/store/store_health.hpp"

namespace {

constexpr int kBadValueExitCode = 2;
constexpr int kStoreRefusedExitCode = 3;
constexpr int kUnwrittenExitCode = 4;

std::filesystem::path executable_path(const char* argv0) {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) path = std::filesystem::absolute(argv0, ec);
  return path;
}

// "2026-01-31T12:00:00Z" for milliseconds since the Unix epoch.
std::string utc_time(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  return std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm) ? text : std::to_string(ms);
}

// --list-set-aside and --restore-set-aside: the store only, no server. Safe
// while a server runs on the same store (SQLite in WAL mode, or PostgreSQL);
// a room put back is rebuilt at the next start.
int store_action(const gofish::server::Config& config) {
  using namespace gofish::server;
  std::unique_ptr<Store> store;
  std::string where;
  try {
    if (config.storage == "postgres") {
      auto postgres = std::make_unique<PostgresStore>(config.postgres_url);
      where = "the PostgreSQL " + postgres->where();
      store = std::move(postgres);
    } else {
      const auto file = config.data_dir / "gofish.sqlite";
      where = file.string();
      std::error_code ec;
      if (!std::filesystem::exists(file, ec)) {
        if (config.list_set_aside) {
          std::cout << "No room is set aside: " << where << " does not exist.\n";
          return 0;
        }
        std::cerr << where << " does not exist, so no room is set aside in it.\n";
        return kBadValueExitCode;
      }
      store = std::make_unique<SqliteStore>(file, SyncMode::kNormal);
    }
  } catch (const std::exception& error) {
    spdlog::critical("storage: {}", error.what());
    return kStoreRefusedExitCode;
  }
  if (config.list_set_aside) {
    const auto rooms = store->set_aside_rooms();
    if (rooms.empty()) std::cout << "No room is set aside in " << where << ".\n";
    // One room a line: code, when (UTC), why; tab-separated.
    for (const SetAsideRoom& room : rooms) {
      std::cout << room.room << '\t' << utc_time(room.set_aside_ms) << '\t' << room.reason << '\n';
    }
    return 0;
  }
  const auto code = gofish::protocol::normalize_room_code(*config.restore_set_aside);
  if (!code || !store->restore_set_aside(*code)) {
    std::cerr << "No room " << *config.restore_set_aside << " is set aside in " << where
              << "; --list-set-aside lists those that are.\n";
    return kBadValueExitCode;
  }
  std::cout << "Room " << *code << " is no longer set aside: the next start rebuilds it (or sets it aside again, "
            << "saying why).\n";
  return 0;
}

// Every socket is a descriptor, and the usual soft limit (1024) would stop
// the server long before max_connections; the hard limit is the most an
// unprivileged process may take. The server caps its sockets below whatever
// it gets (Limits::descriptor_reserve).
void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    spdlog::warn("open files: cannot read the limit");
    return;
  }
  const rlim_t before = limit.rlim_cur;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
      spdlog::warn("open files: cannot raise the limit from {} to {}", before, limit.rlim_max);
      return;
    }
    spdlog::info("open files: limit raised from {} to {}", before, limit.rlim_cur);
  } else {
    spdlog::info("open files: limit {}", limit.rlim_cur);
  }
}

// --node-id's default: the host name (as a node id may spell it) and the
// process id, so two servers on one machine differ too.
std::string default_node_id() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::string id;
  for (const char* c = host; *c != '\0' && id.size() < 24; ++c) {
    const unsigned char ch = static_cast<unsigned char>(*c);
    if (std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-') id.push_back(*c);
  }
  if (id.empty()) id = "node";
  return id + "-" + std::to_string(::getpid());
}

// A database that is starting (or restarting) beside this server is waited
// for, up to --store-connect-wait-ms; anything else it says stops the start.
std::unique_ptr<gofish::server::PostgresStore> open_postgres(const gofish::server::Config& config) {
  using namespace gofish::server;
  const auto missing_key = config.new_token_key ? MissingTokenKey::kMakeNew : MissingTokenKey::kRefuse;
  const auto deadline = std::chrono::steady_clock::now() + config.limits.store_connect_wait;
  for (bool told = false;; told = true) {
    try {
      return std::make_unique<PostgresStore>(config.postgres_url, missing_key);
    } catch (const StoreUnreachable& error) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) throw;
      if (!told) {
        spdlog::warn("storage: {}; waiting up to {} ms for it (--store-connect-wait-ms)", error.what(),
                     config.limits.store_connect_wait.count());
      }
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(500),
                                                                                 deadline - now));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gofish::server;
  MemoryAllocator::configure();

  auto parsed = parse_config(argc, argv);
  if (const auto* exit = std::get_if<ConfigExit>(&parsed)) {
    (exit->exit_code == 0 ? std::cout : std::cerr) << exit->text;
    return exit->exit_code;
  }
  auto config = std::get<Config>(std::move(parsed));
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  if (config.list_set_aside || config.restore_set_aside) return store_action(config);
  raise_open_file_limit();

  if (config.web_root.empty()) {
    const auto executable = executable_path(argv[0]);
    const auto found = find_web_root(executable);
    if (!found) {
      spdlog::error("no web client found; tried:");
      for (const auto& candidate : web_root_candidates(executable)) {
        spdlog::error("  {}", candidate.string());
      }
      spdlog::error("pass --web-root or set GOFISH_WEB_ROOT");
      return kBadValueExitCode;
    }
    config.web_root = *found;
    spdlog::info("web root found at {}", config.web_root.string());
  }

  // PostgreSQL keeps nothing in the data dir.
  if (config.storage != "postgres") {
    std::error_code ec;
    std::filesystem::create_directories(config.data_dir, ec);
    if (ec || !std::filesystem::is_directory(config.data_dir)) {
      spdlog::error("data dir {}: {}", config.data_dir.string(), ec ? ec.message() : "not a directory");
      return kBadValueExitCode;
    }
  }

  // With PostgreSQL several servers may share the database: each room is
  // owned by one of them at a time, by lease (server/store/postgres_store.hpp).
  const bool leases = config.storage == "postgres";
  const std::string node_id = config.node_id.empty() ? default_node_id() : config.node_id;

  // A store we cannot trust stops the start: serving without its rooms would
  // lose them for good once new rooms were written over them.
  std::unique_ptr<Store> store;
  std::array<std::uint64_t, 4> token_key{};
  try {
    if (config.storage == "sqlite") {
      const auto file = config.data_dir / "gofish.sqlite";
      store =
          std::make_unique<SqliteStore>(file, config.sqlite_synchronous == "full" ? SyncMode::kFull : SyncMode::kNormal,
                                        config.new_token_key ? MissingTokenKey::kMakeNew : MissingTokenKey::kRefuse);
      spdlog::info("storage: sqlite at {} (synchronous={})", std::filesystem::absolute(file).string(),
                   config.sqlite_synchronous);
    } else if (config.storage == "postgres") {
      auto postgres = open_postgres(config);
      spdlog::info("storage: postgres, {}", postgres->where());
      postgres->fence_as(node_id);
      spdlog::info("storage: this server is node {}; it holds its rooms by leases of {} ms", node_id,
                   config.limits.lease_ttl.count());
      store = std::move(postgres);
    } else {
      store = std::make_unique<NullStore>();
      spdlog::warn("storage: none; rooms will not survive a restart");
    }
    token_key = store->token_key();
  } catch (const std::exception& error) {
    spdlog::critical("storage: {}", error.what());
    return kStoreRefusedExitCode;
  }

  try {
    auto metrics = std::make_shared<Metrics>();
    // What the writers and the lease keeper see of the store: read by the
    // rooms, /healthz, /readyz and /metrics. Outlives all of them.
    const std::size_t lanes = config.storage == "postgres" ? config.postgres_writers : 1;
    StoreHealth health(lanes, config.limits.store_outage_limit);
    if (leases) {
      // Rooms send nothing past the moment their leases could run out,
      // less a margin for the database's clock and this one drifting.
      health.use_leases(config.limits.lease_ttl, std::min(std::chrono::milliseconds(500), config.limits.lease_ttl / 4));
    }
    metrics->watch_store(&health);
    Server server(config, metrics);
    if (config.storage != "none") {
      server.set_health([&health] {
        const auto answer = health.health();
        return Server::Health{answer.status, answer.text};
      });
    }
    server.handle_signals();
    // Renews this node's leases and hands rooms over (--storage postgres);
    // outlives the writer, whose callbacks may release a lease through it.
    std::unique_ptr<LeaseKeeper> keeper;
    // Declared after the server, so it is gone first; stopped explicitly
    // once the I/O threads are, so every write submitted is committed
    // before the process exits.
    // With PostgreSQL the writer has connections of its own, one per lane
    // (server/store/sharded_writer.hpp); SQLite commits through the store's one.
    std::vector<std::unique_ptr<Store>> writer_stores;
    std::unique_ptr<ShardedWriter> writer;
    if (config.storage != "none") {
      std::vector<Store*> lanes_of;
      if (auto* postgres = dynamic_cast<PostgresStore*>(store.get())) {
        for (unsigned i = 0; i < config.postgres_writers; ++i) {
          writer_stores.push_back(postgres->open_writer());
          lanes_of.push_back(writer_stores.back().get());
        }
      } else {
        lanes_of.push_back(store.get());
      }
      writer = std::make_unique<ShardedWriter>(lanes_of, std::chrono::seconds(config.finished_game_retention_seconds),
                                               std::chrono::minutes(1), &health);
      writer->commit_delay(config.limits.store_commit_delay);
      server.on_idle([writer = writer.get()] { writer->flush_now(); });
      writer->run_callbacks_with([&io = server.io_context()](StoreWriter::Callbacks callbacks) {
        boost::asio::post(io, std::move(callbacks));
      });
    }
    add_transcript_api(server.api(), *store);
    auto handler =
        std::make_shared<RoomsHandler>(server.io_context(), config.limits, metrics, std::string(gofish::kVersion),
                                       std::make_shared<const TokenHasher>(token_key), writer.get(), &health);
    add_event_results_api(server.api(), handler->events());
    handler->keep_daily_in(*store);
    // A class closed before this start keeps its results readable.
    handler->events().keep_closed_in(*store);
    try {
      if ((config.load_rooms == "on-demand" && config.storage != "none") || leases) {
        handler->load_on_demand(*store);
        if (config.load_rooms == "on-demand") {
          spdlog::info("storage: rooms are rebuilt when first asked for (--load-rooms on-demand)");
        }
      }
      if (leases) {
        auto& registry = handler->registry();
        registry.use_leases(node_id, config.limits.lease_ttl);
        // A commit fenced out: the room is another node's now.
        writer->on_fenced([weak = registry.weak_from_this()](const std::string& code) {
          if (auto held = weak.lock()) held->lost(code);
        });
        // Class events too are held by leases, and loaded when asked for.
        handler->events().use_leases(registry, *store);
      }
      const auto restored = config.load_rooms == "on-demand" ? RoomsHandler::Restored{} : handler->restore(*store);
      if (restored.rooms > 0) {
        spdlog::info("storage: {} rooms restored; their players can resume with their tokens", restored.rooms);
      }
      // Events after rooms: an event watches its tables' rooms again. With
      // leases each is taken over when first asked for, as a room is.
      if (const std::size_t events = leases ? 0 : handler->restore_events(*store); events > 0) {
        spdlog::info("storage: {} class events restored", events);
      }
      if (restored.set_aside > 0) {
        spdlog::warn(
            "storage: {} rooms set aside, kept in the database but not open; "
            "gofish-server --list-set-aside names them",
            restored.set_aside);
      }
    } catch (const StoreError& error) {
      spdlog::critical("storage: {}", error.what());
      return kStoreRefusedExitCode;
    }
    if (leases) {
      const auto renew = std::min(std::chrono::milliseconds(1000), config.limits.lease_ttl / 3);
      keeper = std::make_unique<LeaseKeeper>(*store, handler->registry().shared_from_this(), node_id,
                                             config.limits.lease_ttl, renew, &health);
    }
    server.set_readiness([&keeper, &health]() -> std::optional<std::string> {
      if (auto problem = keeper ? keeper->problem() : std::nullopt) return problem;
      return health.not_ready();
    });
    const auto port = server.start(handler);
    spdlog::info("gofish-server listening on {}:{}{} (web root {}, data dir {}, {} threads)",
                 config.bind, port, server.tls() ? " with TLS (https, wss)" : "", std::filesystem::canonical(config.web_root).string(),
                 std::filesystem::absolute(config.data_dir).string(), config.threads);
    spdlog::info("memory allocator: {}", MemoryAllocator::name());
    server.wait();
    if (keeper) keeper->stop();
    std::size_t unwritten_records = 0;
    if (writer) {
      // Records that wait for a failing store are tried until the drain
      // deadline; what is left then was never acknowledged to anyone.
      const auto unwritten = writer->stop(std::chrono::steady_clock::now() + config.limits.store_drain);
      if (unwritten.empty()) {
        spdlog::info("storage: every write committed ({} batches)", writer->batches());
      } else {
        std::string rooms;
        for (const auto& [code, count] : unwritten) {
          unwritten_records += count;
          rooms += (rooms.empty() ? "" : ", ") + code + " (" + std::to_string(count) + ")";
        }
        const auto records = std::to_string(unwritten_records) + (unwritten_records == 1 ? " record" : " records");
        const auto of_rooms = std::to_string(unwritten.size()) + (unwritten.size() == 1 ? " room" : " rooms");
        spdlog::critical("storage: not stored within {} ms (--store-drain-ms): {} of {} in all: {}; nothing they "
                         "held was sent, and the rooms come back as the store last had them",
                         config.limits.store_drain.count(), records, of_rooms, rooms);
      }
    }
    if (leases) {
      // Drained: other nodes may take every room at once, without waiting
      // for the leases to run out.
      try {
        store->release_leases(node_id, {});
        spdlog::info("leases: every lease of node {} released", node_id);
      } catch (const std::exception& error) {
        spdlog::error("leases: releasing them failed ({}); they expire by themselves", error.what());
      }
    }
    if (unwritten_records > 0) return kUnwrittenExitCode;
  } catch (const std::exception& error) {
    spdlog::critical("{}", error.what());
    return 1;
  }
  return 0;
}
