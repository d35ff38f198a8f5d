// The JSON spelling of a deal's fairness record (docs/FAIRNESS.md): what a
// finished game's transcript carries in its extra field "fairness", and what
// the room announces before a deal ("next_deal", without the seed).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gofish::protocol {

inline constexpr const char* kDealAlgorithm = "gofish-deal/1";

struct DealFairness {
  std::string algorithm = kDealAlgorithm;
  std::string commitment;           // SHA-256 of the seed, 64 lowercase hex digits
  std::optional<std::string> seed;  // 64 hex digits; only once the game is over
  // One entry per seat: the seat's contribution in hex, or none. Empty for a
  // shared deal (the same deck at every table takes no contribution).
  std::vector<std::optional<std::string>> contributions;
  bool shared = false;  // the same deal as every table of an event or of the day
  // When a shared deal's seed is revealed (docs/FAIRNESS.md, "Shared deals"):
  // today's deal of `day` (YYYY-MM-DD, UTC) once that day is over; a class
  // event's same-deal round once every table of `round` of `event` is over.
  std::optional<std::string> day;
  std::optional<std::string> event;
  std::optional<int> round;
  friend bool operator==(const DealFairness&, const DealFairness&) = default;
};

// The record without its seed: what is served while a shared deal's seed is withheld.
DealFairness without_seed(DealFairness fairness);

// {"algorithm":..., "commitment":..., "seed":..., "contributions":[null,"ab.."], "shared":false};
// "seed" only when known; "day", "event" and "round" only when set.
nlohmann::ordered_json fairness_to_json(const DealFairness& fairness);
// Refuses, naming the field, anything but that shape (hex is checked by the checker).
std::variant<DealFairness, std::string> fairness_from_json(const nlohmann::json& json);

// A shared deal announced ahead ("next_deal", "deal" of event_state,
// event_joined, event_seat and daily): {"algorithm":..., "commitment":...},
// and "seed" once it is revealed.
nlohmann::ordered_json deal_notice_to_json(const DealFairness& deal);
// The algorithm, the commitment and, if present, the seed; or what is wrong.
std::variant<DealFairness, std::string> deal_notice_from_json(const nlohmann::json& json);

}  // namespace gofish::protocol
