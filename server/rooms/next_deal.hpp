// The next deal of a room under gofish-deal/1 (docs/FAIRNESS.md): a secret
// seed from the OS, the commitment to it that the room announces before the
// game, and the seated humans' contributions received by the start. The
// seed leaves the room only in a finished game's transcript.
//
// The pending deal is stored (record::NextDealSaved, in the form kept()
// gives), written whole each time it changes: when its seed is drawn, when a
// seat's contribution is taken, when a freed seat's is forgotten. The room
// announces a commitment, and acknowledges a contribution, only once that
// record is committed (DurableOutbox holds the message until then), so a
// room restored after a restart, a crash or a move to another node deals
// from the seed it announced, with every contribution it acknowledged
// (restore()). Only a room stored before the next deal was kept has none: it
// draws a seed as it is restored, and stores that one before anybody sees
// its commitment. A shared deal (shared()) is never stored: it is made from
// the table's shared seed as the game starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

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
  // The deal kept() gave, read back from the store for a room of `seats`
  // seats: a sentence when it is not one this server could have written (a
  // seed that does not match its commitment, a contribution out of bounds).
  static std::variant<NextDeal, std::string> restore(const protocol::DealFairness& kept, int seats);

  // The commitment alone, as the room announces it.
  protocol::DealFairness announced() const;
  // Takes `seat`'s contribution (hex): deal/bad_contribution or
  // deal/already_contributed when it cannot.
  std::optional<protocol::ErrorCode> contribute(int seat, std::string_view hex);
  // The seat was freed: a new occupant contributes afresh. True when the
  // seat had contributed (the room stores the change).
  bool forget(int seat) {
    if (seat < 0 || static_cast<std::size_t>(seat) >= contributions_.size()) return false;
    auto& slot = contributions_[static_cast<std::size_t>(seat)];
    const bool had = slot.has_value();
    slot.reset();
    return had;
  }
  // What the store keeps: the seed, its commitment and every seat's
  // contribution so far. Secret: never sent, never logged.
  protocol::DealFairness kept() const;

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

// Whether a finished game's transcript is held at `now_ms`, and until when
// (docs/FAIRNESS.md, "Shared deals"): a shared deal's transcript shows the
// deck other tables are still playing, so it is served by nobody (the room,
// the HTTP API, the class results) until the deal is done with: today's deal
// until its day is over (UTC), a same-deal round until every table of the
// round is over (`round_over`). Any other game's is never held.
enum class TranscriptHold { kNone, kUntilRoundOver, kUntilDayOver };
TranscriptHold transcript_hold(const std::optional<protocol::DealFairness>& fairness, std::int64_t now_ms,
                               bool round_over);
// The refusal of a held transcript (`code`: room/transcript_held or
// api/transcript_held), its sentence saying when it will be served.
protocol::Error transcript_held_error(protocol::ErrorCode code, TranscriptHold hold,
                                      std::optional<protocol::RequestId> id = std::nullopt);

// A finished game's fairness record as it may be served at `now_ms`: the
// seed stays out while the transcript is held (transcript_hold), which
// nothing serves then anyway; any other record is served whole.
std::optional<protocol::DealFairness> served_fairness(const std::optional<protocol::DealFairness>& fairness,
                                                      std::int64_t now_ms, bool round_over);

}  // namespace gofish::server
