// Blocking HTTP and WebSocket clients for tests against a real server on
// 127.0.0.1, with timeouts so a broken server fails a test instead of hanging
// it. Beast stays inside test_client.cpp, so test files compile without it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/app/config.hpp"

namespace gofish::server::testing {

using namespace std::chrono_literals;

// A configuration for tests: 127.0.0.1, any free port, the repository's web
// client, short timeouts, no bot delay.
Config test_config();

struct HttpResult {
  unsigned status = 0;  // 0: no response (connection failed or closed)
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;

  std::string header(const std::string& name) const {
    const auto found = headers.find(name);
    return found == headers.end() ? std::string() : found->second;
  }
};

// One request on a fresh connection; `target` is sent exactly as given.
HttpResult http_request(std::uint16_t port, std::string_view target,
                        std::string_view method = "GET",
                        std::string_view extra_headers = "");

// A keep-alive HTTP connection.
class HttpConnection {
 public:
  explicit HttpConnection(std::uint16_t port);
  ~HttpConnection();
  HttpResult get(std::string_view target);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True if a TCP connection to the port is accepted.
bool can_connect(std::uint16_t port);

// Connects, sends `bytes` raw, and returns how long until the server closes
// the connection (nullopt if still open after `limit`).
std::optional<std::chrono::milliseconds> time_until_closed(std::uint16_t port,
                                                           std::string_view bytes,
                                                           std::chrono::milliseconds limit);

class WsClient {
 public:
  WsClient();
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  // Shrinks the socket's receive buffer (call before connect) so a client
  // that stops reading fills up quickly.
  void set_receive_buffer(int bytes);
  // The upgrade's HTTP status: 101 when connected, else the refusal (403...),
  // or 0 if the TCP connection failed.
  unsigned connect(std::uint16_t port, std::string_view origin = "",
                   std::string_view target = "/ws");

  void send(std::string_view text);
  void send_binary(std::string_view bytes);
  // The next message; nullopt once the connection has ended (see
  // close_code) or after `timeout` (timed_out() is then true).
  std::optional<std::string> read(std::chrono::milliseconds timeout = 5000ms);
  // Reads until the connection ends; the number of messages skipped, or
  // nullopt if it did not end within `timeout`.
  std::optional<std::size_t> read_until_closed(std::chrono::milliseconds timeout = 5000ms);
  // Sends a close frame and waits for the server's.
  void close();

  bool timed_out() const;
  // The server's close frame, if one arrived (0 if the connection ended without one).
  std::uint16_t close_code() const;
  std::string close_reason() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gofish::server::testing
