#include "server_process.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <thread>

extern char** environ;

namespace gofish::server::testing {

namespace fs = std::filesystem;

namespace {

// Starts the binary with `args`; stdout and stderr go to `log`. Process
// limits are set by util-linux's prlimit, which execs the server (so the
// pid is the server's), leaving this process's own limits alone.
pid_t spawn_server(const std::vector<std::string>& args, const fs::path& log, const ProcessLimits& limits) {
  std::vector<std::string> owned;
  if (limits.open_files) {
    owned = {"/usr/bin/prlimit",
             "--nofile=" + std::to_string(limits.open_files->first) + ":" + std::to_string(limits.open_files->second),
             "--"};
  }
  // GOFISH_TEST_SERVER_BINARY runs the suites against another build, e.g.
  // an older commit's, to see a new test fail there.
  const char* other = std::getenv("GOFISH_TEST_SERVER_BINARY");
  owned.emplace_back(other != nullptr && *other != '\0' ? other : GOFISH_SERVER_BINARY);
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : owned) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

}  // namespace

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::string> server_arguments(const fs::path& data_dir, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--port=0",
                                   "--bind=127.0.0.1",
                                   "--data-dir=" + data_dir.string(),
                                   "--web-root=" GOFISH_WEB_ROOT,
                                   "--bot-delay-ms=0",
                                   "--seat-grace-ms=60000",
                                   "--message-rate=5000",
                                   "--message-burst=5000",
                                   // Every test client comes from 127.0.0.1, so one
                                   // address creates all of a test's rooms.
                                   "--room-create-rate=10000",
                                   "--room-create-burst=10000",
                                   "--max-rooms-per-address=10000",
                                   "--threads=2",
                                   "--shutdown-grace-ms=2000"};
  // A flag given in `extra` replaces the default (the server takes each once).
  const auto flag = [](const std::string& arg) { return arg.substr(0, arg.find('=')); };
  std::erase_if(args, [&](const std::string& arg) {
    return std::any_of(extra.begin(), extra.end(), [&](const std::string& e) { return flag(e) == flag(arg); });
  });
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

ServerProcess::ServerProcess(const fs::path& data_dir, fs::path log, std::vector<std::string> extra_args,
                             ProcessLimits limits)
    : log_(std::move(log)) {
  pid_ = spawn_server(server_arguments(data_dir, extra_args), log_, limits);
  // The port is in the "listening on 127.0.0.1:PORT" line.
  const std::regex listening(R"(listening on 127\.0\.0\.1:(\d+))");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch match;
    const std::string text = log_text();
    if (std::regex_search(text, match, listening)) {
      port_ = static_cast<std::uint16_t>(std::stoi(match[1]));
      // Logged before the listening line, when there is one.
      const std::regex admin(R"(operator endpoints on 127\.0\.0\.1:(\d+))");
      if (std::regex_search(text, match, admin)) admin_port_ = static_cast<std::uint16_t>(std::stoi(match[1]));
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      FAIL("gofish-server exited at start:\n" << text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL("gofish-server never said it was listening:\n" << log_text());
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) stop(SIGKILL);
}

std::string ServerProcess::log_text() const { return file_text(log_); }

int ServerProcess::stop(int signal) {
  ::kill(pid_, signal);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = 0;
  return status;
}

Outcome run_server_to_exit(const std::vector<std::string>& args, int timeout_ms) {
  char name[] = "/tmp/gofish-run-XXXXXX";
  const int fd = ::mkstemp(name);
  REQUIRE(fd >= 0);
  ::close(fd);
  const fs::path log(name);
  const pid_t pid = spawn_server(args, log, {});
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool exited = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  Outcome outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  outcome.output = file_text(log);
  fs::remove(log);
  CHECK_MESSAGE(exited, "gofish-server was still running after " << timeout_ms << " ms:\n" << outcome.output);
  return outcome;
}

std::uint64_t resident_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      std::uint64_t kib = 0;
      fields >> kib;
      return kib;
    }
  }
  return 0;
}

std::size_t open_descriptors(pid_t pid) {
  std::error_code ec;
  std::size_t count = 0;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    ++count;
  }
  return count;
}

}  // namespace gofish::server::testing
