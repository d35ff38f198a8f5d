// One WebSocket connection (websocket_session.hpp): the upgrade, the read
// loop with its size and rate limits, the outbox from any thread to the
// strand, the bounded send queue written through the BatchingStream, and the
// close. Everything runs on the connection's strand.
#include "server/edge/websocket_session.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/beast/websocket.hpp>

#include "gofish/version.hpp"
#include "server/edge/http_paths.hpp"

namespace gofish::server {

namespace {

namespace websocket = beast::websocket;
namespace http = beast::http;

constexpr std::string_view kServerName = kServerHeader;

// A socket write takes the queued messages up to about this many bytes.
constexpr std::size_t kMaxWriteBytes = 64 * 1024;

}  // namespace

WebSocketSession::WebSocketSession(std::shared_ptr<Server::State> state, EdgeStream stream,
                                   std::optional<CloseReason> refusal, AddressLimits::Slot socket_slot,
                                   AddressLimits::Slot connection_slot, std::string address, std::string remote)
    : state_(std::move(state)),
      limits_(state_->config.limits),
      socket_slot_(std::move(socket_slot)),
      executor_(stream.get_executor()),
      remote_(std::move(remote)),
      address_(std::move(address)),
      ws_(std::move(stream)),
      id_(state_->next_id++),
      refusal_(std::move(refusal)),
      connection_slot_(std::move(connection_slot)),
      bucket_(limits_.message_rate_per_second, limits_.message_burst,
              TokenBucket::Clock::now()),
      close_deadline_(executor_) {}

WebSocketSession::~WebSocketSession() = default;

void WebSocketSession::run(http::request<http::string_body> request) {
  route_ = room_parameter(split_target(request.target()).query);
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
  // Runs inside the read, before Beast answers a close frame: from here on
  // nothing more is written (Beast writes its answer behind what already was).
  ws_.control_callback([this](websocket::frame_type kind, beast::string_view) {
    if (kind != websocket::frame_type::close) return;
    ws_.next_layer().peer_closed(ws_.reason().code);
    peer_closed_ = true;
    queue_.clear();
    queued_bytes_ = 0;
  });
  ws_.next_layer().set_owner(weak_from_this());
  ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
    self->on_accept(ec);
  });
}

// ---- Connection (any thread) ----

void WebSocketSession::send(SharedText text) {
  if (finished_ || !text) return;
  hand_over(std::move(text));
}

void WebSocketSession::close(CloseReason reason) {
  if (finished_) return;
  hand_over(std::move(reason));
}

// ---- WebSocketHandle ----

void WebSocketSession::cut() {
  net::post(executor_, [self = shared_from_this()] { self->close_socket(); });
}

void WebSocketSession::abandon() {
  finish("server stopped");
  close_socket();
}

void WebSocketSession::on_accept(beast::error_code ec) {
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

void WebSocketSession::do_read() {
  // At most one byte past the limit, so a huge frame is never buffered.
  const auto room = limits_.parse.max_frame_bytes + 1 - buffer_.size();
  ws_.async_read_some(buffer_, room,
                      [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                        self->on_read(ec, bytes);
                      });
}

void WebSocketSession::on_read(beast::error_code ec, std::size_t bytes) {
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

void WebSocketSession::deliver() {
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
bool WebSocketSession::call_handler(std::string_view what, Call call) {
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
void WebSocketSession::hand_over(Outgoing item) {
  bool first = false;
  {
    std::lock_guard lock(outbox_mutex_);
    first = outbox_.empty();
    outbox_.push_back(std::move(item));
  }
  if (first) net::post(executor_, [self = shared_from_this()] { self->drain_outbox(); });
}

void WebSocketSession::drain_outbox() {
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

void WebSocketSession::write_if_idle() {
  if (!writing_ && !queue_.empty() && !finished_) do_write();
}

// Queues without writing: drain_outbox starts the write once the burst is in.
void WebSocketSession::enqueue(SharedText text) {
  if (closing_ || finished_ || peer_closed_) return;
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
void WebSocketSession::do_write() {
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

void WebSocketSession::on_write(beast::error_code ec) {
  writing_ = false;
  if (ec) return write_failed(ec);
  if (!queue_.empty() && !finished_) return do_write();
  if (closing_ && !close_started_ && !finished_) do_close();
}

void WebSocketSession::write_failed(beast::error_code ec) {
  log_failure(ec, "write", id_);
  close_socket();  // so the pending read ends too
  finish("write failed");
}

// `drop_queued`: for a client that is misbehaving or not reading, skip what
// is still queued (except a write already under way) and close right away.
void WebSocketSession::begin_close(CloseReason reason, bool drop_queued) {
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

void WebSocketSession::do_close() {
  close_started_ = true;
  websocket::close_reason reason(close_reason_.code);
  reason.reason = close_reason_.reason;
  ws_.async_close(reason, [self = shared_from_this()](beast::error_code ec) {
    if (ec) log_failure(ec, "close", self->id_);
    self->finish("closed by server");
  });
}

void WebSocketSession::close_socket() {
  beast::error_code ec;
  beast::get_lowest_layer(ws_).socket().close(ec);
}

// Exactly once, whichever way the connection ended.
void WebSocketSession::finish(std::string_view how) {
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

}  // namespace gofish::server
