// The room settings besides the rules and the seat count, each listed once
// with its wire name, default and bounds (room_settings.cpp). create_room,
// the room snapshot, the store (room_records.hpp) and the C++ clients all
// read and write them through here, so a new setting is one line there,
// one member of RoomSettings (messages.hpp), and whatever uses it.
#pragma once

#include <nlohmann/json.hpp>

#include "protocol/json_read.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"

namespace gofish::protocol::detail {

// Adds every such setting to `out`, in the documented order.
void write_settings_fields(const RoomSettings& settings, nlohmann::ordered_json& out);

// Reads them into `settings`. From create_room (`in_request`), an absent one
// keeps its default and the limits apply; from a snapshot or the store,
// every one must be there (written by a server that checked it).
void read_settings_fields(Reader& reader, RoomSettings& settings, const ParseLimits& limits, bool in_request);

}  // namespace gofish::protocol::detail
