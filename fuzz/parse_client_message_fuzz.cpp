// libFuzzer target for the one place hostile input enters: every client frame
// goes through parse_client_message. Built and run by fuzz/run.sh (clang with
// -fsanitize=fuzzer,address,undefined); not part of the default build.
//
// Besides "never crash, never throw, never leak", it checks two properties:
// an accepted frame re-encodes to a frame that parses to the same message
// (the parser's output is always something the encoder can speak), and a
// refusal always carries a code and a sentence. The same bytes are also fed
// to parse_server_message, which C++ clients run on what a server sends.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "protocol/messages.hpp"

namespace {

[[noreturn]] void fail(const char* why) {
  __builtin_trap();
  (void)why;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gofish::protocol;
  const std::string_view frame(reinterpret_cast<const char*>(data), size);

  const auto parsed = parse_client_message(frame);
  if (const auto* message = std::get_if<ClientMessage>(&parsed)) {
    const std::string again = encode_client_message(*message);
    const auto reparsed = parse_client_message(again);
    const auto* same = std::get_if<ClientMessage>(&reparsed);
    if (same == nullptr || !(*same == *message)) fail("an accepted message does not survive encode -> parse");
  } else {
    const Error& error = std::get<Error>(parsed);
    if (error.message.empty() || error_code_name(error.code).empty()) fail("a refusal without a code or sentence");
  }

  const auto server = parse_server_message(frame);
  if (const auto* message = std::get_if<ServerMessage>(&server)) {
    // Whatever a C++ client accepts, it can encode again and read back.
    const std::string again = encode(*message);
    if (!std::holds_alternative<ServerMessage>(parse_server_message(again))) {
      fail("an accepted server message does not survive encode -> parse");
    }
  }
  return 0;
}
