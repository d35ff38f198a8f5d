// gofish-bench-echo: the smallest Beast WebSocket server, sending every text
// message straight back. gofish-load drives it with the same connections and
// message size as the game server: its throughput is the transport's ceiling
// on this machine, and docs/BENCHMARKS.md gives the server's figures as a
// ratio of it. Built from bench/ only, never shipped.
//
// The same transport as gofish-server (a beast::tcp_stream under a
// websocket::stream, TCP_NODELAY, one io_context), and nothing else.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <thread>
#include <vector>

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

class EchoSession : public std::enable_shared_from_this<EchoSession> {
 public:
  explicit EchoSession(tcp::socket socket) : ws_(std::move(socket)) {}

  void run() {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.async_accept([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->read();
    });
  }

 private:
  void read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (!ec) self->echo();
    });
  }

  void echo() {
    ws_.text(ws_.got_text());
    ws_.async_write(buffer_.data(), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return;
      self->buffer_.consume(self->buffer_.size());
      self->read();
    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
};

class Listener {
 public:
  Listener(net::io_context& io, const tcp::endpoint& endpoint) : io_(io), acceptor_(io) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void accept() {
    acceptor_.async_accept(net::make_strand(io_), [this](beast::error_code ec, tcp::socket socket) {
      if (!ec) {
        socket.set_option(tcp::no_delay(true), ec);
        std::make_shared<EchoSession>(std::move(socket))->run();
      }
      accept();
    });
  }

 private:
  net::io_context& io_;
  tcp::acceptor acceptor_;
};

}  // namespace

int main(int argc, char** argv) {
  std::uint16_t port = 0;
  unsigned threads = 1;
  CLI::App app{"gofish-bench-echo: a WebSocket echo server on 127.0.0.1, the transport baseline for gofish-load",
               "gofish-bench-echo"};
  app.add_option("--port", port, "TCP port (0: any free port)")->capture_default_str();
  app.add_option("--threads", threads, "I/O threads")->check(CLI::Range(1u, 64u))->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  net::io_context io(static_cast<int>(threads));
  Listener listener(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  listener.accept();
  net::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](beast::error_code, int) { io.stop(); });
  // Scripts wait for this line to learn the port.
  std::cout << "gofish-bench-echo listening on 127.0.0.1:" << listener.port() << std::endl;

  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& thread : pool) thread.join();
  return 0;
}
