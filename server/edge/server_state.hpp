// Server::State: what the Server, its Listener and every session share (the
// configuration, the io_context and control strand, the address limits, the
// tables of open sessions and the shutdown's progress), with the two
// interfaces those tables keep sessions by. Only the edge includes this:
// server.cpp, listener, http_session, websocket_session.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "server/edge/log_limiter.hpp"
#include "server/edge/server.hpp"
#include "server/edge/static_files.hpp"
#include "server/edge/tls_context.hpp"
#include "server/edge/trusted_proxies.hpp"
#include "server/rooms/address_limits.hpp"

namespace gofish::server {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

// What the server needs of a live WebSocket session beyond Connection.
class WebSocketHandle : public Connection {
 public:
  // Closes the socket at once (the shutdown deadline passed).
  virtual void cut() = 0;
  // Called after the I/O threads stopped: report on_close if still owed and
  // close the socket, so pending operations finish and release the session.
  virtual void abandon() = 0;
};

// Anything else holding a socket (HTTP sessions), cut at the end of wait().
class Cuttable {
 public:
  virtual ~Cuttable() = default;
  virtual void cut() = 0;
};

// Shared by the Server and every session. Sessions hold it by shared_ptr, so
// the io_context outlives every socket even if the rooms layer keeps a
// Connection after the Server is gone.
struct Server::State : std::enable_shared_from_this<Server::State> {
  // `socket_cap`: Listener::socket_cap(config.limits), worked out by the Server.
  State(ServerConfig config_in, std::shared_ptr<Metrics> metrics_in, std::size_t socket_cap_in);

  const ServerConfig config;
  const std::filesystem::path web_root;  // canonical
  StaticFiles static_files;              // the web client's files, compressed and tagged
  const std::shared_ptr<Metrics> metrics;
  ApiRouter api;
  // Open sockets (HTTP sessions and WebSockets) may use the descriptors the
  // process has, less limits.descriptor_reserve (Listener::socket_cap).
  const std::size_t socket_cap;
  // Sockets and WebSocket connections by client address; every socket holds
  // a kSockets slot while it is open, every WebSocket session that was not
  // refused a kConnections slot until it finishes.
  AddressLimits addresses;
  // Peers whose connections begin with a PROXY header (--trusted-proxy).
  const TrustedProxies trusted_proxies;
  // The certificate the public port's TLS uses; null without TLS.
  std::unique_ptr<TlsContext> tls;
  // The public port once bound (the redirect port sends visitors there).
  std::atomic<std::uint16_t> public_port{0};
  LogLimiter client_warnings;
  // Set by start(), released at the end of wait() (it may hold connections).
  std::shared_ptr<ConnectionHandler> handler;

  // Declared before the I/O objects below, which must be destroyed first.
  net::io_context ioc;
  std::optional<net::signal_set> signals;
  std::optional<net::signal_set> reload_signal;  // SIGHUP, with TLS on
  net::strand<net::io_context::executor_type> control_strand;  // listener, signals, shutdown
  net::steady_timer shutdown_timer;
  net::steady_timer trim_timer;
  // Closes the listeners (Server sets it: the Server owns the Listeners,
  // which hold this state; the state does not know them).
  std::function<void()> stop_accepting;
  std::atomic<bool> trim_scheduled{false};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_guard;
  std::vector<std::thread> threads;
  std::mutex wait_mutex;
  bool cleaned_up = false;

  std::atomic<bool> started{false};
  std::atomic<bool> ready{false};
  // Server::set_readiness: why /readyz answers 503 while serving, if it does.
  std::function<std::optional<std::string>()> readiness;
  std::function<Server::Health()> health;  // Server::set_health
  std::function<void()> idle;  // Server::on_idle
  std::atomic<bool> shutdown_begun{false};
  std::atomic<bool> hook_done{false};
  std::atomic<std::uint64_t> next_id{1};

  // Open WebSocket sessions, by connection id. `shutting_down` is set under the
  // same lock so a session accepted during shutdown is never missed.
  std::mutex sessions_mutex;
  std::unordered_map<std::uint64_t, std::shared_ptr<WebSocketHandle>> sessions;
  std::unordered_map<std::uint64_t, std::weak_ptr<Cuttable>> http_sessions;
  bool shutting_down = false;

  // Shutdown progress (on control_strand).
  enum class Phase { notifying, draining, cutting };
  Phase phase = Phase::notifying;
  std::chrono::steady_clock::time_point deadline;

  // Logs a warning a client can cause, within limits.client_warnings_per_second
  // for its kind; text the client chose must go through loggable().
  template <class... Args>
  void client_warning(std::string_view kind, spdlog::format_string_t<Args...> format, Args&&... args) {
    std::size_t suppressed = 0;
    if (!client_warnings.allow(kind, LogLimiter::Clock::now(), suppressed)) return;
    spdlog::warn(format, std::forward<Args>(args)...);
    if (suppressed > 0) spdlog::warn("({} more '{}' warnings in the last second were not logged)", suppressed, kind);
  }
  std::string loggable(std::string_view text) const { return server::loggable(text, config.limits.max_logged_chars); }

  // Called as a WebSocket session ends: gives freed memory back to the
  // system a little later, at most once per limits.memory_trim_interval.
  void schedule_memory_trim();

  // Registers an accepted session; false if shutdown has begun.
  bool add_session(const std::shared_ptr<WebSocketHandle>& session);
  void remove_session(std::uint64_t id);
  std::vector<std::shared_ptr<WebSocketHandle>> session_snapshot();
  std::size_t session_count();

  bool origin_allowed(std::string_view origin) const;
  void begin_shutdown();
  void shutdown_first_step();
  void shutdown_tick();
};

// Logs a session's I/O error, skipping the ones every normal close produces.
void log_failure(beast::error_code ec, std::string_view what, std::uint64_t id);

}  // namespace gofish::server
