// The PROXY protocol header parser (v1 text, v2 binary: whole, truncated,
// oversized, garbage) and the --trusted-proxy list, without sockets.
#include <doctest/doctest.h>

#include <boost/asio/ip/address.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "server/edge/proxy_header.hpp"
#include "server/edge/trusted_proxies.hpp"

namespace gofish::server {
namespace {

using Status = ProxyHeader::Status;

const std::string kSignature{"\r\n\r\n\0\r\nQUIT\n", 12};

// A v2 header: version/command byte, family/transport byte, then `body`
// (whose length goes in the length field unless `length` is given).
std::string v2(std::uint8_t version_command, std::uint8_t family_transport, const std::string& body,
               int length = -1) {
  const auto n = static_cast<std::uint16_t>(length < 0 ? body.size() : static_cast<std::size_t>(length));
  std::string header = kSignature;
  header.push_back(static_cast<char>(version_command));
  header.push_back(static_cast<char>(family_transport));
  header.push_back(static_cast<char>(n >> 8));
  header.push_back(static_cast<char>(n & 0xff));
  return header + body;
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// 203.0.113.7:51234 -> 10.0.0.5:8080.
const std::string kInetBody = bytes({203, 0, 113, 7, 10, 0, 0, 5, 0xc8, 0x22, 0x1f, 0x90});

TEST_CASE("proxy header v1: TCP4, TCP6 and UNKNOWN, with what follows left alone") {
  const std::string line = "PROXY TCP4 203.0.113.7 10.0.0.5 51234 8080\r\n";
  const auto result = ProxyHeader::parse(line + "GET / HTTP/1.1\r\n");
  REQUIRE(result.status == Status::kComplete);
  CHECK(result.length == line.size());
  REQUIRE(result.source);
  CHECK(result.source->address == "203.0.113.7");
  CHECK(result.source->port == 51234);

  const auto v6 = ProxyHeader::parse("PROXY TCP6 2001:DB8:0:0::1 2001:db8::2 65535 443\r\n");
  REQUIRE(v6.status == Status::kComplete);
  REQUIRE(v6.source);
  CHECK(v6.source->address == "2001:db8::1");  // canonical text
  CHECK(v6.source->port == 65535);

  for (const std::string unknown : {"PROXY UNKNOWN\r\n", "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n"}) {
    const auto result_unknown = ProxyHeader::parse(unknown);
    REQUIRE(result_unknown.status == Status::kComplete);
    CHECK(result_unknown.length == unknown.size());
    CHECK_FALSE(result_unknown.source);
  }

  // The longest line the specification allows is 107 bytes with its CRLF.
  const std::string longest =
      "PROXY UNKNOWN ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n";
  CHECK(longest.size() == ProxyHeader::kMaxV1Bytes);
  CHECK(ProxyHeader::parse(longest).status == Status::kComplete);
  const std::string longest_tcp6 =
      "PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n";
  CHECK(ProxyHeader::parse(longest_tcp6).source->address == "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
}

TEST_CASE("proxy header v1: every proper prefix is incomplete, malformed lines are invalid") {
  const std::string line = "PROXY TCP4 203.0.113.7 10.0.0.5 51234 8080\r\n";
  for (std::size_t n = 0; n < line.size(); ++n) {
    CAPTURE(n);
    CHECK(ProxyHeader::parse(line.substr(0, n)).status == Status::kIncomplete);
  }
  for (const std::string bad : {
           "PROXY TCP4 203.0.113.7 10.0.0.5 51234 8080\n",       // LF alone
           "PROXY UDP4 203.0.113.7 10.0.0.5 51234 8080\r\n",     // not TCP
           "PROXY TCP4 2001:db8::1 10.0.0.5 51234 8080\r\n",     // wrong family
           "PROXY TCP6 203.0.113.7 2001:db8::2 51234 8080\r\n",  // wrong family
           "PROXY TCP4 203.0.113.7 10.0.0.5 65536 8080\r\n",     // port too big
           "PROXY TCP4 203.0.113.7 10.0.0.5 051234 8080\r\n",    // leading zero
           "PROXY TCP4 203.0.113.7 10.0.0.5 -1 8080\r\n",        // sign
           "PROXY TCP4 203.0.113.7 10.0.0.5 51234\r\n",          // a field short
           "PROXY TCP4 203.0.113.7  10.0.0.5 51234 8080\r\n",    // two spaces
           "PROXY TCP4 203.0.113.7 10.0.0.5 51234 8080 x\r\n",   // a field over
           "PROXY TCP4 203.0.113.700 10.0.0.5 51234 8080\r\n",   // not an address
           "PROXY \r\n",
       }) {
    CAPTURE(bad);
    const auto result = ProxyHeader::parse(bad);
    CHECK(result.status == Status::kInvalid);
    CHECK_FALSE(result.error.empty());
  }
  // Oversize: 107 bytes without a CRLF is refused without waiting for more.
  const std::string endless = "PROXY UNKNOWN " + std::string(200, 'x');
  CHECK(ProxyHeader::parse(endless.substr(0, ProxyHeader::kMaxV1Bytes - 1)).status == Status::kIncomplete);
  CHECK(ProxyHeader::parse(endless.substr(0, ProxyHeader::kMaxV1Bytes)).status == Status::kInvalid);
  CHECK(ProxyHeader::parse(endless + "\r\n").status == Status::kInvalid);
}

TEST_CASE("proxy header: anything else is refused at its first wrong byte") {
  for (const std::string& garbage : {std::string("GET / HTTP/1.1\r\n\r\n"), std::string("G"), std::string("proxy "),
                                    std::string("PROXy"), std::string("\r\n\r\n\0\r\nQUIX", 11),
                                    std::string("\x16\x03\x01", 3)}) {
    CAPTURE(garbage);
    CHECK(ProxyHeader::parse(garbage).status == Status::kInvalid);
  }
}

TEST_CASE("proxy header v2: PROXY over IPv4 and IPv6, TLVs skipped, the rest left alone") {
  const auto header = v2(0x21, 0x11, kInetBody);
  const auto result = ProxyHeader::parse(header + "GET / HTTP/1.1\r\n");
  REQUIRE(result.status == Status::kComplete);
  CHECK(result.length == 28);
  REQUIRE(result.source);
  CHECK(result.source->address == "203.0.113.7");
  CHECK(result.source->port == 51234);

  std::string inet6 = bytes({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x07});
  inet6 += std::string(16, '\0');          // destination ::
  inet6 += bytes({0x01, 0xbb, 0x1f, 0x90});  // 443 -> 8080
  const auto v6 = ProxyHeader::parse(v2(0x21, 0x21, inet6));
  REQUIRE(v6.status == Status::kComplete);
  REQUIRE(v6.source);
  CHECK(v6.source->address == "2001:db8::7");
  CHECK(v6.source->port == 443);

  // A TLV (type 0x04 NOOP, length 3) after the addresses is counted in the length.
  const auto tlv = v2(0x21, 0x11, kInetBody + bytes({0x04, 0x00, 0x03, 1, 2, 3}));
  const auto with_tlv = ProxyHeader::parse(tlv + "rest");
  REQUIRE(with_tlv.status == Status::kComplete);
  CHECK(with_tlv.length == tlv.size());
  CHECK(with_tlv.source->address == "203.0.113.7");
}

TEST_CASE("proxy header v2: LOCAL, UNSPEC and Unix sockets name no client") {
  // LOCAL (a health check), with or without addresses.
  for (const auto& header : {v2(0x20, 0x00, ""), v2(0x20, 0x11, kInetBody), v2(0x21, 0x00, ""),
                             v2(0x21, 0x31, std::string(216, 'u'))}) {
    const auto result = ProxyHeader::parse(header);
    REQUIRE(result.status == Status::kComplete);
    CHECK(result.length == header.size());
    CHECK_FALSE(result.source);
  }
}

TEST_CASE("proxy header v2: truncated is incomplete, and a wrong version, command, family, transport or size is invalid") {
  const auto header = v2(0x21, 0x11, kInetBody);
  for (std::size_t n = 0; n < header.size(); ++n) {
    CAPTURE(n);
    CHECK(ProxyHeader::parse(header.substr(0, n)).status == Status::kIncomplete);
  }
  for (const auto& bad : {
           v2(0x11, 0x11, kInetBody),                  // version 1
           v2(0x31, 0x11, kInetBody),                  // version 3
           v2(0x22, 0x11, kInetBody),                  // command 2
           v2(0x21, 0x41, kInetBody),                  // family 4
           v2(0x21, 0x13, kInetBody),                  // transport 3
           v2(0x21, 0x12, kInetBody),                  // UDP
           v2(0x21, 0x11, kInetBody.substr(0, 11)),    // IPv4 block too short
           v2(0x21, 0x21, std::string(35, '\0')),      // IPv6 block too short
           v2(0x21, 0x11, "", 217),                    // over 16 + 216: refused before it comes
           v2(0x21, 0x11, "", 0xffff),
       }) {
    CHECK(ProxyHeader::parse(bad).status == Status::kInvalid);
  }
  CHECK(ProxyHeader::parse(v2(0x21, 0x11, std::string(216, '\0'))).status == Status::kComplete);
  CHECK(ProxyHeader::kMaxBytes == 16 + 216);
}

TEST_CASE("trusted proxies: addresses and networks, IPv4 mapped into IPv6 as IPv4") {
  namespace ip = boost::asio::ip;
  const TrustedProxies trusted({"127.0.0.1", "10.1.0.0/16", "2001:db8::/32", "::ffff:192.0.2.0/120"});
  CHECK(trusted.contains(ip::make_address("127.0.0.1")));
  CHECK(trusted.contains(ip::make_address("::ffff:127.0.0.1")));
  CHECK_FALSE(trusted.contains(ip::make_address("127.0.0.2")));
  CHECK(trusted.contains(ip::make_address("10.1.255.3")));
  CHECK_FALSE(trusted.contains(ip::make_address("10.2.0.1")));
  CHECK(trusted.contains(ip::make_address("2001:db8:ffff::1")));
  CHECK_FALSE(trusted.contains(ip::make_address("2001:db9::1")));
  CHECK(trusted.contains(ip::make_address("192.0.2.77")));
  CHECK_FALSE(trusted.contains(ip::make_address("192.0.3.1")));
  CHECK_FALSE(TrustedProxies().contains(ip::make_address("127.0.0.1")));
  CHECK(TrustedProxies({"0.0.0.0/0"}).contains(ip::make_address("198.51.100.1")));
  CHECK(TrustedProxies({"10.0.0.0/9"}).contains(ip::make_address("10.127.0.1")));
  CHECK_FALSE(TrustedProxies({"10.0.0.0/9"}).contains(ip::make_address("10.128.0.1")));

  for (const char* bad : {"", "proxy", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x", "2001:db8::/129",
                          "::ffff:192.0.2.0/95", "10.0.0.0/8/8", "10.0.0.0/0008"}) {
    CAPTURE(bad);
    CHECK(TrustedProxies::check(bad).has_value());
    CHECK_THROWS_AS(TrustedProxies({bad}), std::invalid_argument);
  }
}

}  // namespace
}  // namespace gofish::server
