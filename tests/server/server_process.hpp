// gofish-server itself as a child process, for the tests that must go through
// the real binary: restarts on the same data, refused starts, process limits
// and memory. Nothing here needs Beast; clients come from rooms_support.hpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gofish::server::testing {

// The flags every test server gets unless a test passes its own: loopback,
// any free port, the repository's web client, no bot delay, a message rate
// no test client reaches. A flag in `extra` (spelt --flag=value) replaces its default.
std::vector<std::string> server_arguments(const std::filesystem::path& data_dir, const std::vector<std::string>& extra);

struct ProcessLimits {
  // RLIMIT_NOFILE for the child (soft, hard), set by prlimit as it starts.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> open_files;
};

// A started server on 127.0.0.1, its output in a log file. Killed with
// SIGKILL if a test ends without stopping it.
class ServerProcess {
 public:
  // Waits until the server says it is listening; fails the test if it exits
  // first or never does.
  ServerProcess(const std::filesystem::path& data_dir, std::filesystem::path log,
                std::vector<std::string> extra_args = {}, ProcessLimits limits = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  std::uint16_t port() const { return port_; }
  // The operator port (/metrics), 0 if the server was started without one.
  std::uint16_t admin_port() const { return admin_port_; }
  pid_t pid() const { return pid_; }
  std::string log_text() const;

  // Sends `signal` and waits for the process; returns its wait status.
  int stop(int signal);

 private:
  std::filesystem::path log_;
  pid_t pid_ = 0;
  std::uint16_t port_ = 0;
  std::uint16_t admin_port_ = 0;
};

// How a server run that was expected to end by itself (a refused start, or
// a command-line action such as listing rooms) ended.
struct Outcome {
  int exit_code = -1;  // -1: killed by a signal
  std::string output;  // stdout and stderr together
};

// Runs the server with `args` (after the binary's name, exactly as given)
// to its exit; kills it after `timeout_ms` and fails the test if it was
// still running.
Outcome run_server_to_exit(const std::vector<std::string>& args, int timeout_ms = 30'000);

// The resident set of a process in KiB (VmRSS), 0 if it is gone.
std::uint64_t resident_kib(pid_t pid);
// Open file descriptors of a process, counted in /proc/PID/fd.
std::size_t open_descriptors(pid_t pid);

std::string file_text(const std::filesystem::path& file);

}  // namespace gofish::server::testing
