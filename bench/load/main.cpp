// gofish-load: opens rooms of players over real WebSocket connections and
// measures the server (docs/BENCHMARKS.md; bench/run drives it). LoadRun
// runs it (load_run.hpp), Room and Player are its rooms and connections;
// those three and this file are the ones that see Beast.
//
// One thread, one io_context: every connection, timer and counter lives on
// it, so nothing is locked and the client stays cheap next to the server.
#include <sys/resource.h>

#include <exception>
#include <iostream>
#include <utility>
#include <variant>

#include "bench/load/load_options.hpp"
#include "bench/load/load_run.hpp"

namespace {

// As many open files as the hard limit allows: thousands of sockets.
void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = gofish::load::parse_options(argc, argv);
  if (auto* exit = std::get_if<gofish::load::OptionsExit>(&parsed)) {
    (exit->code == 0 ? std::cout : std::cerr) << exit->output;
    return exit->code;
  }
  raise_open_file_limit();
  try {
    gofish::load::LoadRun run(std::move(std::get<gofish::load::LoadOptions>(parsed)));
    return run.run();
  } catch (const std::exception& error) {
    std::cerr << "gofish-load: " << error.what() << "\n";
    return 2;
  }
}
