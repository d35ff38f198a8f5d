// The PROXY protocol header a load balancer (HAProxy's send-proxy and
// send-proxy-v2) puts before a connection's first byte to say whose it is:
// version 1, one line of text
//   "PROXY TCP4 203.0.113.7 10.0.0.5 51234 8080\r\n" (also TCP6, UNKNOWN),
// and version 2, binary: a 12-byte signature, version and command, family
// and transport, the length of what follows (big-endian), the addresses
// and optional TLVs. Specification:
// https://www.haproxy.org/download/2.6/doc/proxy-protocol.txt
//
// Bounded as the specification allows a receiver to be: a v1 line is at most
// 107 bytes with its CRLF; a v2 header at most 16 + 216 bytes (216 holds the
// largest address block, two Unix paths; TLVs beyond that are refused, and
// HAProxy sends none unless configured to with proxy-v2-options).
//
// Only connections from a trusted proxy (--trusted-proxy) are parsed with
// this: anyone else could claim any address. Pure (no sockets, no Boost):
// the session feeds it what it has read so far.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gofish::server {

class ProxyHeader {
 public:
  static constexpr std::size_t kMaxV1Bytes = 107;
  static constexpr std::size_t kV2FixedBytes = 16;
  static constexpr std::size_t kMaxV2AddressBytes = 216;
  static constexpr std::size_t kMaxBytes = kV2FixedBytes + kMaxV2AddressBytes;

  enum class Status {
    kIncomplete,  // a valid beginning: read more (up to kMaxBytes in all)
    kComplete,    // a whole header: `length` bytes, the rest is the client's
    kInvalid,     // not a PROXY header, or a malformed or oversized one
  };
  // The client the proxy speaks for, as the proxy saw it.
  struct Source {
    std::string address;  // canonical text (inet_ntop): "203.0.113.7", "2001:db8::1"
    std::uint16_t port = 0;
  };
  struct Result {
    Status status = Status::kIncomplete;
    std::size_t length = 0;  // kComplete: the header's bytes
    // kComplete: the client; none when the proxy speaks for itself (v2
    // LOCAL: its health checks), or does not know (v1 UNKNOWN, v2 UNSPEC or
    // a Unix socket): then the connection is the proxy's own.
    std::optional<Source> source;
    std::string error;  // kInvalid: what was wrong, a sentence for the log
  };

  // Parses the header at the start of `bytes` (everything read so far).
  static Result parse(std::string_view bytes);

 private:
  static Result parse_v1(std::string_view bytes);
  static Result parse_v2(std::string_view bytes);
};

}  // namespace gofish::server
