#include "raw_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace gofish::server::testing {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

// Reads what is there into `into`, waiting until `deadline`; false on
// timeout, end of stream or an error (`ended` set for the last two).
bool read_some(int fd, std::string& into, Clock::time_point deadline, bool& ended) {
  pollfd pfd{fd, POLLIN, 0};
  const int ready = ::poll(&pfd, 1, remaining_ms(deadline));
  if (ready <= 0) return false;
  char chunk[16 * 1024];
  const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
  if (n <= 0) {
    ended = true;
    return false;
  }
  into.append(chunk, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

int connect_tcp(std::uint16_t port, const std::string& source, int receive_buffer, int max_segment) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (receive_buffer > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  if (max_segment > 0) ::setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &max_segment, sizeof max_segment);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_port = 0;
  ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

RawHttpResponse raw_http_get(std::uint16_t port, std::string_view target, const std::string& source,
                             std::chrono::milliseconds timeout) {
  std::string request = "GET ";
  request.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return raw_http_exchange(port, request, source, timeout);
}

RawHttpResponse raw_http_exchange(std::uint16_t port, std::string_view request, const std::string& source,
                                  std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const int fd = connect_tcp(port, source);
  if (fd < 0) return {};
  RawHttpResponse result;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    std::string response;
    bool ended = false;
    while (!ended && read_some(fd, response, deadline, ended)) {
    }
    const auto body = response.find("\r\n\r\n");
    result.ended = ended;
    if (ended && response.rfind("HTTP/1.1 ", 0) == 0 && body != std::string::npos) {
      result.status = static_cast<unsigned>(std::stoi(response.substr(9, 3)));
      result.body = response.substr(body + 4);
    }
  }
  ::close(fd);
  return result;
}

RawWebSocket::RawWebSocket(std::uint16_t port, Options options) {
  fd_ = connect_tcp(port, options.source, options.receive_buffer, options.max_segment);
  if (fd_ < 0) return;
  std::string request = options.preamble;
  request +=
      "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
  if (!options.origin.empty()) request.append("Origin: ").append(options.origin).append("\r\n");
  request.append("\r\n");
  if (!write_all(request)) return;
  const auto deadline = Clock::now() + options.timeout;
  std::size_t end = std::string::npos;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(deadline)) break;
  }
  if (buffer_.rfind("HTTP/1.1 ", 0) == 0 && buffer_.size() >= 12) {
    status_ = static_cast<unsigned>(std::stoi(buffer_.substr(9, 3)));
  }
  if (end != std::string::npos) buffer_.erase(0, end + 4);
}

RawWebSocket::~RawWebSocket() { drop(); }

void RawWebSocket::drop() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ended_ = true;
}

bool RawWebSocket::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool RawWebSocket::fill(Clock::time_point deadline) {
  if (fd_ < 0 || ended_) return false;
  return read_some(fd_, buffer_, deadline, ended_);
}

bool RawWebSocket::send_frame(std::uint8_t opcode, std::string_view payload) {
  if (fd_ < 0) return false;
  static thread_local std::mt19937 random(std::random_device{}());
  std::string frame;
  frame.push_back(static_cast<char>(0x80 | opcode));
  const std::size_t size = payload.size();
  if (size < 126) {
    frame.push_back(static_cast<char>(0x80 | size));
  } else if (size <= 0xffff) {
    frame.push_back(static_cast<char>(0x80 | 126));
    frame.push_back(static_cast<char>(size >> 8));
    frame.push_back(static_cast<char>(size & 0xff));
  } else {
    frame.push_back(static_cast<char>(0x80 | 127));
    for (int shift = 56; shift >= 0; shift -= 8) frame.push_back(static_cast<char>((size >> shift) & 0xff));
  }
  char mask[4];
  for (char& byte : mask) byte = static_cast<char>(random() & 0xff);
  frame.append(mask, 4);
  for (std::size_t i = 0; i < size; ++i) frame.push_back(static_cast<char>(payload[i] ^ mask[i % 4]));
  return write_all(frame);
}

bool RawWebSocket::send_close(std::optional<std::uint16_t> code, std::string_view reason) {
  std::string payload;
  if (code) {
    payload.push_back(static_cast<char>(*code >> 8));
    payload.push_back(static_cast<char>(*code & 0xff));
    payload.append(reason);
  }
  return send_frame(8, payload);
}

std::optional<RawWebSocket::Frame> RawWebSocket::read_frame(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (buffer_.size() >= 2) {
      const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(buffer_[i]); };
      std::size_t header = 2;
      std::uint64_t size = byte(1) & 0x7f;
      if (size == 126) {
        header = 4;
        if (buffer_.size() >= header) size = (std::uint64_t{byte(2)} << 8) | byte(3);
      } else if (size == 127) {
        header = 10;
        if (buffer_.size() >= header) {
          size = 0;
          for (std::size_t i = 2; i < 10; ++i) size = (size << 8) | byte(i);
        }
      }
      if (buffer_.size() >= header && buffer_.size() - header >= size) {
        Frame frame{static_cast<std::uint8_t>(byte(0) & 0x0f), (byte(0) & 0x80) != 0, buffer_.substr(header, size)};
        buffer_.erase(0, header + size);
        if (frame.opcode == 8) {
          Close close;
          if (frame.payload.size() >= 2) {
            close.code = static_cast<std::uint16_t>((static_cast<std::uint8_t>(frame.payload[0]) << 8) |
                                                    static_cast<std::uint8_t>(frame.payload[1]));
            close.reason = frame.payload.substr(2);
          }
          close_ = close;
        }
        return frame;
      }
    }
    if (!fill(deadline)) return std::nullopt;
  }
}

std::optional<std::string> RawWebSocket::read_text(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::optional<std::string> text;
  while (auto frame = read_frame(std::chrono::milliseconds(remaining_ms(deadline)))) {
    if (frame->opcode == 8) return std::nullopt;
    if (frame->opcode == 1) {
      text = std::move(frame->payload);
    } else if (frame->opcode == 0 && text) {
      text->append(frame->payload);
    } else {
      continue;  // a control frame between the frames of a message
    }
    if (frame->fin) return text;
  }
  return std::nullopt;
}

std::optional<RawWebSocket::Close> RawWebSocket::read_close(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!close_) {
    if (!read_frame(std::chrono::milliseconds(remaining_ms(deadline)))) break;
  }
  return close_;
}

}  // namespace gofish::server::testing
