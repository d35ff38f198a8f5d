// The network layer against a real server on 127.0.0.1 (an ephemeral port),
// driven by blocking test clients.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "raw_client.hpp"
#include "server/edge/server.hpp"
#include "test_client.hpp"

namespace gofish::server {
namespace {

using namespace std::chrono_literals;
using testing::HttpConnection;
using testing::WsClient;
using testing::http_request;
using testing::test_config;

// Answers a hello with a welcome (echoing its id) and anything else with an
// error: enough protocol to exercise the network layer without rooms.
class HelloHandler : public ConnectionHandler {
 public:
  void on_open(const std::shared_ptr<Connection>&) override {}
  void on_close(const std::shared_ptr<Connection>&) override {}
  void on_message(const std::shared_ptr<Connection>& connection, std::string_view text) override {
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
      return connection->send(make_shared_text(R"({"type":"error","code":"protocol/bad_json"})"));
    }
    nlohmann::json reply{{"type", json.value("type", "") == "hello" ? "welcome" : "error"}};
    if (json.contains("id")) reply["id"] = json["id"];
    connection->send(make_shared_text(reply.dump()));
  }
};

struct Running {
  explicit Running(Config config = test_config(),
                   std::shared_ptr<ConnectionHandler> handler = std::make_shared<HelloHandler>())
      : server(std::move(config)) {
    spdlog::set_level(spdlog::level::warn);
    port = server.start(std::move(handler));
  }
  Server server;
  std::uint16_t port = 0;
};

nlohmann::json parse(const std::optional<std::string>& text) {
  REQUIRE(text.has_value());
  return nlohmann::json::parse(*text);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Polls `condition` every few milliseconds for up to `limit`.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds limit = 5000ms) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return condition();
}

bool welcomed(WsClient& client) {
  client.send(R"({"type":"hello","protocol":1})");
  const auto reply = client.read();
  return reply && nlohmann::json::parse(*reply).value("type", "") == "welcome";
}

// Wraps HelloHandler, counting opens and closes; its shutdown hook sends
// every open connection a `closing` message first.
class CountingHandler : public ConnectionHandler {
 public:
  void on_open(const std::shared_ptr<Connection>& connection) override {
    std::lock_guard lock(mutex_);
    open_.insert(connection);
    ++opens;
  }
  void on_message(const std::shared_ptr<Connection>& connection, std::string_view text) override {
    inner_->on_message(connection, text);
  }
  void on_close(const std::shared_ptr<Connection>& connection) override {
    std::lock_guard lock(mutex_);
    open_.erase(connection);
    ++closes;
  }
  void on_shutdown(std::function<void()> done) override {
    std::lock_guard lock(mutex_);
    for (const auto& connection : open_) {
      connection->send(make_shared_text(R"({"type":"closing","reason":"shutting_down"})"));
    }
    done();
  }

  std::atomic<int> opens{0};
  std::atomic<int> closes{0};

 private:
  std::shared_ptr<ConnectionHandler> inner_ = std::make_shared<HelloHandler>();
  std::mutex mutex_;
  std::set<std::shared_ptr<Connection>> open_;
};

// On "stream", sends 16 KiB messages every millisecond from another thread
// until the connection closes: a client that does not read falls behind.
class StreamingHandler : public ConnectionHandler {
 public:
  ~StreamingHandler() override {
    stop_ = true;
    for (auto& thread : threads_) thread.join();
  }
  void on_open(const std::shared_ptr<Connection>&) override {}
  void on_message(const std::shared_ptr<Connection>& connection, std::string_view text) override {
    if (text != "stream") return connection->send(make_shared_text("hi"));
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this, connection] {
      const auto chunk = make_shared_text(std::string(16 * 1024, 'x'));
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (!stop_ && !closed_.load() && std::chrono::steady_clock::now() < deadline) {
        connection->send(chunk);
        std::this_thread::sleep_for(1ms);
      }
    });
  }
  void on_close(const std::shared_ptr<Connection>&) override { closed_ = true; }

  std::atomic<bool> closed_{false};

 private:
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

TEST_CASE("the web client is served at / and for invite links") {
  Running running;
  const auto index = read_file(std::filesystem::path(GOFISH_WEB_ROOT) / "index.html");
  REQUIRE(!index.empty());

  for (const char* target : {"/", "/index.html", "/r/ABCDE", "/r/abcde-12/", "/?x=1"}) {
    CAPTURE(target);
    const auto result = http_request(running.port, target);
    CHECK(result.status == 200);
    CHECK(result.header("content-type") == "text/html; charset=utf-8");
    CHECK(result.header("server") == "gofish/" GOFISH_PROJECT_VERSION);  // project() in CMakeLists.txt
    CHECK(result.body == index);
  }

  const auto head = http_request(running.port, "/", "HEAD");
  CHECK(head.status == 200);
  CHECK(head.header("content-length") == std::to_string(index.size()));
  CHECK(head.body.empty());

  CHECK(http_request(running.port, "/missing.js").status == 404);
  CHECK(http_request(running.port, "/r/").status == 404);
  CHECK(http_request(running.port, "/r/TOO/DEEP").status == 404);
  const auto post = http_request(running.port, "/", "POST", "Content-Length: 0\r\n");
  CHECK(post.status == 405);
  CHECK(post.header("allow") == "GET, HEAD");
}

TEST_CASE("every answer of the public port carries the page's security headers, and only TLS gets HSTS") {
  Running running;
  for (const char* target : {"/", "/r/ABCDE", "/missing.js", "/healthz", "/api/none", "/metrics"}) {
    CAPTURE(target);
    const auto result = http_request(running.port, target);
    CHECK(result.header("content-security-policy").find("frame-ancestors 'none'") != std::string::npos);
    CHECK(result.header("content-security-policy").find("script-src 'self' 'wasm-unsafe-eval';") != std::string::npos);
    CHECK(result.header("x-frame-options") == "DENY");
    CHECK(result.header("referrer-policy") == "no-referrer");
    CHECK(result.header("permissions-policy").find("camera=()") != std::string::npos);
    CHECK(result.header("x-content-type-options") == "nosniff");
    CHECK(result.header("strict-transport-security").empty());  // plain HTTP: tests/server/tls_check.py has TLS
  }
}

TEST_CASE("the web client's files go out gzip-compressed with an ETag, and a repeat visit gets 304") {
  Running running;
  const auto script = read_file(std::filesystem::path(GOFISH_WEB_ROOT) / "js/app.js");
  REQUIRE(script.size() > 2000);

  const auto zipped = http_request(running.port, "/js/app.js", "GET", "Accept-Encoding: gzip, deflate\r\n");
  CHECK(zipped.status == 200);
  CHECK(zipped.header("content-encoding") == "gzip");
  CHECK(zipped.header("vary") == "Accept-Encoding");
  CHECK(zipped.header("cache-control") == "no-cache");
  CHECK(zipped.header("content-type") == "text/javascript; charset=utf-8");
  CHECK(zipped.body.size() < script.size() / 2);
  CHECK(zipped.body.substr(0, 2) == std::string("\x1f\x8b"));
  const auto etag = zipped.header("etag");
  REQUIRE(etag.size() > 2);

  const auto plain = http_request(running.port, "/js/app.js");
  CHECK(plain.header("content-encoding").empty());
  CHECK(plain.body == script);
  CHECK(plain.header("etag") != etag);

  const auto again = http_request(running.port, "/js/app.js", "GET",
                                  "Accept-Encoding: gzip\r\nIf-None-Match: " + etag + "\r\n");
  CHECK(again.status == 304);
  CHECK(again.body.empty());
  CHECK(again.header("etag") == etag);
  CHECK(http_request(running.port, "/js/app.js", "GET", "If-None-Match: \"stale-1\"\r\n").status == 200);
}

TEST_CASE("paths that leave the web root are refused") {
  Running running;
  for (const char* target :
       {"/../CMakeLists.txt", "/../../CMakeLists.txt", "/%2e%2e/%2e%2e/CMakeLists.txt",
        "/%2E%2E%2F%2E%2E%2FCMakeLists.txt", "/..%2f..%2fCMakeLists.txt",
        "/r/../../../CMakeLists.txt", "/.%2e/.%2e/CMakeLists.txt", "/%2e%2e%5c%2e%2e%5cCMakeLists.txt",
        "/%00index.html", "/%zz", "../../CMakeLists.txt"}) {
    CAPTURE(target);
    const auto result = http_request(running.port, target);
    CHECK((result.status == 400 || result.status == 404));
    CHECK(result.body.find("cmake_minimum_required") == std::string::npos);
  }
}

TEST_CASE("health, readiness and metrics") {
  Running running;
  const auto health = http_request(running.port, "/healthz");
  CHECK(health.status == 200);
  CHECK(health.body == "ok\n");
  CHECK(http_request(running.port, "/readyz").status == 200);
  CHECK(http_request(running.port, "/ws").status == 426);

  WsClient client;
  REQUIRE(client.connect(running.port) == 101);
  REQUIRE(welcomed(client));
  running.server.metrics().action_refused("action/not_your_turn");

  // Only on the operator port; the public port has no such page.
  CHECK(http_request(running.port, "/metrics").status == 404);
  CHECK(http_request(running.server.admin_port(), "/").status == 404);
  CHECK(http_request(running.server.admin_port(), "/healthz").status == 200);
  const auto metrics = http_request(running.server.admin_port(), "/metrics");
  CHECK(metrics.status == 200);
  CHECK(metrics.header("content-type").starts_with("text/plain; version=0.0.4"));
  for (const char* name :
       {"gofish_connections 1", "gofish_rooms{state=\"waiting\"}", "gofish_rooms{state=\"playing\"}",
        "gofish_rooms{state=\"over\"}", "gofish_games_started_total", "gofish_games_finished_total",
        "gofish_actions_total", "gofish_actions_refused_total{reason=\"action/not_your_turn\"} 1",
        "gofish_received_bytes_total", "gofish_sent_bytes_total", "gofish_send_queue_closes_total",
        "gofish_action_latency_seconds_bucket", "gofish_action_latency_seconds_count"}) {
    CAPTURE(name);
    CHECK(metrics.body.find(name) != std::string::npos);
  }
}

TEST_CASE("API routes registered by other layers") {
  Running running;
  running.server.api().add("/api/games/", [](const ApiRequest& request) {
    return ApiReply{200, "application/json",
                    R"({"path":")" + std::string(request.path) + R"(","query":")" +
                        std::string(request.query) + "\"}"};
  });
  const auto reply = http_request(running.port, "/api/games/42/transcript?x=1");
  CHECK(reply.status == 200);
  CHECK(reply.header("content-type") == "application/json");
  CHECK(reply.body == R"({"path":"/api/games/42/transcript","query":"x=1"})");
  CHECK(http_request(running.port, "/api/other").status == 404);
}

TEST_CASE("an HTTP request over the size limit or too slow is refused") {
  Running running;
  const std::string big_header = "X-Filler: " + std::string(10 * 1024, 'a') + "\r\n";
  CHECK(http_request(running.port, "/", "GET", big_header).status == 413);

  auto config = test_config();
  config.limits.handshake_timeout = 300ms;
  Running slow(config);
  // Half a request line, then silence: the header timeout closes it.
  const auto closed_after = testing::time_until_closed(slow.port, "GET / HT", 3000ms);
  REQUIRE(closed_after.has_value());
  CHECK(*closed_after >= 250ms);
  CHECK(*closed_after < 2000ms);
}

TEST_CASE("a WebSocket client says hello and is welcomed") {
  Running running;
  WsClient client;
  REQUIRE(client.connect(running.port) == 101);
  client.send(R"({"type":"hello","protocol":1,"id":7})");
  const auto welcome = parse(client.read());
  CHECK(welcome["type"] == "welcome");
  CHECK(welcome["id"] == 7);
  client.send("not json");
  CHECK(parse(client.read())["code"] == "protocol/bad_json");
  CHECK(running.server.connection_count() == 1);
  client.close();
  CHECK(client.close_code() == kCloseNormal);
  CHECK(eventually([&] { return running.server.connection_count() == 0; }));
}

// The store's writer commits at once when the I/O threads run dry
// (Server::on_idle): the hook runs after the work a message made, and a
// server with nothing to do waits for it instead of calling the hook in a loop.
TEST_CASE("the idle hook runs once the ready work is done, and not in a loop while there is none") {
  struct Counting : HelloHandler {
    std::atomic<int> messages{0};
    void on_message(const std::shared_ptr<Connection>& connection, std::string_view text) override {
      HelloHandler::on_message(connection, text);
      ++messages;
    }
  };
  auto handler = std::make_shared<Counting>();
  Server server(test_config());
  std::atomic<int> calls{0};
  std::atomic<int> messages_seen{-1};  // by the hook's last call
  server.on_idle([&] {
    ++calls;
    messages_seen = handler->messages.load();
  });
  spdlog::set_level(spdlog::level::warn);
  const auto port = server.start(handler);
  WsClient client;
  REQUIRE(client.connect(port) == 101);
  REQUIRE(welcomed(client));
  CHECK(eventually([&] { return messages_seen == 1; }));
  const int before = calls;
  std::this_thread::sleep_for(300ms);  // nothing to do: the threads wait
  CHECK(calls - before < 20);
  client.close();
  server.stop();
}

TEST_CASE("/ws is the only WebSocket path") {
  Running running;
  WsClient client;
  CHECK(client.connect(running.port, "", "/other") == 404);
}

TEST_CASE("an oversized message closes with 1009 and the server keeps serving") {
  Running running;
  const auto limit = running.server.config().limits.parse.max_frame_bytes;

  WsClient exact;
  REQUIRE(exact.connect(running.port) == 101);
  std::string at_limit = R"({"type":"hello","pad":")";
  at_limit += std::string(limit - at_limit.size() - 2, 'x') + "\"}";
  REQUIRE(at_limit.size() == limit);
  exact.send(at_limit);
  CHECK(parse(exact.read())["type"] == "welcome");

  WsClient big;
  REQUIRE(big.connect(running.port) == 101);
  big.send(std::string(limit + 1, 'x'));
  CHECK(!big.read().has_value());
  CHECK(!big.timed_out());
  CHECK(big.close_code() == kCloseMessageTooBig);
  CHECK(big.close_reason() == "too_large");

  WsClient huge;
  REQUIRE(huge.connect(running.port) == 101);
  huge.send(std::string(1024 * 1024, 'x'));
  CHECK(!huge.read().has_value());
  CHECK(huge.close_code() == kCloseMessageTooBig);

  CHECK(welcomed(exact));
  WsClient next;
  REQUIRE(next.connect(running.port) == 101);
  CHECK(welcomed(next));
}

TEST_CASE("a binary frame closes with 1003") {
  Running running;
  WsClient client;
  REQUIRE(client.connect(running.port) == 101);
  client.send_binary("\x01\x02");
  CHECK(!client.read().has_value());
  CHECK(client.close_code() == kCloseUnsupportedData);
}

TEST_CASE("a flood is answered once, then closed with 1008") {
  auto config = test_config();
  config.limits.message_burst = 5;
  config.limits.message_rate_per_second = 1;
  config.limits.rate_strikes_before_close = 10;
  Running running(config);

  WsClient client;
  REQUIRE(client.connect(running.port) == 101);
  for (int i = 0; i < 40; ++i) client.send(R"({"type":"hello","protocol":1})");
  int welcomes = 0;
  int rate_errors = 0;
  while (const auto message = client.read()) {
    const auto json = nlohmann::json::parse(*message);
    if (json["type"] == "welcome") ++welcomes;
    if (json["type"] == "error" && json["code"] == "protocol/rate_limited") ++rate_errors;
  }
  CHECK(!client.timed_out());
  CHECK(welcomes >= 5);
  CHECK(welcomes <= 7);  // the burst, plus what a slow machine refilled meanwhile
  CHECK(rate_errors == 1);
  CHECK(client.close_code() == kClosePolicyViolation);
  CHECK(client.close_reason() == "rate_limited");

  // A client within the rate is untouched.
  WsClient calm;
  REQUIRE(calm.connect(running.port) == 101);
  for (int i = 0; i < 5; ++i) CHECK(welcomed(calm));
}

TEST_CASE("a client that does not read is closed when its queue overflows") {
  auto config = test_config();
  config.limits.send_queue_messages = 4;
  config.limits.send_queue_bytes = 64 * 1024;
  config.limits.handshake_timeout = 500ms;  // how long a stuck close may take
  auto handler = std::make_shared<StreamingHandler>();
  Running running(config, handler);

  WsClient reader;  // keeps being served meanwhile
  REQUIRE(reader.connect(running.port) == 101);

  WsClient sleeper;
  sleeper.set_receive_buffer(4096);
  REQUIRE(sleeper.connect(running.port) == 101);
  sleeper.send("stream");
  const auto started = std::chrono::steady_clock::now();
  CHECK(eventually([&] { return handler->closed_.load(); }, 8000ms));
  const auto took = std::chrono::steady_clock::now() - started;
  MESSAGE("closed after " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                          << " ms");
  CHECK(running.server.metrics().serialize().find("gofish_send_queue_closes_total 1") !=
        std::string::npos);
  CHECK(running.server.connection_count() == 1);

  // What reached its socket can still be read; then the connection ends,
  // with 1008 if the close frame got through before the socket was cut.
  CHECK(sleeper.read_until_closed(5000ms).has_value());
  if (sleeper.close_code() != 0) {
    CHECK(sleeper.close_code() == kClosePolicyViolation);
    CHECK(sleeper.close_reason() == "slow_reader");
  }

  reader.send("ping");
  CHECK(reader.read() == "hi");
}

// Found in the browser on a cluster: a node paused under its clients found,
// once it ran again, a close frame from a page that had given up on it, and
// sent that page the room's news after its own close frame (Chrome: "Data
// frame received after close"). Beast answers a peer's close frame at once,
// but the session learns of it only once the peer has closed its end too: in
// between, messages must not follow the close frame. Here the close frame
// comes while the server's writes to this client are stuck (it reads
// nothing) and the handler goes on sending.
TEST_CASE("after the answer to a client's close frame, no message follows") {
  auto config = test_config();
  config.limits.send_queue_messages = 100'000;  // no slow_reader close meanwhile
  config.limits.send_queue_bytes = std::size_t{1} << 30;
  auto handler = std::make_shared<StreamingHandler>();
  Running running(config, handler);
  testing::RawWebSocket::Options options;
  options.receive_buffer = 4096;
  options.max_segment = 1024;
  testing::RawWebSocket client(running.port, options);
  REQUIRE(client.open());
  REQUIRE(client.send_text("stream"));
  std::this_thread::sleep_for(200ms);  // the server's writes back up
  REQUIRE(client.send_close(1000, "bye"));
  std::this_thread::sleep_for(200ms);  // the server reads it and answers, and streams on
  int before = 0;
  int after = 0;
  bool closed = false;
  while (auto frame = client.read_frame(1000ms)) {
    if (frame->opcode == 8) {
      closed = true;
    } else {
      ++(closed ? after : before);
    }
  }
  MESSAGE(before << " messages before the close frame, " << after << " after it");
  CHECK(before > 0);
  CHECK(closed);
  CHECK(after == 0);
}

TEST_CASE("a silent peer that does not answer pings is closed after the idle timeout") {
  auto config = test_config();
  config.limits.idle_timeout = 400ms;
  Running running(config);

  WsClient listening;  // answers pings while it reads
  WsClient deaf;       // never reads, so never answers
  REQUIRE(listening.connect(running.port) == 101);
  REQUIRE(deaf.connect(running.port) == 101);
  REQUIRE(eventually([&] { return running.server.connection_count() == 2; }));
  CHECK(!listening.read(1500ms).has_value());
  CHECK(listening.timed_out());  // nothing arrived but pings
  CHECK(running.server.connection_count() == 1);
}

TEST_CASE("Origins outside the allow-list are refused") {
  auto config = test_config();
  config.allowed_origins = {"https://fish.example.org"};
  Running running(config);

  WsClient evil;
  CHECK(evil.connect(running.port, "https://evil.example.com") == 403);
  WsClient good;
  REQUIRE(good.connect(running.port, "https://fish.example.org") == 101);
  CHECK(welcomed(good));
  WsClient cli;  // no Origin: not a browser
  REQUIRE(cli.connect(running.port) == 101);
  CHECK(welcomed(cli));
  CHECK(running.server.metrics().serialize().find(
            "gofish_connections_refused_total{reason=\"origin\"} 1") != std::string::npos);
}

TEST_CASE("the connection cap closes the next client with 1013") {
  auto config = test_config();
  config.limits.max_connections = 2;
  Running running(config);

  WsClient first;
  WsClient second;
  REQUIRE(first.connect(running.port) == 101);
  REQUIRE(second.connect(running.port) == 101);
  CHECK(welcomed(first));
  CHECK(welcomed(second));

  WsClient third;
  REQUIRE(third.connect(running.port) == 101);
  CHECK(!third.read().has_value());
  CHECK(third.close_code() == kCloseTryAgainLater);
  CHECK(third.close_reason() == "server_full");

  first.close();
  REQUIRE(eventually([&] { return running.server.connection_count() == 1; }));
  WsClient fourth;
  REQUIRE(fourth.connect(running.port) == 101);
  CHECK(welcomed(fourth));
  CHECK(welcomed(second));
}

TEST_CASE("shutdown: not ready, clients told and closed with 1001 within the grace") {
  auto config = test_config();
  config.limits.shutdown_grace = 3000ms;
  auto handler = std::make_shared<CountingHandler>();
  Running running(config, handler);

  WsClient client;
  REQUIRE(client.connect(running.port) == 101);
  REQUIRE(welcomed(client));
  HttpConnection http(running.port);
  CHECK(http.get("/readyz").status == 200);

  const auto started = std::chrono::steady_clock::now();
  running.server.begin_shutdown();
  REQUIRE(eventually([&] { return !running.server.ready(); }));
  // The client has not read yet, so its close handshake is still open and
  // the server still runs: readiness now fails, liveness would not.
  const auto ready = http.get("/readyz");
  CHECK(ready.status == 503);
  CHECK(!testing::can_connect(running.port));

  const auto closing = parse(client.read());
  CHECK(closing["type"] == "closing");
  CHECK(!client.read().has_value());
  CHECK(client.close_code() == kCloseGoingAway);
  CHECK(client.close_reason() == "shutting_down");

  running.server.wait();
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took < config.limits.shutdown_grace + 1500ms);
  CHECK(handler->opens == 1);
  CHECK(handler->closes == 1);
}

TEST_CASE("shutdown cuts a client that never answers the close, within the bound") {
  auto config = test_config();
  config.limits.shutdown_grace = 500ms;
  config.limits.handshake_timeout = 5000ms;  // longer than the grace: the grace must win
  auto handler = std::make_shared<CountingHandler>();
  Running running(config, handler);

  std::vector<std::unique_ptr<WsClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<WsClient>());
    REQUIRE(clients.back()->connect(running.port) == 101);
    REQUIRE(welcomed(*clients.back()));
  }
  const auto started = std::chrono::steady_clock::now();
  running.server.stop();  // the clients never read, so never answer the close
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took >= 450ms);
  CHECK(took < 500ms + 1500ms);
  CHECK(handler->opens == 3);
  CHECK(handler->closes == 3);
}

TEST_CASE("shutdown with cooperative clients is quick") {
  Running running;
  WsClient client;
  REQUIRE(client.connect(running.port) == 101);
  REQUIRE(welcomed(client));
  std::thread reader([&] { client.read_until_closed(5000ms); });
  const auto started = std::chrono::steady_clock::now();
  running.server.stop();
  reader.join();
  CHECK(std::chrono::steady_clock::now() - started < 1000ms);
  CHECK(client.close_code() == kCloseGoingAway);
}

// A rooms layer that kept a connection past the server: using it is a no-op.
class Keeper : public ConnectionHandler {
 public:
  void on_open(const std::shared_ptr<Connection>& connection) override {
    std::lock_guard lock(mutex_);
    kept_ = connection;
  }
  void on_message(const std::shared_ptr<Connection>&, std::string_view) override {}
  void on_close(const std::shared_ptr<Connection>&) override {}
  std::shared_ptr<Connection> kept() {
    std::lock_guard lock(mutex_);
    return kept_;
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<Connection> kept_;
};

TEST_CASE("a connection kept after the server is gone is inert") {
  auto keeper = std::make_shared<Keeper>();
  {
    Running running(test_config(), keeper);
    WsClient client;
    REQUIRE(client.connect(running.port) == 101);
    REQUIRE(eventually([&] { return keeper->kept() != nullptr; }));
  }
  const auto kept = keeper->kept();
  kept->send(make_shared_text("late"));
  kept->close(CloseReason{kCloseNormal, "late"});
  CHECK(kept->id() > 0);
}

}  // namespace
}  // namespace gofish::server
