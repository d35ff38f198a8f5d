#include "rooms_socket.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace gofish::server::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

namespace {

std::mutex activity_mutex;
std::condition_variable activity_cv;
std::uint64_t activity_count = 0;

void bump_activity() {
  {
    std::lock_guard lock(activity_mutex);
    ++activity_count;
  }
  activity_cv.notify_all();
}

}  // namespace

std::uint64_t activity() {
  std::lock_guard lock(activity_mutex);
  return activity_count;
}

void wait_for_activity(std::uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock lock(activity_mutex);
  activity_cv.wait_for(lock, timeout, [&] { return activity_count != seen; });
}

struct LiveSocket::Impl {
  net::io_context io;
  websocket::stream<beast::tcp_stream> ws{io};
  beast::flat_buffer buffer;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::thread thread;

  mutable std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::string> inbox;
  bool ended = false;
  std::uint16_t code = 0;
  std::string reason;

  // Only on the I/O thread.
  std::deque<std::pair<std::string, bool>> outbox;  // text, binary?
  bool writing = false;

  void read_loop() {
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      if (ec) return finish();
      std::string frame = beast::buffers_to_string(buffer.data());
      buffer.consume(buffer.size());
      {
        std::lock_guard lock(mutex);
        inbox.push_back(std::move(frame));
      }
      cv.notify_all();
      bump_activity();
      read_loop();
    });
  }

  void finish() {
    {
      std::lock_guard lock(mutex);
      ended = true;
      code = ws.reason().code;
      reason = std::string(ws.reason().reason.data(), ws.reason().reason.size());
    }
    cv.notify_all();
    bump_activity();
  }

  void write_next() {
    if (writing || outbox.empty()) return;
    writing = true;
    ws.binary(outbox.front().second);
    ws.async_write(net::buffer(outbox.front().first), [this](beast::error_code ec, std::size_t) {
      writing = false;
      outbox.pop_front();
      if (ec) {
        outbox.clear();
        return;
      }
      write_next();
    });
  }

  void queue(std::string bytes, bool binary) {
    net::post(io, [this, bytes = std::move(bytes), binary]() mutable {
      outbox.emplace_back(std::move(bytes), binary);
      write_next();
    });
  }

  void stop() {
    work.reset();
    if (thread.joinable()) {
      // Cut the socket so a pending read completes, then let the thread end.
      net::post(io, [this] {
        beast::error_code ec;
        beast::get_lowest_layer(ws).socket().close(ec);
      });
      thread.join();
    }
  }
};

LiveSocket::LiveSocket(std::uint16_t port) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  beast::error_code ec;
  beast::get_lowest_layer(s.ws).socket().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
  if (ec) throw std::runtime_error("connect: " + ec.message());
  s.ws.handshake("127.0.0.1:" + std::to_string(port), "/ws", ec);
  if (ec) throw std::runtime_error("websocket handshake: " + ec.message());
  s.read_loop();
  s.work.emplace(s.io.get_executor());
  s.thread = std::thread([&s] { s.io.run(); });
}

LiveSocket::~LiveSocket() { impl_->stop(); }

void LiveSocket::send(std::string text) { impl_->queue(std::move(text), false); }
void LiveSocket::send_binary(std::string bytes) { impl_->queue(std::move(bytes), true); }

std::optional<std::string> LiveSocket::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mutex);
  impl_->cv.wait_for(lock, timeout, [&] { return !impl_->inbox.empty() || impl_->ended; });
  if (impl_->inbox.empty()) return std::nullopt;
  std::string frame = std::move(impl_->inbox.front());
  impl_->inbox.pop_front();
  return frame;
}

bool LiveSocket::ended() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->ended;
}

std::uint16_t LiveSocket::close_code() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->code;
}

std::string LiveSocket::close_reason() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->reason;
}

void LiveSocket::close() {
  net::post(impl_->io, [s = impl_.get()] {
    s->ws.async_close(websocket::close_code::normal, [](beast::error_code) {});
  });
  std::unique_lock lock(impl_->mutex);
  impl_->cv.wait_for(lock, std::chrono::seconds(2), [&] { return impl_->ended; });
}

void LiveSocket::drop() {
  net::post(impl_->io, [s = impl_.get()] {
    beast::error_code ec;
    beast::get_lowest_layer(s->ws).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(s->ws).socket().close(ec);
  });
  std::unique_lock lock(impl_->mutex);
  impl_->cv.wait_for(lock, std::chrono::seconds(2), [&] { return impl_->ended; });
}

}  // namespace gofish::server::testing
