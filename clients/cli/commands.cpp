#include "clients/cli/commands.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace gofish::cli {
namespace {

struct CommandName {
  std::string_view name;
  std::string_view short_name;
  CommandKind kind;
  std::string_view usage;
};

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
  const auto found = std::find_if(kCommands.begin(), kCommands.end(),
                                  [&](const CommandName& c) { return word == c.name || word == c.short_name; });
  if (found == kCommands.end()) {
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

std::variant<engine::Seat, std::string> resolve_player(std::string_view typed, const Table& table) {
  const std::string wanted = lower(trim(typed));
  const auto seat_count = static_cast<engine::Seat>(table.seats().size());
  std::string players;
  for (engine::Seat s = 0; s < seat_count; ++s) {
    if (!table.is_you(s))
      players += (players.empty() ? "" : ", ") + table.name_of(s) + " (" + std::to_string(s + 1) + ")";
  }
  if (!wanted.empty() &&
      std::all_of(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    const int number = wanted.size() > 2 ? 0 : std::stoi(wanted);
    if (number >= 1 && number <= seat_count) return number - 1;
    return "There is no seat " + wanted + ". Players: " + players + ".";
  }
  std::vector<engine::Seat> prefixed;
  for (engine::Seat s = 0; s < seat_count; ++s) {
    const std::string name = lower(table.name_of(s));
    if (name == wanted) return s;
    if (name.starts_with(wanted)) prefixed.push_back(s);
  }
  if (prefixed.size() == 1) return prefixed.front();
  if (prefixed.size() > 1)
    return "'" + std::string(typed) + "' could be several players; use a seat number. Players: " + players + ".";
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

std::vector<std::string> help_lines() {
  std::vector<std::string> lines{"Commands (short forms in brackets):"};
  for (const CommandName& c : kCommands) {
    lines.push_back("  " + std::string(c.usage) + "  [" + std::string(c.short_name) + "]");
  }
  return lines;
}

}  // namespace gofish::cli
