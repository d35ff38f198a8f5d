#include "server/rooms/connection.hpp"

namespace gofish::server {

void ConnectionHandler::on_rate_limited(const std::shared_ptr<Connection>& connection) {
  static const SharedText kRateLimited = make_shared_text(
      R"({"type":"error","code":"protocol/rate_limited","message":"Too many messages; slow down."})");
  connection->send(kRateLimited);
}

}  // namespace gofish::server
