// One HTTP connection (http_session.hpp): reads a request within
// limits.max_request_bytes and limits.handshake_timeout, answers it, and
// reads the next while the client keeps the connection alive; an upgrade to
// /ws passes the origin and admission checks here and goes on as a
// WebSocketSession. A connection from a trusted proxy begins with a PROXY
// header, read within the same timeout and at most ProxyHeader::kMaxBytes;
// with TLS on, the TLS handshake follows it within the same timeout. Every
// answer on the public port carries the page's security headers.
#include "server/edge/http_session.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <spdlog/spdlog.h>

#include "gofish/version.hpp"
#include "server/edge/http_paths.hpp"
#include "server/edge/proxy_header.hpp"
#include "server/edge/tls_context.hpp"
#include "server/edge/websocket_session.hpp"

namespace gofish::server {

namespace {

namespace http = beast::http;

constexpr std::string_view kServerName = kServerHeader;

// The page may load its own scripts, styles, images and socket only, runs no
// inline script, and may be framed by no one; no URL (room codes travel in
// them) is sent on as a referrer; the page asks for no device.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";
constexpr std::string_view kPermissionsPolicy =
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()";
// A year; browsers that saw it use https for the host from then on.
constexpr std::string_view kStrictTransportSecurity = "max-age=31536000";

// The host of a Host header ("example.org:8080" -> "example.org",
// "[::1]:80" -> "[::1]"), or empty if it is not a plain host name or address.
std::string host_of(std::string_view host) {
  if (host.empty() || host.size() > 255) return {};
  std::string_view name = host;
  if (host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return {};
    name = host.substr(0, close + 1);
    const auto inside = name.substr(1, name.size() - 2);
    if (inside.empty() || inside.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos) return {};
    return std::string(name);
  }
  if (const auto colon = host.find(':'); colon != std::string_view::npos) name = host.substr(0, colon);
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") !=
                          std::string_view::npos) {
    return {};
  }
  return std::string(name);
}

std::string endpoint_text(const tcp::socket& socket) {
  beast::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return "?";
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

}  // namespace

namespace {

EdgeStream make_stream(const Server::State& state, tcp::socket socket, PortRole role) {
  if (role == PortRole::kPublic && state.tls) return EdgeStream(beast::tcp_stream(std::move(socket)), state.tls->current());
  return EdgeStream(beast::tcp_stream(std::move(socket)));
}

}  // namespace

HttpSession::HttpSession(std::shared_ptr<Server::State> state, tcp::socket socket, AddressLimits::Slot socket_slot,
                         std::string address, std::uint64_t id, PortRole role, bool proxied)
    : state_(std::move(state)),
      socket_slot_(std::move(socket_slot)),
      stream_(make_stream(*state_, std::move(socket), role)),
      address_(std::move(address)),
      peer_(endpoint_text(stream_.next_layer().socket())),
      id_(id),
      role_(role),
      proxied_(proxied) {}

HttpSession::~HttpSession() {
  std::lock_guard lock(state_->sessions_mutex);
  state_->http_sessions.erase(id_);
}

void HttpSession::run() {
  {
    std::lock_guard lock(state_->sessions_mutex);
    state_->http_sessions.emplace(id_, weak_from_this());
  }
  // The socket's executor is this connection's strand.
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    if (self->proxied_) return self->read_proxy_header();
    self->begin();
  });
}

void HttpSession::read_proxy_header() {
  // Never more than a whole header could be; what follows it in the same
  // read stays in buffer_ for the HTTP parser.
  // Read from the TCP stream itself: the header comes before any TLS.
  stream_.next_layer().expires_after(state_->config.limits.handshake_timeout);
  stream_.next_layer().async_read_some(buffer_.prepare(ProxyHeader::kMaxBytes - buffer_.size()),
                          [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                            self->on_proxy_header(ec, bytes);
                          });
}

void HttpSession::on_proxy_header(beast::error_code ec, std::size_t bytes) {
  buffer_.commit(bytes);
  if (ec == beast::error::timeout) return refuse_proxy_header("no complete PROXY header in time");
  if (ec == net::error::eof && buffer_.size() == 0) return;  // a bare TCP check
  if (ec == net::error::eof) return refuse_proxy_header("closed in the middle of its PROXY header");
  if (ec) return log_failure(ec, "proxy header read", id_);
  const std::string_view received(static_cast<const char*>(buffer_.data().data()), buffer_.size());
  const auto header = ProxyHeader::parse(received);
  switch (header.status) {
    case ProxyHeader::Status::kIncomplete:
      return read_proxy_header();
    case ProxyHeader::Status::kInvalid:
      return refuse_proxy_header(header.error);
    case ProxyHeader::Status::kComplete:
      break;
  }
  if (header.source && !become_client(header.source->address, header.source->port)) return;
  buffer_.consume(header.length);
  begin();
}

void HttpSession::begin() {
  if (!stream_.is_tls()) return do_read();
  // The handshake is bounded like a request's headers: a client that stalls
  // or sends garbage holds its socket slot only that long.
  stream_.next_layer().expires_after(state_->config.limits.handshake_timeout);
  // Boost 1.81's ssl_stream asks that this handler take (error_code) alone,
  // though it calls it with the bytes used too: hence the default.
  stream_.async_handshake(buffer_.data(), [self = shared_from_this()](beast::error_code ec, std::size_t used = 0) {
    self->on_handshake(ec, used);
  });
}

void HttpSession::on_handshake(beast::error_code ec, std::size_t used) {
  buffer_.consume(used);
  if (ec) {
    const bool timed_out = ec == beast::error::timeout;
    state_->metrics->connection_refused(timed_out ? "tls_timeout" : "tls_handshake");
    state_->client_warning("tls", "https {} from {}: TLS handshake {}", id_, peer_,
                           timed_out ? "not finished in time" : "failed (" + ec.message() + ")");
    beast::error_code ignored;
    stream_.next_layer().socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.next_layer().close();
    return;
  }
  do_read();
}

void HttpSession::refuse_proxy_header(std::string_view why) {
  state_->metrics->connection_refused("proxy_header");
  state_->client_warning("proxy_header", "http {} from proxy {}: {}; closed", id_, peer_, why);
  beast::error_code ec;
  stream_.next_layer().socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.next_layer().close();
}

bool HttpSession::become_client(const std::string& address, std::uint16_t port) {
  const std::string client = address + ":" + std::to_string(port);
  spdlog::debug("http {} from {} via proxy {}", id_, client, peer_);
  peer_ = client;
  auto key = AddressLimits::key_of(address);
  if (key == address_) return true;
  // Given back first: the connection is one socket either way.
  socket_slot_.release();
  address_ = std::move(key);
  if (const auto admission = state_->addresses.take(AddressLimits::Pool::kSockets, address_, socket_slot_);
      admission != AddressLimits::Admission::kAdmitted) {
    const bool per_address = admission == AddressLimits::Admission::kAddressFull;
    const char* reason = per_address ? "address_sockets" : "sockets_full";
    state_->metrics->connection_refused(reason);
    state_->client_warning(reason, "socket from {} closed: {}", peer_,
                           per_address ? "its address has as many sockets open as it may"
                                       : "as many sockets open as the server takes");
    beast::error_code ec;
    stream_.next_layer().socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.next_layer().close();
    return false;
  }
  return true;
}

// Only from Server::wait(), when no I/O thread runs.
void HttpSession::cut() {
  beast::error_code ec;
  stream_.next_layer().socket().close(ec);
}

void HttpSession::do_read() {
  const auto limit = state_->config.limits.max_request_bytes;
  head_ = false;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(limit));
  parser_->body_limit(limit);
  // Bounds both the wait for a request and a slow sender's headers.
  stream_.next_layer().expires_after(state_->config.limits.handshake_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](beast::error_code ec, std::size_t) {
                     self->on_read(ec);
                   });
}

void HttpSession::on_read(beast::error_code ec) {
  if (ec == http::error::end_of_stream) {
    stream_.next_layer().socket().shutdown(tcp::socket::shutdown_send, ec);
    return;
  }
  if (ec) {
    if (ec == http::error::header_limit || ec == http::error::body_limit ||
        ec == http::error::buffer_overflow) {
      state_->client_warning("too_large", "http {} from {}: request over {} bytes refused", id_, peer_,
                             state_->config.limits.max_request_bytes);
      return send(text_response(http::status::payload_too_large, "request too large\n", false));
    }
    // Not HTTP (a PROXY header from a peer that is no trusted proxy, say):
    // answered, so the sender learns why, and closed.
    if (ec.category() == http::make_error_code(http::error::bad_version).category() &&
        ec != http::error::partial_message) {
      state_->client_warning("bad_request", "http {} from {}: malformed request refused ({})", id_, peer_,
                             ec.message());
      return send(text_response(http::status::bad_request, "bad request\n", false));
    }
    return log_failure(ec, "http read", id_);
  }
  auto& request = parser_->get();
  if (role_ == PortRole::kRedirect) return redirect(request);
  if (beast::websocket::is_upgrade(request) && role_ == PortRole::kPublic) return upgrade();
  handle(request);
}

void HttpSession::upgrade() {
  auto& request = parser_->get();
  const auto target = split_target(request.target());
  if (target.path != "/ws") {
    return send(text_response(http::status::not_found, "not found\n", false));
  }
  const auto origin = request[http::field::origin];
  if (!state_->origin_allowed(origin)) {
    state_->client_warning("origin", "ws from {}: origin '{}' refused", peer_,
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
                             peer_, limits.max_connections_per_address);
      state_->metrics->connection_refused("address_full");
    } else {
      state_->client_warning("full", "ws from {}: refused, {} connections open (of {})",
                             peer_,
                             state_->addresses.taken(AddressLimits::Pool::kConnections), limits.max_connections);
      state_->metrics->connection_refused("full");
    }
    refusal = close_server_full();
  }
  stream_.next_layer().expires_never();  // the WebSocket has its own timeouts
  std::make_shared<WebSocketSession>(state_, std::move(stream_), std::move(refusal), std::move(socket_slot_),
                                     std::move(connection_slot), address_, peer_)
      ->run(parser_->release());
}

void HttpSession::handle(const Request& request) {
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

  if (handle_probe(*path, keep_alive)) return;
  if (role_ == PortRole::kAdmin) {
    if (*path == "/metrics") {
      auto response = text_response(http::status::ok, state_->metrics->serialize(), keep_alive);
      response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      return send(std::move(response));
    }
    // Nothing of the game is served here.
    return send(text_response(http::status::not_found, "not found\n", keep_alive));
  }
  if (*path == "/metrics") {  // only on the admin port (--admin-bind, --admin-port)
    return send(text_response(http::status::not_found, "not found\n", keep_alive));
  }
  if (*path == "/ws") {
    return send(text_response(http::status::upgrade_required, "WebSocket only\n", keep_alive));
  }
  if (path->starts_with("/api/")) {
    std::optional<ApiReply> reply;
    try {
      reply = state_->api.route(ApiRequest{*path, target.query, request[http::field::authorization]});
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
    if (!reply->content_disposition.empty()) {
      response.set(http::field::content_disposition, reply->content_disposition);
    }
    if (reply->status == 401) response.set(http::field::www_authenticate, "Bearer");
    return send(std::move(response));
  }
  serve_file(request.target(), request[http::field::accept_encoding], request[http::field::if_none_match],
             keep_alive);
}

// /healthz and /readyz, on the public port (a proxy's checks) and the admin
// port alike; false for any other path.
bool HttpSession::handle_probe(std::string_view path, bool keep_alive) {
  if (path == "/healthz") {
    if (!state_->health) {
      send(text_response(http::status::ok, "ok\n", keep_alive));
      return true;
    }
    const auto health = state_->health();
    send(text_response(static_cast<http::status>(health.status), health.text, keep_alive));
    return true;
  }
  if (path == "/readyz") {
    if (!state_->ready) {
      send(text_response(http::status::service_unavailable, "shutting down\n", keep_alive));
    } else if (const auto problem = state_->readiness ? state_->readiness() : std::nullopt) {
      send(text_response(http::status::service_unavailable, *problem + "\n", keep_alive));
    } else {
      send(text_response(http::status::ok, "ready\n", keep_alive));
    }
    return true;
  }
  return false;
}

// The redirect port: every request, whatever its method, is sent to the same
// path on the https port of the host it named. A request without a usable
// Host header cannot be sent anywhere and is refused.
void HttpSession::redirect(const Request& request) {
  head_ = request.method() == http::verb::head;
  const auto host = host_of(request[http::field::host]);
  if (host.empty()) return send(text_response(http::status::bad_request, "no host to redirect to\n", false));
  const auto port = state_->public_port.load();
  std::string location = "https://" + host + (port == 443 ? "" : ":" + std::to_string(port));
  const auto target = request.target();
  location += target.empty() || target.front() != '/' ? "/" : std::string(target);
  auto response = text_response(http::status::permanent_redirect, "see " + location + "\n", false);
  response.set(http::field::location, location);
  send(std::move(response));
}

// The bytes, their compression and the 200-or-304 decision come from
// StaticFiles (static_files.hpp); this only writes them.
void HttpSession::serve_file(std::string_view target, std::string_view accept_encoding,
                             std::string_view if_none_match, bool keep_alive) {
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
void HttpSession::decorate(http::response<Body>& response, bool keep_alive) const {
  response.set(http::field::server, kServerName);
  response.set(http::field::cache_control, "no-cache");
  response.set("X-Content-Type-Options", "nosniff");
  if (role_ == PortRole::kPublic) {
    response.set("Content-Security-Policy", kContentSecurityPolicy);
    response.set("X-Frame-Options", "DENY");  // frame-ancestors for browsers without CSP 2
    response.set("Referrer-Policy", "no-referrer");
    response.set("Permissions-Policy", kPermissionsPolicy);
    response.set("Cross-Origin-Opener-Policy", "same-origin");
    if (stream_.is_tls()) response.set(http::field::strict_transport_security, kStrictTransportSecurity);
  }
  response.keep_alive(keep_alive);
}

HttpSession::TextResponse HttpSession::text_response(http::status status, std::string body,
                                                     bool keep_alive) const {
  http::response<http::string_body> response{status, 11};
  decorate(response, keep_alive);
  response.set(http::field::content_type, "text/plain; charset=utf-8");
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

// A HEAD answer keeps the headers (with the GET's Content-Length) and drops the body.
void HttpSession::send(TextResponse&& response) {
  if (!head_) return write(std::move(response));
  http::response<http::empty_body> headers{std::move(response.base())};
  write(std::move(headers));
}

template <class Body>
void HttpSession::write(http::response<Body>&& response) {
  auto shared = std::make_shared<http::response<Body>>(std::move(response));
  stream_.next_layer().expires_after(state_->config.limits.handshake_timeout);
  http::async_write(stream_, *shared,
                    [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
                      self->on_write(ec, shared->keep_alive());
                    });
}

void HttpSession::on_write(beast::error_code ec, bool keep_alive) {
  if (ec) return log_failure(ec, "http write", id_);
  if (!keep_alive) {
    stream_.next_layer().socket().shutdown(tcp::socket::shutdown_send, ec);
    return;
  }
  do_read();
}

}  // namespace gofish::server
