#include "server/edge/log_limiter.hpp"

#include <algorithm>
#include <cstdio>

namespace gofish::server {

bool LogLimiter::allow(std::string_view kind, Clock::time_point now, std::size_t& suppressed) {
  std::lock_guard lock(mutex_);
  auto it = kinds_.find(std::string(kind));
  if (it == kinds_.end()) it = kinds_.emplace(std::string(kind), Kind{now, 0, 0}).first;
  Kind& k = it->second;
  if (now - k.window_start >= std::chrono::seconds(1)) {
    k.window_start = now;
    k.logged = 0;
  }
  if (k.logged >= per_second_) {
    ++k.suppressed;
    return false;
  }
  ++k.logged;
  suppressed = k.suppressed;
  k.suppressed = 0;
  return true;
}

std::string loggable(std::string_view text, std::size_t max_chars) {
  std::string out;
  out.reserve(std::min(text.size(), max_chars) + 16);
  for (const char c : text) {
    if (out.size() >= max_chars) {
      out += "...(" + std::to_string(text.size()) + " bytes)";
      return out;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'' || c == '"') {
      out.push_back('\\');
      out.push_back(c);
    } else if (byte < 0x20 || byte >= 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace gofish::server
