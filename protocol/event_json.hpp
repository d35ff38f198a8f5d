// The class-event messages (protocol/README.md, "Class events"), both
// ways, and the JSON the store keeps of an event: client_messages.cpp,
// server_messages_encode.cpp and server_messages_parse.cpp hand the event
// types to these, so every event spelling lives in event_json.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/json_read.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"

namespace gofish::protocol {

namespace detail {

// A client message of one of the event types, read from `r`; nullopt when
// `type` is not an event message type.
std::optional<ClientBody> parse_event_request(std::string_view type, Reader& r, const ParseLimits& limits);
// Writes the fields of an event client message (after "type" and "id").
// False when `body` is not an event message.
bool write_event_request(const ClientBody& body, nlohmann::ordered_json& out);

nlohmann::ordered_json event_message_json(const EventCreated& m);
nlohmann::ordered_json event_message_json(const EventJoined& m);
nlohmann::ordered_json event_message_json(const EventStateMessage& m);
nlohmann::ordered_json event_message_json(const EventSeat& m);
nlohmann::ordered_json event_message_json(const EventRoster& m);
nlohmann::ordered_json event_message_json(const EventTeacherMessage& m);
nlohmann::ordered_json event_message_json(const EventLeft& m);
nlohmann::ordered_json event_message_json(const EventUnseated& m);
nlohmann::ordered_json event_message_json(const TableView& m);
// event_results, in event_results_json.cpp.
nlohmann::ordered_json event_results_json(const EventResults& m);
std::variant<EventServerMessage, std::string> event_results_from_json(const nlohmann::json& json);
// Ranks as the wire spells them (["7","K"]), and back (throws on a bad one:
// for server frames read by C++ clients).
nlohmann::ordered_json rank_list_json(const std::vector<engine::Rank>& ranks);
std::vector<engine::Rank> rank_list_from(const nlohmann::json& json);
// An event server message of type `type` from a parsed frame; nullopt
// when `type` is not one, a sentence when the frame is malformed.
std::optional<std::variant<EventServerMessage, std::string>> parse_event_message(std::string_view type,
                                                                                const nlohmann::json& json);

}  // namespace detail

// What the store keeps of an event's settings and roster, and back
// (nullopt for text no server wrote).
// `paused` (pause_tables) is kept beside them: it is the event's, not a
// table's, and a round started while it holds starts paused. So is
// `watching`, the table the teacher last chose with watch_table, which a
// resumed console watches again. And a same-deal event's seeds (lowercase
// hex, gofish-deal/1): the next round's, whose commitment was announced,
// and the round in play's (or the last one's), so a restart keeps its
// promises. The record is the store's alone: no client message carries it.
struct EventSettingsRecord {
  EventSettings settings;
  std::vector<std::string> roster;
  bool paused = false;          // absent in records from before pause_tables
  std::optional<int> watching;  // absent when no table is watched
  std::string next_seed;        // empty: none (absent in older records)
  std::string round_seed;       // empty: none
};
std::string event_settings_record(const EventSettingsRecord& record);
std::string event_settings_record(const EventSettings& settings, const std::vector<std::string>& roster,
                                  bool paused = false, std::optional<int> watching = std::nullopt);
std::optional<EventSettingsRecord> event_settings_from_record(std::string_view text);
// A table's seats as the store keeps them: the pupil in each seat, or none
// (a bot), and the seats a bot took over during the round (remove_pupil,
// seat_to_bot), which no late pupil takes.
struct TableSeatsRecord {
  std::vector<std::optional<int>> pupils;  // who sits in each seat now; none: a bot
  std::vector<bool> let_go;                // a bot took the seat over from a pupil this round
  std::vector<std::optional<int>> unseated;  // the pupil seat_to_bot took it from
  friend bool operator==(const TableSeatsRecord&, const TableSeatsRecord&) = default;
};
std::string table_seats_record(const TableSeatsRecord& seats);
// Records written before seats could be let go are arrays of pupils only.
std::optional<TableSeatsRecord> table_seats_from_record(std::string_view text);
// A finished table's result as the store keeps it: each seat's name and
// the ranks of its sets (event_results_json.cpp).
struct TableResultRecord {
  std::vector<std::string> names;
  std::vector<std::vector<engine::Rank>> ranks;
  friend bool operator==(const TableResultRecord&, const TableResultRecord&) = default;
};
std::string table_result_record(const TableResultRecord& result);
std::optional<TableResultRecord> table_result_from_record(std::string_view text);

}  // namespace gofish::protocol
