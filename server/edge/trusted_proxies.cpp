// Matching peers against --trusted-proxy (trusted_proxies.hpp).
#include "server/edge/trusted_proxies.hpp"

#include <stdexcept>

namespace gofish::server {

namespace {

namespace ip = boost::asio::ip;

// An IPv4 address mapped into IPv6 as the IPv4 address; others unchanged.
ip::address unmapped(const ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return ip::make_address_v4(ip::v4_mapped, address.to_v6());
  }
  return address;
}

// Whether the first `prefix` bits of two addresses' bytes agree.
template <class Bytes>
bool same_prefix(const Bytes& a, const Bytes& b, unsigned prefix) {
  for (std::size_t i = 0; i < a.size() && prefix > 0; ++i, prefix = prefix >= 8 ? prefix - 8 : 0) {
    const unsigned bits = prefix >= 8 ? 8 : prefix;
    const auto mask = static_cast<unsigned char>(0xff00u >> bits);
    if ((a[i] & mask) != (b[i] & mask)) return false;
  }
  return true;
}

}  // namespace

std::optional<TrustedProxies::Network> TrustedProxies::parse(std::string_view entry) {
  const auto slash = entry.find('/');
  boost::system::error_code ec;
  const auto address = ip::make_address(std::string(entry.substr(0, slash)), ec);
  if (ec) return std::nullopt;
  Network network{unmapped(address), 0};
  const unsigned bits = network.address.is_v4() ? 32 : 128;
  network.prefix = bits;
  if (slash != std::string_view::npos) {
    const auto digits = entry.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    unsigned prefix = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      prefix = prefix * 10 + static_cast<unsigned>(c - '0');
    }
    // A mapped entry's prefix counts the 96 bits of ::ffff:0:0/96.
    if (address.is_v6() && network.address.is_v4()) {
      if (prefix < 96) return std::nullopt;
      prefix -= 96;
    }
    if (prefix > bits) return std::nullopt;
    network.prefix = prefix;
  }
  return network;
}

std::optional<std::string> TrustedProxies::check(std::string_view entry) {
  if (parse(entry)) return std::nullopt;
  return "not an IPv4 or IPv6 address, or ADDRESS/PREFIX network: " + std::string(entry);
}

TrustedProxies::TrustedProxies(const std::vector<std::string>& entries) {
  for (const auto& entry : entries) {
    auto network = parse(entry);
    if (!network) throw std::invalid_argument(*check(entry));
    networks_.push_back(*network);
  }
}

bool TrustedProxies::contains(const ip::address& peer) const {
  const auto address = unmapped(peer);
  for (const auto& network : networks_) {
    if (address.is_v4() != network.address.is_v4()) continue;
    const bool match = address.is_v4()
                           ? same_prefix(address.to_v4().to_bytes(), network.address.to_v4().to_bytes(), network.prefix)
                           : same_prefix(address.to_v6().to_bytes(), network.address.to_v6().to_bytes(), network.prefix);
    if (match) return true;
  }
  return false;
}

}  // namespace gofish::server
