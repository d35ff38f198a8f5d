#include "server/rooms/seat_table.hpp"

#include <algorithm>

#include "protocol/room_records.hpp"
#include "protocol/text.hpp"

namespace gofish::server {

std::optional<Member> SeatTable::member_of(const Client& client) const {
  for (std::size_t i = 0; i < seats_.size(); ++i) {
    if (seats_[i].client && seats_[i].client->id() == client.id()) return Member{static_cast<engine::Seat>(i), 0};
  }
  for (std::size_t i = 0; i < spectators_.size(); ++i) {
    if (spectators_[i].client->id() == client.id()) return Member{std::nullopt, i};
  }
  return std::nullopt;
}

const std::string& SeatTable::name_of(const Member& member) const {
  return member.seat ? (*this)[*member.seat].name : spectators_[member.spectator].name;
}

bool SeatTable::name_taken(std::string_view name) const {
  const auto same = [&](const std::string& other) { return protocol::same_name(other, name); };
  return std::any_of(seats_.begin(), seats_.end(), [&](const SeatSlot& s) { return !s.empty() && same(s.name); }) ||
         std::any_of(spectators_.begin(), spectators_.end(), [&](const Spectator& s) { return same(s.name); });
}

std::string SeatTable::bot_name(protocol::BotLevel level) const {
  std::string base(engine::to_string(level));
  base[0] = static_cast<char>(base[0] - 'a' + 'A');
  base += " bot";
  if (!name_taken(base)) return base;
  for (int n = 2;; ++n) {
    std::string name = base + " " + std::to_string(n);
    if (!name_taken(name)) return name;
  }
}

std::optional<engine::Seat> SeatTable::first_empty() const {
  for (std::size_t i = 0; i < seats_.size(); ++i) {
    if (seats_[i].empty()) return static_cast<engine::Seat>(i);
  }
  return std::nullopt;
}

int SeatTable::connected() const {
  int count = static_cast<int>(spectators_.size());
  for (const SeatSlot& seat : seats_) count += seat.client ? 1 : 0;
  return count;
}

bool SeatTable::anyone_holds_a_seat() const {
  return std::any_of(seats_.begin(), seats_.end(), [](const SeatSlot& s) { return s.held(); });
}

void SeatTable::seat_human(engine::Seat seat, std::shared_ptr<Client> client, std::string name, TokenHash token,
                           TokenBucket chat) {
  SeatSlot& slot = (*this)[seat];
  slot = SeatSlot{};
  slot.occupant = protocol::Occupant::kHuman;
  slot.name = std::move(name);
  slot.token = token;
  slot.client = std::move(client);
  slot.chat = chat;
}

void SeatTable::seat_bot(engine::Seat seat, protocol::BotLevel level) {
  std::string name = bot_name(level);
  SeatSlot& slot = (*this)[seat];
  slot = SeatSlot{};
  slot.occupant = protocol::Occupant::kBot;
  slot.level = level;
  slot.name = std::move(name);
}

std::optional<TokenHash> SeatTable::free(engine::Seat seat) {
  SeatSlot& slot = (*this)[seat];
  const std::optional<TokenHash> token = slot.token;
  slot = SeatSlot{};
  votes_ = static_cast<std::uint8_t>(votes_ & ~(1U << seat));
  return token;
}

std::optional<engine::Seat> SeatTable::pass_host_on_if_needed() {
  if ((*this)[host_].held()) return std::nullopt;
  for (std::size_t i = 0; i < seats_.size(); ++i) {
    if (seats_[i].held()) {
      host_ = static_cast<engine::Seat>(i);
      return host_;
    }
  }
  return std::nullopt;
}

std::optional<engine::Seat> SeatTable::pass_host_to_someone_here() {
  if ((*this)[host_].client) return std::nullopt;
  for (std::size_t i = 0; i < seats_.size(); ++i) {
    if (seats_[i].held() && seats_[i].client) {
      host_ = static_cast<engine::Seat>(i);
      return host_;
    }
  }
  return std::nullopt;
}

std::vector<engine::Seat> SeatTable::voters() const {
  std::vector<engine::Seat> out;
  for (int i = 0; i < size(); ++i) {
    if (voted(i)) out.push_back(i);
  }
  return out;
}

std::optional<TokenHash> SeatTable::remember_kick(engine::Seat seat) {
  SeatSlot& slot = (*this)[seat];
  if (slot.client) kicked_connections_.insert(slot.client->id());
  std::optional<TokenHash> token;
  token.swap(slot.token);
  kicks_.push_back(Kick{slot.name, seat, token});
  return token;
}

void SeatTable::restore_kick(std::string name, engine::Seat seat, std::optional<TokenHash> token) {
  kicks_.push_back(Kick{std::move(name), seat, token});
}

bool SeatTable::kicked_token(const TokenHash& hash) const {
  return std::any_of(kicks_.begin(), kicks_.end(), [&](const Kick& kick) { return kick.token == hash; });
}

bool SeatTable::kicked_player(const Client& client, std::string_view name) const {
  return kicked_connections_.contains(client.id()) ||
         std::any_of(kicks_.begin(), kicks_.end(), [&](const Kick& kick) { return protocol::same_name(kick.name, name); });
}

std::vector<protocol::RemovedPlayer> SeatTable::removed() const {
  std::vector<protocol::RemovedPlayer> out;
  for (const Kick& kick : kicks_) {
    out.push_back(protocol::RemovedPlayer{kick.name, kick.seat, kick.token ? hash_bytes(*kick.token) : ""});
  }
  return out;
}

std::vector<Record> SeatTable::records(const std::string& room) const {
  std::vector<Record> out;
  for (int i = 0; i < size(); ++i) {
    const SeatSlot& seat = (*this)[i];
    if (seat.empty()) {
      out.push_back(record::SeatFreed{room, i});
      continue;
    }
    protocol::SeatRecord kept{seat.occupant, seat.name, std::nullopt, i == host_, std::nullopt, seat.kicked,
                              voted(i)};
    if (seat.bot() || seat.takeover) kept.level = seat.level;
    // Away is not kept: after a restart every seat is away and starts its grace.
    if (seat.takeover != protocol::TakeoverReason::kDisconnected) kept.takeover = seat.takeover;
    out.push_back(record::SeatTaken{room, i, protocol::seat_record(kept), seat.token ? hash_bytes(*seat.token) : ""});
  }
  return out;
}

std::optional<protocol::LobbyRoom> SeatTable::lobby_entry(const std::string& code,
                                                          const protocol::RoomSettings& settings) const {
  if (full()) return std::nullopt;
  protocol::LobbyRoom room;
  room.code = code;
  room.host = (*this)[host_].name;
  room.preset = settings.rules.preset;
  room.seats = settings.seats;
  for (const SeatSlot& seat : seats_) {
    room.taken += seat.empty() ? 0 : 1;
    room.bots += seat.bot() ? 1 : 0;
  }
  room.spectators = settings.spectators;
  room.turn_timer_seconds = settings.turn_timer_seconds;
  room.chat = settings.chat;
  return room;
}

std::vector<protocol::SeatInfo> SeatTable::infos() const {
  std::vector<protocol::SeatInfo> out;
  for (int i = 0; i < size(); ++i) {
    const SeatSlot& seat = seats_[static_cast<std::size_t>(i)];
    protocol::SeatInfo info;
    info.occupant = seat.occupant;
    info.rematch = voted(i);
    info.name = seat.name;
    if (seat.bot()) info.bot = seat.level;
    if (seat.human()) {
      info.connected = seat.client != nullptr;
      info.bot_playing = seat.takeover.has_value();
      if (info.bot_playing) info.bot = seat.level;
      info.kicked = seat.kicked;
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<protocol::Player> SeatTable::players() const {
  std::vector<protocol::Player> out;
  for (const SeatSlot& seat : seats_) {
    out.push_back(protocol::Player{seat.name, seat.bot() ? std::optional(seat.level) : std::nullopt});
  }
  return out;
}

}  // namespace gofish::server
