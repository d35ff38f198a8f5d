// A WebSocket client on bare POSIX sockets, for what the Beast clients of
// test_client.hpp and rooms_socket.hpp cannot do: connect from another
// loopback address (127.0.0.2, ... stand for other clients' addresses), send
// frames Beast refuses to (text that is not UTF-8, any close code), shrink
// its receive buffer and stop reading while the server writes, or hold a TCP
// connection open without ever sending a request. Blocking, with timeouts.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gofish::server::testing {

// A TCP connection to 127.0.0.1:port from `source` (any port); -1 if it
// failed. Before connecting, `receive_buffer` > 0 sets SO_RCVBUF and
// `max_segment` > 0 sets TCP_MAXSEG: on loopback the segments are 64 KiB,
// and the kernel sizes a sender's buffer from them, so a peer that stops
// reading would leave megabytes in the server's kernel rather than in the
// server. The caller closes the descriptor.
int connect_tcp(std::uint16_t port, const std::string& source = "127.0.0.1", int receive_buffer = 0,
                int max_segment = 0);

// Raises this process's soft limit on open files to its hard limit (tests
// that hold thousands of sockets).
void raise_open_file_limit();

struct RawHttpResponse {
  unsigned status = 0;  // 0: no whole response came back in time
  std::string body;
  bool ended = false;  // the server closed the connection in time
};
// A GET on a fresh connection from `source` (Connection: close), read to the
// end of the response or until `timeout`.
RawHttpResponse raw_http_get(std::uint16_t port, std::string_view target, const std::string& source = "127.0.0.1",
                             std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));
// Sends `request` as it is (a PROXY header and a request, or anything) on a
// fresh connection from `source` and reads until the server closes it or
// `timeout`.
RawHttpResponse raw_http_exchange(std::uint16_t port, std::string_view request,
                                  const std::string& source = "127.0.0.1",
                                  std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));

class RawWebSocket {
 public:
  struct Options {
    std::string source = "127.0.0.1";
    std::string origin;  // sent as the Origin header when set
    int receive_buffer = 0;
    int max_segment = 0;
    std::chrono::milliseconds timeout{5000};  // for the upgrade's answer
    std::string preamble;  // sent before the upgrade request (a PROXY protocol header)
  };
  struct Frame {
    std::uint8_t opcode = 0;  // 0 continuation, 1 text, 2 binary, 8 close, 9 ping, 10 pong
    bool fin = true;          // the last frame of its message
    std::string payload;
  };
  struct Close {
    std::uint16_t code = 0;  // 0: the close frame had no code
    std::string reason;
  };

  RawWebSocket(std::uint16_t port, Options options);
  explicit RawWebSocket(std::uint16_t port) : RawWebSocket(port, Options{}) {}
  ~RawWebSocket();
  RawWebSocket(const RawWebSocket&) = delete;
  RawWebSocket& operator=(const RawWebSocket&) = delete;

  // The upgrade's HTTP status: 101 when open, 0 if the connection failed or
  // nothing came back.
  unsigned status() const { return status_; }
  bool open() const { return status_ == 101; }

  // A masked frame, as a client must send; false if the write failed.
  bool send_frame(std::uint8_t opcode, std::string_view payload);
  bool send_text(std::string_view text) { return send_frame(1, text); }
  // A close frame with this code (and reason); with no code, an empty one.
  bool send_close(std::optional<std::uint16_t> code, std::string_view reason = "");

  // The next frame, nullopt after `timeout` or once the connection ended.
  std::optional<Frame> read_frame(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  // The next text message (its frames put together), skipping control
  // frames; nullopt on timeout, end or close.
  std::optional<std::string> read_text(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  // Reads until the server's close frame; nullopt if none came in time.
  std::optional<Close> read_close(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  bool ended() const { return ended_; }

  // Cuts the connection (no close frame).
  void drop();

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);
  bool write_all(std::string_view bytes);

  int fd_ = -1;
  unsigned status_ = 0;
  bool ended_ = false;
  std::string buffer_;  // received, not yet parsed
  std::optional<Close> close_;
};

}  // namespace gofish::server::testing
