// The client's one WebSocket to the server, behind a plain interface: the only
// translation unit of gofish-cli that includes Boost.Beast and Asio.
//
// Everything runs on one thread in `run`: frames from the server, the
// terminal's input becoming readable, posted and delayed actions, so the
// client's state needs no locks.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "clients/cli/address.hpp"

namespace gofish::cli {

// The server could not be reached or did not upgrade to a WebSocket; what()
// is a sentence for a person. timed_out(): it did not answer in time (it may
// be frozen, or a proxy may have sent the connection to one that is), as
// opposed to refusing or failing at once.
class ConnectError : public std::runtime_error {
 public:
  explicit ConnectError(const std::string& what, bool timed_out = false)
      : std::runtime_error(what), timed_out_(timed_out) {}
  bool timed_out() const { return timed_out_; }

 private:
  bool timed_out_;
};

class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;
  virtual void on_frame(std::string_view frame) = 0;
  // The descriptor given to watch_input is readable.
  virtual void on_input() {}
};

class Connection {
 public:
  // `ca_file`: for a wss:// server, trust only the authorities in this PEM
  // file instead of the system's.
  explicit Connection(std::optional<std::string> ca_file = std::nullopt);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects and upgrades to ws://host:port/ws (or wss://, after a TLS
  // handshake that verifies the server's certificate and that it names the
  // host) within `timeout`; throws ConnectError, whose sentence says when
  // the certificate is at fault. With a room code the path is /ws?room=CODE: the server
  // ignores the parameter, but a proxy in front of several servers sends the
  // connection to the one that serves the room (protocol/README.md).
  void open(const ServerAddress& address, std::chrono::milliseconds timeout,
            const std::optional<std::string>& room_code = std::nullopt);
  // Queues a text frame; frames are written in the order given.
  void send(std::string frame);
  // Calls on_input whenever `fd` is readable, while run() runs. The descriptor is not closed.
  void watch_input(int fd);
  // Runs `action` on the loop soon; may be called from any thread.
  void post(std::function<void()> action);
  // Runs `action` on the loop after `delay`.
  void after(std::chrono::milliseconds delay, std::function<void()> action);
  // While run() runs, a server that has sent nothing (no message, no pong)
  // for a third of `silence_limit` is pinged, and one silent for all of it
  // is taken for gone: run() returns saying so, and went_silent() is true.
  // A server that is alive answers a ping at once, whatever its rooms are
  // doing; one that is frozen, or a proxy's tunnel to one, never does.
  void watch_liveness(std::chrono::milliseconds silence_limit);
  bool went_silent() const;
  // Runs until stop() (returns nullopt) or until the connection ends (returns
  // a sentence saying how).
  std::optional<std::string> run(ConnectionHandler& handler);
  // Closes the WebSocket politely; run() returns soon after.
  void stop();
  // Ends the connection at once, with no closing handshake (the server may
  // not be answering); run() returns `why`.
  void drop(std::string why);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::optional<std::string> ca_file_;
};

}  // namespace gofish::cli
