// The addresses of the proxies (--trusted-proxy) whose connections begin with
// a PROXY protocol header naming the client (proxy_header.hpp): single IPv4
// or IPv6 addresses, or networks as ADDRESS/PREFIX ("10.0.0.0/8",
// "fd00::/8"). A peer is matched as an IPv4 address when it is one mapped
// into IPv6 (a dual-stack listener's view of an IPv4 peer). Immutable once
// built, so any thread may ask.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gofish::server {

class TrustedProxies {
 public:
  TrustedProxies() = default;
  // Throws std::invalid_argument naming the first entry that check() refuses.
  explicit TrustedProxies(const std::vector<std::string>& entries);

  // Why `entry` is neither an address nor a network; nullopt if it is one.
  static std::optional<std::string> check(std::string_view entry);

  bool empty() const { return networks_.empty(); }
  bool contains(const boost::asio::ip::address& peer) const;

 private:
  struct Network {
    boost::asio::ip::address address;  // IPv4 for IPv4 and mapped entries
    unsigned prefix = 0;               // leading bits that must match
  };
  static std::optional<Network> parse(std::string_view entry);

  std::vector<Network> networks_;
};

}  // namespace gofish::server
