// One HTTP connection: from a trusted proxy, first reads the PROXY header
// that names the client (proxy_header.hpp) and from then on counts, limits
// and logs the connection as the client's; with TLS on, completes the TLS
// handshake (within limits.handshake_timeout, like the header); then answers
// requests, keeping the connection alive between them. On the public port:
// /healthz, /readyz, /api/... and the web client's files, with the page's
// security headers, and an upgrade to /ws hands the stream to a new
// WebSocketSession (admitted, or refused with a close reason the browser can
// show). On the admin port: /metrics, /healthz and /readyz only. On the
// redirect port: a redirect to the https address for every request. Runs on
// the connection's strand; the Server keeps it as a Cuttable.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/edge/edge_stream.hpp"
#include "server/edge/port_role.hpp"
#include "server/edge/server_state.hpp"

namespace gofish::server {

class HttpSession : public Cuttable, public std::enable_shared_from_this<HttpSession> {
 public:
  // `socket_slot` is the socket's place in state.addresses, `address` the
  // peer's address key, `role` what its port is for; `proxied`: the peer is
  // a trusted proxy, and the connection must begin with a PROXY header.
  HttpSession(std::shared_ptr<Server::State> state, tcp::socket socket, AddressLimits::Slot socket_slot,
              std::string address, std::uint64_t id, PortRole role = PortRole::kPublic, bool proxied = false);
  ~HttpSession() override;

  // Registers with the state and starts reading, on the socket's strand.
  void run();

  // Only from Server::wait(), when no I/O thread runs.
  void cut() override;

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  using TextResponse = boost::beast::http::response<boost::beast::http::string_body>;

  void read_proxy_header();
  void on_proxy_header(beast::error_code ec, std::size_t bytes);
  // The PROXY header was bad or did not come: log, count, close.
  void refuse_proxy_header(std::string_view why);
  // The header named `client` (address, port): the socket's place moves to
  // the client's address; false if that address may not have another.
  bool become_client(const std::string& address, std::uint16_t port);
  // After the PROXY header, if any: the TLS handshake (with TLS on), then do_read().
  void begin();
  void on_handshake(beast::error_code ec, std::size_t used);
  void do_read();
  void on_read(beast::error_code ec);
  void upgrade();
  void handle(const Request& request);
  bool handle_probe(std::string_view path, bool keep_alive);
  void redirect(const Request& request);
  void serve_file(std::string_view target, std::string_view accept_encoding, std::string_view if_none_match,
                  bool keep_alive);
  template <class Body>
  void decorate(boost::beast::http::response<Body>& response, bool keep_alive) const;
  TextResponse text_response(boost::beast::http::status status, std::string body, bool keep_alive) const;
  void send(TextResponse&& response);
  template <class Body>
  void write(boost::beast::http::response<Body>&& response);
  void on_write(beast::error_code ec, bool keep_alive);

  std::shared_ptr<Server::State> state_;
  AddressLimits::Slot socket_slot_;  // given back after the socket is closed (destroyed below it)
  EdgeStream stream_;
  std::string address_;  // the client's address key (after the PROXY header, if any)
  std::string peer_;     // the client's address and port, for the log
  std::uint64_t id_;
  const PortRole role_;
  const bool proxied_;
  beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  bool head_ = false;  // the request being answered is a HEAD
};

}  // namespace gofish::server
