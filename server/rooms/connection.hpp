// What the rooms layer sees of a client: an abstract connection it can send
// shared bytes to and close, and the handler interface the network layer calls.
// No Boost.Beast here, so rooms and their tests compile without it and can use
// a fake Connection.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gofish::server {

// A WebSocket close code with the sentence the client is shown.
struct CloseReason {
  std::uint16_t code = 1000;
  std::string reason;
};

// The close codes we use (RFC 6455 section 7.4.1).
inline constexpr std::uint16_t kCloseNormal = 1000;
inline constexpr std::uint16_t kCloseGoingAway = 1001;         // server shutting down
inline constexpr std::uint16_t kCloseProtocolError = 1002;     // a bad frame or close code
inline constexpr std::uint16_t kCloseUnsupportedData = 1003;   // a binary frame
inline constexpr std::uint16_t kCloseBadPayload = 1007;        // text that is not UTF-8
inline constexpr std::uint16_t kClosePolicyViolation = 1008;   // flood, send queue overflow
inline constexpr std::uint16_t kCloseMessageTooBig = 1009;     // frame over the limit
inline constexpr std::uint16_t kCloseInternalError = 1011;     // the handler threw
inline constexpr std::uint16_t kCloseTryAgainLater = 1013;     // connection cap reached

// The reasons the network layer closes with itself. The texts are the stable
// spellings of protocol::close_reason_name (protocol/errors.hpp), which
// clients branch on.
inline CloseReason close_normal() { return {kCloseNormal, "normal"}; }
inline CloseReason close_shutting_down() { return {kCloseGoingAway, "shutting_down"}; }
inline CloseReason close_protocol_error() { return {kCloseProtocolError, "protocol_error"}; }
inline CloseReason close_bad_utf8() { return {kCloseBadPayload, "bad_utf8"}; }
inline CloseReason close_unsupported_data() { return {kCloseUnsupportedData, "unsupported_data"}; }
inline CloseReason close_rate_limited() { return {kClosePolicyViolation, "rate_limited"}; }
inline CloseReason close_slow_reader() { return {kClosePolicyViolation, "slow_reader"}; }
inline CloseReason close_too_large() { return {kCloseMessageTooBig, "too_large"}; }
inline CloseReason close_server_full() { return {kCloseTryAgainLater, "server_full"}; }
inline CloseReason close_internal() { return {kCloseInternalError, "internal_error"}; }

// The close codes a peer may send (RFC 6455 section 7.4): 1000-1003 and
// 1007-1011 as defined there, 3000-4999 for libraries and applications. The
// rest are reserved (1004-1006, 1015: never sent), later additions a client
// has no business sending (1012-1014), or undefined.
inline bool is_valid_peer_close_code(std::uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011) || (code >= 3000 && code <= 4999);
}

// The server's answer where the WebSocket library would close with a bare
// code: to the peer's close frame (`peer_code`, 0 when it had none) 1000
// `normal`, or 1002 `protocol_error` for a code no peer may send; when the
// library failed the connection itself (`library_code`), the reason named
// for that code.
inline CloseReason reply_to_close(std::optional<std::uint16_t> peer_code, std::uint16_t library_code) {
  if (peer_code) return *peer_code == 0 || is_valid_peer_close_code(*peer_code) ? close_normal() : close_protocol_error();
  switch (library_code) {
    case kCloseProtocolError: return close_protocol_error();
    case kCloseBadPayload: return close_bad_utf8();
    case kCloseMessageTooBig: return close_too_large();
    default: return {library_code, ""};
  }
}

// Encode once, then share the same bytes with every recipient.
using SharedText = std::shared_ptr<const std::string>;

inline SharedText make_shared_text(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

class Connection {
 public:
  virtual ~Connection() = default;

  // Queues a text message. Thread-safe; never blocks. A connection whose queue
  // is full is closed (1008) instead of growing; after close() this is a no-op.
  virtual void send(SharedText text) = 0;
  // Sends what is already queued, then a close frame with this reason.
  // Thread-safe and idempotent (the first reason wins).
  virtual void close(CloseReason reason) = 0;
  // Unique for the life of the process, never reused.
  virtual std::uint64_t id() const = 0;
  // "address:port" of the peer, for logs.
  virtual const std::string& remote_address() const = 0;
  // The peer's address as per-address limits count it (AddressLimits::key_of).
  virtual const std::string& address_key() const = 0;
  // The `room` parameter of the URL the socket was opened with
  // (/ws?room=CODE, protocol/README.md "Room parameter"): the code a proxy
  // in front of several servers routed it by; empty when there was none.
  virtual const std::string& route() const {
    static const std::string none;
    return none;
  }
};

// Implemented by the rooms layer. Calls for one connection come one at a time
// on that connection's strand, in order: on_open, on_message*, on_close (exactly
// once for each on_open, at the latest during Server::stop). Different
// connections' calls run concurrently, so the handler hops to its own strands.
class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;

  virtual void on_open(const std::shared_ptr<Connection>& connection) = 0;
  // A complete text message within the size and rate limits. Never log its
  // body above debug: it may hold tokens or cards.
  virtual void on_message(const std::shared_ptr<Connection>& connection,
                          std::string_view text) = 0;
  virtual void on_close(const std::shared_ptr<Connection>& connection) = 0;

  // A message was dropped by the rate limit (called once per run of drops).
  // The default sends {"type":"error","code":"protocol/rate_limited",...}.
  virtual void on_rate_limited(const std::shared_ptr<Connection>& connection);

  // Shutdown has begun: tell clients (e.g. a `closing` message) and call
  // done() once those sends are queued; the server then closes every
  // connection with 1001. If done is not called within the shutdown grace the
  // server proceeds anyway. Called from an I/O thread, on no connection's strand.
  virtual void on_shutdown(std::function<void()> done) { done(); }
};

}  // namespace gofish::server
