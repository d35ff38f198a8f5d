// EdgeStream: a connection's byte stream, plain TCP or TLS over TCP, chosen
// when the connection is made. Both kinds go through the same HttpSession
// and WebSocketSession code: reads and writes are forwarded to whichever
// stream it holds, so nothing is compiled twice. The load generator
// (bench/load) and gofish-cli use it from the client's side; it is a small
// library of its own (gofish_edge_stream) that links only Boost and OpenSSL.
//
// The TLS stream's operations are compiled once, in edge_stream.cpp: every
// read and write over TLS reaches them with its buffers reduced to the one
// buffer OpenSSL reads into or writes from, and its completion handler
// wrapped in one type (IoHandler): Asio's any_completion_handler, which
// keeps the handler's allocator and cancellation slot, bound to the
// handler's executor (a session's strand), on which it runs as before.
// (Boost 1.81's any_completion_handler would give the TLS stream an
// any_completion_executor, which cannot post, hence the binder.) Without that, every Beast operation over
// the stream (HTTP and WebSocket reads and writes, handshake, close) would
// compile its own copy of the TLS machinery. The plain stream is forwarded
// as it is (its operations are cheap to compile).
//
// next_layer() is the TCP stream in both cases, so beast::get_lowest_layer
// reaches the socket (timeouts, shutdown, close) as with a bare tcp_stream.
// A WebSocket over TLS is torn down at the TCP layer (the teardown below,
// and BatchingStream's): its close frames have been exchanged by then, and a
// peer gains nothing from the TLS close_notify that would follow them.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

namespace gofish::server {

class EdgeStream {
 public:
  using executor_type = boost::beast::tcp_stream::executor_type;
  using next_layer_type = boost::beast::tcp_stream;
  using TlsStream = boost::asio::ssl::stream<boost::beast::tcp_stream>;
  // The one handler type of every TLS read, write and server handshake.
  using IoHandler = boost::asio::executor_binder<
      boost::asio::any_completion_handler<void(boost::system::error_code, std::size_t)>, executor_type>;

  // A plain connection.
  explicit EdgeStream(boost::beast::tcp_stream&& tcp) : plain_(std::move(tcp)) {}
  // A TLS connection with `context`'s certificate (kept alive by the stream,
  // so a reload does not pull it from under a connection).
  EdgeStream(boost::beast::tcp_stream&& tcp, std::shared_ptr<boost::asio::ssl::context> context);
  EdgeStream(EdgeStream&&) = default;
  EdgeStream& operator=(EdgeStream&&) = delete;
  ~EdgeStream();

  bool is_tls() const { return tls_.has_value(); }
  // The TLS stream (for a client's host name, verification and handshake), or null.
  TlsStream* tls() { return tls_ ? &*tls_ : nullptr; }

  executor_type get_executor() noexcept { return next_layer().get_executor(); }
  boost::beast::tcp_stream& next_layer() noexcept { return tls_ ? tls_->next_layer() : *plain_; }
  const boost::beast::tcp_stream& next_layer() const noexcept { return tls_ ? tls_->next_layer() : *plain_; }

  // The server side of the TLS handshake; `already_read` is what was read
  // from the socket before it (after a PROXY header). The handler is given
  // the number of those bytes the handshake used.
  template <class Handler>
  void async_handshake(boost::asio::const_buffer already_read, Handler&& handler) {
    tls_handshake(already_read, erase(std::forward<Handler>(handler)));
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
            // OpenSSL reads into the first buffer that is not empty, whatever follows it.
            tls_read_some(first_buffer<boost::asio::mutable_buffer>(b), erase(std::move(handler)));
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
            tls_write_some(gather(b), erase(std::move(handler)));
          } else {
            plain_->async_write_some(b, std::move(handler));
          }
        },
        token, buffers);
  }

 private:
  // OpenSSL writes one buffer a call, so small buffers are gathered into one
  // (one TLS record) as Beast's ssl_stream does: up to this many bytes.
  static constexpr std::size_t kGatherLimit = 16 * 1024;

  // `handler` as an IoHandler that runs where it would have run.
  template <class Handler>
  IoHandler erase(Handler&& handler) {
    executor_type executor = boost::asio::get_associated_executor(handler, get_executor());
    return IoHandler(boost::asio::executor_arg, std::move(executor),
                     boost::asio::any_completion_handler<void(boost::system::error_code, std::size_t)>(
                         std::forward<Handler>(handler)));
  }

  template <class Buffer, class Buffers>
  static Buffer first_buffer(const Buffers& buffers) {
    for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers);
         ++it) {
      Buffer buffer(*it);
      if (buffer.size() != 0) return buffer;
    }
    return Buffer();
  }

  // The first buffer of `buffers`, or the buffers that fit in kGatherLimit
  // copied into one when there are several; the bytes written of it are the
  // first bytes of `buffers`. As with Beast's ssl_stream, a write that needs
  // no gathering gives the gathering buffer's memory back.
  template <class ConstBuffers>
  boost::asio::const_buffer gather(const ConstBuffers& buffers) {
    auto it = boost::asio::buffer_sequence_begin(buffers);
    const auto end = boost::asio::buffer_sequence_end(buffers);
    boost::asio::const_buffer first;
    std::size_t size = 0;
    bool several = false;
    if (it != end) {
      first = boost::asio::const_buffer(*it);
      size = first.size();
      while (size < kGatherLimit && ++it != end) {
        const std::size_t n = boost::asio::const_buffer(*it).size();
        if (size + n > kGatherLimit) break;
        size += n;
        several = true;
      }
    }
    gathered_.clear();
    if (!several) {
      gathered_.shrink_to_fit();
      return first;
    }
    gathered_.commit(boost::asio::buffer_copy(gathered_.prepare(size), buffers, size));
    return gathered_.data();
  }

  void tls_handshake(boost::asio::const_buffer already_read, IoHandler handler);
  void tls_read_some(boost::asio::mutable_buffer buffer, IoHandler handler);
  void tls_write_some(boost::asio::const_buffer buffer, IoHandler handler);

  std::optional<boost::beast::tcp_stream> plain_;
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::optional<TlsStream> tls_;
  boost::beast::flat_buffer gathered_;  // TLS writes of several buffers
};

}  // namespace gofish::server
