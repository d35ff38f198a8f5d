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
  friend bool operator==(const DealFairness&, const DealFairness&) = default;
};

// {"algorithm":..., "commitment":..., "seed":..., "contributions":[null,"ab.."], "shared":false};
// "seed" only when known.
nlohmann::ordered_json fairness_to_json(const DealFairness& fairness);
// Refuses, naming the field, anything but that shape (hex is checked by the checker).
std::variant<DealFairness, std::string> fairness_from_json(const nlohmann::json& json);

}  // namespace gofish::protocol
