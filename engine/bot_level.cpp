#include "engine/bot_level.hpp"

namespace gofish::engine {

std::optional<BotLevel> parse_bot_level(std::string_view text) {
  if (text == "easy") return BotLevel::kEasy;
  if (text == "medium") return BotLevel::kMedium;
  if (text == "hard") return BotLevel::kHard;
  return std::nullopt;
}

std::string_view to_string(BotLevel level) {
  switch (level) {
    case BotLevel::kEasy: return "easy";
    case BotLevel::kMedium: return "medium";
    case BotLevel::kHard: return "hard";
  }
  return "unknown";
}

}  // namespace gofish::engine
