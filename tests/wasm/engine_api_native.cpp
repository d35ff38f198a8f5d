// The WebAssembly engine's API (clients/wasm/engine_api.hpp), compiled
// natively, for the parity test (parity.mjs): reads one call a line,
// "<function> <request JSON>", and writes each answer on a line of its own.
// The same calls through the module must give the same answers, byte for byte.
#include <iostream>
#include <string>

#include "clients/wasm/engine_api.hpp"

int main() {
  std::ios::sync_with_stdio(false);
  gofish::wasm::EngineApi api;
  std::string line;
  while (std::getline(std::cin, line)) {
    const auto space = line.find(' ');
    if (space == std::string::npos) {
      std::cout << api.call(line, "") << '\n';
      continue;
    }
    std::cout << api.call(std::string_view(line).substr(0, space), std::string_view(line).substr(space + 1)) << '\n';
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}
