// JSON spelling of the rules configuration and of transcripts
// (../shared/TRANSCRIPT.md). The engine has no JSON; this is its only encoding.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/rules.hpp"
#include "engine/transcript.hpp"

namespace gofish::protocol {

// Every field of the configuration, by name, with JSON types (ints, bools, strings).
nlohmann::json rules_to_json(const engine::Rules& rules);

// A preset (by "preset", default classic) with any of its fields changed.
// Unknown fields and wrong types are refused with the field's name.
std::variant<engine::Rules, engine::ConfigError> rules_from_json(const nlohmann::json& json);

nlohmann::json transcript_to_json(const engine::Transcript& transcript);
// Parses one transcript; an error names the field at fault. Unknown fields are ignored.
std::variant<engine::Transcript, std::string> transcript_from_json(const nlohmann::json& json);

// A game's players by seat, as the transcript message spells them in its
// extra field "seats": [{"name":"Ann","bot":null},{"name":"Easy bot","bot":"easy"}].
// The server keeps the same array in a game's stored set-up, so a finished
// game names who played it whoever holds the seats afterwards.
struct Player;
nlohmann::json players_to_json(const std::vector<Player>& players);
// Nothing unless `json` is an array of such objects.
std::optional<std::vector<Player>> players_from_json(const nlohmann::json& json);

// Decisions as in the transcript's "actions": {"seat":0,"target":1,"rank":"Q"},
// {"seat":0,"target":2,"card":"QH"}, {"seat":1,"answer":"give"}, {"seat":0,"declare":"7"}.
nlohmann::json decision_to_json(const engine::Decision& decision);
std::variant<engine::Decision, std::string> decision_from_json(const nlohmann::json& json);

}  // namespace gofish::protocol
