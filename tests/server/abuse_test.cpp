// What one client address may take of what every client shares, through the
// real gofish-server binary: rooms and failed joins; and the WebSocket close
// handshake with a client that breaks the protocol. Other client addresses are other loopback
// addresses (127.0.0.2, ...), which the raw client binds to.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "raw_client.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"

namespace gofish::server::testing {
namespace {

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

RawWebSocket::Options from(const std::string& source) {
  RawWebSocket::Options options;
  options.source = source;
  return options;
}

// A connection that said hello and was welcomed.
std::unique_ptr<RawWebSocket> greeted(std::uint16_t port, const RawWebSocket::Options& options) {
  auto ws = std::make_unique<RawWebSocket>(port, options);
  REQUIRE(ws->open());
  const auto welcome = request(*ws, {{"type", "hello"}, {"protocol", 1}});
  REQUIRE(welcome["type"] == "welcome");
  return ws;
}

std::unique_ptr<RawWebSocket> greeted(std::uint16_t port, const std::string& source) {
  return greeted(port, from(source));
}

json create(RawWebSocket& ws, bool listed = false) {
  return request(ws, {{"type", "create_room"}, {"name", "Ann"}, {"seats", 6}, {"listed", listed}});
}

json join(RawWebSocket& ws, const std::string& code, const std::string& name = "Bob") {
  return request(ws, {{"type", "join"}, {"code", code}, {"name", name}});
}

// From 127.0.0.1 unless told otherwise.
double metric(std::uint16_t port, const std::string& sample, const std::string& source = "127.0.0.1") {
  const auto response = raw_http_get(port, "/metrics", source);
  REQUIRE(response.status == 200);
  return metric_value(response.body, sample);
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

// A code in the room-code alphabet that is not `taken`.
std::string random_code(std::mt19937& random, const std::string& taken) {
  static constexpr std::string_view kAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
  for (;;) {
    std::string code;
    for (int i = 0; i < 5; ++i) code.push_back(kAlphabet[random() % kAlphabet.size()]);
    if (code != taken) return code;
  }
}

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

TEST_CASE("one address creating rooms and walking away cannot fill the server's rooms") {
  Started started;  // the default limits: 200 rooms
  int created = 0;
  int refused = 0;
  std::string sentence;
  for (int i = 0; i < 200; ++i) {
    auto ws = greeted(started.port(), "127.0.0.2");
    const auto reply = create(*ws);
    if (reply["type"] == "created") {
      ++created;
    } else {
      CHECK(reply["code"] == "room/too_many_rooms");
      sentence = reply["message"];
      ++refused;
    }
  }  // each connection is dropped as its client goes
  MESSAGE(created << " created, " << refused << " refused: " << sentence);
  CHECK(refused > 0);
  CHECK(created <= 30);
  CHECK(sentence.find("too fast") != std::string::npos);

  auto other = greeted(started.port(), "127.0.0.1");
  CHECK(create(*other)["type"] == "created");
  CHECK(metric(started.port(), R"(gofish_room_requests_refused_total{reason="create_rate"})") == refused);
}

TEST_CASE("rooms one address holds are capped, and a room that never started expires once nobody is in it") {
  Started started({"--room-create-burst=100", "--max-rooms-per-address=3", "--unstarted-room-expiry-ms=400"});
  const auto port = started.port();
  auto kept = greeted(port, "127.0.0.2");  // stays in its room
  const std::string kept_code = create(*kept)["code"];
  std::string left_code;
  for (int i = 0; i < 2; ++i) {
    auto ws = greeted(port, "127.0.0.2");
    const auto reply = create(*ws);
    REQUIRE(reply["type"] == "created");
    left_code = reply["code"];
  }
  auto fourth = greeted(port, "127.0.0.2");
  const auto refused = create(*fourth);
  CHECK(refused["code"] == "room/too_many_rooms");
  CHECK(std::string(refused["message"]).find("3 rooms") != std::string::npos);

  // The two rooms nobody is connected to close; the one with its host stays.
  std::this_thread::sleep_for(1200ms);
  auto visitor = greeted(port, "127.0.0.3");
  CHECK(join(*visitor, left_code)["code"] == "room/not_found");
  CHECK(join(*visitor, kept_code)["type"] == "joined");

  // Their places are free again for the address that made them.
  CHECK(create(*fourth)["type"] == "created");
  auto fifth = greeted(port, "127.0.0.2");
  CHECK(create(*fifth)["type"] == "created");
  auto sixth = greeted(port, "127.0.0.2");
  CHECK(create(*sixth)["code"] == "room/too_many_rooms");
  CHECK(metric(port, R"(gofish_room_requests_refused_total{reason="address_rooms"})") == 2);
}

TEST_CASE("failed joins from one address are rate-limited, and then every join from it is refused for a while") {
  Started started;
  const auto port = started.port();
  auto host = greeted(port, "127.0.0.1");
  const std::string code = create(*host)["code"];

  std::mt19937 random(7);
  auto guesser = greeted(port, "127.0.0.2");
  int not_found = 0;
  int limited = 0;
  std::string sentence;
  for (int i = 0; i < 30; ++i) {
    const auto reply = join(*guesser, random_code(random, code));
    if (reply["code"] == "room/not_found") ++not_found;
    if (reply["code"] == "room/too_many_attempts") {
      ++limited;
      sentence = reply["message"];
    }
  }
  MESSAGE(not_found << " not found, " << limited << " refused: " << sentence);
  CHECK(not_found <= 11);
  CHECK(limited == 30 - not_found);
  // Even the right code is refused now, so guessing on learns nothing.
  CHECK(join(*guesser, code)["code"] == "room/too_many_attempts");

  // Codes that cannot be room codes count too.
  auto sloppy = greeted(port, "127.0.0.3");
  for (int i = 0; i < 12; ++i) CHECK(join(*sloppy, "K0QXM")["code"] == "room/bad_code");
  CHECK(join(*sloppy, code)["code"] == "room/too_many_attempts");

  // Another address is untouched.
  auto friendly = greeted(port, "127.0.0.4");
  CHECK(join(*friendly, code)["type"] == "joined");
  CHECK(metric(port, R"(gofish_room_requests_refused_total{reason="failed_joins"})") == limited + 2);
}

}  // namespace
}  // namespace gofish::server::testing
