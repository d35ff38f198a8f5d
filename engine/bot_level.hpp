// The three levels of the engine's computer players, and their spellings.
// Apart from the bots themselves (engine/bot.hpp), so that what only names a
// level (the protocol, the load generator's options) does not take in the
// bot API.
#pragma once

#include <optional>
#include <string_view>

namespace gofish::engine {

enum class BotLevel { kEasy, kMedium, kHard };

// "easy", "medium", "hard"
std::optional<BotLevel> parse_bot_level(std::string_view text);
std::string_view to_string(BotLevel level);

}  // namespace gofish::engine
