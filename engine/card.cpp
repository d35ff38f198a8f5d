#include "engine/card.hpp"

#include <array>

namespace gofish::engine {
namespace {
constexpr std::array<std::string_view, kRanks> kRankNames = {"2", "3", "4", "5", "6", "7", "8",
                                                              "9", "10", "J", "Q", "K", "A"};
constexpr std::array<std::string_view, kRanks> kRankWords = {"two",  "three", "four", "five", "six",  "seven", "eight",
                                                              "nine", "ten",   "jack", "queen", "king", "ace"};
constexpr std::array<std::string_view, kRanks> kRankPlurals = {"twos",  "threes", "fours", "fives", "sixes",
                                                                "sevens", "eights", "nines", "tens",  "jacks",
                                                                "queens", "kings",  "aces"};
constexpr std::array<char, kSuits> kSuitLetters = {'C', 'D', 'H', 'S'};
constexpr std::array<std::string_view, kSuits> kSuitWords = {"clubs", "diamonds", "hearts", "spades"};

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
}  // namespace

std::string_view rank_name(Rank rank) { return kRankNames.at(static_cast<std::size_t>(rank)); }
std::string_view rank_word(Rank rank) { return kRankWords.at(static_cast<std::size_t>(rank)); }
std::string_view rank_plural(Rank rank) { return kRankPlurals.at(static_cast<std::size_t>(rank)); }
char suit_letter(Suit suit) { return kSuitLetters[static_cast<std::size_t>(suit)]; }
std::string_view suit_word(Suit suit) { return kSuitWords[static_cast<std::size_t>(suit)]; }

std::optional<Rank> parse_rank(std::string_view text) {
  if (text.size() == 2 && text[0] == '1' && text[1] == '0') return 8;
  if (text.size() != 1) return std::nullopt;
  const char c = upper(text[0]);
  if (c >= '2' && c <= '9') return c - '2';
  if (c == 'T') return 8;
  for (Rank r = 9; r < kRanks; ++r) {
    if (kRankNames[static_cast<std::size_t>(r)][0] == c) return r;
  }
  return std::nullopt;
}

std::string to_string(Card card) {
  std::string out(rank_name(card.rank()));
  out.push_back(suit_letter(card.suit()));
  return out;
}

std::optional<Card> parse_card(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  const auto rank = parse_rank(text.substr(0, text.size() - 1));
  if (!rank) return std::nullopt;
  const char s = upper(text.back());
  for (int i = 0; i < kSuits; ++i) {
    if (kSuitLetters[static_cast<std::size_t>(i)] == s) return Card(*rank, static_cast<Suit>(i));
  }
  return std::nullopt;
}

std::string to_string(CardSet cards) {
  std::string out;
  for (Card c : cards) {
    if (!out.empty()) out.push_back(' ');
    out += to_string(c);
  }
  return out;
}

Deck ordered_deck() {
  Deck deck{};
  for (int i = 0; i < kDeckSize; ++i) deck[static_cast<std::size_t>(i)] = Card::from_id(i);
  return deck;
}

// 52 cards, all valid, whose bits cover the whole pack, are each there once.
// Every game's start checks its deck, so this ORs the cards' bits with no
// branch per card.
bool is_complete_deck(const Deck& deck) {
  std::uint64_t seen = 0;
  bool valid = true;
  for (Card c : deck) {
    valid &= c.id() < kDeckSize;
    seen |= std::uint64_t{1} << (c.id() & 63);
  }
  return valid && seen == CardSet::full_deck().mask();
}

}  // namespace gofish::engine
