// The next deal of a room under gofish-deal/1 (docs/FAIRNESS.md): a secret
// seed from the OS, the commitment to it that the room announces before the
// game, and the seated humans' contributions received by the start. The
// seed leaves the room only in a finished game's transcript.
//
// The pending seed is not stored: a room restored after a restart draws a
// fresh one and announces its commitment again, and the contributions made
// to the old one are gone (the clients contribute again to the new
// commitment). Nothing is dealt from a seed whose commitment nobody saw, and
// the seed of a game that has been dealt is stored with the game's set-up.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/rules.hpp"
#include "fairness/deal_algorithm.hpp"
#include "protocol/errors.hpp"
#include "protocol/fairness_json.hpp"

namespace gofish::server {

class NextDeal {
 public:
  // A fresh seed from the OS, no contribution yet.
  explicit NextDeal(int seats);
  // The same deal at every table (a class event's same-deal round, today's
  // deal): the shared seed, whose commitment was announced before, and no
  // contribution. `when` says when the seed is revealed (its day, or its
  // event and round): it goes into the record.
  static NextDeal shared(fairness::Bytes seed, const protocol::DealFairness& when);
  // The 32 seed bytes of a 64-bit shared seed (today's deal): a server
  // detail, since a checker needs only the revealed 32 bytes.
  static fairness::Bytes shared_seed(std::uint64_t shared_seed);

  // The commitment alone, as the room announces it.
  protocol::DealFairness announced() const;
  // Takes `seat`'s contribution (hex): deal/bad_contribution or
  // deal/already_contributed when it cannot.
  std::optional<protocol::ErrorCode> contribute(int seat, std::string_view hex);
  // The seat was freed: a new occupant contributes afresh.
  void forget(int seat) {
    if (seat >= 0 && static_cast<std::size_t>(seat) < contributions_.size())
      contributions_[static_cast<std::size_t>(seat)].reset();
  }

  struct Dealt {
    fairness::FairDeal deal;
    protocol::DealFairness record;  // with the seed: stored, revealed once the game is over
  };
  Dealt deal(const engine::Rules& rules, int players) const;

 private:
  NextDeal() = default;
  fairness::Bytes seed_;
  fairness::Contributions contributions_;
  bool shared_ = false;
  protocol::DealFairness when_;  // a shared deal's day, or event and round
};

// A finished game's fairness record as it may be served at `now_ms`
// (docs/FAIRNESS.md, "Shared deals"): today's deal keeps its seed until its
// day is over (UTC), a same-deal round until every table of the round is
// over (`round_over`); any other record is served whole.
std::optional<protocol::DealFairness> served_fairness(const std::optional<protocol::DealFairness>& fairness,
                                                      std::int64_t now_ms, bool round_over);

}  // namespace gofish::server
