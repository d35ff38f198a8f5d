// The part of the configuration the network server reads: where it listens,
// what it serves, who may connect, and the limits. The process's whole
// configuration (server/app/config.hpp, Config) extends it with storage and
// logging settings the edge has no business knowing; Server takes this part
// alone, so the edge does not depend on the app layer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "server/rooms/limits.hpp"

namespace gofish::server {

struct ServerConfig {
  std::string bind = "0.0.0.0";
  std::uint16_t port = 8080;  // 0 picks a free port (tests)
  std::filesystem::path web_root;  // empty: find_web_root()
  unsigned threads = 1;            // parse_config defaults it to the core count
  // Origins allowed to open the WebSocket ("https://example.org"); empty allows
  // all. Clients that send no Origin (non-browsers) are always allowed.
  std::vector<std::string> allowed_origins;
  // Proxies (addresses, or networks as ADDRESS/PREFIX) whose connections
  // begin with a PROXY protocol header naming the client, whose address then
  // counts for per-address limits and logs (trusted_proxies.hpp). A
  // connection from any other address is never read for one.
  std::vector<std::string> trusted_proxies;
  // TLS on the public port (https and wss only) with this certificate chain
  // and private key, both PEM; both empty: plain HTTP. Read again on SIGHUP.
  std::filesystem::path tls_cert;
  std::filesystem::path tls_key;
  // A plain-HTTP listener on `bind` that answers every request with a
  // redirect to the https address (with TLS only); unset: none.
  std::optional<std::uint16_t> http_redirect_port;
  // The operator endpoints (/metrics, with /healthz and /readyz) are served
  // on this address and port only; the public port answers 404 for
  // /metrics. Unset port: no operator listener. 0: any free port (tests).
  std::string admin_bind = "127.0.0.1";
  std::optional<std::uint16_t> admin_port;
  Limits limits;
};

}  // namespace gofish::server
