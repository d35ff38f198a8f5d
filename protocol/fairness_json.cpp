#include "protocol/fairness_json.hpp"

#include <nlohmann/json.hpp>

namespace gofish::protocol {

nlohmann::ordered_json fairness_to_json(const DealFairness& fairness) {
  nlohmann::ordered_json out;
  out["algorithm"] = fairness.algorithm;
  out["commitment"] = fairness.commitment;
  if (fairness.seed) out["seed"] = *fairness.seed;
  nlohmann::ordered_json contributions = nlohmann::ordered_json::array();
  for (const auto& value : fairness.contributions) {
    contributions.push_back(value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr));
  }
  out["contributions"] = std::move(contributions);
  out["shared"] = fairness.shared;
  if (fairness.day) out["day"] = *fairness.day;
  if (fairness.event) out["event"] = *fairness.event;
  if (fairness.round) out["round"] = *fairness.round;
  return out;
}

DealFairness without_seed(DealFairness fairness) {
  fairness.seed.reset();
  return fairness;
}

nlohmann::ordered_json deal_notice_to_json(const DealFairness& deal) {
  nlohmann::ordered_json out;
  out["algorithm"] = deal.algorithm;
  out["commitment"] = deal.commitment;
  if (deal.seed) out["seed"] = *deal.seed;
  return out;
}

std::variant<DealFairness, std::string> deal_notice_from_json(const nlohmann::json& json) {
  if (!json.is_object()) return std::string("not an object");
  DealFairness out;
  for (const char* name : {"algorithm", "commitment"}) {
    const auto it = json.find(name);
    if (it == json.end() || !it->is_string()) return std::string(name) + " is missing or not a string";
  }
  out.algorithm = json.at("algorithm").get<std::string>();
  out.commitment = json.at("commitment").get<std::string>();
  if (const auto it = json.find("seed"); it != json.end()) {
    if (!it->is_string()) return std::string("seed is not a string");
    out.seed = it->get<std::string>();
  }
  out.shared = true;
  return out;
}

std::variant<DealFairness, std::string> fairness_from_json(const nlohmann::json& json) {
  if (!json.is_object()) return std::string("fairness: not an object");
  DealFairness out;
  const auto string_field = [&](const char* name, std::string& into) -> bool {
    const auto it = json.find(name);
    if (it == json.end() || !it->is_string()) return false;
    into = it->get<std::string>();
    return true;
  };
  if (!string_field("algorithm", out.algorithm)) return std::string("fairness: algorithm is missing or not a string");
  if (!string_field("commitment", out.commitment))
    return std::string("fairness: commitment is missing or not a string");
  if (const auto it = json.find("seed"); it != json.end() && !it->is_null()) {
    if (!it->is_string()) return std::string("fairness: seed is not a string");
    out.seed = it->get<std::string>();
  }
  if (const auto it = json.find("contributions"); it != json.end()) {
    if (!it->is_array()) return std::string("fairness: contributions is not an array");
    for (const auto& value : *it) {
      if (value.is_null()) {
        out.contributions.emplace_back();
      } else if (value.is_string()) {
        out.contributions.emplace_back(value.get<std::string>());
      } else {
        return std::string("fairness: a contribution is neither a string nor null");
      }
    }
  }
  if (const auto it = json.find("shared"); it != json.end()) {
    if (!it->is_boolean()) return std::string("fairness: shared is not true or false");
    out.shared = it->get<bool>();
  }
  for (const char* name : {"day", "event"}) {
    if (const auto it = json.find(name); it != json.end()) {
      if (!it->is_string()) return std::string("fairness: ") + name + " is not a string";
      (name[0] == 'd' ? out.day : out.event) = it->get<std::string>();
    }
  }
  if (const auto it = json.find("round"); it != json.end()) {
    if (!it->is_number_integer()) return std::string("fairness: round is not a whole number");
    out.round = it->get<int>();
  }
  return out;
}

}  // namespace gofish::protocol
