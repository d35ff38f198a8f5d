// Hiding, in exactly one place.
//
// `view_of` builds what one seat (or a spectator) may know, from scratch, as
// an allow-list: the viewer's own hand, every seat's hand size, status and
// sets, the stock size, whose turn it is, the legal decisions when the
// viewer is to act, and under table rules the viewer's improper ones (those
// accepted with a penalty) whoever is to act. `event_for` is the one function
// that decides what a viewer sees of an event. Nothing else in the engine hands out a hand or the
// deck order, and the raw Game has no encoding of its own, so it cannot be
// sent by mistake. After game over the GameOver event reveals every hand.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "engine/card.hpp"
#include "engine/event.hpp"
#include "engine/game.hpp"

namespace gofish::engine {

struct Viewer {
  std::optional<Seat> seat;  // empty for a spectator
  static Viewer spectator() { return Viewer{}; }
  static Viewer of(Seat seat) { return Viewer{seat}; }
  friend bool operator==(const Viewer&, const Viewer&) = default;
};

struct SeatView {
  int hand_size = 0;
  SeatStatus status = SeatStatus::kIn;
  bool misses_next_turn = false;
  std::uint16_t barred_ranks = 0;  // table rules penalties
  int set_count = 0;
  std::array<std::uint8_t, kDeckSize / 2> set_ranks{};  // ranks, in the order laid
  std::uint32_t set_scores = 0;                 // bit i: set i scores
  int score = 0;
  friend bool operator==(const SeatView&, const SeatView&) = default;
};

struct View {
  Viewer viewer;
  int players = 0;
  CardSet hand;  // the viewer's own hand; empty for spectators
  std::array<SeatView, kMaxSeats> seats{};
  int stock_size = 0;
  Phase phase = Phase::kAsk;
  Seat turn = 0;    // whose turn it is
  Seat to_act = 0;  // whose decision is awaited
  std::optional<PendingAsk> pending;  // table rules: the ask awaiting an answer
  LegalDecisions legal;  // the viewer's, when the viewer is to act
  ImproperDecisions improper;  // table rules: the viewer's, whoever is to act (default when none)
  std::optional<EndReason> end_reason;
  std::uint8_t winners = 0;
  friend bool operator==(const View&, const View&) = default;
};

View view_of(const Game& game, Viewer viewer);

// What `viewer` sees of `event`: the event itself, or its public twin.
Event event_for(const Event& event, Viewer viewer);

}  // namespace gofish::engine
