#include "server/app/config.hpp"

#include <CLI/CLI.hpp>
#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

#include "gofish/version.hpp"
#include "server/edge/memory_allocator.hpp"
#include "server/edge/trusted_proxies.hpp"
#include "server/store/postgres_url.hpp"

namespace gofish::server {

namespace {

constexpr int kBadValueExitCode = 2;

// "--send-queue-bytes" -> "GOFISH_SEND_QUEUE_BYTES".
std::string env_name(std::string_view flag) {
  std::string name = "GOFISH_";
  for (char c : flag.substr(2)) {
    name.push_back(c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return name;
}

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

// A flag given twice takes the last, so a wrapper (a test, a service file)
// can override a default set by appending; a list flag takes them all.
template <class T>
CLI::Option* add_value(CLI::App& app, const std::string& flag, T& value, const std::string& help) {
  auto* option = app.add_option(flag, value, help)->envname(env_name(flag))->capture_default_str();
  if constexpr (!IsVector<T>::value) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  return option;
}

// Durations are whole milliseconds on the command line.
CLI::Option* add_millis(CLI::App& app, const std::string& flag, std::chrono::milliseconds& value,
                        const std::string& help) {
  return app
      .add_option_function<std::int64_t>(
          flag, [&value](const std::int64_t& ms) { value = std::chrono::milliseconds(ms); }, help)
      ->envname(env_name(flag))
      ->default_str(std::to_string(value.count()))
      ->type_name("MS")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)  // as add_value
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{24} * 3600 * 1000));
}

const CLI::Validator kIpAddress(
    [](std::string& text) {
      boost::system::error_code ec;
      boost::asio::ip::make_address(text, ec);
      return ec ? "not an IPv4 or IPv6 address: " + text : std::string();
    },
    "ADDRESS");

// libpq's own parser (postgres_url.hpp); its message may quote the string,
// which may hold a password, so the string is taken out of it.
const CLI::Validator kPostgresUrl(
    [](std::string& text) -> std::string {
      const std::string problem = postgres_url_problem(text);
      return problem.empty() ? std::string() : "not a PostgreSQL connection URL: " + problem;
    },
    "");

}  // namespace

std::variant<Config, ConfigExit> parse_config(int argc, const char* const* argv) {
  Config config;
  config.threads = std::max(1u, std::thread::hardware_concurrency());
  Limits& limits = config.limits;

  CLI::App app{"gofish-server: the Go Fish room server (HTTP, WebSocket /ws, /metrics)",
               "gofish-server"};
  app.get_formatter()->column_width(44);
  app.set_version_flag("--version", std::function<std::string()>([] {
                         return "gofish-server " + std::string(kVersion) + "\nmemory allocator: " +
                                MemoryAllocator::name();
                       }));

  add_value(app, "--port", config.port, "TCP port for HTTP and WebSocket (0: any free port)");
  add_value(app, "--bind", config.bind, "Address to listen on")->check(kIpAddress);
  add_value(app, "--tls-cert", config.tls_cert,
            "TLS on the port (https and wss only): the certificate, with its chain, as PEM; read again on SIGHUP")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  add_value(app, "--tls-key", config.tls_key, "For --tls-cert: its private key, as PEM; read again on SIGHUP")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  std::string redirect_port;
  add_value(app, "--http-redirect-port", redirect_port,
            "With TLS: also listen for plain HTTP on this port (on --bind), answering every request with a redirect "
            "to https (0: any free port; empty: no such port)")
      ->type_name("PORT");
  add_value(app, "--admin-bind", config.admin_bind,
            "Address of the operator port, which alone answers /metrics (keep it private)")
      ->check(kIpAddress);
  std::string admin_port;
  add_value(app, "--admin-port", admin_port,
            "Port for /metrics, /healthz and /readyz on --admin-bind (default: --port + 1, or any free port with "
            "--port 0; off: none)")
      ->type_name("PORT");
  add_value(app, "--data-dir", config.data_dir, "Directory for saved games (created if missing)");
  add_value(app, "--storage", config.storage,
            "Where rooms are kept: sqlite (<data-dir>/gofish.sqlite, survives restarts), postgres (the database "
            "--postgres-url names, which several servers can share) or none")
      ->check(CLI::IsMember({"sqlite", "postgres", "none"}));
  add_value(app, "--postgres-url", config.postgres_url,
            "For --storage postgres: libpq connection URI, postgresql://USER:PASSWORD@HOST:PORT/DATABASE (keep the "
            "password in the environment variable or ~/.pgpass rather than on the command line)")
      ->type_name("URL")
      ->check(kPostgresUrl);
  add_value(app, "--postgres-writers", config.postgres_writers,
            "For --storage postgres: connections the writer commits through side by side, so that commits overlap "
            "(each room's records use one of them); more may help when the database's commit latency, not its "
            "CPU, is what limits")
      ->check(CLI::Range(1u, 32u));
  auto* load_rooms = add_value(app, "--load-rooms", config.load_rooms,
                               "at-start (rebuild every stored room when the server starts) or on-demand (each room "
                               "when first asked for, by code or seat token; the default with --storage postgres)")
                         ->check(CLI::IsMember({"at-start", "on-demand"}));
  add_value(app, "--node-id", config.node_id,
            "With --storage postgres: this server's name among those sharing the database, under which it holds "
            "its rooms' leases (default: host name and process id); letters, digits, '.', '_' and '-', at most 40")
      ->check(CLI::Validator(
          [](const std::string& value) -> std::string {
            const bool good = !value.empty() && value.size() <= 40 &&
                              std::all_of(value.begin(), value.end(), [](char c) {
                                return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
                              });
            return good ? std::string() : "a node id is 1 to 40 letters, digits, '.', '_' or '-'";
          },
          "NODE"));
  add_millis(app, "--lease-ttl-ms", limits.lease_ttl,
             "With --storage postgres: how long a room's lease lasts unless renewed (renewed about every second)")
      ->check(CLI::Range(std::int64_t{300}, std::int64_t{600'000}));
  app.add_option_function<std::int64_t>(
         "--store-commit-delay-us",
         [&limits](const std::int64_t& us) { limits.store_commit_delay = std::chrono::microseconds(us); },
         "How long the store's writer waits for more rooms' records before it commits a batch, unless the I/O threads run out of work first (0: at once)")
      ->envname(env_name("--store-commit-delay-us"))
      ->default_str(std::to_string(limits.store_commit_delay.count()))
      ->type_name("US")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{100'000}));
  add_millis(app, "--store-outage-limit-ms", limits.store_outage_limit,
             "While writes fail (the rooms waiting for them paused, the writes tried again), /healthz answers 503 "
             "once the oldest waiting record is this old")
      ->check(CLI::Range(std::int64_t{1'000}, std::int64_t{86'400'000}));
  add_millis(app, "--store-drain-ms", limits.store_drain,
             "On SIGTERM, how long records still waiting for a failing store are tried before the server exits "
             "with code 4, naming them")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{3'600'000}));
  add_millis(app, "--store-connect-wait-ms", limits.store_connect_wait,
             "With --storage postgres: how long a start waits for a database that cannot be reached before it exits "
             "with code 3 (0: no wait)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{3'600'000}));
  add_value(app, "--sqlite-synchronous", config.sqlite_synchronous,
            "normal (survives a process crash) or full (survives power loss too, slower)")
      ->check(CLI::IsMember({"normal", "full"}));
  // These three have no environment variable: each is meant for one run,
  // and a variable left set would repeat it on every start.
  app.add_flag("--new-token-key", config.new_token_key,
               "Start although the database's seat-token key is missing or damaged: make a new one "
               "(every stored seat token stops working)");
  auto* list = app.add_flag("--list-set-aside", config.list_set_aside,
                            "Print the rooms set aside because they could not be rebuilt (code, when, why), then exit");
  std::string restore_code;
  auto* restore = app.add_option("--restore-set-aside", restore_code,
                                 "Clear a room's set-aside mark so the next start rebuilds it again, then exit")
                      ->type_name("CODE")
                      ->excludes(list);
  add_value(app, "--finished-game-retention-seconds", config.finished_game_retention_seconds,
            "How long a finished game's transcript is kept")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{10} * 366 * 24 * 3600));
  add_value(app, "--web-root", config.web_root,
            "The built web client's directory (default: web beside a build tree's server/, "
            "<prefix>/share/gofish/web or /usr/share/gofish/web)")
      ->check(CLI::ExistingDirectory);
  add_value(app, "--threads", config.threads, "I/O threads (default: the number of cores)")
      ->check(CLI::Range(1u, 256u));
  add_value(app, "--log-level", config.log_level, "trace, debug, info, warn, error, critical or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  add_value(app, "--allowed-origins", config.allowed_origins,
            "Comma-separated Origins allowed to open the WebSocket, e.g. "
            "https://fish.example.org (empty: all)")
      ->delimiter(',')
      ->default_str("");
  add_value(app, "--trusted-proxy", config.trusted_proxies,
            "A proxy (address, or ADDRESS/PREFIX network) whose connections must begin with a PROXY protocol "
            "header (v1 or v2, HAProxy's send-proxy-v2) naming the client; repeat it or separate with commas")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("ADDR")
      ->default_str("")
      ->check(CLI::Validator(
          [](std::string& text) { return TrustedProxies::check(text).value_or(std::string()); }, ""));

  add_value(app, "--max-message-bytes", limits.parse.max_frame_bytes,
            "Largest client message; larger closes with 1009")
      ->check(CLI::Range(std::size_t{64}, std::size_t{1} << 20));
  add_value(app, "--message-rate", limits.message_rate_per_second,
            "Client messages per second per connection (token bucket rate)")
      ->check(CLI::PositiveNumber);
  add_value(app, "--message-burst", limits.message_burst, "Client messages allowed at once")
      ->check(CLI::PositiveNumber);
  add_value(app, "--rate-strikes", limits.rate_strikes_before_close,
            "Rate-limited messages in a row before closing with 1008")
      ->check(CLI::PositiveNumber);
  add_value(app, "--send-queue-messages", limits.send_queue_messages,
            "Outgoing messages queued per connection before it is closed")
      ->check(CLI::PositiveNumber);
  add_value(app, "--send-queue-bytes", limits.send_queue_bytes,
            "Outgoing bytes queued per connection before it is closed")
      ->check(CLI::PositiveNumber);
  add_value(app, "--socket-send-buffer-bytes", limits.socket_send_buffer_bytes,
            "Kernel send buffer per socket (SO_SNDBUF; 0: the kernel's autotuning)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{64} << 20));
  add_millis(app, "--handshake-timeout-ms", limits.handshake_timeout,
             "Time to send HTTP request headers, finish the upgrade or the close handshake")
      ->check(CLI::PositiveNumber);  // 0 would time out every request at once
  add_millis(app, "--idle-timeout-ms", limits.idle_timeout,
             "Silent WebSocket is pinged at half and closed at this (0: never)");
  add_value(app, "--max-connections", limits.max_connections,
            "Open WebSocket connections; more are closed with 1013")
      ->check(CLI::PositiveNumber);
  add_value(app, "--max-connections-per-address", limits.max_connections_per_address,
            "Open WebSocket connections from one address; more are closed with 1013")
      ->check(CLI::PositiveNumber);
  add_value(app, "--newcomer-share-percent", limits.newcomer_share_percent,
            "Share of the connection and socket caps kept for addresses holding none")
      ->check(CLI::Range(std::size_t{0}, std::size_t{90}));
  add_value(app, "--max-sockets-per-address", limits.max_sockets_per_address,
            "TCP sockets from one address (WebSockets, page loads, idle); more are closed at once")
      ->check(CLI::PositiveNumber);
  add_value(app, "--descriptor-reserve", limits.descriptor_reserve,
            "File descriptors kept out of the socket cap (the open-files limit minus this)")
      ->check(CLI::Range(std::size_t{16}, std::size_t{1} << 20));
  add_value(app, "--max-request-bytes", limits.max_request_bytes,
            "Largest HTTP request (line, headers and body)")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 20));
  add_value(app, "--max-rooms", limits.max_rooms, "Rooms open at once")
      ->check(CLI::PositiveNumber);
  add_value(app, "--room-create-rate", limits.room_create_rate_per_second,
            "Rooms one address may create per second (token bucket rate)")
      ->check(CLI::PositiveNumber);
  add_value(app, "--room-create-burst", limits.room_create_burst, "Rooms one address may create at once")
      ->check(CLI::PositiveNumber);
  add_value(app, "--max-rooms-per-address", limits.max_rooms_per_address,
            "Rooms created by one address open at once")
      ->check(CLI::PositiveNumber);
  add_value(app, "--failed-join-rate", limits.failed_join_rate_per_second,
            "Joins with an unknown room code or seat token per second per address")
      ->check(CLI::PositiveNumber);
  add_value(app, "--failed-join-burst", limits.failed_join_burst,
            "Joins with an unknown room code or seat token allowed at once per address")
      ->check(CLI::PositiveNumber);
  add_value(app, "--max-spectators", limits.max_spectators_per_room, "Spectators per room");
  add_value(app, "--max-name-chars", limits.parse.max_name_chars, "Longest display name (code points)")
      ->check(CLI::PositiveNumber);
  add_value(app, "--max-chat-chars", limits.parse.max_chat_chars, "Longest chat line (code points)")
      ->check(CLI::PositiveNumber);
  add_value(app, "--chat-rate", limits.chat_rate_per_second, "Chat lines per second per connection")
      ->check(CLI::PositiveNumber);
  add_value(app, "--chat-burst", limits.chat_burst, "Chat lines allowed at once")
      ->check(CLI::PositiveNumber);
  add_millis(app, "--seat-grace-ms", limits.seat_grace_period,
             "How long a disconnected player's seat is held");
  add_millis(app, "--room-idle-expiry-ms", limits.room_idle_expiry,
             "A room with nobody connected is removed after this");
  add_millis(app, "--unstarted-room-expiry-ms", limits.unstarted_room_expiry,
             "... or after this if it never started a game");
  add_millis(app, "--bot-delay-ms", limits.bot_delay, "Pause before a bot acts (0 in tests)");
  add_value(app, "--room-history-events", limits.room_history_events,
            "Room events kept for resuming; an older gap gets a snapshot")
      ->check(CLI::Range(std::size_t{256}, std::size_t{1} << 20));
  add_value(app, "--min-turn-timer-seconds", limits.parse.min_turn_timer_seconds, "Shortest turn timer a room may set")
      ->check(CLI::Range(1, 3600));
  add_value(app, "--max-turn-timer-seconds", limits.parse.max_turn_timer_seconds, "Longest turn timer a room may set")
      ->check(CLI::Range(1, 3600));
  add_millis(app, "--shutdown-grace-ms", limits.shutdown_grace,
             "On SIGTERM, time for clients to be told and closed before sockets are cut");
  add_value(app, "--client-warnings-per-second", limits.client_warnings_per_second,
            "Warnings a client can cause, logged per second of each kind (the rest counted)")
      ->check(CLI::PositiveNumber);
  add_value(app, "--max-logged-chars", limits.max_logged_chars,
            "Longest client-chosen text (an Origin, a path) written to the log")
      ->check(CLI::Range(std::size_t{8}, std::size_t{4096}));
  add_millis(app, "--memory-trim-interval-ms", limits.memory_trim_interval,
             "After connections close, free memory is given back at most this often (0: never)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    std::ostringstream out;
    std::ostringstream err;
    const int code = app.exit(error, out, err);
    if (code == static_cast<int>(CLI::ExitCodes::Success)) {
      return ConfigExit{0, out.str()};
    }
    return ConfigExit{kBadValueExitCode, err.str()};
  }
  if (restore->count() > 0) config.restore_set_aside = restore_code;
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    return ConfigExit{kBadValueExitCode, "--tls-cert and --tls-key go together: give both, or neither\n"};
  }
  const auto port_value = [](const std::string& text) -> std::optional<std::uint16_t> {
    if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    const auto value = std::stoul(text);
    if (value > 65535) return std::nullopt;
    return static_cast<std::uint16_t>(value);
  };
  if (!redirect_port.empty()) {
    config.http_redirect_port = port_value(redirect_port);
    if (!config.http_redirect_port) {
      return ConfigExit{kBadValueExitCode, "--http-redirect-port: not a port number: " + redirect_port + "\n"};
    }
    if (config.tls_cert.empty()) {
      return ConfigExit{kBadValueExitCode,
                        "--http-redirect-port sends visitors to https, which needs --tls-cert and --tls-key\n"};
    }
  }
  if (admin_port.empty()) {
    if (config.port == 0) {
      config.admin_port = 0;
    } else if (config.port < 65535) {
      config.admin_port = static_cast<std::uint16_t>(config.port + 1);
    } else {
      return ConfigExit{kBadValueExitCode, "--port 65535 leaves no --port + 1 for the operator port: give --admin-port\n"};
    }
  } else if (admin_port != "off") {
    config.admin_port = port_value(admin_port);
    if (!config.admin_port) {
      return ConfigExit{kBadValueExitCode, "--admin-port: a port number or off, not " + admin_port + "\n"};
    }
  }
  if (config.storage == "postgres" && load_rooms->count() == 0) config.load_rooms = "on-demand";
  if ((config.list_set_aside || config.restore_set_aside) && config.storage == "none") {
    return ConfigExit{kBadValueExitCode, "--list-set-aside and --restore-set-aside need --storage sqlite or postgres\n"};
  }
  if (config.storage == "postgres" && config.postgres_url.empty()) {
    return ConfigExit{kBadValueExitCode,
                      "--storage postgres needs --postgres-url (or GOFISH_POSTGRES_URL), e.g. "
                      "postgresql://gofish@db.example.org/gofish\n"};
  }
  return config;
}

std::vector<std::filesystem::path> web_root_candidates(const std::filesystem::path& executable) {
  const auto prefix = executable.parent_path().parent_path();
  // A build tree: build/server/gofish-server beside build/web, the page
  // clients/web/CMakeLists.txt builds. Never clients/web itself: those are
  // the page's sources, not what it serves.
  return {prefix / "web", prefix / "share" / "gofish" / "web", "/usr/share/gofish/web"};
}

std::optional<std::filesystem::path> find_web_root(const std::filesystem::path& executable) {
  for (const auto& candidate : web_root_candidates(executable)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate / "index.html", ec)) {
      return candidate;
    }
  }
  return std::nullopt;
}

}  // namespace gofish::server
