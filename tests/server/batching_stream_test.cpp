// BatchingStream (server/edge/batching_stream.hpp) over a real loopback TCP
// connection, with the io_context driven by hand: writes queued while one is
// in flight leave in order and gathered into few socket writes; a peer that
// stops reading stops the completions, so a writer with a bounded queue (the
// WebSocket session) reaches its bound instead of the stream growing; and a
// close while a write is in flight completes every handler exactly once,
// with an error, and writes nothing more.
#include "server/edge/batching_stream.hpp"

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using gofish::server::BatchingStream;

// The server's next layer (beast::tcp_stream), counting the socket writes
// BatchingStream starts: each call of async_write_some is one write to the
// socket (a partial write makes more than one per batch, never fewer).
class CountingStream {
 public:
  using next_layer_type = beast::tcp_stream;
  using executor_type = beast::tcp_stream::executor_type;

  CountingStream(beast::tcp_stream&& next, std::size_t& writes) : next_(std::move(next)), writes_(&writes) {}

  executor_type get_executor() noexcept { return next_.get_executor(); }
  next_layer_type& next_layer() noexcept { return next_; }
  const next_layer_type& next_layer() const noexcept { return next_; }

  template <class MutableBuffers, class Handler>
  auto async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    return next_.async_read_some(buffers, std::forward<Handler>(handler));
  }
  template <class ConstBuffers, class Handler>
  auto async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    ++*writes_;
    return next_.async_write_some(buffers, std::forward<Handler>(handler));
  }

 private:
  beast::tcp_stream next_;
  std::size_t* writes_;
};

using Stream = BatchingStream<CountingStream>;

// The stream as the server holds it: owned by its connection (set_owner), so
// a socket write under way keeps the connection alive.
struct Connection {
  Connection(tcp::socket socket, std::size_t& writes)
      : stream(CountingStream(beast::tcp_stream(std::move(socket)), writes)) {}
  Stream stream;
};

// A connected pair on 127.0.0.1: the server's end and the peer's.
std::pair<tcp::socket, tcp::socket> loopback_pair(net::io_context& ioc) {
  tcp::acceptor acceptor(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  tcp::socket peer(ioc);
  peer.connect(acceptor.local_endpoint());
  tcp::socket server = acceptor.accept();
  return {std::move(server), std::move(peer)};
}

// A peer that does not read: small buffers on both sides, so the kernel
// holds little and a write stalls soon.
void make_small_buffers(tcp::socket& server, tcp::socket& peer) {
  server.set_option(net::socket_base::send_buffer_size(4096));
  peer.set_option(net::socket_base::receive_buffer_size(4096));
}

// Runs every handler that is ready, until none is; returns how many ran.
std::size_t run_ready(net::io_context& ioc) {
  ioc.restart();
  std::size_t ran = 0;
  while (const std::size_t n = ioc.poll()) ran += n;
  return ran;
}

std::string message(std::size_t i) {
  // Sizes vary, so a misplaced or torn message shows in the bytes.
  return "<" + std::to_string(i) + ":" + std::string(i * 37 % 500, static_cast<char>('a' + i % 26)) + ">";
}

struct Completion {
  std::size_t index;
  beast::error_code ec;
  std::size_t bytes;
};

TEST_CASE("batching stream: writes queued while one is in flight arrive in order, gathered") {
  net::io_context ioc;
  auto [server, peer] = loopback_pair(ioc);
  std::size_t socket_writes = 0;
  auto connection = std::make_shared<Connection>(std::move(server), socket_writes);
  Stream& stream = connection->stream;
  stream.set_owner(connection);

  // Like the server: Beast's own frames come through async_write_some (a
  // handler each), the session's messages through write_some and a flush.
  constexpr std::size_t kMessages = 300;
  std::string expected;
  std::vector<Completion> completions;
  std::vector<std::size_t> flushed;
  for (std::size_t i = 0; i < kMessages; ++i) {
    const std::string text = message(i);
    expected += text;
    if (i % 3 == 0) {
      beast::error_code ec;
      CHECK(stream.write_some(net::buffer(text), ec) == text.size());
      CHECK_FALSE(ec);
      stream.async_flush([&flushed, i](beast::error_code flush_ec) {
        CHECK_FALSE(flush_ec);
        flushed.push_back(i);
      });
    } else {
      stream.async_write_some(net::buffer(text), [&completions, i](beast::error_code write_ec, std::size_t n) {
        completions.push_back({i, write_ec, n});
      });
    }
    // The first write is under way from here on: the rest are gathered.
    if (i == 0) CHECK(stream.gathered_bytes() == 0);
  }
  CHECK(stream.gathered_bytes() == expected.size() - message(0).size());
  CHECK(completions.empty());  // nothing completes inline

  std::string received;
  net::async_read(peer, net::dynamic_buffer(received), net::transfer_exactly(expected.size()),
                  [](beast::error_code ec, std::size_t) { CHECK_FALSE(ec); });
  ioc.run();

  CHECK(received == expected);
  // One write for the first message and one for everything queued behind it.
  CHECK(socket_writes >= 2);
  CHECK(socket_writes < kMessages / 10);
  REQUIRE(completions.size() == kMessages - kMessages / 3);
  std::size_t previous = 0;
  for (const auto& completion : completions) {
    CHECK(completion.index % 3 != 0);
    CHECK(completion.index > previous);  // in the order written, each once
    CHECK_FALSE(completion.ec);
    CHECK(completion.bytes == message(completion.index).size());
    previous = completion.index;
  }
  REQUIRE(flushed.size() == kMessages / 3);
  for (std::size_t k = 0; k < flushed.size(); ++k) CHECK(flushed[k] == 3 * k);
  CHECK(stream.gathered_bytes() == 0);
}

TEST_CASE("batching stream: a peer that stops reading stops completions, and a bounded writer reaches its bound") {
  net::io_context ioc;
  auto [server, peer] = loopback_pair(ioc);
  make_small_buffers(server, peer);
  std::size_t socket_writes = 0;
  auto connection = std::make_shared<Connection>(std::move(server), socket_writes);
  Stream& stream = connection->stream;
  stream.set_owner(connection);

  // A writer shaped like WebSocketSession: a bounded queue, one batch in
  // flight at a time, the next batch written when the last one completes;
  // over the bound it gives up (the session closes with slow_reader).
  constexpr std::size_t kQueueLimit = 64;
  constexpr std::size_t kMessageBytes = 16 * 1024;
  constexpr std::size_t kMaxBatchBytes = 64 * 1024;
  std::deque<std::string> queue;
  bool writing = false;
  bool slow_reader = false;
  std::size_t batches_done = 0;
  std::size_t bytes_handed = 0;
  std::function<void()> write_batch = [&] {
    writing = true;
    while (!queue.empty() && stream.gathered_bytes() < kMaxBatchBytes) {
      beast::error_code ec;
      stream.write_some(net::buffer(queue.front()), ec);
      REQUIRE_FALSE(ec);
      bytes_handed += queue.front().size();
      queue.pop_front();
    }
    stream.async_flush([&](beast::error_code ec) {
      writing = false;
      if (ec) return;
      ++batches_done;
      if (!queue.empty()) write_batch();
    });
  };
  const auto enqueue = [&](std::string text) {
    if (queue.size() >= kQueueLimit) {
      slow_reader = true;
      return;
    }
    queue.push_back(std::move(text));
    if (!writing) write_batch();
  };

  // Far more than the kernel's buffers hold: 64 MB unless the writer stops.
  std::size_t offered = 0;
  for (; offered < 4096 && !slow_reader; ++offered) {
    enqueue(std::string(kMessageBytes, 'x'));
    run_ready(ioc);
  }
  CHECK(slow_reader);
  CHECK(queue.size() == kQueueLimit);
  // What left the writer is what the kernel took plus one batch under way.
  CHECK(bytes_handed < 4 * 1024 * 1024);
  CHECK(stream.gathered_bytes() == 0);  // the writer waits: nothing piles up in the stream
  INFO("offered ", offered, " messages; ", batches_done, " batches went out; ", socket_writes, " socket writes");

  // Stalled, not slow: nothing more completes, and a frame Beast writes
  // meanwhile (a ping) is gathered and waits too.
  const std::size_t batches_before = batches_done;
  ioc.restart();
  ioc.run_for(std::chrono::milliseconds(50));
  CHECK(batches_done == batches_before);
  int ping_completions = 0;
  beast::error_code ping_ec;
  const std::string ping("\x89\x00", 2);  // an empty ping frame
  stream.async_write_some(net::buffer(ping), [&](beast::error_code ec, std::size_t) {
    ++ping_completions;
    ping_ec = ec;
  });
  run_ready(ioc);
  CHECK(ping_completions == 0);
  CHECK(stream.gathered_bytes() == ping.size());

  // The session then cuts the socket (its close deadline): everything
  // waiting fails once, and the stream lets go of what it gathered.
  beast::get_lowest_layer(stream).socket().close();
  run_ready(ioc);
  CHECK_FALSE(writing);
  CHECK(batches_done == batches_before);
  CHECK(ping_completions == 1);
  CHECK(ping_ec);
  CHECK(stream.gathered_bytes() == 0);
}

TEST_CASE("batching stream: a close while a write is in flight completes every handler once and writes nothing more") {
  net::io_context ioc;
  auto [server, peer] = loopback_pair(ioc);
  make_small_buffers(server, peer);
  std::size_t socket_writes = 0;
  auto connection = std::make_shared<Connection>(std::move(server), socket_writes);
  std::weak_ptr<Connection> weak = connection;
  Stream* stream = &connection->stream;
  stream->set_owner(connection);

  // A write too large for the kernel's buffers: it stays in flight.
  const std::string big(1024 * 1024, 'b');
  std::vector<int> calls(4, 0);
  std::vector<beast::error_code> errors(4);
  const auto record = [&](std::size_t k) {
    return [&calls, &errors, k](beast::error_code ec, std::size_t) {
      ++calls[k];
      errors[k] = ec;
    };
  };
  stream->async_write_some(net::buffer(big), record(0));
  run_ready(ioc);
  REQUIRE(calls[0] == 0);
  // Behind it, the next batch: two frames, a message and a flush.
  const std::string later = "written after the big one";
  stream->async_write_some(net::buffer(later), record(1));
  stream->async_write_some(net::buffer(later), record(2));
  beast::error_code ec;
  stream->write_some(net::buffer(later), ec);
  REQUIRE_FALSE(ec);
  stream->async_flush([&](beast::error_code flush_ec) { record(3)(flush_ec, 0); });
  run_ready(ioc);
  CHECK(calls == std::vector<int>{0, 0, 0, 0});
  const std::size_t writes_before_close = socket_writes;

  // Closed while the write is under way, and the connection let go: the
  // write under way keeps it alive until its handler has run.
  beast::get_lowest_layer(*stream).socket().close();
  connection.reset();
  CHECK_FALSE(weak.expired());
  run_ready(ioc);
  CHECK(weak.expired());
  CHECK(calls == std::vector<int>{1, 1, 1, 1});
  for (std::size_t k = 0; k < 4; ++k) CHECK(errors[k]);

  // The peer got a prefix of the big write and nothing of what followed.
  std::string received;
  beast::error_code read_ec;
  net::read(peer, net::dynamic_buffer(received), read_ec);
  CHECK(read_ec);  // end of stream or reset
  CHECK(received.size() < big.size());
  CHECK(received == big.substr(0, received.size()));
  CHECK(socket_writes == writes_before_close);
}

TEST_CASE("batching stream: writes after the connection broke fail at once and start no socket write") {
  net::io_context ioc;
  auto [server, peer] = loopback_pair(ioc);
  make_small_buffers(server, peer);
  std::size_t socket_writes = 0;
  auto connection = std::make_shared<Connection>(std::move(server), socket_writes);
  Stream& stream = connection->stream;
  stream.set_owner(connection);

  int first_calls = 0;
  const std::string big(1024 * 1024, 'c');
  stream.async_write_some(net::buffer(big), [&](beast::error_code, std::size_t) { ++first_calls; });
  run_ready(ioc);
  beast::get_lowest_layer(stream).socket().close();
  run_ready(ioc);
  REQUIRE(first_calls == 1);
  const std::size_t writes_after_failure = socket_writes;

  beast::error_code ec;
  CHECK(stream.write_some(net::buffer(big), ec) == 0);
  CHECK(ec);
  int later_calls = 0;
  beast::error_code later_ec;
  stream.async_write_some(net::buffer(big), [&](beast::error_code write_ec, std::size_t n) {
    ++later_calls;
    later_ec = write_ec;
    CHECK(n == 0);
  });
  CHECK(later_calls == 0);  // never inline
  run_ready(ioc);
  CHECK(later_calls == 1);
  CHECK(later_ec);
  CHECK(socket_writes == writes_after_failure);
  CHECK(stream.gathered_bytes() == 0);
}

TEST_CASE("batching stream: a write that never completes frees its waiters and the connection with the io_context") {
  auto ioc = std::make_unique<net::io_context>();
  std::size_t socket_writes = 0;
  std::weak_ptr<Connection> weak;
  std::optional<tcp::socket> peer;
  // Each handler holds a token; a handler destroyed without running gives
  // it back, so a leak or a double destruction shows in the count.
  auto token = std::make_shared<int>(0);
  int calls = 0;
  {
    auto [server, peer_end] = loopback_pair(*ioc);
    make_small_buffers(server, peer_end);
    peer.emplace(std::move(peer_end));
    auto connection = std::make_shared<Connection>(std::move(server), socket_writes);
    weak = connection;
    connection->stream.set_owner(connection);
    const std::string big(1024 * 1024, 'd');
    connection->stream.async_write_some(net::buffer(big),
                                        [token, &calls](beast::error_code, std::size_t) { ++calls; });
    connection->stream.async_flush([token, &calls](beast::error_code) { ++calls; });
    run_ready(*ioc);
  }
  CHECK(token.use_count() == 3);
  CHECK_FALSE(weak.expired());

  peer.reset();  // sockets go before their io_context
  ioc.reset();   // the write is abandoned, never completed
  CHECK(calls == 0);
  CHECK(token.use_count() == 1);
  CHECK(weak.expired());
}

}  // namespace
