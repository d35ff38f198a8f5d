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
// is a sentence for a person.
class ConnectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
  Connection();
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects and upgrades to ws://host:port/ws within `timeout`; throws
  // ConnectError. With a room code the path is /ws?room=CODE: the server
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
  // Runs until stop() (returns nullopt) or until the connection ends (returns
  // a sentence saying how).
  std::optional<std::string> run(ConnectionHandler& handler);
  // Closes the WebSocket politely; run() returns soon after.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gofish::cli
