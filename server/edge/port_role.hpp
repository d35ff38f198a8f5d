// What a listening port is for. The public port serves the game (the web
// client's files, the API, the WebSocket, the health probes); the admin port
// the operator's endpoints (/metrics and the probes), on a private address;
// the redirect port, with TLS on, only sends plain-HTTP visitors to https.
#pragma once

namespace gofish::server {

enum class PortRole { kPublic, kAdmin, kRedirect };

}  // namespace gofish::server
