#include "clients/cli/commands.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace gofish::cli {
namespace {

template <class Kind>
struct Named {
  std::string_view name;
  std::string_view short_name;
  Kind kind;
  std::string_view usage;
};
using CommandName = Named<CommandKind>;
using ClassCommandName = Named<ClassCommandKind>;

constexpr std::array<CommandName, 12> kCommands = {{
    {"ask", "a", CommandKind::kAsk,
     "ask <player> <rank>   ask a player (seat number or name) for a rank, e.g. 'ask bob 9'; a card such as QH in card "
     "presets"},
    {"hand", "h", CommandKind::kHand, "hand                  show your hand, sorted and grouped by rank"},
    {"table", "t", CommandKind::kTable,
     "table                 who sits where, hand sizes, sets, the stock, whose turn"},
    {"log", "l", CommandKind::kLog, "log                   everything that happened in this game"},
    {"rules", "r", CommandKind::kRules, "rules                 the rules in force"},
    {"say", "s", CommandKind::kSay,
     "say <text>            chat with the room; a phrase id such as good_luck says that phrase"},
    {"rematch", "m", CommandKind::kRematch, "rematch               ask for another game once this one is over"},
    {"start", "go", CommandKind::kStart, "start                 (host) start the game once every seat is filled"},
    {"answer", "an", CommandKind::kAnswer,
     "answer give|fish      (table rules) hand over the cards or say \"Go fish\""},
    {"declare", "d", CommandKind::kDeclare, "declare <rank>        (table rules) lay down a complete set"},
    {"help", "?", CommandKind::kHelp, "help                  this list"},
    {"quit", "q", CommandKind::kQuit, "quit                  leave the room and exit"},
}};

constexpr std::array<ClassCommandName, 16> kClassCommands = {{
    {"class", "c", ClassCommandKind::kShow, "class                 every table and pupil: who plays, cards, sets, who is away"},
    {"seat", "s", ClassCommandKind::kSeat, "seat                  seat the pupils who have joined at balanced tables"},
    {"start", "go", ClassCommandKind::kStart, "start                 start the next round at every table"},
    {"end", "e", ClassCommandKind::kEnd, "end                   end the round in play"},
    {"move", "m", ClassCommandKind::kMove,
     "move <pupil> <table>  before a round: move a pupil (number or name) to a table"},
    {"free", "f", ClassCommandKind::kFree, "free <pupil>          let a pupil go: the name can be claimed again"},
    {"remove", "rm", ClassCommandKind::kRemove,
     "remove <pupil>        take a pupil out of the class; a bot plays their seat to the end of the round"},
    {"bot", "b", ClassCommandKind::kBot,
     "bot <pupil>           a bot plays the pupil's seat for the rest of the round; they wait for the next"},
    {"late", "l", ClassCommandKind::kLate,
     "late on|off           whether a pupil who comes during a round takes over a bot's seat"},
    {"pause", "p", ClassCommandKind::kPause, "pause                 pause every table of the round"},
    {"resume", "u", ClassCommandKind::kResume, "resume                let every table play on"},
    {"message", "msg", ClassCommandKind::kMessage, "message <text>        a line to every pupil (200 characters at most)"},
    {"chat", "ch", ClassCommandKind::kChat, "chat off|phrases|free every table's chat, now and in later rounds"},
    {"results", "r", ClassCommandKind::kResults,
     "results               each table's places and sets, and each pupil's over all rounds"},
    {"help", "?", ClassCommandKind::kHelp, "help                  this list"},
    {"quit", "q", ClassCommandKind::kQuit, "quit                  leave the console (the class goes on)"},
}};

template <class Kind, std::size_t N>
const Named<Kind>* find_named(const std::array<Named<Kind>, N>& table, const std::string& word) {
  const auto found =
      std::find_if(table.begin(), table.end(), [&](const Named<Kind>& c) { return word == c.name || word == c.short_name; });
  return found == table.end() ? nullptr : &*found;
}

template <class Kind, std::size_t N>
std::vector<std::string> usage_lines(const std::array<Named<Kind>, N>& table) {
  std::vector<std::string> lines{"Commands (short forms in brackets):"};
  for (const auto& c : table) lines.push_back("  " + std::string(c.usage) + "  [" + std::string(c.short_name) + "]");
  return lines;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// A rank as a person may type it: "9", "nine", "nines", "q", "queen", "queens".
std::optional<engine::Rank> parse_rank_words(std::string_view typed) {
  if (auto rank = engine::parse_rank(typed)) return rank;
  const std::string word = lower(typed);
  for (engine::Rank r = 0; r < engine::kRanks; ++r) {
    if (word == engine::rank_word(r) || word == engine::rank_plural(r)) return r;
  }
  if (word.size() > 1 && word.back() == 's')
    return engine::parse_rank(std::string_view(word).substr(0, word.size() - 1));
  return std::nullopt;
}

}  // namespace

std::variant<Command, std::string> parse_command(std::string_view line) {
  line = trim(line);
  const auto space = line.find(' ');
  const std::string word = lower(line.substr(0, space));
  const std::string_view rest = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space + 1));
  const CommandName* found = find_named(kCommands, word);
  if (!found) {
    return "'" + word +
           "' is not a command. Type 'help' for the list (ask, hand, table, log, rules, say, rematch, quit).";
  }
  Command command{found->kind, "", ""};
  switch (command.kind) {
    case CommandKind::kAsk: {
      const auto last_space = rest.rfind(' ');
      if (last_space == std::string_view::npos) {
        return std::string("Ask whom for what? Type 'ask <player> <rank>', e.g. 'ask 2 9' or 'ask bob queens'.");
      }
      command.target = std::string(trim(rest.substr(0, last_space)));
      command.what = std::string(rest.substr(last_space + 1));
      break;
    }
    case CommandKind::kSay:
      if (rest.empty()) return std::string("Say what? Type 'say <text>'.");
      command.what = std::string(rest);
      break;
    case CommandKind::kAnswer:
      command.what = lower(rest);
      if (command.what != "give" && command.what != "fish") {
        return std::string("Answer 'answer give' to hand the cards over, or 'answer fish' to say \"Go fish\".");
      }
      break;
    case CommandKind::kDeclare:
      if (rest.empty()) return std::string("Declare which rank? Type 'declare <rank>', e.g. 'declare 7'.");
      command.what = std::string(rest);
      break;
    default: break;
  }
  return command;
}

std::variant<int, PickProblem> pick_by_name(std::string_view typed, const std::vector<std::string>& names) {
  const std::string wanted = lower(trim(typed));
  const auto count = static_cast<int>(names.size());
  if (!wanted.empty() &&
      std::all_of(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    const int number = wanted.size() > 2 ? 0 : std::stoi(wanted);
    if (number >= 1 && number <= count) return number - 1;
    return PickProblem::kNoSuchNumber;
  }
  std::vector<int> prefixed;
  for (int i = 0; i < count; ++i) {
    const std::string name = lower(names[static_cast<std::size_t>(i)]);
    if (name == wanted) return i;
    if (name.starts_with(wanted)) prefixed.push_back(i);
  }
  if (prefixed.size() == 1) return prefixed.front();
  return prefixed.empty() ? PickProblem::kNoSuchName : PickProblem::kSeveral;
}

std::variant<engine::Seat, std::string> resolve_player(std::string_view typed, const Table& table) {
  const auto seat_count = static_cast<engine::Seat>(table.seats().size());
  std::vector<std::string> names;
  std::string players;
  for (engine::Seat s = 0; s < seat_count; ++s) {
    names.push_back(table.name_of(s));
    if (!table.is_you(s))
      players += (players.empty() ? "" : ", ") + table.name_of(s) + " (" + std::to_string(s + 1) + ")";
  }
  const auto picked = pick_by_name(typed, names);
  if (const int* seat = std::get_if<int>(&picked)) return static_cast<engine::Seat>(*seat);
  switch (std::get<PickProblem>(picked)) {
    case PickProblem::kNoSuchNumber: return "There is no seat " + std::string(trim(typed)) + ". Players: " + players + ".";
    case PickProblem::kSeveral:
      return "'" + std::string(typed) + "' could be several players; use a seat number. Players: " + players + ".";
    case PickProblem::kNoSuchName: break;
  }
  return "Nobody here is called '" + std::string(typed) + "'. Players: " + players + ".";
}

std::variant<protocol::Ask, std::string> resolve_ask(const Command& command, const Table& table) {
  auto target = resolve_player(command.target, table);
  if (auto* problem = std::get_if<std::string>(&target)) return std::move(*problem);
  protocol::Ask ask;
  ask.target = std::get<engine::Seat>(target);
  if (table.rules().ask_for == engine::AskFor::kCard) {
    const auto card = engine::parse_card(command.what);
    if (!card)
      return "'" + command.what +
             "' is not a card. In this game you ask for one card, e.g. QH for the queen of hearts.";
    ask.what = *card;
  } else {
    const auto rank = parse_rank_words(command.what);
    if (!rank) return "'" + command.what + "' is not a rank. Ranks are 2 to 10, J, Q, K and A.";
    ask.what = *rank;
  }
  return ask;
}

std::vector<std::string> help_lines() { return usage_lines(kCommands); }

std::variant<ClassCommand, std::string> parse_class_command(std::string_view line) {
  line = trim(line);
  const auto space = line.find(' ');
  const std::string word = lower(line.substr(0, space));
  const std::string_view rest = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space + 1));
  const ClassCommandName* found = find_named(kClassCommands, word);
  if (!found) {
    return "'" + word +
           "' is not a command. Type 'help' for the list (class, seat, start, end, move, free, remove, bot, late, "
           "pause, message, results, quit).";
  }
  ClassCommand command{found->kind, "", 0};
  switch (command.kind) {
    case ClassCommandKind::kMove: {
      const auto last_space = rest.rfind(' ');
      const std::string_view table = last_space == std::string_view::npos ? std::string_view{} : rest.substr(last_space + 1);
      if (table.empty() || table.size() > 2 ||
          !std::all_of(table.begin(), table.end(), [](unsigned char c) { return std::isdigit(c) != 0; }) ||
          std::stoi(std::string(table)) < 1) {
        return std::string("Move whom where? Type 'move <pupil> <table>', e.g. 'move ann 2' or 'move 5 1'.");
      }
      command.pupil = std::string(trim(rest.substr(0, last_space)));
      command.table = std::stoi(std::string(table));
      break;
    }
    case ClassCommandKind::kFree:
      if (rest.empty()) return std::string("Free whom? Type 'free <pupil>', e.g. 'free ann' or 'free 3'.");
      command.pupil = std::string(rest);
      break;
    case ClassCommandKind::kRemove:
      if (rest.empty()) return std::string("Remove whom? Type 'remove <pupil>', e.g. 'remove ann' or 'remove 3'.");
      command.pupil = std::string(rest);
      break;
    case ClassCommandKind::kBot:
      if (rest.empty()) return std::string("Whose seat? Type 'bot <pupil>', e.g. 'bot ann' or 'bot 3'.");
      command.pupil = std::string(rest);
      break;
    case ClassCommandKind::kLate:
      command.pupil = lower(rest);
      if (command.pupil != "on" && command.pupil != "off") {
        return std::string("Late pupils on or off? Type 'late on' or 'late off'.");
      }
      break;
    case ClassCommandKind::kMessage:
      if (rest.empty()) return std::string("Say what? Type 'message <text>', e.g. 'message Five minutes left'.");
      command.pupil = std::string(rest);
      break;
    case ClassCommandKind::kChat:
      command.pupil = lower(rest);
      if (!protocol::parse_chat_mode(command.pupil)) {
        return std::string("Which chat? Type 'chat off', 'chat phrases' (fixed friendly phrases) or 'chat free'.");
      }
      break;
    default: break;
  }
  return command;
}

std::vector<std::string> class_help_lines() { return usage_lines(kClassCommands); }

}  // namespace gofish::cli
