#include "test_client.hpp"

#include "temp_dir.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace gofish::server::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

Config test_config() {
  Config config;
  config.bind = "127.0.0.1";
  config.port = 0;
  config.admin_port = 0;  // /metrics on a port of its own, any free one
  config.threads = 2;
  config.web_root = GOFISH_WEB_ROOT;
  // One directory per test process, removed when it exits: ctest runs tests
  // side by side, and two servers must never share a store.
  static const TempDir data("gofish-server-test");
  config.data_dir = data.path;
  config.log_level = "warn";
  config.limits.handshake_timeout = 2000ms;
  config.limits.idle_timeout = 10'000ms;
  config.limits.shutdown_grace = 2000ms;
  config.limits.bot_delay = 0ms;
  return config;
}

namespace {

const tcp::endpoint kLocal(net::ip::make_address("127.0.0.1"), 0);

tcp::endpoint local(std::uint16_t port) { return {kLocal.address(), port}; }

// Runs `io` until `done` or the timeout; on timeout cancels `socket`'s
// operations and lets their handlers run. Returns false on timeout.
bool run_until(net::io_context& io, const bool& done, tcp::socket& socket,
               std::chrono::milliseconds timeout) {
  io.restart();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    io.run_one_until(deadline);
  }
  if (done) return true;
  beast::error_code ec;
  socket.cancel(ec);
  io.restart();
  while (!done && io.run_one() > 0) {
  }
  return false;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

HttpResult to_result(const http::response<http::string_body>& response) {
  HttpResult result;
  result.status = response.result_int();
  for (const auto& field : response) {
    result.headers[lower(std::string(field.name_string()))] = std::string(field.value());
  }
  result.body = response.body();
  return result;
}

bool tcp_connect(net::io_context& io, tcp::socket& socket, std::uint16_t port) {
  bool done = false;
  beast::error_code result;
  socket.async_connect(local(port), [&](beast::error_code ec) {
    result = ec;
    done = true;
  });
  return run_until(io, done, socket, 5000ms) && !result;
}

// Writes a raw request and reads one response from `socket`.
HttpResult exchange(net::io_context& io, tcp::socket& socket, beast::flat_buffer& buffer,
                    std::string request, bool head) {
  bool done = false;
  beast::error_code result;
  net::async_write(socket, net::buffer(request), [&](beast::error_code ec, std::size_t) {
    result = ec;
    done = true;
  });
  if (!run_until(io, done, socket, 5000ms) || result) return {};

  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  parser.skip(head);
  done = false;
  http::async_read(socket, buffer, parser, [&](beast::error_code ec, std::size_t) {
    result = ec;
    done = true;
  });
  if (!run_until(io, done, socket, 5000ms) || result) return {};
  return to_result(parser.get());
}

std::string request_text(std::string_view method, std::string_view target, bool keep_alive,
                         std::string_view extra_headers) {
  std::string text;
  text.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
  text.append("Host: 127.0.0.1\r\n");
  if (!keep_alive) text.append("Connection: close\r\n");
  text.append(extra_headers);
  text.append("\r\n");
  return text;
}

}  // namespace

HttpResult http_request(std::uint16_t port, std::string_view target, std::string_view method,
                        std::string_view extra_headers) {
  net::io_context io;
  tcp::socket socket(io);
  if (!tcp_connect(io, socket, port)) return {};
  beast::flat_buffer buffer;
  return exchange(io, socket, buffer, request_text(method, target, false, extra_headers),
                  method == "HEAD");
}

struct HttpConnection::Impl {
  net::io_context io;
  tcp::socket socket{io};
  beast::flat_buffer buffer;
};

HttpConnection::HttpConnection(std::uint16_t port) : impl_(std::make_unique<Impl>()) {
  if (!tcp_connect(impl_->io, impl_->socket, port)) throw std::runtime_error("cannot connect");
}

HttpConnection::~HttpConnection() = default;

HttpResult HttpConnection::get(std::string_view target) {
  return exchange(impl_->io, impl_->socket, impl_->buffer, request_text("GET", target, true, ""),
                  false);
}

bool can_connect(std::uint16_t port) {
  net::io_context io;
  tcp::socket socket(io);
  return tcp_connect(io, socket, port);
}

std::optional<std::chrono::milliseconds> time_until_closed(std::uint16_t port,
                                                           std::string_view bytes,
                                                           std::chrono::milliseconds limit) {
  net::io_context io;
  tcp::socket socket(io);
  if (!tcp_connect(io, socket, port)) throw std::runtime_error("cannot connect");
  const auto start = std::chrono::steady_clock::now();
  beast::error_code ec;
  net::write(socket, net::buffer(bytes.data(), bytes.size()), ec);
  // Read (and discard any answer) until the server closes.
  bool done = false;
  char sink[4096];
  std::function<void(beast::error_code, std::size_t)> on_read;
  on_read = [&](beast::error_code read_ec, std::size_t) {
    if (read_ec) {
      done = true;
      return;
    }
    socket.async_read_some(net::buffer(sink), on_read);
  };
  socket.async_read_some(net::buffer(sink), on_read);
  if (!run_until(io, done, socket, limit)) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

struct WsClient::Impl {
  net::io_context io;
  websocket::stream<tcp::socket> ws{io};
  beast::flat_buffer buffer;
  bool ended = false;
  bool timed_out = false;

  tcp::socket& socket() { return ws.next_layer(); }

  // Runs one operation to completion (or the timeout) and returns its error.
  template <class Start>
  beast::error_code run(Start start, std::chrono::milliseconds timeout) {
    bool done = false;
    beast::error_code result;
    start([&](beast::error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    timed_out = !run_until(io, done, socket(), timeout);
    return result;
  }
};

WsClient::WsClient() : impl_(std::make_unique<Impl>()) {}
WsClient::~WsClient() = default;

void WsClient::set_receive_buffer(int bytes) {
  auto& socket = impl_->socket();
  if (!socket.is_open()) socket.open(tcp::v4());
  socket.set_option(net::socket_base::receive_buffer_size(bytes));
}

unsigned WsClient::connect(std::uint16_t port, std::string_view origin, std::string_view target) {
  auto& socket = impl_->socket();
  if (!tcp_connect(impl_->io, socket, port)) return 0;
  const std::string origin_text(origin);
  impl_->ws.set_option(websocket::stream_base::decorator([origin_text](websocket::request_type& request) {
    if (!origin_text.empty()) request.set(http::field::origin, origin_text);
  }));
  websocket::response_type response;
  const std::string host = "127.0.0.1:" + std::to_string(port);
  const std::string path(target);
  auto ec = impl_->run(
      [&](auto handler) { impl_->ws.async_handshake(response, host, path, handler); }, 5000ms);
  if (ec) {
    impl_->ended = true;
    return response.result_int();
  }
  return 101;
}

void WsClient::send(std::string_view text) {
  impl_->ws.text(true);
  auto ec = impl_->run(
      [&](auto handler) {
        impl_->ws.async_write(net::buffer(text.data(), text.size()), handler);
      },
      5000ms);
  if (ec) impl_->ended = true;
}

void WsClient::send_binary(std::string_view bytes) {
  impl_->ws.binary(true);
  auto ec = impl_->run(
      [&](auto handler) {
        impl_->ws.async_write(net::buffer(bytes.data(), bytes.size()), handler);
      },
      5000ms);
  if (ec) impl_->ended = true;
}

std::optional<std::string> WsClient::read(std::chrono::milliseconds timeout) {
  if (impl_->ended) return std::nullopt;
  impl_->buffer.clear();
  auto ec = impl_->run([&](auto handler) { impl_->ws.async_read(impl_->buffer, handler); },
                       timeout);
  if (impl_->timed_out) return std::nullopt;
  if (ec) {
    impl_->ended = true;
    return std::nullopt;
  }
  return beast::buffers_to_string(impl_->buffer.data());
}

std::optional<std::size_t> WsClient::read_until_closed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t skipped = 0;
  while (!impl_->ended) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !read(left)) {
      if (impl_->timed_out || !impl_->ended) return std::nullopt;
      break;
    }
    ++skipped;
  }
  return skipped;
}

void WsClient::close() {
  if (impl_->ended) return;
  impl_->run([&](auto handler) { impl_->ws.async_close(websocket::close_code::normal, handler); },
             5000ms);
  impl_->ended = true;
}

bool WsClient::timed_out() const { return impl_->timed_out; }
std::uint16_t WsClient::close_code() const { return impl_->ws.reason().code; }
std::string WsClient::close_reason() const {
  const auto& reason = impl_->ws.reason().reason;
  return std::string(reason.data(), reason.size());
}

}  // namespace gofish::server::testing
