// The interactive prompt on a pseudo-terminal: lines typed reach the session,
// output queued while the prompt waits is printed above it, and a reader that
// stops while its thread still waits in readline() leaves that thread nothing
// freed to reach (run under AddressSanitizer by the sanitizer run; gofish-cli
// aborted there at exit before LineReader kept that state apart).
#include <doctest/doctest.h>
#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "clients/cli/line_reader.hpp"

namespace gofish::cli {
namespace {

using namespace std::chrono_literals;

// Reads what the terminal shows from the pseudo-terminal's master side until
// `wanted` appears or two seconds pass; returns everything read.
std::string read_until(int master, const std::string& wanted, std::string& seen) {
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  while (seen.find(wanted) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd readable{master, POLLIN, 0};
    if (::poll(&readable, 1, 50) <= 0) continue;
    char chunk[256];
    const ssize_t n = ::read(master, chunk, sizeof chunk);
    if (n > 0) seen.append(chunk, static_cast<std::size_t>(n));
  }
  return seen;
}

void type(int master, const std::string& keys) {
  REQUIRE(::write(master, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size()));
}

TEST_CASE("prompt: typed lines, output above the prompt, and a stop while readline() waits") {
  int master = -1;
  int slave = -1;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
  std::atomic<int> wakes{0};
  std::string seen;
  {
    LineReader reader(slave, slave);
    reader.set_wake([&] { ++wakes; });
    reader.start("test> ");
    CHECK(reader.started());
    CHECK(read_until(master, "test> ", seen).find("test> ") != std::string::npos);

    // Output while the prompt waits is queued and printed by libedit's idle hook.
    CHECK(reader.queue("Bob asked Ann for sevens."));
    CHECK(read_until(master, "Bob asked Ann for sevens.", seen).find("Bob asked Ann for sevens.") != std::string::npos);

    // A typed line wakes the session and waits until it has been handled.
    type(master, "ask 2 7\r");
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    while (wakes == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    CHECK(wakes == 1);
    const auto line = reader.next();
    REQUIRE(line);
    CHECK(line->text == "ask 2 7");
    CHECK_FALSE(line->end_of_input);
    reader.handled();
    CHECK_FALSE(reader.next());

    // The prompt comes back; stop while its thread waits for a key.
    seen.clear();
    CHECK(read_until(master, "test> ", seen).find("test> ") != std::string::npos);
    CHECK(reader.queue("queued at the stop"));
    const auto left = reader.stop();
    CHECK_FALSE(reader.started());
    CHECK_FALSE(reader.queue("after the stop"));  // the caller prints it
    // The hook may have printed it first; if not, the stop hands it back.
    CHECK(left.size() <= 1);
    reader.start("again> ");  // no second thread after a stop
    CHECK_FALSE(reader.started());
  }
  // The reader is gone; its thread still waits in readline(). A line now ends
  // that wait: the thread and the idle hook must touch only what they share.
  type(master, "late line\r");
  std::this_thread::sleep_for(300ms);
  CHECK(wakes == 1);  // the wake was dropped at the stop
}

}  // namespace
}  // namespace gofish::cli
