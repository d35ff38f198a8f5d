#include "server/placeholder_handler.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "protocol/limits.hpp"

namespace gofish::server {

namespace {

std::string error_json(std::string_view code, std::string_view message) {
  return nlohmann::json{{"type", "error"}, {"code", code}, {"message", message}}.dump();
}

class PlaceholderHandler : public ConnectionHandler {
 public:
  void on_open(const std::shared_ptr<Connection>&) override {}
  void on_close(const std::shared_ptr<Connection>&) override {}

  void on_message(const std::shared_ptr<Connection>& connection, std::string_view text) override {
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
      return connection->send(
          make_shared_text(error_json("protocol/bad_json", "That frame is not a JSON object.")));
    }
    const auto type = json.find("type");
    if (type == json.end() || !type->is_string()) {
      return connection->send(
          make_shared_text(error_json("protocol/bad_message", "A message needs a \"type\".")));
    }
    if (*type != "hello") {
      return connection->send(make_shared_text(
          error_json("protocol/unknown_type", "This server only answers hello for now.")));
    }
    nlohmann::json welcome{{"type", "welcome"},
                           {"protocol", protocol::kProtocolVersion},
                           {"server", "gofish/0.1.0"},
                           {"connection", connection->id()}};
    if (const auto id = json.find("id"); id != json.end()) welcome["id"] = *id;
    connection->send(make_shared_text(welcome.dump()));
  }
};

}  // namespace

std::shared_ptr<ConnectionHandler> make_placeholder_handler() {
  return std::make_shared<PlaceholderHandler>();
}

}  // namespace gofish::server
