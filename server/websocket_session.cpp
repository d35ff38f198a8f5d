// One WebSocket connection: reads client messages within the size and rate
// limits and hands them to the ConnectionHandler; writes from a bounded,
// single-writer queue of shared messages. Everything runs on the connection's
// strand (the executor its socket was accepted with).
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>
#include <spdlog/spdlog.h>

#include <deque>
#include <memory>
#include <mutex>
#include <type_traits>
#include <variant>
#include <vector>

#include "gofish/version.hpp"
#include "protocol/token_bucket.hpp"
#include "server/net_detail.hpp"

namespace gofish::server {

namespace {

namespace websocket = beast::websocket;

constexpr std::string_view kServerName = kServerHeader;

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
class BatchingStream {
 public:
  using executor_type = beast::tcp_stream::executor_type;

  explicit BatchingStream(beast::tcp_stream&& stream) : next_(std::move(stream)) {}

  executor_type get_executor() noexcept { return next_.get_executor(); }
  beast::tcp_stream& next_layer() noexcept { return next_; }
  const beast::tcp_stream& next_layer() const noexcept { return next_; }

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
    return next_.socket().read_some(buffers, ec);
  }
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    return next_.socket().read_some(buffers);
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
    teardown(role, stream.next_, ec);
  }
  template <class Handler>
  friend void async_teardown(beast::role_type role, BatchingStream& stream, Handler&& handler) {
    using beast::websocket::async_teardown;
    async_teardown(role, stream.next_, std::forward<Handler>(handler));
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
      next_.socket().close(ignored);
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

  beast::tcp_stream next_;
  std::weak_ptr<void> owner_;
  bool flushing_ = false;
  beast::error_code failed_;
  std::string gathered_;  // frames written since the last socket write began
  std::string sending_;   // the socket write under way
  WaiterList* next_waiters_ = nullptr;  // the Batch::next of the write under way
  std::optional<std::uint16_t> peer_close_code_;
};

std::string endpoint_text(const beast::tcp_stream& stream) {
  beast::error_code ec;
  const auto endpoint = stream.socket().remote_endpoint(ec);
  if (ec) return "?";
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

// A socket write takes the queued messages up to about this many bytes.
constexpr std::size_t kMaxWriteBytes = 64 * 1024;

class WebSocketSession : public WebSocketHandle,
                         public std::enable_shared_from_this<WebSocketSession> {
 public:
  WebSocketSession(std::shared_ptr<Server::State> state, beast::tcp_stream stream,
                   std::optional<CloseReason> refusal, AddressLimits::Slot socket_slot,
                   AddressLimits::Slot connection_slot, std::string address)
      : state_(std::move(state)),
        limits_(state_->config.limits),
        socket_slot_(std::move(socket_slot)),
        executor_(stream.get_executor()),
        remote_(endpoint_text(stream)),
        address_(std::move(address)),
        ws_(std::move(stream)),
        id_(state_->next_id++),
        refusal_(std::move(refusal)),
        connection_slot_(std::move(connection_slot)),
        bucket_(limits_.message_rate_per_second, limits_.message_burst,
                TokenBucket::Clock::now()),
        close_deadline_(executor_) {}

  void run(http::request<http::string_body> request) {
    websocket::stream_base::timeout timeout{};
    timeout.handshake_timeout = limits_.handshake_timeout;
    timeout.idle_timeout = limits_.idle_timeout.count() > 0
                               ? std::chrono::steady_clock::duration(limits_.idle_timeout)
                               : websocket::stream_base::none();
    timeout.keep_alive_pings = true;
    ws_.set_option(timeout);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& response) { response.set(http::field::server, kServerName); }));
    // Size is enforced in on_read, so an oversized message gets a close
    // reason; Beast's own limit would close with a bare 1009.
    ws_.read_message_max(0);
    ws_.text(true);
    // Runs inside the read, before Beast answers a close frame.
    ws_.control_callback([this](websocket::frame_type kind, beast::string_view) {
      if (kind == websocket::frame_type::close) ws_.next_layer().peer_closed(ws_.reason().code);
    });
    ws_.next_layer().set_owner(weak_from_this());
    ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
      self->on_accept(ec);
    });
  }

  // ---- Connection (any thread) ----

  void send(SharedText text) override {
    if (finished_ || !text) return;
    hand_over(std::move(text));
  }

  void close(CloseReason reason) override {
    if (finished_) return;
    hand_over(std::move(reason));
  }

  std::uint64_t id() const override { return id_; }
  const std::string& remote_address() const override { return remote_; }
  const std::string& address_key() const override { return address_; }

  // ---- WebSocketHandle ----

  void cut() override {
    net::post(executor_, [self = shared_from_this()] { self->close_socket(); });
  }

  void abandon() override {
    finish("server stopped");
    close_socket();
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) {
      log_failure(ec, "upgrade", id_);
      return finish("upgrade failed");
    }
    if (!refusal_ && !state_->add_session(shared_from_this())) {
      refusal_ = close_shutting_down();
    }
    if (refusal_) {
      spdlog::debug("connection {} from {} refused: {}", id_, remote_, refusal_->reason);
      return begin_close(*refusal_, true);
    }
    opened_ = true;
    state_->metrics->connection_opened();
    spdlog::debug("connection {} open from {}", id_, remote_);
    if (!call_handler("on_open", [&](ConnectionHandler& handler) {
          handler.on_open(shared_from_this());
        })) {
      return;
    }
    do_read();
  }

  void do_read() {
    // At most one byte past the limit, so a huge frame is never buffered.
    const auto room = limits_.parse.max_frame_bytes + 1 - buffer_.size();
    ws_.async_read_some(buffer_, room,
                        [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                          self->on_read(ec, bytes);
                        });
  }

  void on_read(beast::error_code ec, std::size_t bytes) {
    if (ec) {
      log_failure(ec, "read", id_);
      return finish(ec == beast::error::timeout ? "idle timeout" : "read ended");
    }
    state_->metrics->bytes_received(bytes);
    if (buffer_.size() > limits_.parse.max_frame_bytes) {
      // No read is left pending: the close operation drains the rest itself.
      spdlog::debug("connection {}: message over {} bytes", id_, limits_.parse.max_frame_bytes);
      return begin_close(close_too_large(), true);
    }
    if (!ws_.is_message_done()) return do_read();
    if (!ws_.got_text()) {
      return begin_close(close_unsupported_data(), true);
    }
    if (!closing_) deliver();
    buffer_.consume(buffer_.size());
    do_read();
  }

  void deliver() {
    if (bucket_.try_take(TokenBucket::Clock::now())) {
      strikes_ = 0;
      const auto data = buffer_.data();
      call_handler("on_message", [&](ConnectionHandler& handler) {
        handler.on_message(shared_from_this(),
                           std::string_view(static_cast<const char*>(data.data()), data.size()));
      });
      return;
    }
    // Dropped. The first drop of a run is answered; a long run closes.
    ++strikes_;
    if (strikes_ == 1) {
      call_handler("on_rate_limited", [&](ConnectionHandler& handler) {
        handler.on_rate_limited(shared_from_this());
      });
    }
    if (strikes_ >= limits_.rate_strikes_before_close) {
      state_->client_warning("rate_limited", "connection {} ({}): rate limit exceeded, closing", id_, remote_);
      begin_close(close_rate_limited(), false);
    }
  }

  // A handler that throws is a server bug: the connection is closed (1011)
  // rather than left without a pending read. False if it threw.
  template <class Call>
  bool call_handler(std::string_view what, Call call) {
    try {
      call(*state_->handler);
      return true;
    } catch (const std::exception& error) {
      spdlog::error("connection {}: {} threw: {}", id_, what, error.what());
      begin_close(close_internal(), true);
      return false;
    }
  }

  // Messages and close requests reach the strand through the outbox, in the
  // order they were made, with one post per burst rather than one per
  // message: a reply and the events it caused are sent from one room handler,
  // so the whole burst is queued before the first of it is written, and
  // leaves in one write (see do_write).
  using Outgoing = std::variant<SharedText, CloseReason>;
  void hand_over(Outgoing item) {
    bool first = false;
    {
      std::lock_guard lock(outbox_mutex_);
      first = outbox_.empty();
      outbox_.push_back(std::move(item));
    }
    if (first) net::post(executor_, [self = shared_from_this()] { self->drain_outbox(); });
  }

  void drain_outbox() {
    {
      std::lock_guard lock(outbox_mutex_);
      draining_.swap(outbox_);
    }
    for (Outgoing& item : draining_) {
      if (auto* text = std::get_if<SharedText>(&item)) {
        enqueue(std::move(*text));
      } else {
        write_if_idle();  // what was queued before the close goes first
        begin_close(std::move(std::get<CloseReason>(item)), false);
      }
    }
    draining_.clear();
    write_if_idle();
  }

  void write_if_idle() {
    if (!writing_ && !queue_.empty() && !finished_) do_write();
  }

  // Queues without writing: drain_outbox starts the write once the burst is in.
  void enqueue(SharedText text) {
    if (closing_ || finished_) return;
    if (queue_.size() >= limits_.send_queue_messages ||
        queued_bytes_ + text->size() > limits_.send_queue_bytes) {
      state_->metrics->send_queue_closed();
      state_->client_warning("slow_reader", "connection {} ({}): send queue full ({} messages, {} bytes), closing",
                             id_, remote_, queue_.size(), queued_bytes_);
      return begin_close(close_slow_reader(), true);
    }
    queued_bytes_ += text->size();
    queue_.push_back(std::move(text));
  }

  // The queued messages' frames are written through Beast synchronously into
  // the stream's buffer (it never blocks: see BatchingStream) and leave in one
  // socket write; messages queued meanwhile wait for that write to finish and
  // go in the next. One socket write per burst, and no asynchronous operation
  // per message.
  void do_write() {
    writing_ = true;
    auto& stream = ws_.next_layer();
    while (!queue_.empty() && stream.gathered_bytes() < kMaxWriteBytes) {
      const SharedText& text = queue_.front();
      beast::error_code ec;
      ws_.write(net::buffer(*text), ec);
      if (ec) {
        writing_ = false;
        return write_failed(ec);
      }
      state_->metrics->bytes_sent(text->size());
      queued_bytes_ -= text->size();
      queue_.pop_front();
    }
    stream.async_flush([self = shared_from_this()](beast::error_code ec) { self->on_write(ec); });
  }

  void on_write(beast::error_code ec) {
    writing_ = false;
    if (ec) return write_failed(ec);
    if (!queue_.empty() && !finished_) return do_write();
    if (closing_ && !close_started_ && !finished_) do_close();
  }

  void write_failed(beast::error_code ec) {
    log_failure(ec, "write", id_);
    close_socket();  // so the pending read ends too
    finish("write failed");
  }

  // `drop_queued`: for a client that is misbehaving or not reading, skip what
  // is still queued (except a write already under way) and close right away.
  void begin_close(CloseReason reason, bool drop_queued) {
    if (closing_ || finished_) return;
    closing_ = true;
    close_reason_ = std::move(reason);
    if (drop_queued) {  // a write under way has already left the queue
      queue_.clear();
      queued_bytes_ = 0;
    }
    // A write stuck on a peer that does not read would hold the close frame
    // back forever; Beast's own timeout only starts once the frame is sent.
    close_deadline_.expires_after(limits_.handshake_timeout);
    close_deadline_.async_wait([self = shared_from_this()](beast::error_code wait_ec) {
      if (!wait_ec && !self->finished_) {
        spdlog::debug("connection {}: close not finished in time, cutting", self->id_);
        self->close_socket();
      }
    });
    if (!writing_) do_close();
  }

  void do_close() {
    close_started_ = true;
    websocket::close_reason reason(close_reason_.code);
    reason.reason = close_reason_.reason;
    ws_.async_close(reason, [self = shared_from_this()](beast::error_code ec) {
      if (ec) log_failure(ec, "close", self->id_);
      self->finish("closed by server");
    });
  }

  void close_socket() {
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().close(ec);
  }

  // Exactly once, whichever way the connection ended.
  void finish(std::string_view how) {
    if (finished_.exchange(true)) return;
    close_deadline_.cancel();
    std::deque<SharedText>().swap(queue_);
    queued_bytes_ = 0;
    connection_slot_.release();
    state_->schedule_memory_trim();
    if (!opened_) return;
    state_->metrics->connection_closed();
    state_->remove_session(id_);
    if (closing_) {
      spdlog::debug("connection {} closed ({} {}: {})", id_, close_reason_.code,
                    close_reason_.reason, how);
    } else {
      spdlog::debug("connection {} closed ({})", id_, how);
    }
    if (const auto& handler = state_->handler) {
      try {
        handler->on_close(shared_from_this());
      } catch (const std::exception& error) {
        spdlog::error("connection {}: on_close threw: {}", id_, error.what());
      }
    }
  }

  std::shared_ptr<Server::State> state_;
  const Limits& limits_;
  AddressLimits::Slot socket_slot_;  // given back after the socket is closed (destroyed below it)
  const net::any_io_executor executor_;  // this connection's strand
  const std::string remote_;
  const std::string address_;  // AddressLimits::key_of the peer
  websocket::stream<BatchingStream> ws_;
  const std::uint64_t id_;
  // Set when the upgrade is completed only to close (full, shutting down).
  std::optional<CloseReason> refusal_;
  AddressLimits::Slot connection_slot_;  // empty when refused; given back by finish()

  beast::flat_buffer buffer_;
  TokenBucket bucket_;
  std::size_t strikes_ = 0;

  // Messages not yet written; a write under way has taken its messages out.
  std::deque<SharedText> queue_;
  std::size_t queued_bytes_ = 0;
  std::mutex outbox_mutex_;
  std::vector<Outgoing> outbox_;    // from any thread, under the mutex
  std::vector<Outgoing> draining_;  // on the strand; swapped with outbox_
  bool writing_ = false;  // a socket write of queued messages is under way

  bool opened_ = false;
  bool closing_ = false;
  bool close_started_ = false;
  CloseReason close_reason_;
  net::steady_timer close_deadline_;
  // Read from any thread by send()/close() to skip posting to a dead session.
  std::atomic<bool> finished_{false};
};

}  // namespace

void start_websocket_session(std::shared_ptr<Server::State> state, beast::tcp_stream stream,
                             http::request<http::string_body> request,
                             std::optional<CloseReason> refusal, AddressLimits::Slot socket_slot,
                             AddressLimits::Slot connection_slot, std::string address) {
  std::make_shared<WebSocketSession>(std::move(state), std::move(stream), std::move(refusal),
                                     std::move(socket_slot), std::move(connection_slot), std::move(address))
      ->run(std::move(request));
}

}  // namespace gofish::server
