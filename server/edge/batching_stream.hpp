// BatchingStream: the stream under the WebSocket that gathers every frame
// written to it into one socket write. Header-only and templated on the next
// layer (beast::tcp_stream in the server; the test wraps it to count writes).
#pragma once

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "server/rooms/connection.hpp"

namespace gofish::server {

namespace net = boost::asio;
namespace beast = boost::beast;

// The TCP stream under the WebSocket, gathering frames into one write. Every
// frame written to it, the session's messages (written synchronously through
// Beast, see WebSocketSession::do_write) and Beast's own pings, pongs and close
// frames (written asynchronously), is appended whole to one buffer in call
// order, so frames never interleave; flush() and Beast's writes start one
// socket write of what is gathered, and what is written meanwhile waits for
// the next one. A write completes (its handler is called) only once the
// socket write carrying its bytes has finished, so a peer that does not read
// backs the session's messages up into its bounded queue. Everything runs on
// the connection's strand.
//
// NextLayer is an AsyncStream whose lowest layer is a beast::basic_stream
// (socket() reaches the socket, closed when a write fails).
template <class NextLayer>
class BatchingStream {
 public:
  using next_layer_type = NextLayer;
  using executor_type = typename NextLayer::executor_type;

  explicit BatchingStream(NextLayer&& stream) : next_(std::move(stream)) {}

  executor_type get_executor() noexcept { return next_.get_executor(); }
  NextLayer& next_layer() noexcept { return next_; }
  const NextLayer& next_layer() const noexcept { return next_; }

  // Kept alive by every socket write under way: the connection owns this stream.
  void set_owner(std::weak_ptr<void> owner) { owner_ = std::move(owner); }

  std::size_t gathered_bytes() const { return gathered_.size(); }

  // The peer's close frame arrived with this code (0: none), before Beast
  // answers it; see answer_close_frame.
  void peer_closed(std::uint16_t code) { peer_close_code_ = code; }

  // Calls `handler(error_code)` once everything written so far has gone out.
  template <class Handler>
  void async_flush(Handler&& handler) {
    add_waiter(std::forward<Handler>(handler), std::size_t{0});
  }

  // ---- SyncStream: the session's frames. Never blocks; a write after the
  // socket failed fails.
  template <class ConstBuffers>
  std::size_t write_some(const ConstBuffers& buffers, beast::error_code& ec) {
    if (failed_) {
      ec = failed_;
      return 0;
    }
    ec = {};
    return append(buffers);
  }
  template <class ConstBuffers>
  std::size_t write_some(const ConstBuffers& buffers) {
    beast::error_code ec;
    const std::size_t n = write_some(buffers, ec);
    if (ec) throw beast::system_error(ec);
    return n;
  }
  // Present for SyncStream; the session only reads asynchronously.
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, beast::error_code& ec) {
    return beast::get_lowest_layer(next_).socket().read_some(buffers, ec);
  }
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    return beast::get_lowest_layer(next_).socket().read_some(buffers);
  }

  // ---- AsyncStream
  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    next_.async_read_some(buffers, std::forward<Handler>(handler));
  }

  // Beast's own frames (and any message Beast writes asynchronously).
  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    if (failed_) {
      auto executor = net::get_associated_executor(handler, get_executor());
      net::post(executor, beast::bind_front_handler(std::forward<Handler>(handler), failed_,
                                                    std::size_t{0}));
      return;
    }
    const std::size_t size = append(buffers);
    answer_close_frame(size);
    add_waiter(std::forward<Handler>(handler), size);
  }

  friend void teardown(beast::role_type role, BatchingStream& stream, beast::error_code& ec) {
    using beast::websocket::teardown;
    teardown(role, beast::get_lowest_layer(stream.next_), ec);
  }
  template <class Handler>
  friend void async_teardown(beast::role_type role, BatchingStream& stream, Handler&& handler) {
    using beast::websocket::async_teardown;
    async_teardown(role, beast::get_lowest_layer(stream.next_), std::forward<Handler>(handler));
  }

 private:
  // Buffers larger than this are given back after a write, so an idle
  // connection does not keep the memory of its largest burst.
  static constexpr std::size_t kKeptCapacity = 16 * 1024;

  struct Waiter {
    virtual ~Waiter() = default;
    virtual void complete(beast::error_code ec, const executor_type& fallback) = 0;
  };
  template <class Handler>
  struct HandlerWaiter final : Waiter {
    HandlerWaiter(Handler&& h, std::size_t n) : handler(std::move(h)), size(n) {}
    void complete(beast::error_code ec, const executor_type& fallback) override {
      auto executor = net::get_associated_executor(handler, fallback);
      net::dispatch(executor,
                    beast::bind_front_handler(std::move(handler), ec, ec ? std::size_t{0} : size));
    }
    Handler handler;
    std::size_t size;
  };
  // The session's flush: called with the error only.
  template <class Handler>
  struct FlushWaiter final : Waiter {
    explicit FlushWaiter(Handler&& h) : handler(std::move(h)) {}
    void complete(beast::error_code ec, const executor_type& fallback) override {
      auto executor = net::get_associated_executor(handler, fallback);
      net::dispatch(executor, beast::bind_front_handler(std::move(handler), ec));
    }
    Handler handler;
  };

  using WaiterList = std::vector<std::unique_ptr<Waiter>>;
  // Owned by the socket write under way, not by this stream: a write that
  // never completes (the io_context is destroyed) frees its waiters, and with
  // them the connection its handlers hold.
  struct Batch {
    WaiterList sending;  // complete with this write
    WaiterList next;     // complete with the next one
  };

  template <class Handler>
  void add_waiter(Handler&& handler, std::size_t size) {
    using H = std::decay_t<Handler>;
    std::unique_ptr<Waiter> waiter;
    if constexpr (std::is_invocable_v<H&, beast::error_code, std::size_t>) {
      waiter = std::make_unique<HandlerWaiter<H>>(std::forward<Handler>(handler), size);
    } else {
      waiter = std::make_unique<FlushWaiter<H>>(std::forward<Handler>(handler));
    }
    if (flushing_) return next_waiters_->push_back(std::move(waiter));
    WaiterList sending;
    sending.push_back(std::move(waiter));
    start_flush(std::move(sending));
  }

  // Beast closes on its own in two cases, with a close frame holding a code
  // and no reason: it answers the peer's close frame by echoing its code,
  // and it fails a connection that broke the protocol (1002; 1007 for text
  // that is not UTF-8). The last `size` bytes gathered are such a frame when
  // they are exactly a close header and a code (the server's own closes carry
  // a reason); they are replaced by reply_to_close's answer. So every close
  // frame the server sends names its reason, and a peer's code that no peer
  // may send (1012, 5000, ...) is answered with 1002 rather than echoed.
  void answer_close_frame(std::size_t size) {
    if (size != 4 || gathered_.size() < 4) return;
    const std::size_t at = gathered_.size() - 4;
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(gathered_[at + i]); };
    if (byte(0) != 0x88 || byte(1) != 0x02) return;
    const auto code = static_cast<std::uint16_t>((byte(2) << 8) | byte(3));
    const CloseReason answer = reply_to_close(peer_close_code_, code);
    if (answer.reason.empty() || answer.reason.size() > 123) return;
    gathered_.resize(at);
    gathered_.push_back(static_cast<char>(0x88));
    gathered_.push_back(static_cast<char>(2 + answer.reason.size()));
    gathered_.push_back(static_cast<char>(answer.code >> 8));
    gathered_.push_back(static_cast<char>(answer.code & 0xff));
    gathered_ += answer.reason;
  }

  template <class ConstBuffers>
  std::size_t append(const ConstBuffers& buffers) {
    const std::size_t size = net::buffer_size(buffers);
    const std::size_t old_size = gathered_.size();
    gathered_.resize(old_size + size);
    net::buffer_copy(net::buffer(gathered_.data() + old_size, size), buffers);
    return size;
  }

  void start_flush(WaiterList waiters) {
    flushing_ = true;
    sending_.swap(gathered_);
    gathered_.clear();
    auto batch = std::make_unique<Batch>();
    batch->sending = std::move(waiters);
    next_waiters_ = &batch->next;
    auto done = [this, owner = owner_.lock(), batch = std::move(batch)](beast::error_code ec,
                                                                         std::size_t) mutable {
      finish_flush(ec, std::move(*batch));
    };
    if (sending_.empty()) {  // only waiters: nothing to send, but never complete inline
      net::post(get_executor(), beast::bind_front_handler(std::move(done), beast::error_code{},
                                                          std::size_t{0}));
      return;
    }
    net::async_write(next_, net::buffer(sending_), std::move(done));
  }

  void finish_flush(beast::error_code ec, Batch batch) {
    flushing_ = false;
    next_waiters_ = nullptr;
    if (sending_.capacity() > kKeptCapacity) std::string().swap(sending_);
    sending_.clear();
    if (ec && !failed_) {
      // The connection is broken: later writes fail at once, and the
      // pending read ends too.
      failed_ = ec;
      beast::error_code ignored;
      beast::get_lowest_layer(next_).socket().close(ignored);
    }
    if (failed_) {
      gathered_.clear();
      for (auto& waiter : batch.sending) waiter->complete(failed_, get_executor());
      for (auto& waiter : batch.next) waiter->complete(failed_, get_executor());
      return;
    }
    // What was written meanwhile goes at once; then the finished writes
    // complete (a waiter may write or flush again, which joins the new batch).
    if (!batch.next.empty() || !gathered_.empty()) start_flush(std::move(batch.next));
    for (auto& waiter : batch.sending) waiter->complete({}, get_executor());
  }

  NextLayer next_;
  std::weak_ptr<void> owner_;
  bool flushing_ = false;
  beast::error_code failed_;
  std::string gathered_;  // frames written since the last socket write began
  std::string sending_;   // the socket write under way
  WaiterList* next_waiters_ = nullptr;  // the Batch::next of the write under way
  std::optional<std::uint16_t> peer_close_code_;
};

}  // namespace gofish::server
