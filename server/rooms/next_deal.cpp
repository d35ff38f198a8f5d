#include "server/rooms/next_deal.hpp"

#include "server/rooms/daily_seed.hpp"

namespace gofish::server {

NextDeal::NextDeal(int seats) : seed_(fairness::new_seed()), contributions_(static_cast<std::size_t>(seats)) {}

fairness::Bytes NextDeal::shared_seed(std::uint64_t shared_seed) {
  // Bytes of the 64-bit seed, hashed to the 32 bytes the algorithm takes.
  fairness::Bytes message{'g', 'o', 'f', 'i', 's', 'h', ' ', 's', 'h', 'a', 'r', 'e', 'd', ' ', 'd', 'e', 'a', 'l'};
  for (int i = 7; i >= 0; --i) message.push_back(static_cast<std::uint8_t>(shared_seed >> (8 * i)));
  return fairness::sha256(message);
}

NextDeal NextDeal::shared(fairness::Bytes seed, const protocol::DealFairness& when) {
  NextDeal out;
  out.seed_ = std::move(seed);
  out.shared_ = true;
  out.when_.day = when.day;
  out.when_.event = when.event;
  out.when_.round = when.round;
  return out;
}

std::variant<NextDeal, std::string> NextDeal::restore(const protocol::DealFairness& kept, int seats) {
  if (kept.algorithm != protocol::kDealAlgorithm) return "an algorithm this server does not deal with";
  if (kept.shared) return std::string("a shared deal, which is never stored");
  const auto seed = kept.seed ? fairness::from_hex(*kept.seed) : std::nullopt;
  if (!seed || seed->size() != fairness::kSeedBytes) return std::string("a seed that is not 32 bytes in hex");
  if (fairness::to_hex(fairness::commitment_of(*seed)) != kept.commitment) {
    return std::string("a seed that does not match its commitment");
  }
  if (seats < 0 || kept.contributions.size() > static_cast<std::size_t>(seats)) {
    return std::string("more contributions than seats");
  }
  NextDeal out;
  out.seed_ = *seed;
  out.contributions_.resize(static_cast<std::size_t>(seats));
  for (std::size_t i = 0; i < kept.contributions.size(); ++i) {
    if (!kept.contributions[i]) continue;
    auto value = fairness::from_hex(*kept.contributions[i]);
    if (!value || !fairness::valid_contribution(*value)) return "seat " + std::to_string(i) + ": not a contribution";
    out.contributions_[i] = std::move(*value);
  }
  return out;
}

protocol::DealFairness NextDeal::kept() const {
  protocol::DealFairness out = announced();
  out.seed = fairness::to_hex(seed_);
  for (const auto& value : contributions_) {
    out.contributions.push_back(value ? std::optional(fairness::to_hex(*value)) : std::nullopt);
  }
  return out;
}

protocol::DealFairness NextDeal::announced() const {
  protocol::DealFairness out;
  out.commitment = fairness::to_hex(fairness::commitment_of(seed_));
  out.shared = shared_;
  out.day = when_.day;
  out.event = when_.event;
  out.round = when_.round;
  return out;
}

std::optional<protocol::ErrorCode> NextDeal::contribute(int seat, std::string_view hex) {
  const auto value = fairness::from_hex(hex);
  if (!value || !fairness::valid_contribution(*value)) return protocol::ErrorCode::kDealBadContribution;
  if (shared_ || seat < 0 || static_cast<std::size_t>(seat) >= contributions_.size()) {
    return protocol::ErrorCode::kDealNotSeated;
  }
  auto& slot = contributions_[static_cast<std::size_t>(seat)];
  if (slot) return protocol::ErrorCode::kDealAlreadyContributed;
  slot = *value;
  return std::nullopt;
}

NextDeal::Dealt NextDeal::deal(const engine::Rules& rules, int players) const {
  // A room's seat count may have changed since the seed was drawn: the
  // contributions are those of the seats that exist now.
  fairness::Contributions contributions;
  if (!shared_) {
    contributions = contributions_;
    contributions.resize(static_cast<std::size_t>(players));
  }
  Dealt out{fairness::deal(seed_, contributions, rules, players), announced()};
  out.record.seed = fairness::to_hex(seed_);
  for (const auto& value : contributions) {
    out.record.contributions.push_back(value ? std::optional(fairness::to_hex(*value)) : std::nullopt);
  }
  return out;
}

TranscriptHold transcript_hold(const std::optional<protocol::DealFairness>& fairness, std::int64_t now_ms,
                               bool round_over) {
  if (!fairness || !fairness->shared) return TranscriptHold::kNone;
  if (fairness->day && utc_date(now_ms) <= *fairness->day) return TranscriptHold::kUntilDayOver;
  if (fairness->round && !round_over) return TranscriptHold::kUntilRoundOver;
  return TranscriptHold::kNone;
}

protocol::Error transcript_held_error(protocol::ErrorCode code, TranscriptHold hold,
                                      std::optional<protocol::RequestId> id) {
  switch (hold) {
    case TranscriptHold::kUntilRoundOver:
      return protocol::make_error(code,
                                  "This game was dealt the same cards as the other tables of its round: its "
                                  "transcript is available after the round ends at every table.",
                                  std::move(id));
    case TranscriptHold::kUntilDayOver:
      return protocol::make_error(code,
                                  "This game was today's deal, which others are still playing: its transcript is "
                                  "available after today's deal closes at 00:00 UTC.",
                                  std::move(id));
    case TranscriptHold::kNone: break;
  }
  return protocol::default_error(code, std::move(id));
}

std::optional<protocol::DealFairness> served_fairness(const std::optional<protocol::DealFairness>& fairness,
                                                      std::int64_t now_ms, bool round_over) {
  if (transcript_hold(fairness, now_ms, round_over) == TranscriptHold::kNone) return fairness;
  return protocol::without_seed(*fairness);
}

}  // namespace gofish::server
