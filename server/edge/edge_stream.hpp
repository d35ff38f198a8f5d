// EdgeStream: a connection's byte stream, plain TCP or TLS over TCP, chosen
// when the connection is made. Both kinds go through the same HttpSession
// and WebSocketSession code: reads and writes are forwarded to whichever
// stream it holds, so nothing is compiled twice. The load generator
// (bench/load) uses it from the client's side.
//
// next_layer() is the TCP stream in both cases, so beast::get_lowest_layer
// reaches the socket (timeouts, shutdown, close) as with a bare tcp_stream.
// A WebSocket over TLS is torn down at the TCP layer (the teardown below,
// and BatchingStream's): its close frames have been exchanged by then, and a
// peer gains nothing from the TLS close_notify that would follow them.
#pragma once

#include <boost/asio/async_result.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <memory>
#include <optional>
#include <utility>

namespace gofish::server {

class EdgeStream {
 public:
  using executor_type = boost::beast::tcp_stream::executor_type;
  using next_layer_type = boost::beast::tcp_stream;

  // A plain connection.
  explicit EdgeStream(boost::beast::tcp_stream&& tcp) : plain_(std::move(tcp)) {}
  // A TLS connection with `context`'s certificate (kept alive by the stream,
  // so a reload does not pull it from under a connection).
  EdgeStream(boost::beast::tcp_stream&& tcp, std::shared_ptr<boost::asio::ssl::context> context)
      : plain_(std::move(tcp)), context_(std::move(context)) {
    tls_.emplace(std::move(*plain_), *context_);
    plain_.reset();
  }
  EdgeStream(EdgeStream&&) = default;
  EdgeStream& operator=(EdgeStream&&) = delete;

  bool is_tls() const { return tls_.has_value(); }
  // The TLS stream (for a client's host name and verification), or null.
  boost::beast::ssl_stream<boost::beast::tcp_stream>* tls() { return tls_ ? &*tls_ : nullptr; }

  executor_type get_executor() noexcept { return next_layer().get_executor(); }
  boost::beast::tcp_stream& next_layer() noexcept { return tls_ ? tls_->next_layer() : *plain_; }
  const boost::beast::tcp_stream& next_layer() const noexcept { return tls_ ? tls_->next_layer() : *plain_; }

  // The server side of the TLS handshake; `already_read` is what was read
  // from the socket before it (after a PROXY header).
  template <class ConstBuffers, class Handler>
  void async_handshake(const ConstBuffers& already_read, Handler&& handler) {
    tls_->async_handshake(boost::asio::ssl::stream_base::server, already_read, std::forward<Handler>(handler));
  }

  friend void teardown(boost::beast::role_type role, EdgeStream& stream, boost::beast::error_code& ec) {
    using boost::beast::websocket::teardown;
    teardown(role, stream.next_layer(), ec);
  }
  template <class Handler>
  friend void async_teardown(boost::beast::role_type role, EdgeStream& stream, Handler&& handler) {
    using boost::beast::websocket::async_teardown;
    async_teardown(role, stream.next_layer(), std::forward<Handler>(handler));
  }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
        [this](auto handler, const MutableBuffers& b) {
          if (tls_) {
            tls_->async_read_some(b, std::move(handler));
          } else {
            plain_->async_read_some(b, std::move(handler));
          }
        },
        token, buffers);
  }

  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
        [this](auto handler, const ConstBuffers& b) {
          if (tls_) {
            tls_->async_write_some(b, std::move(handler));
          } else {
            plain_->async_write_some(b, std::move(handler));
          }
        },
        token, buffers);
  }

 private:
  std::optional<boost::beast::tcp_stream> plain_;
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::optional<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_;
};

}  // namespace gofish::server
