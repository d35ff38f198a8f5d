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

// Which of `names` (shown numbered from 1) the typed words stand for: a
// number as shown, a whole name, or the start of exactly one name (case
// aside); else why not.
enum class PickProblem { kNoSuchNumber, kSeveral, kNoSuchName };
std::variant<int, PickProblem> pick_by_name(std::string_view typed, const std::vector<std::string>& names);

// The seat a typed player stands for: "2" (seat number as shown), "bob", "hard bot", "ha".
std::variant<engine::Seat, std::string> resolve_player(std::string_view typed, const Table& table);

// The ask as a protocol message body, or a sentence with a hint.
std::variant<protocol::Ask, std::string> resolve_ask(const Command& command, const Table& table);

// The help text, one line each.
std::vector<std::string> help_lines();

// A class's teacher at the prompt (gofish-cli --create-class): class (c),
// seat, start (go), end, move <pupil> <table>, free <pupil>, remove <pupil>,
// bot <pupil>, late on|off, pause, resume, message <text>,
// chat off|phrases|free, results (r), help (?), quit (q).
enum class ClassCommandKind {
  kShow, kSeat, kStart, kEnd, kMove, kFree, kRemove, kBot, kLate, kPause, kResume, kMessage, kChat, kResults, kHelp,
  kQuit
};

struct ClassCommand {
  ClassCommandKind kind = ClassCommandKind::kHelp;
  // move, free, remove, bot: the pupil as typed (number or name); message:
  // the text; chat: the mode; late: "on" or "off"
  std::string pupil;
  int table = 0;      // move: the table as shown (from 1)
  friend bool operator==(const ClassCommand&, const ClassCommand&) = default;
};

// The teacher's command, or a sentence saying what is wrong with the line.
std::variant<ClassCommand, std::string> parse_class_command(std::string_view line);

// The teacher's commands, one line each.
std::vector<std::string> class_help_lines();

}  // namespace gofish::cli
