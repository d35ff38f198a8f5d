// A process's CPU time and memory, from /proc (Linux).
#pragma once

#include <cstdint>
#include <optional>

namespace gofish::load {

struct ProcessSample {
  std::uint64_t cpu_micros = 0;  // user + system time so far
  std::uint64_t rss_kib = 0;     // resident set (VmRSS)
  std::uint64_t peak_rss_kib = 0;  // VmHWM
};

// nullopt when the process does not exist or /proc cannot be read.
std::optional<ProcessSample> sample_process(int pid);
// This process (getrusage and /proc/self).
std::optional<ProcessSample> sample_self();

}  // namespace gofish::load
