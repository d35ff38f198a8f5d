// Where the client connects: a server URL as a person types it.
//
// Accepted: "ws://host:port", "ws://host:port/ws", "http://host:port" and an
// invite link "http://host:port/r/CODE" (its code joins that room), also
// without a scheme ("localhost:8080"); and the same over TLS: "wss://..." and
// "https://host:port/r/CODE". Without a port, ws:// and http:// mean 8080
// (the server's default) and wss:// and https:// mean 443. An IPv6 address
// is written in brackets ("ws://[::1]:8080"). The WebSocket path is always
// /ws (protocol/README.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace gofish::cli {

struct ServerAddress {
  std::string host = "localhost";
  std::string port = "8080";
  std::optional<std::string> invite_code;  // from an invite link /r/CODE, upper-cased
  bool tls = false;                        // wss:// or https://
  friend bool operator==(const ServerAddress&, const ServerAddress&) = default;
};

// The address, or a sentence saying what is wrong with the text.
std::variant<ServerAddress, std::string> parse_server_address(std::string_view text);

// "ws://host:port" (or "wss://..."), as gofish-cli takes it
std::string server_url(const ServerAddress& address);
// "http://host:port/r/CODE" (or "https://..."): the room's invite link, for browsers and gofish-cli alike
std::string invite_url(const ServerAddress& address, std::string_view code);
// "host:port", with an IPv6 address in brackets: for sentences and the Host header
std::string host_and_port(const ServerAddress& address);

}  // namespace gofish::cli
