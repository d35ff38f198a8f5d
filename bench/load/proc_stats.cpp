#include "bench/load/proc_stats.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace gofish::load {

namespace {

// utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks. The
// second field (the command) may hold spaces, so fields count from its ')'.
std::optional<std::uint64_t> cpu_micros_of(const std::string& dir) {
  std::ifstream in(dir + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  std::uint64_t utime = 0;
  std::uint64_t stime = 0;
  // After ')': state is field 3, so utime (14) is the 12th token.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  if (!fields) return std::nullopt;
  const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  return (utime + stime) * 1'000'000ULL / static_cast<std::uint64_t>(ticks);
}

// "VmRSS:     1234 kB" -> 1234.
std::uint64_t status_kib(const std::string& status, std::string_view key) {
  const auto at = status.find(key);
  if (at == std::string::npos) return 0;
  std::istringstream value(status.substr(at + key.size()));
  std::uint64_t kib = 0;
  value >> kib;
  return kib;
}

std::optional<ProcessSample> sample_dir(const std::string& dir) {
  const auto cpu = cpu_micros_of(dir);
  if (!cpu) return std::nullopt;
  std::ifstream in(dir + "/status");
  std::stringstream status;
  status << in.rdbuf();
  ProcessSample sample;
  sample.cpu_micros = *cpu;
  sample.rss_kib = status_kib(status.str(), "VmRSS:");
  sample.peak_rss_kib = status_kib(status.str(), "VmHWM:");
  return sample;
}

}  // namespace

std::optional<ProcessSample> sample_process(int pid) { return sample_dir("/proc/" + std::to_string(pid)); }

std::optional<ProcessSample> sample_self() { return sample_dir("/proc/self"); }

}  // namespace gofish::load
