// The PROXY protocol header, v1 and v2 (proxy_header.hpp).
#include "server/edge/proxy_header.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <vector>

namespace gofish::server {

namespace {

constexpr std::string_view kV1Prefix = "PROXY ";
constexpr std::string_view kV2Signature{"\r\n\r\n\0\r\nQUIT\n", 12};

// Whether `bytes` could still begin with `prefix` (all of it, or as much
// as has come).
bool begins_like(std::string_view bytes, std::string_view prefix) {
  const auto n = std::min(bytes.size(), prefix.size());
  return bytes.substr(0, n) == prefix.substr(0, n);
}

ProxyHeader::Result invalid(std::string error) {
  ProxyHeader::Result result;
  result.status = ProxyHeader::Status::kInvalid;
  result.error = std::move(error);
  return result;
}

ProxyHeader::Result complete(std::size_t length, std::optional<ProxyHeader::Source> source) {
  ProxyHeader::Result result;
  result.status = ProxyHeader::Status::kComplete;
  result.length = length;
  result.source = std::move(source);
  return result;
}

// A v1 port: decimal, 0 to 65535, no sign and no leading zero.
std::optional<std::uint16_t> v1_port(std::string_view text) {
  if (text.empty() || text.size() > 5 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::uint32_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

// The canonical text of an address given as text in `family`; nullopt if
// it is not one.
std::optional<std::string> v1_address(int family, std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  const std::string copy(text);
  std::array<unsigned char, sizeof(in6_addr)> binary{};
  if (::inet_pton(family, copy.c_str(), binary.data()) != 1) return std::nullopt;
  std::array<char, INET6_ADDRSTRLEN> out{};
  if (::inet_ntop(family, binary.data(), out.data(), out.size()) == nullptr) return std::nullopt;
  return std::string(out.data());
}

std::string binary_address(int family, const unsigned char* bytes) {
  std::array<char, INET6_ADDRSTRLEN> out{};
  if (::inet_ntop(family, bytes, out.data(), out.size()) == nullptr) return {};
  return std::string(out.data());
}

std::uint16_t big_endian16(const unsigned char* bytes) {
  return static_cast<std::uint16_t>((bytes[0] << 8) | bytes[1]);
}

std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> fields;
  for (;;) {
    const auto space = text.find(' ');
    fields.push_back(text.substr(0, space));
    if (space == std::string_view::npos) return fields;
    text.remove_prefix(space + 1);
  }
}

}  // namespace

ProxyHeader::Result ProxyHeader::parse(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (begins_like(bytes, kV1Prefix)) return parse_v1(bytes);
  if (begins_like(bytes, kV2Signature)) return parse_v2(bytes);
  return invalid("no PROXY protocol header (neither the v1 \"PROXY \" nor the v2 signature)");
}

ProxyHeader::Result ProxyHeader::parse_v1(std::string_view bytes) {
  const auto window = bytes.substr(0, kMaxV1Bytes);
  const auto end = window.find("\r\n");
  if (end == std::string_view::npos) {
    if (window.find('\n') != std::string_view::npos) return invalid("PROXY v1 line ends without CRLF");
    if (bytes.size() >= kMaxV1Bytes) return invalid("PROXY v1 line longer than 107 bytes");
    return {};
  }
  const auto line = window.substr(kV1Prefix.size(), end - kV1Prefix.size());
  const std::size_t length = end + 2;
  const auto fields = split_spaces(line);
  if (fields[0] == "UNKNOWN") return complete(length, std::nullopt);  // the rest is to be ignored
  const int family = fields[0] == "TCP4" ? AF_INET : fields[0] == "TCP6" ? AF_INET6 : AF_UNSPEC;
  if (family == AF_UNSPEC) return invalid("PROXY v1 protocol is not TCP4, TCP6 or UNKNOWN");
  if (fields.size() != 5) return invalid("PROXY v1 line does not have 5 fields after PROXY");
  const auto source = v1_address(family, fields[1]);
  const auto destination = v1_address(family, fields[2]);
  if (!source || !destination) return invalid("PROXY v1 address is not an address of its protocol");
  const auto source_port = v1_port(fields[3]);
  if (!source_port || !v1_port(fields[4])) return invalid("PROXY v1 port is not a number from 0 to 65535");
  return complete(length, Source{*source, *source_port});
}

ProxyHeader::Result ProxyHeader::parse_v2(std::string_view bytes) {
  if (bytes.size() < kV2FixedBytes) return {};
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const unsigned version = data[12] >> 4;
  const unsigned command = data[12] & 0x0f;
  const unsigned family = data[13] >> 4;
  const unsigned transport = data[13] & 0x0f;
  const std::size_t address_bytes = big_endian16(data + 14);
  if (version != 2) return invalid("PROXY v2 header has version " + std::to_string(version));
  if (command > 1) return invalid("PROXY v2 command is neither LOCAL nor PROXY");
  if (address_bytes > kMaxV2AddressBytes) {
    return invalid("PROXY v2 header longer than 16 + 216 bytes (" + std::to_string(address_bytes) +
                   " after the fixed part)");
  }
  if (bytes.size() < kV2FixedBytes + address_bytes) return {};
  const std::size_t length = kV2FixedBytes + address_bytes;
  if (family > 3) return invalid("PROXY v2 address family is unknown");
  if (transport > 2) return invalid("PROXY v2 transport is unknown");
  // LOCAL: the proxy's own connection (a health check); UNSPEC and Unix
  // sockets: nothing to key a client by. The addresses, if any, are ignored.
  constexpr unsigned kInet = 1;
  constexpr unsigned kInet6 = 2;
  constexpr unsigned kStream = 1;
  if (command == 0 || (family != kInet && family != kInet6)) return complete(length, std::nullopt);
  if (transport != kStream) return invalid("PROXY v2 connection is not TCP");
  const unsigned char* addresses = data + kV2FixedBytes;
  if (family == kInet) {
    constexpr std::size_t kInetBytes = 4 + 4 + 2 + 2;
    if (address_bytes < kInetBytes) return invalid("PROXY v2 IPv4 addresses shorter than 12 bytes");
    return complete(length, Source{binary_address(AF_INET, addresses), big_endian16(addresses + 8)});
  }
  constexpr std::size_t kInet6Bytes = 16 + 16 + 2 + 2;
  if (address_bytes < kInet6Bytes) return invalid("PROXY v2 IPv6 addresses shorter than 36 bytes");
  return complete(length, Source{binary_address(AF_INET6, addresses), big_endian16(addresses + 32)});
}

}  // namespace gofish::server
