// What one client address may take of what every client shares, through the
// real gofish-server binary: rooms, connections, sockets and descriptors,
// memory, failed joins and the log; and the WebSocket close handshake with a
// client that breaks the protocol. Other client addresses are other loopback
// addresses (127.0.0.2, ...), which the raw client binds to.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <arpa/inet.h>
#include <unistd.h>
#include <vector>

#include "raw_client.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"

namespace gofish::server::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kMiB = 1024;  // in KiB, as resident_kib counts

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

// From the operator port (`admin_port`), from 127.0.0.1 unless told otherwise.
double metric(std::uint16_t admin_port, const std::string& sample, const std::string& source = "127.0.0.1") {
  const auto response = raw_http_get(admin_port, "/metrics", source);
  REQUIRE(response.status == 200);
  return metric_value(response.body, sample);
}

// A server without storage (nothing here needs it), its log in the data dir.
struct Started {
  TempDir data;
  ServerProcess server;
  explicit Started(std::vector<std::string> extra = {}, ProcessLimits limits = {})
      : server(data.path, data.path / "server.log", with_storage_none(std::move(extra)), limits) {}
  // ServerProcess lifts the per-address room limits for tests that make many
  // rooms from 127.0.0.1; these tests are about those limits, so they put the
  // server's own defaults back unless a test sets one.
  static std::vector<std::string> with_storage_none(std::vector<std::string> extra) {
    const Limits defaults;
    const std::vector<std::string> own = {
        "--room-create-rate=" + std::to_string(defaults.room_create_rate_per_second),
        "--room-create-burst=" + std::to_string(defaults.room_create_burst),
        "--max-rooms-per-address=" + std::to_string(defaults.max_rooms_per_address)};
    for (const auto& flag : own) {
      const auto name = flag.substr(0, flag.find('='));
      const bool given = std::any_of(extra.begin(), extra.end(),
                                     [&](const std::string& e) { return e.substr(0, e.find('=')) == name; });
      if (!given) extra.push_back(flag);
    }
    extra.insert(extra.begin(), "--storage=none");
    return extra;
  }
  std::uint16_t port() const { return server.port(); }
  std::uint16_t admin_port() const { return server.admin_port(); }
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
  CHECK(metric(started.admin_port(), R"(gofish_room_requests_refused_total{reason="create_rate"})") == refused);
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
  CHECK(metric(started.admin_port(), R"(gofish_room_requests_refused_total{reason="address_rooms"})") == 2);
}

TEST_CASE("one address holds at most 100 connections, and others still get in") {
  Started started;
  const auto port = started.port();
  std::vector<std::unique_ptr<RawWebSocket>> held;
  for (int i = 0; i < 100; ++i) held.push_back(greeted(port, "127.0.0.2"));

  RawWebSocket over(port, from("127.0.0.2"));
  REQUIRE(over.open());
  const auto close = over.read_close();
  REQUIRE(close.has_value());
  CHECK(close->code == 1013);
  CHECK(close->reason == "server_full");

  auto other = greeted(port, "127.0.0.1");
  CHECK(metric(started.admin_port(), R"(gofish_connections_refused_total{reason="address_full"})") == 1);

  // A connection given back is a place for the same address again.
  held.pop_back();
  bool back_in = false;
  for (int attempt = 0; attempt < 50 && !back_in; ++attempt) {
    RawWebSocket again(port, from("127.0.0.2"));
    REQUIRE(again.open());
    again.send_text(R"({"type":"hello","protocol":1})");
    const auto text = again.read_text(1000ms);
    back_in = text && json::parse(*text)["type"] == "welcome";
    if (!back_in) std::this_thread::sleep_for(20ms);
  }
  CHECK(back_in);
}

TEST_CASE("the last connection slots are kept for addresses that hold none") {
  Started started({"--max-connections=20"});  // 10%: the last 2 slots
  const auto port = started.port();
  std::vector<std::unique_ptr<RawWebSocket>> held;
  for (int i = 0; i < 18; ++i) held.push_back(greeted(port, "127.0.0.2"));
  const auto refused_close = [&](const std::string& source) {
    RawWebSocket ws(port, from(source));
    REQUIRE(ws.open());
    const auto close = ws.read_close();
    REQUIRE(close.has_value());
    return close->code;
  };
  CHECK(refused_close("127.0.0.2") == 1013);
  held.push_back(greeted(port, "127.0.0.3"));
  held.push_back(greeted(port, "127.0.0.4"));
  CHECK(refused_close("127.0.0.5") == 1013);  // now the server is full for everyone
  CHECK(metric(started.admin_port(), R"(gofish_connections_refused_total{reason="full"})") == 2);
}

// A PROXY protocol v2 header (command PROXY, TCP over IPv4) from `client`
// to 127.0.0.1, as HAProxy's send-proxy-v2 sends it.
std::string proxy_v2(const std::string& client, std::uint16_t client_port) {
  std::string header("\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c", 16);
  unsigned char source[4];
  REQUIRE(::inet_pton(AF_INET, client.c_str(), source) == 1);
  header.append(reinterpret_cast<const char*>(source), 4);
  header.append("\x7f\x00\x00\x01", 4);
  header.push_back(static_cast<char>(client_port >> 8));
  header.push_back(static_cast<char>(client_port & 0xff));
  header.append("\x1f\x90", 2);
  return header;
}

// A connection through the "proxy" 127.0.0.1 on behalf of `client`.
RawWebSocket::Options via_proxy(const std::string& client, std::uint16_t client_port = 40000) {
  RawWebSocket::Options options;
  options.source = "127.0.0.1";
  options.preamble = proxy_v2(client, client_port);
  return options;
}

TEST_CASE("behind a trusted proxy, per-address limits count the client its PROXY header names") {
  // Two connections and three sockets per address; every connection comes
  // from 127.0.0.1, the proxy.
  Started started({"--trusted-proxy=127.0.0.1", "--max-connections-per-address=2", "--max-sockets-per-address=3"});
  const auto port = started.port();
  const auto metric_here = [&](const std::string& sample) { return metric(started.admin_port(), sample, "127.0.0.2"); };
  std::vector<std::unique_ptr<RawWebSocket>> held;
  // Each fake address gets its whole quota: four sockets from the proxy,
  // more than it could hold as its own.
  for (const std::string client : {"203.0.113.7", "203.0.113.8"}) {
    held.push_back(greeted(port, via_proxy(client, 40001)));
    held.push_back(greeted(port, via_proxy(client, 40002)));
  }
  // The same fake address is refused past it.
  RawWebSocket over(port, via_proxy("203.0.113.7", 40003));
  REQUIRE(over.open());
  const auto close = over.read_close();
  REQUIRE(close.has_value());
  CHECK(close->code == 1013);
  CHECK(metric_here(R"(gofish_connections_refused_total{reason="address_full"})") == 1);
  CHECK(started.server.log_text().find("ws from 203.0.113.7:40003: refused") != std::string::npos);

  // A v1 header works the same way.
  RawWebSocket::Options v1;
  v1.preamble = "PROXY TCP4 198.51.100.1 127.0.0.1 40004 8080\r\n";
  held.push_back(greeted(port, v1));

  // The proxy's health check: LOCAL, then a request on the proxy's own account.
  const std::string local("\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00", 16);
  const auto ready =
      raw_http_exchange(port, local + "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  CHECK(ready.status == 200);

  // A trusted connection without a header is closed unanswered, counted and logged.
  const auto plain = raw_http_exchange(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  CHECK(plain.status == 0);
  CHECK(plain.ended);
  CHECK(metric_here(R"(gofish_connections_refused_total{reason="proxy_header"})") == 1);
  CHECK(started.server.log_text().find("from proxy 127.0.0.1:") != std::string::npos);
}

TEST_CASE("a trusted proxy's connection that does not finish its PROXY header in time is closed") {
  Started started({"--trusted-proxy=127.0.0.1", "--handshake-timeout-ms=300"});
  const auto port = started.port();
  const auto start = Clock::now();
  const auto partial = raw_http_exchange(port, proxy_v2("203.0.113.7", 40000).substr(0, 20), "127.0.0.1", 3000ms);
  CHECK(partial.ended);
  CHECK(Clock::now() - start < 2500ms);
  // The stream's timer closes the socket before the read's handler runs and
  // counts the refusal, so the count may come a moment after the close.
  double refused = 0;
  for (int attempt = 0; attempt < 50 && refused == 0; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(20ms);
    refused = metric(started.admin_port(), R"(gofish_connections_refused_total{reason="proxy_header"})", "127.0.0.2");
  }
  CHECK(refused == 1);
}

TEST_CASE("a PROXY header from an address that is no trusted proxy gets a 400 and counts for its real address") {
  Started started({"--trusted-proxy=127.0.0.1", "--max-sockets-per-address=1"});
  const auto port = started.port();
  RawWebSocket::Options claim;
  claim.source = "127.0.0.2";
  claim.preamble = proxy_v2("203.0.113.9", 40000);
  {
    RawWebSocket v2(port, claim);
    CHECK(v2.status() == 400);
  }
  claim.preamble = "PROXY TCP4 203.0.113.9 127.0.0.1 40000 8080\r\n";
  {
    // The first may still hold 127.0.0.2's one socket for a moment: its
    // client has closed, the server has not yet run its close.
    unsigned status = 0;
    for (int attempt = 0; attempt < 50 && status == 0; ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(20ms);
      status = RawWebSocket(port, claim).status();
    }
    CHECK(status == 400);
  }
  const auto log = started.server.log_text();
  CHECK(log.find("from 127.0.0.2:") != std::string::npos);
  CHECK(log.find("malformed request refused") != std::string::npos);
  CHECK(log.find("203.0.113.9") == std::string::npos);
  CHECK(metric(started.admin_port(), R"(gofish_connections_refused_total{reason="proxy_header"})", "127.0.0.3") == 0);

  // Its one socket is 127.0.0.2's, whatever it claims: a second is refused.
  const int first = connect_tcp(port, "127.0.0.2");
  REQUIRE(first >= 0);
  bool refused = false;
  for (int attempt = 0; attempt < 50 && !refused; ++attempt) {
    RawWebSocket second(port, claim);
    refused = second.status() == 0;
    if (!refused) std::this_thread::sleep_for(20ms);  // the first may not be accepted yet
  }
  ::close(first);
  CHECK(refused);
  CHECK(metric(started.admin_port(), R"(gofish_connections_refused_total{reason="address_sockets"})", "127.0.0.4") >= 1);
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
  CHECK(metric(started.admin_port(), R"(gofish_room_requests_refused_total{reason="failed_joins"})") == limited + 2);
}

TEST_CASE("what a client puts in the log is truncated and rate-limited") {
  Started started({"--allowed-origins=https://fish.example.org"});
  const auto log = started.data.path / "server.log";
  std::this_thread::sleep_for(200ms);
  const auto before = fs::file_size(log);
  const std::string origin = "https://" + std::string(7900, 'e') + ".example";
  int forbidden = 0;
  for (int i = 0; i < 1000; ++i) {
    RawWebSocket ws(started.port(), RawWebSocket::Options{"127.0.0.1", origin, 0, 0, 5000ms, ""});
    if (ws.status() == 403) ++forbidden;
  }
  CHECK(forbidden == 1000);
  std::this_thread::sleep_for(1200ms);
  RawWebSocket last(started.port(), RawWebSocket::Options{"127.0.0.1", origin, 0, 0, 5000ms, ""});  // logs the summary
  CHECK(last.status() == 403);
  std::this_thread::sleep_for(200ms);
  const auto grown = fs::file_size(log) - before;
  MESSAGE("the log grew by " << grown << " bytes for 1001 refused Origins of " << origin.size() << " bytes");
  CHECK(grown < 32 * 1024);
  const auto text = started.server.log_text();
  CHECK(text.find("more 'origin' warnings in the last second were not logged") != std::string::npos);
  CHECK(text.find(std::string(200, 'e')) == std::string::npos);
  CHECK(metric(started.admin_port(), R"(gofish_connections_refused_total{reason="origin"})") == 1001);
}

TEST_CASE("at a 1024 descriptor limit, 1,100 sockets that never send a request stop neither /healthz nor a game") {
  raise_open_file_limit();
  Started started({}, ProcessLimits{std::pair<std::uint64_t, std::uint64_t>{1024, 1024}});
  const auto port = started.port();
  CHECK(started.server.log_text().find("open files") != std::string::npos);

  std::vector<int> idle;
  for (int i = 0; i < 1100; ++i) {
    const int fd = connect_tcp(port, "127.0.0.2");
    if (fd >= 0) idle.push_back(fd);
  }
  CHECK(idle.size() == 1100);
  std::this_thread::sleep_for(300ms);

  CHECK(raw_http_get(port, "/healthz", "127.0.0.1").status == 200);
  Seated host = create_room(port, create_request("Ann", "classic", 2, {protocol::BotSpec{1, engine::BotLevel::kEasy}}));
  host.peer->expect<protocol::Ok>(protocol::Start{});
  auto player = autoplay(std::move(host), 1);
  CHECK(drive({player.get()}, [&] { return player->games_over() >= 1; }));
  CHECK(player->problems.empty());
  CHECK(metric(started.admin_port(), R"(gofish_connections_refused_total{reason="address_sockets"})") > 0);

  // Many addresses at once meet the cap on all sockets, below the descriptor
  // limit, and a newcomer still gets an answer.
  for (int address = 3; address <= 7; ++address) {
    for (int i = 0; i < 250; ++i) {
      const int fd = connect_tcp(port, "127.0.0." + std::to_string(address));
      if (fd >= 0) idle.push_back(fd);
    }
  }
  std::this_thread::sleep_for(300ms);
  // (127.0.0.1 still holds the game's connection, so it is no newcomer.)
  CHECK(raw_http_get(port, "/healthz", "127.0.0.8").status == 200);
  CHECK(metric(started.admin_port(), R"(gofish_connections_refused_total{reason="sockets_full"})", "127.0.0.9") > 0);
  for (const int fd : idle) ::close(fd);
}

// The largest send queue the kernel holds for one of the server's sockets on
// `port` (tx_queue in /proc/PID/net/tcp), in bytes.
std::uint64_t largest_kernel_send_queue(pid_t pid, std::uint16_t port) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/net/tcp");
  std::string line;
  std::getline(in, line);  // the header
  std::uint64_t largest = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues;
    fields >> slot >> local >> remote >> state >> queues;
    const auto colon = local.find(':');
    if (colon == std::string::npos || std::stoul(local.substr(colon + 1), nullptr, 16) != port) continue;
    largest = std::max<std::uint64_t>(largest, std::stoull(queues.substr(0, queues.find(':')), nullptr, 16));
  }
  return largest;
}

struct SlowReaders {
  std::uint64_t base_kib = 0;   // resident before they connect
  std::uint64_t peak_kib = 0;   // at the worst while they are connected
  std::uint64_t after_kib = 0;  // once under 48 MiB after they closed, or 20 s after
  std::uint64_t largest_kernel_queue = 0;
  double closed = 0;  // closed by the server as slow readers
};

// 250 clients that say hello and then ask for lobby replies of about 8 KB
// (50 listed rooms) without ever reading, while the server's resident set is
// watched; then they all close. 200 of them use small segments and a small
// receive buffer so that what the server sends piles up in the server rather
// than in the kernel (see connect_tcp); 50 keep the kernel's defaults, so the
// kernel's share shows too. Each asks for 150 replies, about 1.2 MB: more
// than the old 1 MiB send queue.
SlowReaders slow_readers(std::vector<std::string> flags) {
  raise_open_file_limit();
  Started started(std::move(flags));
  const auto port = started.port();
  const auto pid = started.server.pid();
  std::vector<std::unique_ptr<RawWebSocket>> hosts;
  for (int i = 0; i < 50; ++i) {
    hosts.push_back(greeted(port, "127.0.0." + std::to_string(10 + i % 5)));
    REQUIRE(create(*hosts.back(), true)["type"] == "created");
  }
  const std::string lobby = R"({"type":"lobby"})";
  REQUIRE(request(*hosts.front(), json::parse(lobby)).dump().size() > 7000);
  SlowReaders result;
  result.base_kib = resident_kib(pid);

  std::vector<std::unique_ptr<RawWebSocket>> sleepers;
  for (int i = 0; i < 250; ++i) {
    auto options = from("127.0.1." + std::to_string(1 + i % 5));
    if (i < 200) {
      options.receive_buffer = 4096;
      options.max_segment = 536;
    }
    sleepers.push_back(greeted(port, options));
  }
  const auto watch = [&] {
    result.peak_kib = std::max(result.peak_kib, resident_kib(pid));
    result.largest_kernel_queue = std::max(result.largest_kernel_queue, largest_kernel_send_queue(pid, port));
  };
  for (int round = 0; round < 150; ++round) {
    for (auto& sleeper : sleepers) sleeper->send_text(lobby);
    watch();
  }
  // Until the server has read all it will read.
  double received = -1;
  for (int settled = 0; settled < 3;) {
    for (int i = 0; i < 10; ++i) {
      watch();
      std::this_thread::sleep_for(50ms);
    }
    const double now = metric(started.admin_port(), "gofish_received_bytes_total");
    settled = now == received ? settled + 1 : 0;
    received = now;
  }
  result.closed = metric(started.admin_port(), "gofish_send_queue_closes_total");
  MESSAGE("resident: " << result.base_kib / kMiB << " MiB before, " << result.peak_kib / kMiB
                       << " MiB at the peak; largest kernel send queue " << result.largest_kernel_queue / 1024
                       << " KiB; " << result.closed << " slow readers closed");

  sleepers.clear();
  hosts.clear();
  const auto closed_at = Clock::now();
  result.after_kib = resident_kib(pid);
  while (result.after_kib >= 48 * kMiB && Clock::now() < closed_at + 20s) {
    std::this_thread::sleep_for(250ms);
    result.after_kib = resident_kib(pid);
  }
  MESSAGE("resident " << result.after_kib / kMiB << " MiB "
                      << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - closed_at).count()
                      << " ms after the clients closed");
  return result;
}

TEST_CASE("clients that stop reading keep the server under 96 MiB and the kernel's buffers bounded") {
  const auto run = slow_readers({});
  CHECK(run.peak_kib < 96 * kMiB);
  // SO_SNDBUF of 64 KiB, which the kernel doubles and may overshoot by a
  // segment; left to itself it lets a peer that reads nothing have megabytes.
  CHECK(run.largest_kernel_queue <= 256 * 1024);
  CHECK(run.after_kib < 48 * kMiB);
}

TEST_CASE("memory that clients who stopped reading took is given back once they close") {
  // The old sizes (a 1 MiB queue, the kernel's own buffers) make the server
  // grow past 200 MiB; what they freed must go back to the system.
  const auto run = slow_readers({"--send-queue-bytes=1048576", "--socket-send-buffer-bytes=0"});
  CHECK(run.peak_kib > 96 * kMiB);  // or this test shows nothing
  CHECK(run.after_kib < 48 * kMiB);
}

}  // namespace
}  // namespace gofish::server::testing
