// One WebSocket connection: reads client messages within the size and rate
// limits and hands them to the ConnectionHandler; writes from a bounded,
// single-writer queue of shared messages through a BatchingStream. Everything
// runs on the connection's strand (the executor its socket was accepted with).
// Made by HttpSession on upgrade; the Server keeps it as a WebSocketHandle.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/token_bucket.hpp"
#include "server/edge/batching_stream.hpp"
#include "server/edge/edge_stream.hpp"
#include "server/edge/server_state.hpp"

namespace gofish::server {

class WebSocketSession : public WebSocketHandle, public std::enable_shared_from_this<WebSocketSession> {
 public:
  // With `refusal` set, the session completes the upgrade only to close at
  // once with that reason, which a browser can show (it cannot read an HTTP
  // status). `socket_slot` is the socket's place in state.addresses,
  // `connection_slot` the connection's (empty when refused); `address` the
  // client's address key and `remote` its address and port for the log (the
  // peer's, or what a trusted proxy's PROXY header said).
  WebSocketSession(std::shared_ptr<Server::State> state, EdgeStream stream,
                   std::optional<CloseReason> refusal, AddressLimits::Slot socket_slot,
                   AddressLimits::Slot connection_slot, std::string address, std::string remote);
  ~WebSocketSession() override;

  // Completes the upgrade `request` asked for.
  void run(boost::beast::http::request<boost::beast::http::string_body> request);

  // ---- Connection (any thread) ----
  void send(SharedText text) override;
  void close(CloseReason reason) override;
  std::uint64_t id() const override { return id_; }
  const std::string& remote_address() const override { return remote_; }
  const std::string& address_key() const override { return address_; }
  const std::string& route() const override { return route_; }

  // ---- WebSocketHandle ----
  void cut() override;
  void abandon() override;

 private:
  using Outgoing = std::variant<SharedText, CloseReason>;

  void on_accept(beast::error_code ec);
  void do_read();
  void on_read(beast::error_code ec, std::size_t bytes);
  void deliver();
  template <class Call>
  bool call_handler(std::string_view what, Call call);
  void hand_over(Outgoing item);
  void drain_outbox();
  void write_if_idle();
  void enqueue(SharedText text);
  void do_write();
  void on_write(beast::error_code ec);
  void write_failed(beast::error_code ec);
  void begin_close(CloseReason reason, bool drop_queued);
  void do_close();
  void close_socket();
  void finish(std::string_view how);

  std::shared_ptr<Server::State> state_;
  const Limits& limits_;
  AddressLimits::Slot socket_slot_;  // given back after the socket is closed (destroyed below it)
  const net::any_io_executor executor_;  // this connection's strand
  const std::string remote_;
  const std::string address_;  // AddressLimits::key_of the peer
  std::string route_;          // the upgrade's ?room= (set in run, before the handler sees the session)
  boost::beast::websocket::stream<BatchingStream<EdgeStream>> ws_;
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
  // The peer's close frame has been read, and Beast answers it: the session
  // hears of it (the read ends) only once the peer has closed its end too,
  // and meanwhile no message may follow the answer.
  bool peer_closed_ = false;
  CloseReason close_reason_;
  net::steady_timer close_deadline_;
  // Read from any thread by send()/close() to skip posting to a dead session.
  std::atomic<bool> finished_{false};
};

}  // namespace gofish::server
