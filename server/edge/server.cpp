// The Server (server.hpp) and its shared State: start (bind through the
// Listener, start the I/O threads), the session tables, the shutdown sequence
// (notify, drain, cut, stop) and wait()'s clean-up once the threads are gone.
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/websocket/error.hpp>
#include <spdlog/spdlog.h>

#include <pthread.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <stdexcept>
#include <string>

#include "server/edge/listener.hpp"
#include "server/edge/memory_allocator.hpp"
#include "server/edge/server_state.hpp"

namespace gofish::server {

namespace {

// How long the shutdown waits for cut sockets to report before stopping.
constexpr std::chrono::milliseconds kCutWait{1000};
constexpr std::chrono::milliseconds kShutdownPoll{10};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

void log_failure(beast::error_code ec, std::string_view what, std::uint64_t id) {
  // Every normal close ends a pending operation with one of these.
  if (ec == net::error::operation_aborted || ec == beast::websocket::error::closed ||
      ec == net::error::eof || ec == beast::error::timeout ||
      ec == net::error::connection_reset || ec == net::error::broken_pipe ||
      ec == beast::http::error::end_of_stream) {
    spdlog::trace("connection {}: {}: {}", id, what, ec.message());
    return;
  }
  spdlog::debug("connection {}: {}: {}", id, what, ec.message());
}

// ---- Server::State ----

Server::State::State(ServerConfig config_in, std::shared_ptr<Metrics> metrics_in, std::size_t socket_cap_in)
    : config(std::move(config_in)),
      web_root(std::filesystem::canonical(config.web_root)),
      metrics(std::move(metrics_in)),
      socket_cap(socket_cap_in),
      addresses(config.limits, socket_cap),
      trusted_proxies(config.trusted_proxies),
      tls(config.tls_cert.empty() ? nullptr : std::make_unique<TlsContext>(config.tls_cert, config.tls_key)),
      client_warnings(config.limits.client_warnings_per_second),
      ioc(static_cast<int>(config.threads)),
      control_strand(net::make_strand(ioc)),
      shutdown_timer(control_strand),
      trim_timer(control_strand) {}

void Server::State::schedule_memory_trim() {
  const auto interval = config.limits.memory_trim_interval;
  if (interval.count() <= 0 || trim_scheduled.exchange(true)) return;
  net::post(control_strand, [this, interval] {
    trim_timer.expires_after(interval);
    trim_timer.async_wait([this](beast::error_code ec) {
      trim_scheduled = false;
      if (ec) return;
      // What closed connections freed goes back to the system.
      MemoryAllocator::release_free_memory();
    });
  });
}

bool Server::State::add_session(const std::shared_ptr<WebSocketHandle>& session) {
  std::lock_guard lock(sessions_mutex);
  if (shutting_down) return false;
  sessions.emplace(session->id(), session);
  return true;
}

void Server::State::remove_session(std::uint64_t id) {
  std::lock_guard lock(sessions_mutex);
  sessions.erase(id);
}

std::vector<std::shared_ptr<WebSocketHandle>> Server::State::session_snapshot() {
  std::lock_guard lock(sessions_mutex);
  std::vector<std::shared_ptr<WebSocketHandle>> result;
  result.reserve(sessions.size());
  for (const auto& [id, session] : sessions) result.push_back(session);
  return result;
}

std::size_t Server::State::session_count() {
  std::lock_guard lock(sessions_mutex);
  return sessions.size();
}

bool Server::State::origin_allowed(std::string_view origin) const {
  // Only browsers send Origin, and only browsers can be tricked into
  // connecting from someone else's page, so a missing Origin is allowed.
  if (config.allowed_origins.empty() || origin.empty()) return true;
  return std::any_of(config.allowed_origins.begin(), config.allowed_origins.end(),
                     [origin](const std::string& allowed) { return iequals(allowed, origin); });
}

void Server::State::begin_shutdown() {
  if (!started || shutdown_begun.exchange(true)) return;
  net::post(control_strand, [this] { shutdown_first_step(); });
}

void Server::State::shutdown_first_step() {
  ready = false;
  {
    std::lock_guard lock(sessions_mutex);
    shutting_down = true;
  }
  if (stop_accepting) stop_accepting();
  beast::error_code ec;
  if (signals) signals->cancel(ec);
  if (reload_signal) reload_signal->cancel(ec);
  deadline = std::chrono::steady_clock::now() + config.limits.shutdown_grace;
  phase = Phase::notifying;
  spdlog::info("shutting down: {} connections, grace {} ms", session_count(),
               config.limits.shutdown_grace.count());
  // Weak, so a hook that keeps `done` forever does not keep the state alive.
  handler->on_shutdown([weak = weak_from_this()] {
    if (auto self = weak.lock()) self->hook_done = true;
  });
  shutdown_tick();
}

void Server::State::shutdown_tick() {
  const auto now = std::chrono::steady_clock::now();
  if (phase == Phase::notifying && (hook_done || now >= deadline)) {
    for (const auto& session : session_snapshot()) {
      session->close(close_shutting_down());
    }
    phase = Phase::draining;
  }
  if (phase == Phase::draining) {
    const auto open = session_count();
    if (open == 0) return ioc.stop();
    if (now >= deadline) {
      spdlog::warn("shutdown grace over: cutting {} connections", open);
      for (const auto& session : session_snapshot()) session->cut();
      phase = Phase::cutting;
      deadline = now + kCutWait;
    }
  }
  if (phase == Phase::cutting && (session_count() == 0 || now >= deadline)) return ioc.stop();
  shutdown_timer.expires_after(kShutdownPoll);
  shutdown_timer.async_wait([this](beast::error_code ec) {
    if (!ec) shutdown_tick();
  });
}

// ---- Server ----

Server::Server(ServerConfig config, std::shared_ptr<Metrics> metrics) {
  const auto socket_cap = Listener::socket_cap(config.limits);
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    throw std::invalid_argument("TLS needs both a certificate (--tls-cert) and a key (--tls-key)");
  }
  if (config.http_redirect_port && config.tls_cert.empty()) {
    throw std::invalid_argument("--http-redirect-port sends visitors to https, which needs TLS (--tls-cert, --tls-key)");
  }
  state_ = std::make_shared<State>(std::move(config), std::move(metrics), socket_cap);
  listeners_.push_back(std::make_unique<Listener>(*state_, PortRole::kPublic));
  if (state_->config.admin_port) listeners_.push_back(std::make_unique<Listener>(*state_, PortRole::kAdmin));
  if (state_->config.http_redirect_port) {
    listeners_.push_back(std::make_unique<Listener>(*state_, PortRole::kRedirect));
  }
  state_->stop_accepting = [this] {
    for (const auto& listener : listeners_) listener->close();
  };
}

Server::~Server() {
  if (state_->started) stop();
}

std::uint16_t Server::start(std::shared_ptr<ConnectionHandler> handler) {
  auto& s = *state_;
  if (!handler) throw std::invalid_argument("Server::start: no handler");
  if (s.started) throw std::logic_error("Server::start called twice");
  s.handler = std::move(handler);

  const auto bind = net::ip::make_address(s.config.bind);
  const auto port = listeners_.front()->open(tcp::endpoint{bind, s.config.port});
  s.public_port = port;
  std::size_t next = 1;
  if (s.config.admin_port) {
    const auto admin_bind = net::ip::make_address(s.config.admin_bind);
    admin_port_ = listeners_[next++]->open(tcp::endpoint{admin_bind, *s.config.admin_port});
    spdlog::info("operator endpoints on {}:{} (/metrics, /healthz, /readyz)", s.config.admin_bind, admin_port_);
  }
  if (s.config.http_redirect_port) {
    redirect_port_ = listeners_[next++]->open(tcp::endpoint{bind, *s.config.http_redirect_port});
    spdlog::info("plain http on {}:{} redirects to https", s.config.bind, redirect_port_);
  }
  if (s.tls) spdlog::info("TLS: {}", s.tls->describe());

  s.started = true;
  s.ready = true;
  s.work_guard.emplace(s.ioc.get_executor());
  for (const auto& listener : listeners_) listener->run();
  for (unsigned i = 0; i < s.config.threads; ++i) {
    s.threads.emplace_back([state = state_.get(), i] {
      // Named, so that top -H, ps -L and perf tell the threads apart.
      pthread_setname_np(pthread_self(), ("io-" + std::to_string(i)).c_str());
      for (;;) {
        try {
          if (!state->idle) {
            state->ioc.run();
            return;
          }
          // run(), except that before blocking the thread says it is idle.
          // poll() runs what is ready (polling the sockets without waiting)
          // and counts it; 0 means nothing was.
          for (;;) {
            if (state->ioc.poll() > 0) continue;
            if (state->ioc.stopped()) return;
            state->idle();
            if (state->ioc.run_one() == 0) return;
          }
        } catch (const std::exception& error) {
          // A handler threw: log it and keep the other connections served.
          spdlog::error("unhandled exception on an I/O thread: {}", error.what());
        }
      }
    });
  }
  return port;
}

void Server::handle_signals() {
  auto& s = *state_;
  s.signals.emplace(s.ioc, SIGINT, SIGTERM);
  s.signals->async_wait(
      net::bind_executor(s.control_strand, [state = state_.get()](beast::error_code ec, int signal) {
        if (ec) return;
        spdlog::info("signal {} received", signal);
        state->begin_shutdown();
      }));
  if (s.tls) {
    s.reload_signal.emplace(s.ioc, SIGHUP);
    wait_for_reload();
  }
}

// SIGHUP: the certificate and key are read again. New handshakes use them;
// connections already open keep theirs.
void Server::wait_for_reload() {
  auto& s = *state_;
  s.reload_signal->async_wait(net::bind_executor(s.control_strand, [this](beast::error_code ec, int) {
    if (ec) return;
    auto& state = *state_;
    if (const auto problem = state.tls->reload(); problem.empty()) {
      spdlog::info("TLS: certificate reloaded: {}", state.tls->describe());
    } else {
      spdlog::error("TLS: certificate not reloaded, the old one stays: {}", problem);
    }
    wait_for_reload();
  }));
}

void Server::begin_shutdown() { state_->begin_shutdown(); }

void Server::wait() {
  auto& s = *state_;
  std::lock_guard wait_lock(s.wait_mutex);
  for (auto& thread : s.threads) {
    if (thread.get_id() == std::this_thread::get_id()) {
      throw std::logic_error("Server::wait called from an I/O thread");
    }
  }
  for (auto& thread : s.threads) thread.join();
  s.threads.clear();
  if (!s.started || s.cleaned_up) return;
  s.cleaned_up = true;

  // The I/O threads are gone, so this thread is the only one touching
  // sessions. Settle every session the stop left behind, then let their
  // cancelled operations finish so nothing keeps them alive.
  for (const auto& session : s.session_snapshot()) session->abandon();
  std::vector<std::shared_ptr<Cuttable>> http_sessions;
  {
    std::lock_guard lock(s.sessions_mutex);
    for (const auto& [id, weak] : s.http_sessions) {
      if (auto session = weak.lock()) http_sessions.push_back(std::move(session));
    }
  }
  for (const auto& session : http_sessions) session->cut();
  http_sessions.clear();
  for (const auto& listener : listeners_) listener->release();
  beast::error_code ec;
  if (s.signals) s.signals->cancel(ec);
  if (s.reload_signal) s.reload_signal->cancel(ec);
  s.shutdown_timer.cancel();
  s.trim_timer.cancel();
  s.work_guard.reset();
  s.ioc.restart();
  for (int round = 0; round < 100 && s.ioc.poll() > 0; ++round) {
  }
  {
    std::lock_guard lock(s.sessions_mutex);
    s.sessions.clear();
  }
  // The handler may hold connections that hold this state.
  s.handler.reset();
  spdlog::info("server stopped");
}

void Server::stop() {
  begin_shutdown();
  wait();
}

boost::asio::io_context& Server::io_context() { return state_->ioc; }
ApiRouter& Server::api() { return state_->api; }
Metrics& Server::metrics() { return *state_->metrics; }
const ServerConfig& Server::config() const { return state_->config; }
bool Server::ready() const { return state_->ready; }
void Server::set_readiness(std::function<std::optional<std::string>()> check) { state_->readiness = std::move(check); }
void Server::on_idle(std::function<void()> hook) { state_->idle = std::move(hook); }
void Server::set_health(std::function<Health()> check) { state_->health = std::move(check); }
std::size_t Server::connection_count() const { return state_->session_count(); }
std::uint16_t Server::admin_port() const { return admin_port_; }
std::uint16_t Server::redirect_port() const { return redirect_port_; }
bool Server::tls() const { return state_->tls != nullptr; }

}  // namespace gofish::server
