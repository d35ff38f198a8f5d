// A WebSocket client for the rooms tests that reads continuously on its own
// thread, so a test can poll many connections at once (a table of players, 50
// rooms) without a read timeout breaking the stream. Beast stays in
// rooms_socket.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gofish::server::testing {

class LiveSocket {
 public:
  // Connects to ws://127.0.0.1:<port>/ws; throws std::runtime_error if the
  // connection or the upgrade fails.
  explicit LiveSocket(std::uint16_t port);
  ~LiveSocket();
  LiveSocket(const LiveSocket&) = delete;
  LiveSocket& operator=(const LiveSocket&) = delete;

  void send(std::string text);
  void send_binary(std::string bytes);
  // The next frame received, waiting up to `timeout`; nullopt after the
  // timeout, or once the connection has ended and every frame was taken.
  std::optional<std::string> next(std::chrono::milliseconds timeout);
  bool ended() const;
  // The server's close frame (code 0 if the connection ended without one).
  std::uint16_t close_code() const;
  std::string close_reason() const;
  // A clean close handshake (waits up to two seconds).
  void close();
  // Cuts the TCP connection without a close frame: a dropped network.
  void drop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Any LiveSocket receiving a frame or ending bumps this counter, so a test
// driving many sockets can sleep until something happens.
std::uint64_t activity();
// Waits until activity() differs from `seen`, or `timeout`.
void wait_for_activity(std::uint64_t seen, std::chrono::milliseconds timeout);

}  // namespace gofish::server::testing
