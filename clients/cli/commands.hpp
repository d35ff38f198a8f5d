// What a person types at the prompt, parsed into commands.
//
// Every command has a short form: ask (a), hand (h), table (t), log (l),
// rules (r), say (s), rematch (m), start, answer (give | fish), declare (d),
// help (?), quit (q). "ask <player> <rank>" takes the player by seat number,
// name or the start of a name (names may hold spaces: the last word is the
// rank, or the card in card-asking presets).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "clients/cli/table.hpp"

namespace gofish::cli {

enum class CommandKind { kAsk, kHand, kTable, kLog, kRules, kSay, kRematch, kStart, kAnswer, kDeclare, kHelp, kQuit };

struct Command {
  CommandKind kind = CommandKind::kHelp;
  std::string target;  // ask: who, as typed
  std::string what;    // ask: the rank or card; say: the text; answer: give/fish; declare: the rank
  friend bool operator==(const Command&, const Command&) = default;
};

// The command, or a sentence and a hint when the line is not one.
std::variant<Command, std::string> parse_command(std::string_view line);

// The seat a typed player stands for: "2" (seat number as shown), "bob", "hard bot", "ha".
std::variant<engine::Seat, std::string> resolve_player(std::string_view typed, const Table& table);

// The ask as a protocol message body, or a sentence with a hint.
std::variant<protocol::Ask, std::string> resolve_ask(const Command& command, const Table& table);

// The help text, one line each.
std::vector<std::string> help_lines();

}  // namespace gofish::cli
