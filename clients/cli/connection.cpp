#include "clients/cli/connection.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>

namespace gofish::cli {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

struct Connection::Impl {
  net::io_context io;
  websocket::stream<beast::tcp_stream> ws{io};
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;
  std::optional<net::posix::stream_descriptor> input;
  ConnectionHandler* handler = nullptr;
  std::optional<std::string> ended;  // why the connection ended, once it has
  bool stopping = false;

  // Liveness (watch_liveness): when the server was last heard from, and
  // whether it has been pinged since.
  std::chrono::milliseconds silence_limit{0};
  net::steady_timer liveness_timer{io};
  std::chrono::steady_clock::time_point last_heard = std::chrono::steady_clock::now();
  bool pinged = false;
  bool silent = false;

  ~Impl() {
    if (input) input->release();  // the terminal's descriptor is not ours to close
  }

  void finish(std::optional<std::string> why) {
    if (!ended && !stopping) ended = std::move(why);
    io.stop();
  }

  void read() {
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      if (ec) {
        if (stopping) return finish(std::nullopt);
        if (ec == websocket::error::closed) {
          const auto& reason = ws.reason();
          std::string why = "The server closed the connection";
          if (!reason.reason.empty()) why += " (" + std::string(reason.reason.data(), reason.reason.size()) + ")";
          return finish(why + ".");
        }
        return finish("The connection to the server was lost (" + ec.message() + ").");
      }
      heard();
      const auto data = buffer.cdata();
      const std::string frame(static_cast<const char*>(data.data()), data.size());
      buffer.consume(buffer.size());
      handler->on_frame(frame);
      if (!io.stopped()) read();
    });
  }

  void write() {
    ws.async_write(net::buffer(outbox.front()), [this](beast::error_code ec, std::size_t) {
      if (ec) {
        if (stopping) return finish(std::nullopt);
        return finish("The connection to the server was lost while sending (" + ec.message() + ").");
      }
      outbox.pop_front();
      if (!outbox.empty()) return write();
      if (stopping) close();
    });
  }

  // A polite close, bounded: a server that does not answer is left behind.
  // Beast allows no close while a write is under way, so write() calls this
  // once the outbox is empty.
  void close() {
    auto timer = std::make_shared<net::steady_timer>(io, std::chrono::seconds(1));
    timer->async_wait([this, timer](beast::error_code) { io.stop(); });
    ws.async_close(websocket::close_code::normal, [this](beast::error_code) { io.stop(); });
  }

  void heard() {
    last_heard = std::chrono::steady_clock::now();
    pinged = false;
  }

  // Looks at the silence six times per limit: a ping goes out once it has
  // lasted a third of the limit, and the server is given up for gone
  // between the limit and a sixth more.
  void watch_liveness() {
    liveness_timer.expires_after(silence_limit / 6);
    liveness_timer.async_wait([this](beast::error_code ec) {
      if (ec || stopping || ended) return;
      const auto quiet = std::chrono::steady_clock::now() - last_heard;
      if (quiet >= silence_limit) {
        silent = true;
        return finish("The server stopped answering (nothing from it for " +
                      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(quiet).count()) +
                      " ms, not even an answer to a ping).");
      }
      if (quiet >= silence_limit / 3 && !pinged) {
        pinged = true;
        // Beast lets a ping go out beside a write under way (it waits its turn).
        ws.async_ping({}, [](beast::error_code) {});
      }
      watch_liveness();
    });
  }

  void wait_input() {
    input->async_wait(net::posix::descriptor_base::wait_read, [this](beast::error_code ec) {
      if (ec) return;
      handler->on_input();
      if (!io.stopped() && input) wait_input();
    });
  }
};

Connection::Connection() : impl_(std::make_unique<Impl>()) {}
Connection::~Connection() = default;

void Connection::open(const ServerAddress& address, std::chrono::milliseconds timeout,
                      const std::optional<std::string>& room_code) {
  const std::string where = address.host + ":" + address.port;
  // A room code is letters and digits only (protocol::normalize_room_code), so it needs no escaping.
  const std::string target = room_code ? "/ws?room=" + *room_code : "/ws";
  beast::error_code ec;
  tcp::resolver resolver(impl_->io);
  const auto endpoints = resolver.resolve(address.host, address.port, ec);
  if (ec) throw ConnectError("Cannot reach the server at " + where + ": " + ec.message() + ".");
  const auto started = std::chrono::steady_clock::now();
  auto& tcp_stream = beast::get_lowest_layer(impl_->ws);
  tcp_stream.expires_after(timeout);
  bool done = false;
  tcp_stream.async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) {
    ec = e;
    if (!ec) {
      impl_->ws.async_handshake(where, target, [&](beast::error_code h) {
        ec = h;
        done = true;
      });
    } else {
      done = true;
    }
  });
  impl_->io.run();
  impl_->io.restart();
  if (!done || ec) {
    if (ec == websocket::error::upgrade_declined) {
      throw ConnectError("The server at " + where + " did not accept a WebSocket at /ws; is it a Go Fish server?");
    }
    if (ec == beast::error::timeout) {
      const auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      throw ConnectError("The server at " + where + " did not answer within " + std::to_string(waited.count()) + " ms.",
                         true);
    }
    throw ConnectError("Cannot reach the server at " + where + ": " + ec.message() + ".");
  }
  tcp_stream.expires_never();
  impl_->ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
  impl_->ws.set_option(websocket::stream_base::decorator(
      [](websocket::request_type& request) { request.set(beast::http::field::user_agent, "gofish-cli"); }));
  // Pongs, and the server's own pings, are news of it too.
  impl_->ws.control_callback([impl = impl_.get()](websocket::frame_type, beast::string_view) { impl->heard(); });
  impl_->heard();
}

void Connection::send(std::string frame) {
  impl_->outbox.push_back(std::move(frame));
  if (impl_->outbox.size() == 1) impl_->write();
}

void Connection::watch_input(int fd) {
  if (impl_->input) return;
  impl_->input.emplace(impl_->io, fd);
  if (impl_->handler) impl_->wait_input();
}

void Connection::post(std::function<void()> action) { net::post(impl_->io, std::move(action)); }

void Connection::after(std::chrono::milliseconds delay, std::function<void()> action) {
  auto timer = std::make_shared<net::steady_timer>(impl_->io, delay);
  timer->async_wait([timer, action = std::move(action)](beast::error_code ec) {
    if (!ec) action();
  });
}

void Connection::watch_liveness(std::chrono::milliseconds silence_limit) { impl_->silence_limit = silence_limit; }

bool Connection::went_silent() const { return impl_->silent; }

std::optional<std::string> Connection::run(ConnectionHandler& handler) {
  impl_->handler = &handler;
  impl_->read();
  if (impl_->input) impl_->wait_input();
  if (impl_->silence_limit.count() > 0) impl_->watch_liveness();
  impl_->io.run();
  return impl_->ended;
}

void Connection::stop() {
  if (impl_->stopping) return;
  impl_->stopping = true;
  impl_->liveness_timer.cancel();
  if (impl_->input) impl_->input->cancel();
  if (impl_->outbox.empty()) impl_->close();
}

void Connection::drop(std::string why) { impl_->finish(std::move(why)); }

}  // namespace gofish::cli
