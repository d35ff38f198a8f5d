// A class event in a terminal (protocol/README.md, "Class events"): the
// teacher's console as lines of text, and the changes worth a line as they
// happen (the teacher's commands are parsed in commands.hpp).
//
// The console shows what the server's `event_state` holds: counts of cards
// and sets, never a card (the server names none).
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/messages.hpp"

namespace gofish::cli {

// Every pupil and every table, as the `class` command prints them.
std::vector<std::string> class_lines(const protocol::EventState& state);

// What changed from `before` to `after` that a teacher wants told at once:
// pupils joining, leaving and coming back, seating, a round starting, a
// table finishing, the class closing. Not each move (`class` shows those).
std::vector<std::string> class_changes(const protocol::EventState& before, const protocol::EventState& after);

// The results as the `results` command prints them: each round's tables
// (places and sets), then each pupil over all rounds.
std::vector<std::string> results_lines(const protocol::EventResults& results);

// The pupil's id for what was typed: their number as shown (from 1), their
// name, or the start of one name; or a sentence.
std::variant<int, std::string> resolve_pupil(std::string_view typed, const protocol::EventState& state);

}  // namespace gofish::cli
