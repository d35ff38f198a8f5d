// Everything that happens in a game, as typed events.
//
// Some events carry a card that only one seat may see (a hand dealt, a card
// drawn from the stock). Each of those has a public twin that says the same
// thing without the card; `event_for` in view.hpp is the one function that
// decides which twin a viewer gets. Handing over after a catch, a lucky draw
// and a laid set are shown at the table (000, 001: "he must reveal the card
// so that the catch is verified"), so those events are public. At game over
// every hand is revealed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <variant>

#include "engine/card.hpp"

namespace gofish::engine {

enum class DrawCause { kFish, kEmptyHand };
enum class EndReason { kHandEmpty, kStockOut, kAllSetsDown, kNoOneCanPlay };
enum class SetOutcome {
  kScores,
  kBarred,    // table rules: the owner is barred from scoring this rank
  kNotShown,  // table rules: not declared before the end of the owner's turn
};
enum class PenaltyKind {
  kAskedOutOfTurn,  // no set of that rank ever scores for that player
  kIllegalCall,     // misses the next turn
  kFalseGoFish,     // cards handed over anyway; rank barred; misses the next turn
};

struct GameStarted {
  int players;
  Seat dealer;
  Seat first;
  int stock;  // cards left in the stock after the deal
};
struct HandDealt {  // private to `seat`
  Seat seat;
  CardSet cards;
};
struct HandDealtCount {  // the public twin of HandDealt
  Seat seat;
  int count;
};
struct AskedRank {
  Seat seat;
  Seat target;
  Rank rank;
};
struct AskedCard {
  Seat seat;
  Seat target;
  Card card;
};
struct Answered {  // table rules: what the asked seat said
  Seat seat;
  bool give;
};
struct Gave {  // a catch: public
  Seat from;
  Seat to;
  CardSet cards;
};
struct GoFish {  // `seat` had none of what `asker` asked for
  Seat seat;
  Seat asker;
  bool stock_empty;  // nothing to draw ("nobody says Go fish")
};
struct Drew {  // private to `seat`
  Seat seat;
  Card card;
  DrawCause cause;
};
struct DrewHidden {  // the public twin of Drew
  Seat seat;
  DrawCause cause;
};
struct LuckyDraw {  // the drawn card was the one asked for, and is shown
  Seat seat;
  Card card;
};
struct SetLaid {
  Seat seat;
  Rank rank;
  CardSet cards;
  SetOutcome outcome;
  bool from_deal;
};
struct Penalty {
  Seat seat;
  PenaltyKind kind;
  Rank rank;
};
struct TurnPassed {
  Seat from;
  Seat to;
};
struct SatOut {  // keep-playing: no cards and no stock; still in, but skipped
  Seat seat;
};
struct WentOut {  // out of the game for good; keeps its sets
  Seat seat;
};
struct MissedTurn {  // table rules: a penalty skip
  Seat seat;
};
struct GameOver {
  EndReason reason;
  int players;
  std::array<CardSet, kMaxSeats> hands;  // revealed now that play is over
  std::array<int, kMaxSeats> scores;     // sets that scored
  std::uint8_t winners;                  // bit s set when seat s won
};

using Event = std::variant<GameStarted, HandDealt, HandDealtCount, AskedRank, AskedCard, Answered, Gave, GoFish,
                           Drew, DrewHidden, LuckyDraw, SetLaid, Penalty, TurnPassed, SatOut, WentOut, MissedTurn,
                           GameOver>;

// A plain-words line with seat numbers ("seat 1 gave seat 0 9C 9H"), for
// logs, golden files and test failures. Clients narrate with names themselves.
std::string to_string(const Event& event);

std::string_view to_string(EndReason reason);
std::string_view to_string(SetOutcome outcome);
std::string_view to_string(PenaltyKind kind);
std::string_view to_string(DrawCause cause);

}  // namespace gofish::engine
