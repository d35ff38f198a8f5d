// Keeps what clients can make the server log from filling the disk.
//
// LogLimiter: warnings of one kind (a fixed name such as "origin") are let
// through at most `per_second` times a second; the others are counted, and
// the count goes out with the next one let through ("...; 512 more like this
// were not logged"). loggable(): text a client chose (an Origin, a path) cut
// to a length and escaped, so it can neither be long nor forge log lines.
//
// Thread-safe; the caller passes the time, so tests need no clock.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gofish::server {

class LogLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogLimiter(std::size_t per_second) : per_second_(per_second) {}

  // Whether a warning of `kind` may be logged now. If it may, `suppressed`
  // is set to how many of that kind were not logged since the last one.
  bool allow(std::string_view kind, Clock::time_point now, std::size_t& suppressed);

 private:
  struct Kind {
    Clock::time_point window_start;
    std::size_t logged = 0;      // in the current window
    std::size_t suppressed = 0;  // since the last one logged
  };

  const std::size_t per_second_;
  std::mutex mutex_;
  std::unordered_map<std::string, Kind> kinds_;
};

// `text` with every byte outside printable ASCII, and the backslash and
// quotes, escaped (\xNN, \\, \', \"), cut after `max_chars` characters of the
// escaped form with "...(N bytes)" saying how long it was.
std::string loggable(std::string_view text, std::size_t max_chars);

}  // namespace gofish::server
