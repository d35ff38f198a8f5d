// gofish-server: parse the configuration, find the web client, serve until
// SIGINT or SIGTERM, then shut down within the grace period (exit code 0).
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <exception>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "server/config.hpp"
#include "server/metrics.hpp"
#include "server/rooms_handler.hpp"
#include "server/server.hpp"
#include "server/sqlite_store.hpp"
#include "server/store.hpp"
#include "server/transcript_api.hpp"

namespace {

constexpr int kBadValueExitCode = 2;
constexpr int kStoreRefusedExitCode = 3;

std::filesystem::path executable_path(const char* argv0) {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) path = std::filesystem::absolute(argv0, ec);
  return path;
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

}  // namespace

int main(int argc, char** argv) {
  using namespace gofish::server;

  auto parsed = parse_config(argc, argv);
  if (const auto* exit = std::get_if<ConfigExit>(&parsed)) {
    (exit->exit_code == 0 ? std::cout : std::cerr) << exit->text;
    return exit->exit_code;
  }
  auto config = std::get<Config>(std::move(parsed));
  spdlog::set_level(spdlog::level::from_str(config.log_level));
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

  std::error_code ec;
  std::filesystem::create_directories(config.data_dir, ec);
  if (ec || !std::filesystem::is_directory(config.data_dir)) {
    spdlog::error("data dir {}: {}", config.data_dir.string(),
                  ec ? ec.message() : "not a directory");
    return kBadValueExitCode;
  }

  // A store we cannot trust stops the start: serving without its rooms would
  // lose them for good once new rooms were written over them.
  std::unique_ptr<Store> store;
  try {
    if (config.storage == "sqlite") {
      const auto file = config.data_dir / "gofish.sqlite";
      store = std::make_unique<SqliteStore>(
          file, config.sqlite_synchronous == "full" ? SyncMode::kFull : SyncMode::kNormal);
      spdlog::info("storage: sqlite at {} (synchronous={})", std::filesystem::absolute(file).string(),
                   config.sqlite_synchronous);
    } else {
      store = std::make_unique<NullStore>();
      spdlog::warn("storage: none; rooms will not survive a restart");
    }
  } catch (const std::exception& error) {
    spdlog::critical("storage: {}", error.what());
    return kStoreRefusedExitCode;
  }

  try {
    auto metrics = std::make_shared<Metrics>();
    Server server(config, metrics);
    server.handle_signals();
    // Declared after the server, so it is gone first; stopped explicitly
    // once the I/O threads are, so every write submitted is committed
    // before the process exits.
    std::unique_ptr<StoreWriter> writer;
    if (config.storage == "sqlite") {
      writer = std::make_unique<StoreWriter>(*store, std::chrono::seconds(config.finished_game_retention_seconds));
    }
    add_transcript_api(server.api(), *store);
    auto handler = std::make_shared<RoomsHandler>(server.io_context(), config.limits, metrics, GOFISH_VERSION,
                                                  std::make_shared<const TokenHasher>(store->token_key()),
                                                  writer.get());
    try {
      if (const auto restored = handler->restore(*store); restored > 0) {
        spdlog::info("storage: {} rooms restored; their players can resume with their tokens", restored);
      }
    } catch (const StoreError& error) {
      spdlog::critical("storage: {}", error.what());
      return kStoreRefusedExitCode;
    }
    const auto port = server.start(handler);
    spdlog::info("gofish-server listening on {}:{} (web root {}, data dir {}, {} threads)",
                 config.bind, port, std::filesystem::canonical(config.web_root).string(),
                 std::filesystem::absolute(config.data_dir).string(), config.threads);
    server.wait();
    if (writer) {
      writer->stop();
      spdlog::info("storage: every write committed ({} batches)", writer->batches());
    }
  } catch (const std::exception& error) {
    spdlog::critical("{}", error.what());
    return 1;
  }
  return 0;
}
