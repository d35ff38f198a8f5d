// Everything that happens before the first card is dealt: choosing the dealer,
// shuffling, cutting and choosing who asks first.
//
// bicycle and authors (001, 003): any player deals one card face up to each
// player; the lowest card deals (ace high, two low). Reading: when the lowest
// rank is shared, only the tied seats draw again, from a fresh shuffled pack,
// until one is lowest. The dealer shuffles and the player on the dealer's
// right (the previous seat clockwise) cuts at a position of their choice,
// else at random; the player to the dealer's left asks first.
// The other presets pick the dealer at random; classic and its variants pick
// the first player at random too (000 "Randomly choose a player to go first"),
// pairs starts at the dealer's left (002).
#pragma once

#include <optional>
#include <vector>

#include "engine/card.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"

namespace gofish::engine {

struct CeremonyRound {
  std::vector<Seat> seats;   // who drew in this round
  std::vector<Card> cards;   // the face-up card each of them drew
};

struct DealSetup {
  Deck deck{};                        // after the shuffle and the cut: first card dealt first
  Seat dealer = 0;
  Seat first = 0;                     // the seat that makes the first ask
  std::vector<CeremonyRound> ceremony;  // empty unless rules.dealer is kCeremony
  std::optional<Seat> cutter;         // set when the pack was cut
  int cut_position = 0;               // cards moved from the top to the bottom
};

// Seat to the left (next clockwise) and to the right (previous).
inline Seat left_of(Seat seat, int players) { return (seat + 1) % players; }
inline Seat right_of(Seat seat, int players) { return (seat + players - 1) % players; }

// Moves the first `position` cards to the bottom. A cut takes at least one
// card and leaves at least one: position in [1, 51].
Deck cut(const Deck& deck, int position);
bool valid_cut_position(int position);

// The whole set-up, with every chance outcome drawn from `rng`. When a cut is
// part of the preset, `cut_position` is the cutter's choice (it must be valid)
// or, when empty or not a valid position, a random one.
DealSetup prepare_deal(const Rules& rules, int players, Rng& rng, std::optional<int> cut_position = std::nullopt);

// The dealer ceremony alone, for a server that lets the cutting seat choose
// after seeing who deals: returns the rounds and the dealer.
std::vector<CeremonyRound> dealer_ceremony(int players, Rng& rng);

}  // namespace gofish::engine
