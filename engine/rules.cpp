#include "engine/rules.hpp"

#include <array>
#include <charconv>

namespace gofish::engine {
namespace {

constexpr std::array<std::string_view, 6> kPresetNames = {"classic", "specific-card", "keep-playing",
                                                          "bicycle", "authors",       "pairs"};

Rules classic() { return Rules{}; }

Rules specific_card() {
  Rules r = classic();
  r.preset = "specific-card";
  r.ask_for = AskFor::kCard;
  r.give = GiveRule::kNamed;
  return r;
}

Rules keep_playing() {
  Rules r = classic();
  r.preset = "keep-playing";
  r.empty_hand = EmptyHand::kDrawElseSitOut;
  r.stock_out_ends_game = false;
  return r;
}

Rules bicycle() {
  Rules r;
  r.preset = "bicycle";
  r.min_players = 2;
  r.max_players = 5;
  r.small_table_players = 3;
  r.small_table_cards = 7;
  r.cards_dealt = 5;
  r.dealer = DealerChoice::kCeremony;
  r.first_player = FirstPlayer::kLeftOfDealer;
  r.lucky_draw = LuckyDrawRule::kTurnEnds;
  r.play_again_after_set = true;
  r.sets_face_up = true;
  r.after_miss = AfterMiss::kToLeft;
  r.empty_hand = EmptyHand::kDrawElseOut;
  r.stock_out_ends_game = false;
  return r;
}

Rules authors() {
  Rules r = bicycle();
  r.preset = "authors";
  r.min_players = 3;
  r.max_players = 6;
  r.deal_whole_pack = true;
  r.ask_for = AskFor::kCard;
  r.give = GiveRule::kNamed;
  r.lucky_draw = LuckyDrawRule::kAskAgain;  // never happens: there is no stock
  r.play_again_after_set = false;
  r.sets_face_up = false;
  r.empty_hand = EmptyHand::kOut;
  return r;
}

Rules pairs() {
  Rules r;
  r.preset = "pairs";
  r.small_table_players = 0;
  r.cards_dealt = 5;
  r.first_player = FirstPlayer::kLeftOfDealer;
  r.give = GiveRule::kOne;
  r.set_size = 2;
  r.after_miss = AfterMiss::kToLeft;
  r.empty_hand = EmptyHand::kEndsGame;
  r.stock_out_ends_game = false;
  r.tie_break = TieBreak::kFewestCardsInHand;
  return r;
}

// ---- enum spellings

constexpr std::array<std::string_view, 2> kDealerChoices = {"random", "ceremony"};
constexpr std::array<std::string_view, 2> kFirstPlayers = {"random", "left_of_dealer"};
constexpr std::array<std::string_view, 2> kAskFors = {"rank", "card"};
constexpr std::array<std::string_view, 3> kGiveRules = {"all", "one", "named"};
constexpr std::array<std::string_view, 2> kLuckyDraws = {"ask_again", "turn_ends"};
constexpr std::array<std::string_view, 2> kAfterMisses = {"to_asked", "to_left"};
constexpr std::array<std::string_view, 4> kEmptyHands = {"ends_game", "draw_else_sit_out", "draw_else_out", "out"};
constexpr std::array<std::string_view, 2> kTieBreaks = {"shared", "fewest_cards_in_hand"};
constexpr std::array<std::string_view, 0> kNone = {};

constexpr std::array<FieldInfo, 21> kFields = {{
    {"preset", FieldKind::kText, kNone, "the preset this configuration started from"},
    {"min_players", FieldKind::kInt, kNone, "fewest seats"},
    {"max_players", FieldKind::kInt, kNone, "most seats (at most 6)"},
    {"small_table_players", FieldKind::kInt, kNone, "tables of up to this many seats get small_table_cards"},
    {"small_table_cards", FieldKind::kInt, kNone, "cards dealt to each seat at a small table"},
    {"cards_dealt", FieldKind::kInt, kNone, "cards dealt to each seat at a larger table"},
    {"deal_whole_pack", FieldKind::kBool, kNone, "deal every card, as evenly as possible"},
    {"dealer", FieldKind::kChoice, kDealerChoices, "how the dealer is chosen"},
    {"first_player", FieldKind::kChoice, kFirstPlayers, "who makes the first ask"},
    {"ask_for", FieldKind::kChoice, kAskFors, "ask for a rank or for a specific card"},
    {"may_ask_held_card", FieldKind::kBool, kNone, "card asks: may a player ask for a card they hold"},
    {"give", FieldKind::kChoice, kGiveRules, "what the asked player hands over"},
    {"set_size", FieldKind::kInt, kNone, "cards in a set: 4 (books) or 2 (pairs)"},
    {"lucky_draw", FieldKind::kChoice, kLuckyDraws, "drawing what you asked for"},
    {"play_again_after_set", FieldKind::kBool, kNone, "completing a set from the stock continues the turn"},
    {"sets_face_up", FieldKind::kBool, kNone, "laid sets lie face up (presentation only)"},
    {"after_miss", FieldKind::kChoice, kAfterMisses, "who asks next after a miss"},
    {"empty_hand", FieldKind::kChoice, kEmptyHands, "what an empty hand means"},
    {"stock_out_ends_game", FieldKind::kBool, kNone, "the game ends when the stock runs out"},
    {"tie_break", FieldKind::kChoice, kTieBreaks, "who wins a tie on sets"},
    {"table_rules", FieldKind::kBool, kNone, "players answer asks and declare sets; penalties apply"},
}};

template <class E, std::size_t N>
std::string_view choice_name(E value, const std::array<std::string_view, N>& names) {
  return names[static_cast<std::size_t>(value)];
}

template <class E, std::size_t N>
std::optional<ConfigError> set_choice(E& out, std::string_view field, std::string_view value,
                                      const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == value) {
      out = static_cast<E>(i);
      return std::nullopt;
    }
  }
  std::string accepted;
  for (std::size_t i = 0; i < N; ++i) accepted += (i ? ", " : "") + std::string(names[i]);
  return ConfigError{std::string(field), std::string(field) + " must be one of: " + accepted + "."};
}

std::optional<ConfigError> set_int(int& out, std::string_view field, std::string_view value) {
  int parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return ConfigError{std::string(field), std::string(field) + " must be a whole number."};
  }
  out = parsed;
  return std::nullopt;
}

std::optional<ConfigError> set_bool(bool& out, std::string_view field, std::string_view value) {
  if (value == "true") {
    out = true;
  } else if (value == "false") {
    out = false;
  } else {
    return ConfigError{std::string(field), std::string(field) + " must be true or false."};
  }
  return std::nullopt;
}

std::string bool_text(bool b) { return b ? "true" : "false"; }

}  // namespace

std::span<const std::string_view> preset_names() { return kPresetNames; }

std::optional<Rules> preset(std::string_view name) {
  if (name == "classic") return classic();
  if (name == "specific-card") return specific_card();
  if (name == "keep-playing") return keep_playing();
  if (name == "bicycle") return bicycle();
  if (name == "authors") return authors();
  if (name == "pairs") return pairs();
  return std::nullopt;
}

std::string_view preset_summary(std::string_view name) {
  if (name == "classic") return "Ask for ranks; a catch or a lucky draw asks again; ends when a hand or the stock is empty.";
  if (name == "specific-card") return "Like classic, but you ask for one exact card, such as the king of clubs.";
  if (name == "keep-playing") return "Like classic, but play goes on after the stock runs out until all 13 books are down.";
  if (name == "bicycle") return "Bicycle rules: only a catch or a new book keeps your turn; play passes left; all 13 books.";
  if (name == "authors") return "The whole pack is dealt; ask for exact cards you lack; no stock; all 13 books.";
  if (name == "pairs") return "Collect pairs instead of books; a tie goes to the fewest cards left in hand.";
  return "";
}

int total_sets(const Rules& rules) { return kDeckSize / rules.set_size; }

int hand_size(const Rules& rules, int players) {
  if (players <= 0) return 0;
  if (rules.deal_whole_pack) return (kDeckSize + players - 1) / players;
  return players <= rules.small_table_players ? rules.small_table_cards : rules.cards_dealt;
}

std::optional<ConfigError> validate(const Rules& rules) {
  if (rules.min_players < 2) return ConfigError{"min_players", "A game needs at least 2 players."};
  if (rules.max_players > kMaxSeats) {
    return ConfigError{"max_players", "A table has at most " + std::to_string(kMaxSeats) + " seats."};
  }
  if (rules.min_players > rules.max_players) {
    return ConfigError{"min_players", "min_players cannot be larger than max_players."};
  }
  if (rules.set_size != 2 && rules.set_size != 4) {
    return ConfigError{"set_size", "A set is a book of 4 or a pair of 2."};
  }
  if (rules.ask_for == AskFor::kCard && rules.give != GiveRule::kNamed) {
    return ConfigError{"give", "When players ask for a specific card, the asked player gives that card (give = named)."};
  }
  if (rules.ask_for == AskFor::kRank && rules.give == GiveRule::kNamed) {
    return ConfigError{"give", "When players ask for a rank, the asked player gives all or one of that rank."};
  }
  if (rules.may_ask_held_card && rules.ask_for != AskFor::kCard) {
    return ConfigError{"may_ask_held_card", "Asking for a held card only makes sense when players ask for cards."};
  }
  if (!rules.deal_whole_pack && (rules.cards_dealt < 1 ||
                                 (rules.small_table_players >= rules.min_players && rules.small_table_cards < 1))) {
    return ConfigError{"cards_dealt", "Each player must be dealt at least one card."};
  }
  return std::nullopt;
}

std::optional<ConfigError> validate(const Rules& rules, int players) {
  if (auto error = validate(rules)) return error;
  if (players < rules.min_players || players > rules.max_players) {
    return ConfigError{"players", "The " + rules.preset + " rules are for " + std::to_string(rules.min_players) +
                                      " to " + std::to_string(rules.max_players) + " players, not " +
                                      std::to_string(players) + "."};
  }
  if (!rules.deal_whole_pack && hand_size(rules, players) * players > kDeckSize) {
    return ConfigError{"cards_dealt", "Dealing " + std::to_string(hand_size(rules, players)) + " cards to each of " +
                                          std::to_string(players) + " players needs more than 52 cards."};
  }
  const int dealt = rules.deal_whole_pack ? kDeckSize : hand_size(rules, players) * players;
  if (rules.stock_out_ends_game && dealt >= kDeckSize) {
    return ConfigError{"stock_out_ends_game", "The deal uses the whole pack, so a game that ends when the stock runs "
                                              "out would be over before the first ask."};
  }
  return std::nullopt;
}

std::span<const FieldInfo> rules_field_info() { return kFields; }

std::vector<std::pair<std::string, std::string>> rules_fields(const Rules& r) {
  return {
      {"preset", r.preset},
      {"min_players", std::to_string(r.min_players)},
      {"max_players", std::to_string(r.max_players)},
      {"small_table_players", std::to_string(r.small_table_players)},
      {"small_table_cards", std::to_string(r.small_table_cards)},
      {"cards_dealt", std::to_string(r.cards_dealt)},
      {"deal_whole_pack", bool_text(r.deal_whole_pack)},
      {"dealer", std::string(choice_name(r.dealer, kDealerChoices))},
      {"first_player", std::string(choice_name(r.first_player, kFirstPlayers))},
      {"ask_for", std::string(choice_name(r.ask_for, kAskFors))},
      {"may_ask_held_card", bool_text(r.may_ask_held_card)},
      {"give", std::string(choice_name(r.give, kGiveRules))},
      {"set_size", std::to_string(r.set_size)},
      {"lucky_draw", std::string(choice_name(r.lucky_draw, kLuckyDraws))},
      {"play_again_after_set", bool_text(r.play_again_after_set)},
      {"sets_face_up", bool_text(r.sets_face_up)},
      {"after_miss", std::string(choice_name(r.after_miss, kAfterMisses))},
      {"empty_hand", std::string(choice_name(r.empty_hand, kEmptyHands))},
      {"stock_out_ends_game", bool_text(r.stock_out_ends_game)},
      {"tie_break", std::string(choice_name(r.tie_break, kTieBreaks))},
      {"table_rules", bool_text(r.table_rules)},
  };
}

std::optional<ConfigError> set_rules_field(Rules& r, std::string_view name, std::string_view value) {
  if (name == "preset") {
    if (!preset(value)) return ConfigError{"preset", "Unknown preset \"" + std::string(value) + "\"."};
    r.preset = std::string(value);
    return std::nullopt;
  }
  if (name == "min_players") return set_int(r.min_players, name, value);
  if (name == "max_players") return set_int(r.max_players, name, value);
  if (name == "small_table_players") return set_int(r.small_table_players, name, value);
  if (name == "small_table_cards") return set_int(r.small_table_cards, name, value);
  if (name == "cards_dealt") return set_int(r.cards_dealt, name, value);
  if (name == "deal_whole_pack") return set_bool(r.deal_whole_pack, name, value);
  if (name == "dealer") return set_choice(r.dealer, name, value, kDealerChoices);
  if (name == "first_player") return set_choice(r.first_player, name, value, kFirstPlayers);
  if (name == "ask_for") return set_choice(r.ask_for, name, value, kAskFors);
  if (name == "may_ask_held_card") return set_bool(r.may_ask_held_card, name, value);
  if (name == "give") return set_choice(r.give, name, value, kGiveRules);
  if (name == "set_size") return set_int(r.set_size, name, value);
  if (name == "lucky_draw") return set_choice(r.lucky_draw, name, value, kLuckyDraws);
  if (name == "play_again_after_set") return set_bool(r.play_again_after_set, name, value);
  if (name == "sets_face_up") return set_bool(r.sets_face_up, name, value);
  if (name == "after_miss") return set_choice(r.after_miss, name, value, kAfterMisses);
  if (name == "empty_hand") return set_choice(r.empty_hand, name, value, kEmptyHands);
  if (name == "stock_out_ends_game") return set_bool(r.stock_out_ends_game, name, value);
  if (name == "tie_break") return set_choice(r.tie_break, name, value, kTieBreaks);
  if (name == "table_rules") return set_bool(r.table_rules, name, value);
  return ConfigError{std::string(name), "There is no rules field called \"" + std::string(name) + "\"."};
}

}  // namespace gofish::engine
