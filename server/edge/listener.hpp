// The listener: accepts connections on the server's port, each with a strand
// of its own, and hands each to an HttpSession. Before that it applies the
// socket limits: at most limits.max_sockets_per_address open from one
// address and Listener::socket_cap in all (the descriptors the process may
// open, less limits.descriptor_reserve). When accept fails for want of
// descriptors it spends a spare one to accept the waiting connection and
// drop it, rather than leave it and every client behind it hanging. A
// connection from a trusted proxy (--trusted-proxy) is marked so that its
// HttpSession reads the PROXY header first. Each port has one listener,
// told what the port is for (port_role.hpp). Owned by the Server; runs on
// the state's control strand.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>

#include <cstddef>
#include <cstdint>

#include "server/edge/port_role.hpp"
#include "server/edge/server.hpp"
#include "server/rooms/limits.hpp"

namespace gofish::server {

class Listener {
 public:
  // Keeps `state`, which owns this listener; constructs nothing that runs.
  Listener(Server::State& state, PortRole role);
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds and listens on `endpoint`; returns the bound port. Throws
  // std::system_error if the address cannot be bound.
  std::uint16_t open(const boost::asio::ip::tcp::endpoint& endpoint);
  // Starts accepting.
  void run();
  // Stops accepting (on the control strand, as shutdown begins).
  void close();
  // Closes everything, the spare descriptor too; only from Server::wait(),
  // when no I/O thread runs.
  void release();

  // The cap on open sockets: RLIMIT_NOFILE's soft limit less the reserve.
  static std::size_t socket_cap(const Limits& limits);

 private:
  void do_accept();
  void on_accept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);
  // Accepts the next waiting connection and closes it at once, using the
  // spare descriptor; false if there was none to accept.
  bool drop_waiting_connection();

  Server::State& state_;
  const PortRole role_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;  // on the control strand
  // Closed when accept fails for want of descriptors, to accept the waiting
  // connection and drop it; reopened at once. Used on the control strand only.
  int spare_descriptor_ = -1;
};

}  // namespace gofish::server
