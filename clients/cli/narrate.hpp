// Plain words for everything the terminal shows: cards, hands, the table and
// each room event, from the viewer's point of view (the browser client's
// wording, clients/web/js/narrate.js).
//
// Suits are always named as well as drawn, so nothing depends on colour;
// colour (red hearts and diamonds) is added only when asked for.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/table.hpp"

namespace gofish::cli {

struct Style {
  bool color = false;
};

// "9♥ hearts", the suit symbol in red for hearts and diamonds when colour is on.
std::string card_text(engine::Card card, Style style);
// "the nine of hearts"
std::string card_name(engine::Card card);
// One line per rank held, lowest rank first, suits in C, D, H, S order:
// "  9  x2  9♣ clubs  9♥ hearts".
std::vector<std::string> hand_lines(engine::CardSet hand, Style style);
// Who sits where, hand sizes, sets, the stock and whose turn it is.
std::vector<std::string> table_lines(const Table& table, Style style);
// The rules in force, one field a line.
std::vector<std::string> rules_lines(const Table& table);
// "Ann wins!", "A tie: you and Bob share the win.", "Nobody wins."
std::string winners_text(std::uint8_t winners, const Table& table);
// The result of one game, as the server announced it.
struct GameResult {
  int game = 0;
  std::vector<std::string> names;  // by seat
  engine::GameOver over{};
};

// "Game 1: winner: Ann (scores: Ann 3, Bob 1); the stock ran out."
std::string result_line(const GameResult& result);

// One event in plain words, after it was applied to `table`; empty for
// events not worth a line.
std::string narrate(const protocol::RoomEvent& event, const Table& table);
// When the viewer is to act: what may be asked, e.g. "Your turn: ask Bob
// (seat 2) or Hard bot (seat 3) for a rank you hold: 2, 9, K."
std::string your_turn_text(const Table& table);

}  // namespace gofish::cli
