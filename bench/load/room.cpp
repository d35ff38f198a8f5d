#include "bench/load/room.hpp"

namespace gofish::load {

const protocol::ServerMessage* Room::parse(std::string_view frame) {
  for (const auto& parsed : parsed_) {
    if (parsed && parsed->text == frame) return &parsed->message;
  }
  auto result = protocol::parse_server_message(frame);
  if (auto* error = std::get_if<std::string>(&result)) {
    run_.error("parse", *error);
    return nullptr;
  }
  auto& slot = parsed_[next_parsed_];
  next_parsed_ = (next_parsed_ + 1) % kParsedFrames;
  slot.emplace(ParsedFrame{std::string(frame), std::move(std::get<protocol::ServerMessage>(result))});
  return &slot->message;
}

}  // namespace gofish::load
