#include "clients/cli/address.hpp"

#include <algorithm>
#include <cctype>

#include "protocol/text.hpp"

namespace gofish::cli {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

std::variant<ServerAddress, std::string> parse_server_address(std::string_view text) {
  const std::string original(text);
  bool tls = false;
  if (const auto scheme_end = text.find("://"); scheme_end != std::string_view::npos) {
    std::string scheme(text.substr(0, scheme_end));
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
    if (scheme != "ws" && scheme != "http" && scheme != "wss" && scheme != "https") {
      return "'" + original +
             "' is not a server address: use ws://host:port, wss://host:port or an invite link "
             "http(s)://host:port/r/CODE.";
    }
    tls = scheme == "wss" || scheme == "https";
    text.remove_prefix(scheme_end + 3);
  }
  ServerAddress address;
  address.tls = tls;
  if (tls) address.port = "443";
  const auto path_start = text.find('/');
  std::string_view authority = text.substr(0, path_start);
  std::string_view path = path_start == std::string_view::npos ? std::string_view{} : text.substr(path_start);
  if (authority.empty()) return "'" + original + "' names no host.";
  // An IPv6 address is in brackets, and only a colon after them starts the port.
  const auto bracket_end = authority.starts_with('[') ? authority.find(']') : std::string_view::npos;
  if (authority.starts_with('[') && bracket_end == std::string_view::npos) return "'" + original + "' names no host.";
  const auto host_end = bracket_end == std::string_view::npos ? 0 : bracket_end;
  if (const auto colon = authority.rfind(':'); colon != std::string_view::npos && colon > host_end) {
    const std::string_view port = authority.substr(colon + 1);
    if (!all_digits(port) || port.size() > 5 || std::stoi(std::string(port)) > 65535) {
      return "'" + std::string(port) + "' is not a port number.";
    }
    address.port = std::string(port);
    authority = authority.substr(0, colon);
  }
  if (bracket_end != std::string_view::npos) {
    if (bracket_end + 1 != authority.size()) return "'" + original + "' is not a server address.";
    authority = authority.substr(1, bracket_end - 1);
  }
  if (authority.empty()) return "'" + original + "' names no host.";
  address.host = std::string(authority);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.starts_with("/r/")) {
    const std::optional<std::string> code = protocol::normalize_room_code(path.substr(3));
    if (!code) return "The invite link's code '" + std::string(path.substr(3)) + "' is not a room code.";
    address.invite_code = *code;
  } else if (!path.empty() && path != "/ws") {
    return "'" + original + "' is neither a server address nor an invite link (http://host:port/r/CODE).";
  }
  return address;
}

std::string host_and_port(const ServerAddress& address) {
  const bool ipv6 = address.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + address.host + "]" : address.host) + ":" + address.port;
}

std::string server_url(const ServerAddress& address) {
  return (address.tls ? "wss://" : "ws://") + host_and_port(address);
}

std::string invite_url(const ServerAddress& address, std::string_view code) {
  return (address.tls ? "https://" : "http://") + host_and_port(address) + protocol::invite_path(code);
}

}  // namespace gofish::cli
