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
  if (const auto scheme_end = text.find("://"); scheme_end != std::string_view::npos) {
    std::string scheme(text.substr(0, scheme_end));
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
    if (scheme == "wss" || scheme == "https") {
      return "gofish-cli speaks plain ws:// only; reach a TLS server through a ws:// address (" + original + ").";
    }
    if (scheme != "ws" && scheme != "http") {
      return "'" + original +
             "' is not a server address: use ws://host:port or an invite link http://host:port/r/CODE.";
    }
    text.remove_prefix(scheme_end + 3);
  }
  ServerAddress address;
  const auto path_start = text.find('/');
  std::string_view authority = text.substr(0, path_start);
  std::string_view path = path_start == std::string_view::npos ? std::string_view{} : text.substr(path_start);
  if (authority.empty()) return "'" + original + "' names no host.";
  if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    if (!all_digits(port) || port.size() > 5 || std::stoi(std::string(port)) > 65535) {
      return "'" + std::string(port) + "' is not a port number.";
    }
    address.port = std::string(port);
    authority = authority.substr(0, colon);
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

std::string server_url(const ServerAddress& address) { return "ws://" + address.host + ":" + address.port; }

std::string invite_url(const ServerAddress& address, std::string_view code) {
  return "http://" + address.host + ":" + address.port + protocol::invite_path(code);
}

}  // namespace gofish::cli
