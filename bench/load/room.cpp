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

// A table's line that changed since the console last showed it answers
// every decision sent at that table since (the console is pushed at most
// every 250 ms, each push holding every change meanwhile). The class is
// ready once every table of the round is in play.
void Room::console_saw(const protocol::EventState& state, Clock::time_point now) {
  bool playing = !state.tables.empty() && static_cast<int>(state.tables.size()) == run_.options().rooms;
  for (const auto& table : state.tables) {
    playing = playing && table.state == protocol::RoomState::kPlaying;
    if (table.room.empty()) continue;
    auto [it, added] = tables_.try_emplace(table.room, table);
    if (!added && it->second == table) continue;
    it->second = table;
    auto& pending = pending_[table.room];
    for (const auto sent : pending) run_.console_update(sent, now);
    pending.clear();
  }
  if (playing && !std::exchange(tables_playing_, true)) run_.room_ready();
}

}  // namespace gofish::load
