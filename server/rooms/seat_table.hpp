// Who is in a room: its seats (a human with a seat token, a bot, or nobody),
// its spectators, the host, the rematch votes and whom the host removed.
// Plain bookkeeping with no Asio and no I/O, so it is unit-tested on its own;
// the room (room.cpp) decides when each change happens and tells everyone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages.hpp"
#include "protocol/room_records.hpp"
#include "protocol/token_bucket.hpp"
#include "server/rooms/client.hpp"
#include "server/store/store.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

// A bot that plays for a human (away, timed out, left or kicked) plays at
// this level: a fair stand-in, neither a gift nor a punishment; a rematch
// gives an empty seat a bot of this level too.
inline constexpr protocol::BotLevel kStandInLevel = protocol::BotLevel::kMedium;

struct SeatSlot {
  protocol::Occupant occupant = protocol::Occupant::kEmpty;
  std::string name;
  protocol::BotLevel level = kStandInLevel;  // a bot's level; for a human, the stand-in's
  std::optional<TokenHash> token;            // a human who still owns the seat
  std::shared_ptr<Client> client;            // the owner's live connection
  std::optional<TokenBucket> chat;           // per connection, made on attach
  // A bot plays for this human: kDisconnected until the owner resumes, kLeft
  // or kKicked for the rest of the game. (kTimeout is one move, not a state.)
  std::optional<protocol::TakeoverReason> takeover;
  // The owner is away and their grace period has run out: during a game a
  // bot takes the seat over once it is to act.
  bool away_past_grace = false;
  bool kicked = false;  // the host removed this human during the game

  bool human() const { return occupant == protocol::Occupant::kHuman; }
  bool bot() const { return occupant == protocol::Occupant::kBot; }
  bool empty() const { return occupant == protocol::Occupant::kEmpty; }
  // A human who still owns the seat (not left or kicked).
  bool held() const { return human() && token.has_value(); }
};

struct Spectator {
  std::shared_ptr<Client> client;
  std::string name;
  TokenBucket chat;
};

// Who a client is in a room.
struct Member {
  std::optional<engine::Seat> seat;  // empty for a spectator
  std::size_t spectator = 0;         // index into spectators() otherwise
};

class SeatTable {
 public:
  explicit SeatTable(int seats) : seats_(static_cast<std::size_t>(seats)) {}

  int size() const { return static_cast<int>(seats_.size()); }
  SeatSlot& operator[](engine::Seat seat) { return seats_[static_cast<std::size_t>(seat)]; }
  const SeatSlot& operator[](engine::Seat seat) const { return seats_[static_cast<std::size_t>(seat)]; }
  const std::vector<SeatSlot>& seats() const { return seats_; }
  std::vector<Spectator>& spectators() { return spectators_; }
  const std::vector<Spectator>& spectators() const { return spectators_; }

  engine::Seat host() const { return host_; }
  void set_host(engine::Seat seat) { host_ = seat; }

  std::optional<Member> member_of(const Client& client) const;
  const std::string& name_of(const Member& member) const;
  // Taken by a seat or a spectator, compared as protocol::same_name does.
  bool name_taken(std::string_view name) const;
  // "Hard bot", then "Hard bot 2", ... (protocol/README.md).
  std::string bot_name(protocol::BotLevel level) const;
  std::optional<engine::Seat> first_empty() const;
  bool full() const { return !first_empty().has_value(); }
  // Live connections: seat owners and spectators.
  int connected() const;
  // Some human still owns a seat.
  bool anyone_holds_a_seat() const;

  // Seats a human (a fresh seat: no takeover, no grace) with a token hash.
  void seat_human(engine::Seat seat, std::shared_ptr<Client> client, std::string name, TokenHash token,
                  TokenBucket chat);
  // Seats a bot of `level` under a fresh bot name.
  void seat_bot(engine::Seat seat, protocol::BotLevel level);
  // Empties the seat and drops its rematch vote. Returns its token, if any,
  // for the caller to revoke.
  std::optional<TokenHash> free(engine::Seat seat);

  // The host must own a seat: otherwise the lowest seat a human owns becomes
  // host (a disconnected host keeps the role here while the seat is theirs;
  // the room passes it on with pass_host_to_someone_here).
  // Returns the new host when it changed.
  std::optional<engine::Seat> pass_host_on_if_needed();
  // The host has no live connection: the lowest seat whose human is
  // connected becomes host. Returns the new host when it changed (nobody
  // connected: it stays).
  std::optional<engine::Seat> pass_host_to_someone_here();

  // Rematch votes (a bit per seat), cleared when a game starts.
  void vote(engine::Seat seat) { votes_ |= static_cast<std::uint8_t>(1U << seat); }
  bool voted(engine::Seat seat) const { return ((votes_ >> seat) & 1U) != 0; }
  bool any_votes() const { return votes_ != 0; }
  void clear_votes() { votes_ = 0; }
  std::vector<engine::Seat> voters() const;

  // The host removed the player in `seat`: their connection, token and name
  // may not sit down in this room again. Returns the seat's token (the
  // caller keeps it registered, so a resume with it says room/kicked).
  std::optional<TokenHash> remember_kick(engine::Seat seat);
  // A kick read back from the store (the connection is gone by then).
  void restore_kick(std::string name, engine::Seat seat, std::optional<TokenHash> token);
  bool kicked_token(const TokenHash& hash) const;
  bool kicked_player(const Client& client, std::string_view name) const;
  struct Kick {
    std::string name;
    engine::Seat seat = 0;
    std::optional<TokenHash> token;
  };
  const std::vector<Kick>& kicks() const { return kicks_; }
  // The kicks as the settings record keeps them.
  std::vector<protocol::RemovedPlayer> removed() const;

  // The store's rows for the seats as they are now (server/store/store.hpp): a SeatTaken
  // per taken seat, a SeatFreed per empty one.
  std::vector<Record> records(const std::string& room) const;
  // The room's lobby entry while a seat is free.
  std::optional<protocol::LobbyRoom> lobby_entry(const std::string& code, const protocol::RoomSettings& settings) const;

  // What a snapshot says of the seats, and who would play a game now.
  std::vector<protocol::SeatInfo> infos() const;
  std::vector<protocol::Player> players() const;

 private:
  std::vector<SeatSlot> seats_;
  std::vector<Spectator> spectators_;
  engine::Seat host_ = 0;
  std::uint8_t votes_ = 0;
  std::set<std::uint64_t> kicked_connections_;
  std::vector<Kick> kicks_;
};

}  // namespace gofish::server
