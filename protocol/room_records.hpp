// What the server keeps of a room, spelled here so that the store and the
// wire share one spelling (protocol/ owns every JSON spelling): the room's
// settings (the same object as a snapshot's "settings"), a seat as it is
// kept, a game's set-up with who plays it, the room's next deal, and the
// standing in today's deal the room keeps for its player.
//
// Readers take what this server wrote in earlier releases too, and answer a
// sentence for what they cannot read (the server then sets the room aside).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/transcript.hpp"
#include "protocol/messages.hpp"

namespace gofish::protocol {

// The settings object of the room snapshot (server_messages_encode.cpp and
// server_messages_parse.cpp), kept as is.
nlohmann::ordered_json settings_to_json(const RoomSettings& settings);
std::variant<RoomSettings, std::string> settings_from_json(const nlohmann::json& json);
// A player the host removed (`kick`), kept with the settings so that they
// stay out of the room after a restart or a move to another node:
// `token_hash` is their seat token's keyed hash (16 bytes, empty if none).
struct RemovedPlayer {
  std::string name;
  int seat = 0;
  std::string token_hash;
  friend bool operator==(const RemovedPlayer&, const RemovedPlayer&) = default;
};
// The settings record: the settings, plus "removed" when anyone was kicked
// (each {"name", "seat", "token"}, the hash in lowercase hex).
std::string settings_record(const RoomSettings& settings, const std::vector<RemovedPlayer>& removed = {});
struct StoredSettings {
  RoomSettings settings;
  std::vector<RemovedPlayer> removed;
};
// Also reads the settings of servers before 0.2, which spelt chat as a number.
std::variant<StoredSettings, std::string> settings_from_record(std::string_view text);

// A taken seat as the store keeps it (an empty seat has no record).
struct SeatRecord {
  Occupant occupant = Occupant::kHuman;  // kHuman or kBot
  std::string name;
  std::optional<BotLevel> level;  // a bot's level, or the level of a bot playing for a human
  bool host = false;
  // Left or kicked during a game: a bot plays the seat to the end. (Away is
  // not kept: after a restart every seat is away and starts its grace.)
  std::optional<TakeoverReason> takeover;
  bool kicked = false;
  // Asked for a rematch after the game that is over (kept so that a room
  // restored on another node, or after a restart, still counts the vote).
  bool rematch = false;
  friend bool operator==(const SeatRecord&, const SeatRecord&) = default;
};
std::string seat_record(const SeatRecord& seat);
std::variant<SeatRecord, std::string> seat_from_record(std::string_view text);

// A game as dealt: the transcript without actions (rules, seat count, deck,
// dealer, first player) plus "seats", who plays it.
struct GameSetup {
  engine::Transcript deal;
  std::optional<std::vector<Player>> players;  // absent in set-ups written before 0.2
  std::optional<DealFairness> fairness;        // the seed too: stored, never sent before the game is over
};
std::string setup_record(const engine::Transcript& deal, const std::vector<Player>& players,
                         const std::optional<DealFairness>& fairness = std::nullopt);
std::variant<GameSetup, std::string> setup_from_record(std::string_view text);

// The room's next deal as the store keeps it between games (docs/FAIRNESS.md):
// the fairness object of a set-up, seed included, with one contribution (or
// null) a seat. Never sent: the snapshot's next_deal is its commitment alone.
std::string next_deal_record(const DealFairness& deal);
// Refuses a record without a seed.
std::variant<DealFairness, std::string> next_deal_from_record(std::string_view text);

// Today's deal (server/rooms/daily_deal.hpp): the daily_result the room
// keeps for the holder of `seat`'s token (`token_hash`, its keyed hash, 16
// bytes) while game `game` is the room's last. Spelt {"seat", "token" (the
// hash in lowercase hex), "game", "result": the message's fields}.
struct DailyNoteRecord {
  int seat = 0;
  std::string token_hash;
  int game = 0;
  DailyResult result;
  friend bool operator==(const DailyNoteRecord&, const DailyNoteRecord&) = default;
};
std::string daily_note_record(const DailyNoteRecord& note);
std::variant<DailyNoteRecord, std::string> daily_note_from_record(std::string_view text);

}  // namespace gofish::protocol
