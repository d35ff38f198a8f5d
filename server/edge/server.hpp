// The network server: one public port for the static web client, /healthz,
// /readyz, /api/... and the WebSocket at /ws (TLS only, when configured);
// an admin port on a private address for /metrics; with TLS, optionally a
// plain-HTTP port that redirects to https. Runs an io_context on
// config.threads threads; each connection has its own strand. The Beast code
// behind it lives in the edge only: server.cpp (this class and its State),
// listener, http_session, websocket_session and batching_stream.
//
//   Server server(config);
//   auto port = server.start(handler);   // bound and serving
//   server.handle_signals();             // SIGINT/SIGTERM begin the shutdown
//   server.wait();                       // returns once stopped
#pragma once

#include <boost/asio/io_context.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/edge/server_config.hpp"
#include "server/rooms/api_router.hpp"
#include "server/rooms/connection.hpp"
#include "server/rooms/metrics.hpp"

namespace gofish::server {

class Listener;  // listener.hpp

class Server {
 public:
  // config.web_root must be set (see find_web_root).
  explicit Server(ServerConfig config, std::shared_ptr<Metrics> metrics = std::make_shared<Metrics>());
  ~Server();  // stops if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds, listens and starts the I/O threads; returns the bound port.
  // Throws std::system_error if the address cannot be bound. Call once.
  std::uint16_t start(std::shared_ptr<ConnectionHandler> handler);

  // SIGINT and SIGTERM call begin_shutdown(); with TLS, SIGHUP reloads the
  // certificate and key.
  void handle_signals();

  // The shutdown path (thread-safe, idempotent, returns at once): stop
  // accepting, /readyz answers 503, the handler's on_shutdown hook runs, every
  // WebSocket is closed with 1001 after its queue drains; after the shutdown
  // grace the remaining sockets are cut and the I/O threads stop.
  void begin_shutdown();
  // Blocks until the I/O threads have stopped. Not from an I/O thread.
  // Before returning it reports on_close for every connection still owed
  // one, runs the handlers that closing them made ready, and drops the
  // handler. Work the rooms layer left scheduled (a timer holding a
  // Connection) is never run and keeps that connection's memory until exit,
  // so cancel timers in on_shutdown and drop connections in on_close.
  void wait();
  // begin_shutdown() then wait().
  void stop();

  // For the rooms layer: its strands and timers run here.
  boost::asio::io_context& io_context();
  ApiRouter& api();
  Metrics& metrics();
  const ServerConfig& config() const;
  // False once shutdown has begun.
  bool ready() const;
  // Before start(): /readyz also answers 503, with the sentence `check`
  // returns, whenever it returns one (the database or lease renewal fails).
  // Called on I/O threads: it must be quick.
  void set_readiness(std::function<std::optional<std::string>()> check);
  // Before start(): /healthz answers with the status and text `check`
  // returns (200 "ok\n" without one). Quick, as above.
  struct Health {
    int status = 200;
    std::string text;
  };
  void set_health(std::function<Health()> check);
  // Before start(): an I/O thread calls `hook` each time it has run every
  // handler that was ready and is about to wait for more (the store's writer
  // then commits at once: nothing more is coming soon). Quick, as above.
  void on_idle(std::function<void()> hook);
  // Open WebSocket connections.
  std::size_t connection_count() const;
  // After start(): the admin and redirect ports as bound (0: none).
  std::uint16_t admin_port() const;
  std::uint16_t redirect_port() const;
  bool tls() const;

  struct State;  // shared with the listener and the sessions (server_state.hpp)

 private:
  void wait_for_reload();

  std::shared_ptr<State> state_;
  // Accept connections into state_, the public port's first; after state_,
  // so they go first. A Listener holds the State, not the other way round.
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::uint16_t admin_port_ = 0;
  std::uint16_t redirect_port_ = 0;
};

}  // namespace gofish::server
