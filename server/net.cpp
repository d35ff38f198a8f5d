// The listener, the HTTP sessions (static client, health, metrics, API, and the
// hand-off to a WebSocket session on upgrade) and the shutdown sequence.
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <limits>
#include <stdexcept>

#include "gofish/version.hpp"
#include "server/http_paths.hpp"
#include "server/net_detail.hpp"

namespace gofish::server {

namespace {

constexpr std::string_view kServerName = kServerHeader;
// How long the shutdown waits for cut sockets to report before stopping.
constexpr std::chrono::milliseconds kCutWait{1000};
constexpr std::chrono::milliseconds kShutdownPoll{10};
constexpr std::chrono::milliseconds kAcceptRetry{100};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string endpoint_text(const tcp::socket& socket) {
  beast::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return "?";
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

// RLIMIT_NOFILE's soft limit less the reserve: the cap on open sockets.
std::size_t socket_cap_of(const Limits& limits) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return std::numeric_limits<std::size_t>::max();
  }
  const auto descriptors = static_cast<std::size_t>(limit.rlim_cur);
  return descriptors > limits.descriptor_reserve ? descriptors - limits.descriptor_reserve : 1;
}

class HttpSession : public Cuttable, public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(std::shared_ptr<Server::State> state, tcp::socket socket, AddressLimits::Slot socket_slot,
              std::string address, std::uint64_t id)
      : state_(std::move(state)),
        socket_slot_(std::move(socket_slot)),
        stream_(std::move(socket)),
        address_(std::move(address)),
        id_(id) {}

  ~HttpSession() override {
    std::lock_guard lock(state_->sessions_mutex);
    state_->http_sessions.erase(id_);
  }

  void run() {
    {
      std::lock_guard lock(state_->sessions_mutex);
      state_->http_sessions.emplace(id_, weak_from_this());
    }
    // The socket's executor is this connection's strand.
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->do_read(); });
  }

  // Only from Server::wait(), when no I/O thread runs.
  void cut() override {
    beast::error_code ec;
    stream_.socket().close(ec);
  }

 private:
  void do_read() {
    const auto limit = state_->config.limits.max_request_bytes;
    head_ = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(limit));
    parser_->body_limit(limit);
    // Bounds both the wait for a request and a slow sender's headers.
    stream_.expires_after(state_->config.limits.handshake_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       self->on_read(ec);
                     });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) {
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      return;
    }
    if (ec) {
      if (ec == http::error::header_limit || ec == http::error::body_limit ||
          ec == http::error::buffer_overflow) {
        state_->client_warning("too_large", "http {} from {}: request over {} bytes refused", id_, address_,
                               state_->config.limits.max_request_bytes);
        return send(text_response(http::status::payload_too_large, "request too large\n", false));
      }
      return log_failure(ec, "http read", id_);
    }
    auto& request = parser_->get();
    if (beast::websocket::is_upgrade(request)) return upgrade();
    handle(request);
  }

  void upgrade() {
    auto& request = parser_->get();
    const auto target = split_target(request.target());
    if (target.path != "/ws") {
      return send(text_response(http::status::not_found, "not found\n", false));
    }
    const auto origin = request[http::field::origin];
    if (!state_->origin_allowed(origin)) {
      state_->client_warning("origin", "ws from {}: origin '{}' refused", endpoint_text(stream_.socket()),
                             state_->loggable(origin));
      state_->metrics->connection_refused("origin");
      return send(text_response(http::status::forbidden, "origin not allowed\n", false));
    }
    std::optional<CloseReason> refusal;
    AddressLimits::Slot connection_slot;
    if (!state_->ready) {
      state_->metrics->connection_refused("shutting_down");
      refusal = close_shutting_down();
    } else if (const auto admission =
                   state_->addresses.take(AddressLimits::Pool::kConnections, address_, connection_slot);
               admission != AddressLimits::Admission::kAdmitted) {
      const auto& limits = state_->config.limits;
      if (admission == AddressLimits::Admission::kAddressFull) {
        state_->client_warning("address_full", "ws from {}: refused, {} connections open from its address",
                               endpoint_text(stream_.socket()), limits.max_connections_per_address);
        state_->metrics->connection_refused("address_full");
      } else {
        state_->client_warning("full", "ws from {}: refused, {} connections open (of {})",
                               endpoint_text(stream_.socket()),
                               state_->addresses.taken(AddressLimits::Pool::kConnections), limits.max_connections);
        state_->metrics->connection_refused("full");
      }
      refusal = close_server_full();
    }
    stream_.expires_never();  // the WebSocket has its own timeouts
    start_websocket_session(state_, std::move(stream_), parser_->release(), std::move(refusal),
                            std::move(socket_slot_), std::move(connection_slot), address_);
  }

  void handle(const http::request<http::string_body>& request) {
    head_ = request.method() == http::verb::head;
    const bool keep_alive = request.keep_alive() && state_->ready;
    if (request.method() != http::verb::get && request.method() != http::verb::head) {
      auto response = text_response(http::status::method_not_allowed, "GET or HEAD only\n", keep_alive);
      response.set(http::field::allow, "GET, HEAD");
      return send(std::move(response));
    }
    const auto target = split_target(request.target());
    const auto path = percent_decode(target.path);
    if (!path) return send(text_response(http::status::bad_request, "bad path\n", keep_alive));

    if (*path == "/healthz") {
      return send(text_response(http::status::ok, "ok\n", keep_alive));
    }
    if (*path == "/readyz") {
      if (!state_->ready) {
        return send(text_response(http::status::service_unavailable, "shutting down\n", keep_alive));
      }
      if (const auto problem = state_->readiness ? state_->readiness() : std::nullopt) {
        return send(text_response(http::status::service_unavailable, *problem + "\n", keep_alive));
      }
      return send(text_response(http::status::ok, "ready\n", keep_alive));
    }
    if (*path == "/metrics") {
      auto response = text_response(http::status::ok, state_->metrics->serialize(), keep_alive);
      response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      return send(std::move(response));
    }
    if (*path == "/ws") {
      return send(text_response(http::status::upgrade_required, "WebSocket only\n", keep_alive));
    }
    if (path->starts_with("/api/")) {
      std::optional<ApiReply> reply;
      try {
        reply = state_->api.route(ApiRequest{*path, target.query});
      } catch (const std::exception& error) {
        spdlog::error("http {}: API handler for {} threw: {}", id_, *path, error.what());
        return send(text_response(http::status::internal_server_error, "internal error\n",
                                  keep_alive));
      }
      if (!reply) {
        return send(text_response(http::status::not_found, "no such API\n", keep_alive));
      }
      auto response = text_response(static_cast<http::status>(reply->status),
                                    std::move(reply->body), keep_alive);
      response.set(http::field::content_type, reply->content_type);
      return send(std::move(response));
    }
    serve_file(request.target(), request[http::field::accept_encoding], request[http::field::if_none_match],
               keep_alive);
  }

  // The bytes, their compression and the 200-or-304 decision come from
  // StaticFiles (static_files.hpp); this only writes them.
  void serve_file(std::string_view target, std::string_view accept_encoding, std::string_view if_none_match,
                  bool keep_alive) {
    const auto file = resolve_static(state_->web_root, target);
    if (file.status == StaticStatus::bad_request) {
      spdlog::debug("http {}: refused path", id_);
      return send(text_response(http::status::bad_request, "bad path\n", keep_alive));
    }
    if (file.status == StaticStatus::not_found) {
      return send(text_response(http::status::not_found, "not found\n", keep_alive));
    }
    const auto answer = state_->static_files.answer(file.path, accept_encoding, if_none_match);
    if (!answer) {
      state_->client_warning("file", "http {}: cannot read {}", id_, state_->loggable(file.path.string()));
      return send(text_response(http::status::not_found, "not found\n", keep_alive));
    }
    http::response<http::string_body> response{static_cast<http::status>(answer->status), 11};
    decorate(response, keep_alive);
    response.set(http::field::content_type, mime_type(file.path));
    response.set(http::field::etag, answer->etag);
    if (answer->varies) response.set(http::field::vary, "Accept-Encoding");
    if (answer->gzip) response.set(http::field::content_encoding, "gzip");
    if (answer->status == 304) return write(http::response<http::empty_body>{std::move(response.base())});
    response.content_length(answer->length);
    if (!head_) response.body() = *answer->body;
    write(std::move(response));
  }

  template <class Body>
  static void decorate(http::response<Body>& response, bool keep_alive) {
    response.set(http::field::server, kServerName);
    response.set(http::field::cache_control, "no-cache");
    response.set("X-Content-Type-Options", "nosniff");
    response.keep_alive(keep_alive);
  }

  static http::response<http::string_body> text_response(http::status status, std::string body,
                                                         bool keep_alive) {
    http::response<http::string_body> response{status, 11};
    decorate(response, keep_alive);
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    response.body() = std::move(body);
    response.prepare_payload();
    return response;
  }

  // A HEAD answer keeps the headers (with the GET's Content-Length) and drops the body.
  void send(http::response<http::string_body>&& response) {
    if (!head_) return write(std::move(response));
    http::response<http::empty_body> headers{std::move(response.base())};
    write(std::move(headers));
  }

  template <class Body>
  void write(http::response<Body>&& response) {
    auto shared = std::make_shared<http::response<Body>>(std::move(response));
    stream_.expires_after(state_->config.limits.handshake_timeout);
    http::async_write(stream_, *shared,
                      [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
                        self->on_write(ec, shared->keep_alive());
                      });
  }

  void on_write(beast::error_code ec, bool keep_alive) {
    if (ec) return log_failure(ec, "http write", id_);
    if (!keep_alive) {
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      return;
    }
    do_read();
  }

  std::shared_ptr<Server::State> state_;
  AddressLimits::Slot socket_slot_;  // given back after the socket is closed (destroyed below it)
  beast::tcp_stream stream_;
  const std::string address_;
  std::uint64_t id_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool head_ = false;  // the request being answered is a HEAD
};

}  // namespace

void log_failure(beast::error_code ec, std::string_view what, std::uint64_t id) {
  // Every normal close ends a pending operation with one of these.
  if (ec == net::error::operation_aborted || ec == beast::websocket::error::closed ||
      ec == net::error::eof || ec == beast::error::timeout ||
      ec == net::error::connection_reset || ec == net::error::broken_pipe ||
      ec == http::error::end_of_stream) {
    spdlog::trace("connection {}: {}: {}", id, what, ec.message());
    return;
  }
  spdlog::debug("connection {}: {}: {}", id, what, ec.message());
}

// ---- Server::State ----

Server::State::State(Config config_in, std::shared_ptr<Metrics> metrics_in)
    : config(std::move(config_in)),
      web_root(std::filesystem::canonical(config.web_root)),
      metrics(std::move(metrics_in)),
      socket_cap(socket_cap_of(config.limits)),
      addresses(config.limits, socket_cap),
      client_warnings(config.limits.client_warnings_per_second),
      ioc(static_cast<int>(config.threads)),
      acceptor(ioc),
      control_strand(net::make_strand(ioc)),
      shutdown_timer(control_strand),
      accept_retry_timer(control_strand),
      trim_timer(control_strand) {}

void Server::State::schedule_memory_trim() {
  const auto interval = config.limits.memory_trim_interval;
  if (interval.count() <= 0 || trim_scheduled.exchange(true)) return;
  net::post(control_strand, [this, interval] {
    trim_timer.expires_after(interval);
    trim_timer.async_wait([this](beast::error_code ec) {
      trim_scheduled = false;
      if (ec) return;
#if defined(__GLIBC__)
      // What closed connections freed sits in glibc's arenas, which give
      // memory back to the system only from their tops; this returns every
      // free page, wherever it is.
      ::malloc_trim(0);
#endif
    });
  });
}

bool Server::State::drop_waiting_connection() {
  if (spare_descriptor < 0) return false;
  ::close(spare_descriptor);
  const int waiting = ::accept4(acceptor.native_handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (waiting >= 0) ::close(waiting);
  spare_descriptor = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return waiting >= 0;
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

void Server::State::do_accept() {
  acceptor.async_accept(
      net::make_strand(ioc),
      net::bind_executor(control_strand, [this](beast::error_code ec, tcp::socket socket) {
        on_accept(ec, std::move(socket));
      }));
}

void Server::State::on_accept(beast::error_code ec, tcp::socket socket) {
  if (!acceptor.is_open()) return;  // shutting down
  if (ec) {
    const bool out_of_descriptors = ec == net::error::no_descriptors || ec.value() == ENFILE;
    if (out_of_descriptors && drop_waiting_connection()) {
      metrics->connection_refused("descriptors");
      client_warning("descriptors", "accept: out of file descriptors; a connection was accepted and closed");
      return do_accept();
    }
    // Otherwise wait a little rather than spin.
    client_warning("accept", "accept: {}", ec.message());
    accept_retry_timer.expires_after(kAcceptRetry);
    accept_retry_timer.async_wait([this](beast::error_code wait_ec) {
      if (!wait_ec && acceptor.is_open()) do_accept();
    });
    return;
  }
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) {  // the peer is gone already
    socket.close(ec);
    return do_accept();
  }
  std::string address = AddressLimits::key_of(endpoint.address().to_string());
  AddressLimits::Slot slot;
  if (const auto admission = addresses.take(AddressLimits::Pool::kSockets, address, slot);
      admission != AddressLimits::Admission::kAdmitted) {
    const bool per_address = admission == AddressLimits::Admission::kAddressFull;
    const char* reason = per_address ? "address_sockets" : "sockets_full";
    metrics->connection_refused(reason);
    client_warning(reason, "socket from {} closed: {}", address,
                   per_address ? "its address has as many sockets open as it may" : "as many sockets open as the server takes");
    socket.close(ec);
    return do_accept();
  }
  socket.set_option(tcp::no_delay(true), ec);
  if (const auto bytes = config.limits.socket_send_buffer_bytes; bytes > 0) {
    socket.set_option(net::socket_base::send_buffer_size(static_cast<int>(std::min<std::size_t>(
                          bytes, static_cast<std::size_t>(std::numeric_limits<int>::max())))),
                      ec);
  }
  std::make_shared<HttpSession>(shared_from_this(), std::move(socket), std::move(slot), std::move(address),
                                next_id++)
      ->run();
  do_accept();
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
  beast::error_code ec;
  acceptor.close(ec);
  accept_retry_timer.cancel();
  if (signals) signals->cancel(ec);
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

Server::Server(Config config, std::shared_ptr<Metrics> metrics)
    : state_(std::make_shared<State>(std::move(config), std::move(metrics))) {}

Server::~Server() {
  if (state_->started) stop();
}

std::uint16_t Server::start(std::shared_ptr<ConnectionHandler> handler) {
  auto& s = *state_;
  if (!handler) throw std::invalid_argument("Server::start: no handler");
  if (s.started) throw std::logic_error("Server::start called twice");
  s.handler = std::move(handler);

  const tcp::endpoint endpoint{net::ip::make_address(s.config.bind), s.config.port};
  s.acceptor.open(endpoint.protocol());
  s.acceptor.set_option(net::socket_base::reuse_address(true));
  s.acceptor.bind(endpoint);
  s.acceptor.listen(net::socket_base::max_listen_connections);
  // drop_waiting_connection() accepts by hand and must not block.
  s.acceptor.native_non_blocking(true);
  const auto port = s.acceptor.local_endpoint().port();
  s.spare_descriptor = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (s.config.limits.max_sockets_per_address < s.config.limits.max_connections_per_address) {
    spdlog::warn("--max-sockets-per-address {} is below --max-connections-per-address {}: every WebSocket is a "
                 "socket, so an address can have only {} connections",
                 s.config.limits.max_sockets_per_address, s.config.limits.max_connections_per_address,
                 s.config.limits.max_sockets_per_address);
  }
  if (s.socket_cap != std::numeric_limits<std::size_t>::max()) {
    spdlog::info("sockets: at most {} open ({} from one address), {} descriptors kept back", s.socket_cap,
                 s.config.limits.max_sockets_per_address, s.config.limits.descriptor_reserve);
  }

  s.started = true;
  s.ready = true;
  s.work_guard.emplace(s.ioc.get_executor());
  net::post(s.control_strand, [state = state_.get()] { state->do_accept(); });
  for (unsigned i = 0; i < s.config.threads; ++i) {
    s.threads.emplace_back([state = state_.get()] {
      for (;;) {
        try {
          state->ioc.run();
          return;
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
  beast::error_code ec;
  s.acceptor.close(ec);
  if (s.signals) s.signals->cancel(ec);
  s.shutdown_timer.cancel();
  s.accept_retry_timer.cancel();
  s.trim_timer.cancel();
  if (s.spare_descriptor >= 0) ::close(s.spare_descriptor);
  s.spare_descriptor = -1;
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
const Config& Server::config() const { return state_->config; }
bool Server::ready() const { return state_->ready; }
void Server::set_readiness(std::function<std::optional<std::string>()> check) { state_->readiness = std::move(check); }
std::size_t Server::connection_count() const { return state_->session_count(); }

}  // namespace gofish::server
