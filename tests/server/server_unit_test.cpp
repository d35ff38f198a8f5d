// The server's pieces that need no network: configuration parsing, request
// paths, the token bucket and the metrics text.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gofish/version.hpp"
#include "protocol/errors.hpp"
#include "server/app/config.hpp"
#include "server/edge/http_paths.hpp"
#include "server/edge/log_limiter.hpp"
#include "server/edge/memory_allocator.hpp"
#include "server/rooms/connection.hpp"
#include "server/rooms/metrics.hpp"
#include "server/store/decision_sequences.hpp"
#include "server/store/store.hpp"

namespace gofish::server {
namespace {

using namespace std::chrono_literals;

std::variant<Config, ConfigExit> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gofish-server");
  std::vector<const char*> argv;
  for (const auto& arg : args) argv.push_back(arg.c_str());
  return parse_config(static_cast<int>(argv.size()), argv.data());
}

Config parse_ok(std::vector<std::string> args) {
  auto result = parse(std::move(args));
  if (const auto* exit = std::get_if<ConfigExit>(&result)) {
    FAIL("unexpected exit " << exit->exit_code << ": " << exit->text);
  }
  return std::get<Config>(std::move(result));
}

ConfigExit parse_exit(std::vector<std::string> args) {
  auto result = parse(std::move(args));
  REQUIRE(std::holds_alternative<ConfigExit>(result));
  return std::get<ConfigExit>(std::move(result));
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST_CASE("config: defaults") {
  const auto config = parse_ok({});
  CHECK(config.port == 8080);
  CHECK(config.bind == "0.0.0.0");
  CHECK(config.data_dir == "data");
  CHECK(config.storage == "sqlite");
  CHECK(config.sqlite_synchronous == "normal");
  CHECK(config.finished_game_retention_seconds == 7 * 24 * 3600);
  CHECK(config.web_root.empty());
  CHECK(config.threads >= 1);
  CHECK(config.log_level == "info");
  CHECK(config.allowed_origins.empty());
  const Limits defaults;
  CHECK(config.limits.parse.max_frame_bytes == defaults.parse.max_frame_bytes);
  CHECK(config.limits.idle_timeout == defaults.idle_timeout);
  CHECK(config.limits.shutdown_grace == defaults.shutdown_grace);
}

TEST_CASE("config: flags") {
  const auto config = parse_ok({"--port", "0", "--bind", "127.0.0.1", "--threads", "3",
                                "--log-level", "debug", "--data-dir", "/tmp/x",
                                "--web-root", GOFISH_SOURCE_DIR "/clients/web",
                                "--allowed-origins", "https://a.example,https://b.example",
                                "--max-message-bytes", "2048", "--message-rate", "2.5",
                                "--message-burst", "7", "--rate-strikes", "3",
                                "--send-queue-messages", "9", "--send-queue-bytes", "4096",
                                "--handshake-timeout-ms", "1500", "--idle-timeout-ms", "0",
                                "--max-connections", "11", "--max-request-bytes", "2048",
                                "--max-rooms", "12", "--max-spectators", "0",
                                "--max-name-chars", "10", "--max-chat-chars", "50",
                                "--chat-rate", "0.5", "--chat-burst", "2",
                                "--seat-grace-ms", "1000", "--room-idle-expiry-ms", "2000",
                                "--bot-delay-ms", "0", "--shutdown-grace-ms", "250"});
  CHECK(config.port == 0);
  CHECK(config.bind == "127.0.0.1");
  CHECK(config.threads == 3);
  CHECK(config.log_level == "debug");
  CHECK(config.data_dir == "/tmp/x");
  CHECK(config.web_root == GOFISH_SOURCE_DIR "/clients/web");
  CHECK(config.allowed_origins ==
        std::vector<std::string>{"https://a.example", "https://b.example"});
  const auto& limits = config.limits;
  CHECK(limits.parse.max_frame_bytes == 2048);
  CHECK(limits.message_rate_per_second == 2.5);
  CHECK(limits.message_burst == 7);
  CHECK(limits.rate_strikes_before_close == 3);
  CHECK(limits.send_queue_messages == 9);
  CHECK(limits.send_queue_bytes == 4096);
  CHECK(limits.handshake_timeout == 1500ms);
  CHECK(limits.idle_timeout == 0ms);
  CHECK(limits.max_connections == 11);
  CHECK(limits.max_request_bytes == 2048);
  CHECK(limits.max_rooms == 12);
  CHECK(limits.max_spectators_per_room == 0);
  CHECK(limits.parse.max_name_chars == 10);
  CHECK(limits.parse.max_chat_chars == 50);
  CHECK(limits.chat_rate_per_second == 0.5);
  CHECK(limits.chat_burst == 2);
  CHECK(limits.seat_grace_period == 1000ms);
  CHECK(limits.room_idle_expiry == 2000ms);
  CHECK(limits.bot_delay == 0ms);
  CHECK(limits.shutdown_grace == 250ms);
}

TEST_CASE("config: the per-address, descriptor, memory and log limits") {
  const auto config = parse_ok({"--max-connections-per-address", "5", "--newcomer-share-percent", "20",
                                "--max-sockets-per-address", "9", "--descriptor-reserve", "32",
                                "--socket-send-buffer-bytes", "0", "--room-create-rate", "0.25",
                                "--room-create-burst", "4", "--max-rooms-per-address", "6",
                                "--failed-join-rate", "0.5", "--failed-join-burst", "3",
                                "--unstarted-room-expiry-ms", "700", "--client-warnings-per-second", "2",
                                "--max-logged-chars", "40", "--memory-trim-interval-ms", "0"});
  const auto& limits = config.limits;
  CHECK(limits.max_connections_per_address == 5);
  CHECK(limits.newcomer_share_percent == 20);
  CHECK(limits.max_sockets_per_address == 9);
  CHECK(limits.descriptor_reserve == 32);
  CHECK(limits.socket_send_buffer_bytes == 0);
  CHECK(limits.room_create_rate_per_second == 0.25);
  CHECK(limits.room_create_burst == 4);
  CHECK(limits.max_rooms_per_address == 6);
  CHECK(limits.failed_join_rate_per_second == 0.5);
  CHECK(limits.failed_join_burst == 3);
  CHECK(limits.unstarted_room_expiry == 700ms);
  CHECK(limits.client_warnings_per_second == 2);
  CHECK(limits.max_logged_chars == 40);
  CHECK(limits.memory_trim_interval == 0ms);
  CHECK(parse_exit({"--newcomer-share-percent", "95"}).exit_code == 2);
}

TEST_CASE("config: a duration given twice takes the last, like every other flag") {
  // Tests append their own flags to a default set (server_process.hpp).
  CHECK(parse_ok({"--seat-grace-ms", "100", "--seat-grace-ms", "500"}).limits.seat_grace_period == 500ms);
  CHECK(parse_ok({"--max-rooms", "5", "--max-rooms", "7"}).limits.max_rooms == 7);
}

TEST_CASE("close reasons: the network layer's spellings are the protocol's") {
  using protocol::CloseReason;
  const std::vector<std::pair<server::CloseReason, CloseReason>> pairs = {
      {close_normal(), CloseReason::kNormal},
      {close_shutting_down(), CloseReason::kShuttingDown},
      {close_protocol_error(), CloseReason::kProtocolError},
      {close_unsupported_data(), CloseReason::kUnsupportedData},
      {close_bad_utf8(), CloseReason::kBadUtf8},
      {close_rate_limited(), CloseReason::kRateLimited},
      {close_slow_reader(), CloseReason::kSlowReader},
      {close_too_large(), CloseReason::kTooLarge},
      {close_server_full(), CloseReason::kServerFull},
      {close_internal(), CloseReason::kInternal},
  };
  for (const auto& [ours, theirs] : pairs) {
    CAPTURE(ours.reason);
    CHECK(ours.reason == protocol::close_reason_name(theirs));
    CHECK(ours.code == protocol::close_code(theirs));
  }
}

TEST_CASE("close handshake: a peer's close is answered with 1000, or 1002 for a code no peer may send") {
  for (const std::uint16_t code : std::vector<std::uint16_t>{0, 1000, 1001, 1002, 1003, 1007, 1011, 3000, 4999}) {
    CAPTURE(code);
    CHECK(reply_to_close(code, code == 0 ? std::uint16_t{1000} : code).reason == "normal");
  }
  for (const std::uint16_t code : std::vector<std::uint16_t>{1012, 1013, 1014, 5000, 65535}) {
    CAPTURE(code);
    const auto answer = reply_to_close(code, code);
    CHECK(answer.code == 1002);
    CHECK(answer.reason == "protocol_error");
  }
  // A connection the library failed: the reason named for its code.
  CHECK(reply_to_close(std::nullopt, 1007).reason == "bad_utf8");
  CHECK(reply_to_close(std::nullopt, 1002).reason == "protocol_error");
}

TEST_CASE("log limiter: so many warnings a second of each kind, then a count of the rest") {
  LogLimiter limiter(2);
  const auto t0 = LogLimiter::Clock::now();
  std::size_t suppressed = 99;
  CHECK(limiter.allow("origin", t0, suppressed));
  CHECK(suppressed == 0);
  CHECK(limiter.allow("origin", t0, suppressed));
  for (int i = 0; i < 5; ++i) CHECK_FALSE(limiter.allow("origin", t0 + 500ms, suppressed));
  CHECK(limiter.allow("full", t0 + 500ms, suppressed));  // another kind
  CHECK(limiter.allow("origin", t0 + 1000ms, suppressed));
  CHECK(suppressed == 5);
  CHECK(limiter.allow("origin", t0 + 1100ms, suppressed));
  CHECK(suppressed == 0);
}

TEST_CASE("loggable: client text cut and escaped") {
  CHECK(loggable("https://fish.example.org", 100) == "https://fish.example.org");
  CHECK(loggable("a\nb'\"\\\x01\xff", 100) == "a\\x0ab\\'\\\"\\\\\\x01\\xff");
  const std::string long_text(8000, 'e');
  const auto cut = loggable(long_text, 100);
  CHECK(cut == std::string(100, 'e') + "...(8000 bytes)");
}

TEST_CASE("config: --trusted-proxy is repeatable, takes comma lists and the environment, and checks each entry") {
  CHECK(parse_ok({}).trusted_proxies.empty());
  CHECK(parse_ok({"--trusted-proxy", "10.0.0.1", "--trusted-proxy=2001:db8::1,192.0.2.0/24", "--port", "0"})
            .trusted_proxies == std::vector<std::string>{"10.0.0.1", "2001:db8::1", "192.0.2.0/24"});
  CHECK(parse_exit({"--trusted-proxy", "haproxy"}).exit_code == 2);
  CHECK(parse_exit({"--trusted-proxy", "10.0.0.1,10.0.0.0/33"}).exit_code == 2);
  ScopedEnv trusted("GOFISH_TRUSTED_PROXY", "127.0.0.1,::1");
  CHECK(parse_ok({}).trusted_proxies == std::vector<std::string>{"127.0.0.1", "::1"});
  CHECK(parse_ok({"--trusted-proxy", "10.0.0.1"}).trusted_proxies == std::vector<std::string>{"10.0.0.1"});
}

TEST_CASE("config: environment variables, and flags win over them") {
  ScopedEnv port("GOFISH_PORT", "9191");
  ScopedEnv origins("GOFISH_ALLOWED_ORIGINS", "https://a.example,https://b.example");
  ScopedEnv grace("GOFISH_SHUTDOWN_GRACE_MS", "1234");
  ScopedEnv queue("GOFISH_SEND_QUEUE_BYTES", "5000");
  ScopedEnv level("GOFISH_LOG_LEVEL", "warn");
  ScopedEnv storage("GOFISH_STORAGE", "none");
  ScopedEnv synchronous("GOFISH_SQLITE_SYNCHRONOUS", "full");
  ScopedEnv retention("GOFISH_FINISHED_GAME_RETENTION_SECONDS", "60");

  const auto from_env = parse_ok({});
  CHECK(from_env.port == 9191);
  CHECK(from_env.allowed_origins.size() == 2);
  CHECK(from_env.limits.shutdown_grace == 1234ms);
  CHECK(from_env.limits.send_queue_bytes == 5000);
  CHECK(from_env.log_level == "warn");
  CHECK(from_env.storage == "none");
  CHECK(from_env.sqlite_synchronous == "full");
  CHECK(from_env.finished_game_retention_seconds == 60);
  CHECK(parse_ok({"--storage", "sqlite"}).storage == "sqlite");

  CHECK(parse_ok({"--port", "7000"}).port == 7000);

  ScopedEnv bad("GOFISH_THREADS", "zero");
  CHECK(parse_exit({}).exit_code == 2);
}

TEST_CASE("config: bad values exit with code 2 and say why") {
  const std::vector<std::vector<std::string>> bad = {
      {"--port", "abc"},
      {"--port", "70000"},
      {"--bind", "1.2.3"},
      {"--threads", "0"},
      {"--log-level", "loud"},
      {"--storage", "mysql"},
      {"--storage", "postgres"},  // without --postgres-url
      {"--storage", "postgres", "--postgres-url", "postgresql://gofish@[::1/gofish"},
      {"--storage", "postgres", "--postgres-url", "postgresql://gofish@db/gofish?no_such_option=1"},
      {"--storage", "postgres", "--postgres-url", "host=db dbname"},
      {"--sqlite-synchronous", "off"},
      {"--store-commit-delay-us", "-1"},
      {"--store-commit-delay-us", "100001"},
      {"--finished-game-retention-seconds", "-1"},
      {"--web-root", "/no/such/dir"},
      {"--idle-timeout-ms", "-5"},
      {"--handshake-timeout-ms", "0"},
      {"--message-rate", "0"},
      {"--max-message-bytes", "10"},
      {"--no-such-flag"},
      {"stray"},
  };
  for (const auto& args : bad) {
    CAPTURE(args.front());
    const auto exit = parse_exit(args);
    CHECK(exit.exit_code == 2);
    CHECK(!exit.text.empty());
  }
  CHECK(parse_exit({"--bind", "1.2.3"}).text.find("1.2.3") != std::string::npos);
}

TEST_CASE("config: the operator port, TLS and the redirect port") {
  // The operator port is the public one + 1 unless given; any free one with --port 0.
  CHECK(parse_ok({}).admin_port == std::optional<std::uint16_t>(8081));
  CHECK(parse_ok({}).admin_bind == "127.0.0.1");
  CHECK(parse_ok({"--port", "9000"}).admin_port == std::optional<std::uint16_t>(9001));
  CHECK(parse_ok({"--port", "0"}).admin_port == std::optional<std::uint16_t>(0));
  CHECK(parse_ok({"--admin-port", "9100", "--admin-bind", "10.0.0.5"}).admin_port ==
        std::optional<std::uint16_t>(9100));
  CHECK(parse_ok({"--admin-bind", "10.0.0.5"}).admin_bind == "10.0.0.5");
  CHECK(!parse_ok({"--admin-port", "off"}).admin_port);
  CHECK(parse_exit({"--admin-port", "8o81"}).exit_code == 2);
  CHECK(parse_exit({"--admin-port", "65536"}).exit_code == 2);
  CHECK(parse_exit({"--admin-bind", "localhost"}).exit_code == 2);
  CHECK(parse_exit({"--port", "65535"}).text.find("--admin-port") != std::string::npos);
  // No TLS unless both files are given, and they must exist.
  const auto self = std::filesystem::path(GOFISH_WEB_ROOT) / "index.html";  // any existing file
  CHECK(parse_ok({}).tls_cert.empty());
  const auto tls = parse_ok({"--tls-cert", self.string(), "--tls-key", self.string(), "--http-redirect-port", "80"});
  CHECK(tls.tls_cert == self);
  CHECK(tls.tls_key == self);
  CHECK(tls.http_redirect_port == std::optional<std::uint16_t>(80));
  CHECK(!parse_ok({}).http_redirect_port);
  CHECK(parse_exit({"--tls-cert", self.string()}).text.find("--tls-key") != std::string::npos);
  CHECK(parse_exit({"--tls-cert", "/no/such/file", "--tls-key", self.string()}).exit_code == 2);
  CHECK(parse_exit({"--http-redirect-port", "80"}).text.find("needs --tls-cert") != std::string::npos);
  CHECK(parse_exit({"--tls-cert", self.string(), "--tls-key", self.string(), "--http-redirect-port", "x"})
            .exit_code == 2);
}

TEST_CASE("config: --storage postgres takes its URL from --postgres-url or GOFISH_POSTGRES_URL") {
  const auto flag =
      parse_ok({"--storage", "postgres", "--postgres-url", "postgresql://gofish:pw@db.example:5433/fish"});
  CHECK(flag.storage == "postgres");
  CHECK(flag.postgres_url == "postgresql://gofish:pw@db.example:5433/fish");
  CHECK(parse_ok({"--storage", "postgres", "--postgres-url", "host=db dbname=fish"}).postgres_url ==
        "host=db dbname=fish");
  {
    ScopedEnv storage("GOFISH_STORAGE", "postgres");
    ScopedEnv url("GOFISH_POSTGRES_URL", "postgresql:///fish");
    CHECK(parse_ok({}).postgres_url == "postgresql:///fish");
    CHECK(parse_ok({"--postgres-url", "postgresql://db/other"}).postgres_url == "postgresql://db/other");
  }
  const auto missing = parse_exit({"--storage", "postgres"});
  CHECK(missing.text.find("--storage postgres needs --postgres-url (or GOFISH_POSTGRES_URL)") != std::string::npos);
  // libpq's complaint, without the URL and its password.
  const auto bad = parse_exit({"--storage", "postgres", "--postgres-url", "postgresql://gofish:hunter2@[::1/gofish"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.text.find("not a PostgreSQL connection URL") != std::string::npos);
  CHECK(bad.text.find("hunter2") == std::string::npos);
  // The set-aside actions work on either store, not on none.
  CHECK(parse_ok({"--storage", "postgres", "--postgres-url", "postgresql:///fish", "--list-set-aside"})
            .list_set_aside);
  CHECK(parse_exit({"--storage", "none", "--list-set-aside"}).text.find("need --storage sqlite or postgres") !=
        std::string::npos);
}

TEST_CASE("config: --help lists every flag with its default and environment variable") {
  const auto help = parse_exit({"--help"});
  CHECK(help.exit_code == 0);
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--port", "GOFISH_PORT"},
      {"--bind", "GOFISH_BIND"},
      {"--data-dir", "GOFISH_DATA_DIR"},
      {"--storage", "GOFISH_STORAGE"},
      {"--postgres-url", "GOFISH_POSTGRES_URL"},
      {"--sqlite-synchronous", "GOFISH_SQLITE_SYNCHRONOUS"},
      {"--store-commit-delay-us", "GOFISH_STORE_COMMIT_DELAY_US"},
      {"--finished-game-retention-seconds", "GOFISH_FINISHED_GAME_RETENTION_SECONDS"},
      {"--web-root", "GOFISH_WEB_ROOT"},
      {"--threads", "GOFISH_THREADS"},
      {"--log-level", "GOFISH_LOG_LEVEL"},
      {"--allowed-origins", "GOFISH_ALLOWED_ORIGINS"},
      {"--max-message-bytes", "GOFISH_MAX_MESSAGE_BYTES"},
      {"--message-rate", "GOFISH_MESSAGE_RATE"},
      {"--message-burst", "GOFISH_MESSAGE_BURST"},
      {"--rate-strikes", "GOFISH_RATE_STRIKES"},
      {"--send-queue-messages", "GOFISH_SEND_QUEUE_MESSAGES"},
      {"--send-queue-bytes", "GOFISH_SEND_QUEUE_BYTES"},
      {"--handshake-timeout-ms", "GOFISH_HANDSHAKE_TIMEOUT_MS"},
      {"--idle-timeout-ms", "GOFISH_IDLE_TIMEOUT_MS"},
      {"--max-connections", "GOFISH_MAX_CONNECTIONS"},
      {"--max-request-bytes", "GOFISH_MAX_REQUEST_BYTES"},
      {"--max-rooms", "GOFISH_MAX_ROOMS"},
      {"--max-spectators", "GOFISH_MAX_SPECTATORS"},
      {"--max-name-chars", "GOFISH_MAX_NAME_CHARS"},
      {"--max-chat-chars", "GOFISH_MAX_CHAT_CHARS"},
      {"--chat-rate", "GOFISH_CHAT_RATE"},
      {"--chat-burst", "GOFISH_CHAT_BURST"},
      {"--seat-grace-ms", "GOFISH_SEAT_GRACE_MS"},
      {"--room-idle-expiry-ms", "GOFISH_ROOM_IDLE_EXPIRY_MS"},
      {"--bot-delay-ms", "GOFISH_BOT_DELAY_MS"},
      {"--shutdown-grace-ms", "GOFISH_SHUTDOWN_GRACE_MS"},
  };
  for (const auto& [flag, env] : flags) {
    CAPTURE(flag);
    CHECK(help.text.find(flag + " ") != std::string::npos);
    CHECK(help.text.find("(Env:" + env + ")") != std::string::npos);
  }
  CHECK(help.text.find("=8080") != std::string::npos);
  CHECK(help.text.find("=4096") != std::string::npos);
}

TEST_CASE("config: --version says the version of project() in CMakeLists.txt") {
  const auto version = parse_exit({"--version"});
  CHECK(version.exit_code == 0);
  CHECK(version.text.starts_with("gofish-server " GOFISH_PROJECT_VERSION));
  CHECK(kVersion == GOFISH_PROJECT_VERSION);
  CHECK(kServerHeader == "gofish/" GOFISH_PROJECT_VERSION);
  CHECK(kCliName == "gofish-cli/" GOFISH_PROJECT_VERSION);
}

TEST_CASE("config: the built web root is found relative to the executable") {
  // GOFISH_WEB_ROOT is <build>/web; the server is built as <build>/server/gofish-server.
  const auto build_tree_exe = std::filesystem::path(GOFISH_WEB_ROOT).parent_path() / "server" / "gofish-server";
  const auto found = find_web_root(build_tree_exe);
  REQUIRE(found.has_value());
  CHECK(std::filesystem::equivalent(*found, GOFISH_WEB_ROOT));
  // Never the page's sources: a server outside a build tree finds no clients/web.
  const auto in_checkout = web_root_candidates(std::filesystem::path(GOFISH_SOURCE_DIR) / "tools" / "gofish-server");
  CHECK(std::find(in_checkout.begin(), in_checkout.end(),
                  std::filesystem::path(GOFISH_SOURCE_DIR) / "clients" / "web") == in_checkout.end());

  const auto candidates = web_root_candidates("/opt/gofish/bin/gofish-server");
  CHECK(std::find(candidates.begin(), candidates.end(),
                  std::filesystem::path("/opt/gofish/share/gofish/web")) != candidates.end());
  CHECK(candidates.back() == "/usr/share/gofish/web");
  CHECK((!find_web_root("/nonexistent/bin/gofish-server").has_value() ||
         std::filesystem::exists("/usr/share/gofish/web/index.html")));
}

TEST_CASE("paths: splitting and percent-decoding") {
  CHECK(split_target("/a/b?x=1#f").path == "/a/b");
  CHECK(split_target("/a/b?x=1#f").query == "x=1");
  CHECK(split_target("/a#f?x").query.empty());
  CHECK(percent_decode("/a%20b%2F%2e") == "/a b/.");
  CHECK(!percent_decode("%").has_value());
  CHECK(!percent_decode("%4").has_value());
  CHECK(!percent_decode("%zz").has_value());
  CHECK(!percent_decode("a%00b").has_value());
  CHECK(is_invite_path("/r/ABCDE"));
  CHECK(is_invite_path("/r/ab-c_9/"));
  CHECK(!is_invite_path("/r/"));
  CHECK(!is_invite_path("/r/AB/CD"));
  CHECK(!is_invite_path("/r/" + std::string(33, 'A')));
  CHECK(!is_invite_path("/x/ABCDE"));
}

TEST_CASE("paths: the room parameter a proxy routes a WebSocket by") {
  CHECK(room_parameter("room=K7QXM") == "K7QXM");
  CHECK(room_parameter("x=1&room=K7QXM2&y=2") == "K7QXM2");
  CHECK(room_parameter("").empty());
  CHECK(room_parameter("rooms=K7QXM").empty());
  CHECK(room_parameter("room=").empty());
  CHECK(room_parameter("room=K7QXM2345").empty());  // longer than any code
  CHECK(room_parameter("room=K7%51XM").empty());    // escapes are no code's
}

// This program is not linked with tcmalloc (only gofish-server is; the
// ctest server_memory_allocator checks that one), so malloc is glibc's (or
// AddressSanitizer's, in the sanitizer build), and the weak references to
// tcmalloc are null, not called.
TEST_CASE("memory allocator: without tcmalloc it is glibc's malloc, and freeing memory back still works") {
#if defined(__SANITIZE_ADDRESS__)
  CHECK(MemoryAllocator::name() == "AddressSanitizer's malloc");
#else
  CHECK(MemoryAllocator::name() == "glibc malloc");
#endif
  std::vector<std::string> blocks(1000, std::string(4096, 'x'));
  blocks.clear();
  blocks.shrink_to_fit();
  MemoryAllocator::release_free_memory();
}

TEST_CASE("paths: resolution stays inside the web root") {
  const auto base = std::filesystem::temp_directory_path() / "gofish-paths-test";
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base / "root" / "css");
  std::filesystem::create_directories(base / "root" / "empty");
  std::ofstream(base / "root" / "index.html") << "index";
  std::ofstream(base / "root" / "css" / "index.html") << "css index";
  std::ofstream(base / "root" / "app.js") << "js";
  std::ofstream(base / "root" / ".secret") << "hidden";
  std::ofstream(base / "outside.txt") << "outside";
  std::filesystem::create_symlink(base / "outside.txt", base / "root" / "link.txt");
  const auto root = std::filesystem::canonical(base / "root");

  auto found = [&](std::string_view target) {
    const auto file = resolve_static(root, target);
    return file.status == StaticStatus::found ? file.path.filename().string() : std::string();
  };
  auto status = [&](std::string_view target) { return resolve_static(root, target).status; };

  CHECK(found("/") == "index.html");
  CHECK(found("/r/ABCDE") == "index.html");
  CHECK(found("/app.js?v=2") == "app.js");
  CHECK(found("/%61pp.js") == "app.js");
  CHECK(resolve_static(root, "/css/").path == root / "css" / "index.html");
  CHECK(status("/css") == StaticStatus::not_found);  // a directory
  CHECK(status("/empty/") == StaticStatus::not_found);
  CHECK(status("/missing") == StaticStatus::not_found);
  CHECK(status("/link.txt") == StaticStatus::not_found);  // leads outside
  CHECK(status("/../outside.txt") == StaticStatus::bad_request);
  CHECK(status("/%2e%2e/outside.txt") == StaticStatus::bad_request);
  CHECK(status("/css/%2E%2E/%2E%2E/outside.txt") == StaticStatus::bad_request);
  CHECK(status("/.secret") == StaticStatus::bad_request);
  CHECK(status("/a\\..\\b") == StaticStatus::bad_request);
  CHECK(status("/%5c") == StaticStatus::bad_request);
  CHECK(status("app.js") == StaticStatus::bad_request);
  CHECK(status("") == StaticStatus::bad_request);
  std::filesystem::remove_all(base);
}

TEST_CASE("paths: MIME types") {
  CHECK(mime_type("a/index.html") == "text/html; charset=utf-8");
  CHECK(mime_type("app.JS") == "text/javascript; charset=utf-8");
  CHECK(mime_type("style.css") == "text/css; charset=utf-8");
  CHECK(mime_type("cards.svg") == "image/svg+xml");
  CHECK(mime_type("icon.png") == "image/png");
  CHECK(mime_type("manifest.webmanifest") == "application/manifest+json");
  CHECK(mime_type("data.json") == "application/json");
  CHECK(mime_type("README") == "application/octet-stream");
}

TEST_CASE("metrics: every series, in Prometheus text") {
  Metrics metrics;
  metrics.connection_opened();
  metrics.connection_opened();
  metrics.connection_closed();
  metrics.connection_refused("full");
  metrics.rooms_changed(protocol::RoomState::kWaiting, 2);
  metrics.rooms_changed(protocol::RoomState::kWaiting, -1);
  metrics.rooms_changed(protocol::RoomState::kPlaying, 1);
  metrics.game_started();
  metrics.game_finished();
  metrics.action_applied();
  metrics.action_applied();
  metrics.action_refused("action/not_your_turn");
  metrics.observe_action_latency(3ms);
  metrics.bytes_received(100);
  metrics.bytes_sent(250);
  metrics.send_queue_closed();
  const auto text = metrics.serialize();
  for (const char* line : {
           "# TYPE gofish_connections gauge",
           "gofish_connections 1",
           "gofish_connections_refused_total{reason=\"full\"} 1",
           "gofish_rooms{state=\"waiting\"} 1",
           "gofish_rooms{state=\"playing\"} 1",
           "gofish_rooms{state=\"over\"} 0",
           "gofish_games_started_total 1",
           "gofish_games_finished_total 1",
           "gofish_actions_total 2",
           "gofish_actions_refused_total{reason=\"action/not_your_turn\"} 1",
           "# TYPE gofish_action_latency_seconds histogram",
           "gofish_action_latency_seconds_count 1",
           "gofish_action_latency_seconds_bucket{le=\"0.0032\"} 1",
           "gofish_action_latency_seconds_bucket{le=\"0.0016\"} 0",
           "gofish_received_bytes_total 100",
           "gofish_sent_bytes_total 250",
           "gofish_send_queue_closes_total 1",
       }) {
    CAPTURE(line);
    CHECK(text.find(line) != std::string::npos);
  }

  // The series counted between two reads are added once, not again.
  metrics.action_applied();
  metrics.bytes_sent(50);
  metrics.observe_action_latency(std::chrono::microseconds(1600));  // on a bound: "less than or equal"
  metrics.observe_action_latency(2s);                                // above the last bound: +Inf only
  const auto again = metrics.serialize();
  for (const char* line : {
           "gofish_actions_total 3",
           "gofish_sent_bytes_total 300",
           "gofish_received_bytes_total 100",
           "gofish_action_latency_seconds_count 3",
           "gofish_action_latency_seconds_bucket{le=\"0.0016\"} 1",
           "gofish_action_latency_seconds_bucket{le=\"0.0032\"} 2",
           "gofish_action_latency_seconds_bucket{le=\"1.6384\"} 2",
           "gofish_action_latency_seconds_bucket{le=\"+Inf\"} 3",
           "gofish_action_latency_seconds_sum 2.0046",
       }) {
    CAPTURE(line);
    CHECK(again.find(line) != std::string::npos);
  }
}

}  // namespace
// The numbers of each game's decisions, as both stores check them on write.
TEST_CASE("decision sequences: a decision out of order fails, and counts only once its batch lands") {
  DecisionSequences sequences;
  int lookups = 0;
  const auto lookup = [&](const std::string&) {
    ++lookups;
    return std::int64_t{5};
  };
  DecisionSequences::Batch first;
  sequences.accept(first, "g", 5, lookup);
  sequences.accept(first, "g", 6, lookup);
  CHECK_THROWS_WITH_AS(sequences.accept(first, "g", 6, lookup), "game g: decision 6 is out of sequence (the next is 7)",
                       StoreError);
  // Not landed: the store still says 5.
  DecisionSequences::Batch lost;
  sequences.accept(lost, "g", 5, lookup);
  CHECK(lookups == 2);
  sequences.land(first);
  DecisionSequences::Batch next;
  sequences.accept(next, "g", 7, lookup);
  CHECK(lookups == 2);
  // A new game starts at 0 without a lookup; a finished one is forgotten.
  next.started("h");
  sequences.accept(next, "h", 0, lookup);
  next.ended("g");
  sequences.land(next);
  DecisionSequences::Batch after;
  sequences.accept(after, "h", 1, lookup);
  CHECK(lookups == 2);
  sequences.accept(after, "g", 5, lookup);
  CHECK(lookups == 3);
}

// Games a store never hears the end of (a room closed mid-game, or moved to
// another node) do not pile up: past the bound, what is not in the landing
// batch is looked up again.
TEST_CASE("decision sequences: past its bound it forgets the games not in the batch that lands") {
  DecisionSequences sequences(3);
  int lookups = 0;
  const auto lookup = [&](const std::string&) {
    ++lookups;
    return std::int64_t{0};
  };
  for (const char* game : {"a", "b", "c"}) {
    DecisionSequences::Batch batch;
    batch.started(game);
    sequences.accept(batch, game, 0, lookup);
    sequences.land(batch);
  }
  DecisionSequences::Batch known;
  sequences.accept(known, "a", 1, lookup);
  CHECK(lookups == 0);
  DecisionSequences::Batch fourth;
  fourth.started("d");
  sequences.accept(fourth, "d", 0, lookup);
  sequences.land(fourth);
  DecisionSequences::Batch after;
  sequences.accept(after, "d", 1, lookup);
  CHECK(lookups == 0);
  CHECK_THROWS_AS(sequences.accept(after, "a", 1, lookup), StoreError);  // forgotten: the store says 0
  CHECK(lookups == 1);
}

}  // namespace gofish::server
