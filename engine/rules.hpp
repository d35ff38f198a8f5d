// The rules configuration: one field for every dimension in which the presets
// of docs/RULES.md differ ("The configuration" there lists them all).
//
// The six presets (classic, specific-card, keep-playing, bicycle, authors,
// pairs) are values of this struct, not code paths, and a host may start from
// a preset and change single fields. `validate` refuses a configuration the
// engine cannot play, with the field at fault and a sentence saying why.
//
// Fields are also reachable by name (`rules_fields`, `set_rules_field`) so the
// protocol, rules files and the simulator's command line share one spelling.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/card.hpp"

namespace gofish::engine {

enum class DealerChoice {
  kRandom,    // a dealer is picked at random
  kCeremony,  // one face-up card each, lowest deals (ace high, two low), ties draw again; right of dealer cuts
};
enum class FirstPlayer { kRandom, kLeftOfDealer };
enum class AskFor { kRank, kCard };
enum class GiveRule {
  kAll,    // every card of the asked rank
  kOne,    // one card of the asked rank
  kNamed,  // the named card (card-asking presets)
};
enum class LuckyDrawRule { kAskAgain, kTurnEnds };
enum class AfterMiss { kToAsked, kToLeft };
enum class EmptyHand {
  kEndsGame,       // an empty hand ends the game
  kDrawElseSitOut, // on your turn draw one card, then ask; with no stock sit out (still in)
  kDrawElseOut,    // on your turn draw one card, then ask; with no stock you are out
  kOut,            // an empty hand is out of the game at once
};
enum class TieBreak { kShared, kFewestCardsInHand };

struct Rules {
  std::string preset = "classic";  // the preset this configuration started from
  int min_players = 2;
  int max_players = 6;
  // Tables of up to `small_table_players` seats get `small_table_cards` each,
  // larger ones `cards_dealt`; `deal_whole_pack` deals every card instead.
  int small_table_players = 2;
  int small_table_cards = 7;
  int cards_dealt = 5;
  bool deal_whole_pack = false;
  DealerChoice dealer = DealerChoice::kRandom;
  FirstPlayer first_player = FirstPlayer::kRandom;
  AskFor ask_for = AskFor::kRank;
  bool may_ask_held_card = false;  // card-asking presets only
  GiveRule give = GiveRule::kAll;
  int set_size = 4;
  LuckyDrawRule lucky_draw = LuckyDrawRule::kAskAgain;
  bool play_again_after_set = false;  // a set completed from the stock also continues the turn
  bool sets_face_up = false;          // presentation only: every laid set is shown either way
  AfterMiss after_miss = AfterMiss::kToAsked;
  EmptyHand empty_hand = EmptyHand::kEndsGame;
  // The game always ends when every set of the pack is down; an empty hand
  // ends it under EmptyHand::kEndsGame; and this ends it when the stock runs out.
  bool stock_out_ends_game = true;
  TieBreak tie_break = TieBreak::kShared;
  bool table_rules = false;  // players answer asks and declare sets; 001's penalties apply

  friend bool operator==(const Rules&, const Rules&) = default;
};

struct ConfigError {
  std::string field;    // the field at fault, "" for the configuration as a whole
  std::string message;  // a sentence for a person
};

std::span<const std::string_view> preset_names();
std::optional<Rules> preset(std::string_view name);
// One line on how the preset differs, for menus.
std::string_view preset_summary(std::string_view name);

// Refuses configurations the engine cannot play (a set size that does not
// divide four, a card ask that gives a whole rank, ...).
std::optional<ConfigError> validate(const Rules& rules);
// The same, plus the seat count (range, and a hand size that can be dealt).
std::optional<ConfigError> validate(const Rules& rules, int players);

// Cards dealt to each seat (for whole-pack deals, the larger hand).
int hand_size(const Rules& rules, int players);
int total_sets(const Rules& rules);  // 52 / set_size

// Field access by name. Values are spelled as in rules files and JSON:
// integers, "true"/"false", and enum values in snake_case ("to_asked").
enum class FieldKind { kText, kInt, kBool, kChoice };
struct FieldInfo {
  std::string_view name;
  FieldKind kind;
  std::span<const std::string_view> choices;  // for kChoice
  std::string_view help;
};
std::span<const FieldInfo> rules_field_info();
// Every field with its value, in a fixed order, preset first.
std::vector<std::pair<std::string, std::string>> rules_fields(const Rules& rules);
// Sets one field; an error names the field and the accepted values.
std::optional<ConfigError> set_rules_field(Rules& rules, std::string_view name, std::string_view value);

}  // namespace gofish::engine
