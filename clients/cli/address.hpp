// Where the client connects: a server URL as a person types it.
//
// Accepted: "ws://host:port", "ws://host:port/ws", "http://host:port" and an
// invite link "http://host:port/r/CODE" (its code joins that room), also
// without a scheme ("localhost:8080"). wss:// and https:// are refused with a
// sentence: this client speaks plain WebSocket, so a TLS proxy needs ws://
// from inside. The WebSocket path is always /ws (protocol/README.md).
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
  friend bool operator==(const ServerAddress&, const ServerAddress&) = default;
};

// The address, or a sentence saying what is wrong with the text.
std::variant<ServerAddress, std::string> parse_server_address(std::string_view text);

// "ws://host:port", as gofish-cli takes it
std::string server_url(const ServerAddress& address);
// "http://host:port/r/CODE": the room's invite link, for browsers and gofish-cli alike
std::string invite_url(const ServerAddress& address, std::string_view code);

}  // namespace gofish::cli
