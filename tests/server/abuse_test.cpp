// Clients that break the WebSocket protocol, and what the welcome tells a
// client, through the real gofish-server binary.
#include <doctest/doctest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "raw_client.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"

namespace gofish::server::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The message answering `body` (sent with a fresh id), skipping events.
json request(RawWebSocket& ws, json body) {
  static std::int64_t next_id = 1;
  const std::int64_t id = next_id++;
  body["id"] = id;
  REQUIRE(ws.send_text(body.dump()));
  const auto deadline = Clock::now() + 5s;
  while (Clock::now() < deadline) {
    const auto text = ws.read_text(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    if (!text) break;
    auto message = json::parse(*text);
    if (message.contains("id") && message["id"] == id) return message;
  }
  FAIL("no answer to " << body.dump());
  return {};
}

// A server without storage (nothing here needs it), its log in the data dir.
struct Started {
  TempDir data;
  ServerProcess server;
  explicit Started(std::vector<std::string> extra = {}, ProcessLimits limits = {})
      : server(data.path, data.path / "server.log", with_storage_none(std::move(extra)), limits) {}
  static std::vector<std::string> with_storage_none(std::vector<std::string> extra) {
    extra.insert(extra.begin(), "--storage=none");
    return extra;
  }
  std::uint16_t port() const { return server.port(); }
};

TEST_CASE("welcome.limits gives the seat grace and the idle timeout in milliseconds") {
  Started started({"--seat-grace-ms=1500", "--idle-timeout-ms=2500"});
  RawWebSocket ws(started.port());
  REQUIRE(ws.open());
  const auto welcome = request(ws, {{"type", "hello"}, {"protocol", 1}});
  const auto& limits = welcome["limits"];
  CHECK(limits.value("seat_grace_ms", -1) == 1500);
  CHECK(limits.value("idle_timeout_ms", -1) == 2500);
  CHECK(!limits.contains("seat_grace_seconds"));
  CHECK(!limits.contains("idle_timeout_seconds"));
}

TEST_CASE("a text frame that is not UTF-8 closes with 1007 bad_utf8") {
  Started started;
  RawWebSocket ws(started.port());
  REQUIRE(ws.open());
  REQUIRE(ws.send_text("{\"type\":\"hello\",\"name\":\"\xff\xfe\"}"));
  const auto close = ws.read_close();
  REQUIRE(close.has_value());
  CHECK(close->code == 1007);
  CHECK(close->reason == "bad_utf8");
}

TEST_CASE("a client's close frame is answered with 1000 normal, or 1002 protocol_error for a code outside the valid ranges") {
  Started started;
  const std::vector<std::uint16_t> valid = {1000, 1001, 1002, 1003, 1007, 1008, 1011, 3000, 4000, 4999};
  const std::vector<std::uint16_t> invalid = {0, 999, 1004, 1005, 1006, 1012, 1013, 1014, 1015, 1016, 2999, 5000, 65535};
  for (const auto code : valid) {
    CAPTURE(code);
    RawWebSocket ws(started.port());
    REQUIRE(ws.open());
    REQUIRE(ws.send_close(code, "bye"));
    const auto close = ws.read_close();
    REQUIRE(close.has_value());
    CHECK(close->code == 1000);
    CHECK(close->reason == "normal");
  }
  for (const auto code : invalid) {
    CAPTURE(code);
    RawWebSocket ws(started.port());
    REQUIRE(ws.open());
    REQUIRE(ws.send_close(code));
    const auto close = ws.read_close();
    REQUIRE(close.has_value());
    CHECK(close->code == 1002);
    CHECK(close->reason == "protocol_error");
  }
  RawWebSocket empty(started.port());  // a close frame without a code
  REQUIRE(empty.open());
  REQUIRE(empty.send_close(std::nullopt));
  const auto close = empty.read_close();
  REQUIRE(close.has_value());
  CHECK(close->code == 1000);
}

}  // namespace
}  // namespace gofish::server::testing
