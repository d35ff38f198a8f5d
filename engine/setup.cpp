#include "engine/setup.hpp"

#include <algorithm>
#include <cassert>

namespace gofish::engine {

bool valid_cut_position(int position) { return position >= 1 && position < kDeckSize; }

Deck cut(const Deck& deck, int position) {
  assert(valid_cut_position(position));
  Deck out{};
  std::rotate_copy(deck.begin(), deck.begin() + position, deck.end(), out.begin());
  return out;
}

std::vector<CeremonyRound> dealer_ceremony(int players, Rng& rng) {
  std::vector<CeremonyRound> rounds;
  std::vector<Seat> drawing(static_cast<std::size_t>(players));
  for (Seat s = 0; s < players; ++s) drawing[static_cast<std::size_t>(s)] = s;
  // Each round deals one face-up card to each seat still drawing from a fresh
  // shuffled pack; the seats holding the lowest rank go on to the next round.
  while (true) {
    Deck pack = ordered_deck();
    shuffle(pack, rng);
    CeremonyRound round{drawing, {}};
    for (std::size_t i = 0; i < drawing.size(); ++i) round.cards.push_back(pack[i]);
    Rank lowest = kRanks;
    for (Card c : round.cards) lowest = std::min(lowest, c.rank());
    std::vector<Seat> tied;
    for (std::size_t i = 0; i < drawing.size(); ++i) {
      if (round.cards[i].rank() == lowest) tied.push_back(drawing[i]);
    }
    rounds.push_back(std::move(round));
    if (tied.size() == 1) return rounds;
    drawing = std::move(tied);
  }
}

DealSetup prepare_deal(const Rules& rules, int players, Rng& rng, std::optional<int> cut_position) {
  DealSetup setup;
  if (rules.dealer == DealerChoice::kCeremony) {
    setup.ceremony = dealer_ceremony(players, rng);
    // The last round has exactly one lowest card: its seat deals.
    const CeremonyRound& last = setup.ceremony.back();
    const auto lowest = std::min_element(last.cards.begin(), last.cards.end(),
                                         [](Card a, Card b) { return a.rank() < b.rank(); });
    setup.dealer = last.seats[static_cast<std::size_t>(lowest - last.cards.begin())];
  } else {
    setup.dealer = static_cast<Seat>(rng.below(static_cast<std::uint32_t>(players)));
  }
  Deck deck = ordered_deck();
  shuffle(deck, rng);
  if (rules.dealer == DealerChoice::kCeremony) {
    setup.cutter = right_of(setup.dealer, players);
    setup.cut_position = cut_position && valid_cut_position(*cut_position)
                             ? *cut_position
                             : 1 + static_cast<int>(rng.below(kDeckSize - 1));
    deck = cut(deck, setup.cut_position);
  }
  setup.deck = deck;
  setup.first = rules.first_player == FirstPlayer::kRandom ? static_cast<Seat>(rng.below(static_cast<std::uint32_t>(players)))
                                                           : left_of(setup.dealer, players);
  return setup;
}

}  // namespace gofish::engine
