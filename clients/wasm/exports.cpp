// The WebAssembly module's exported functions: one per EngineApi function,
// each taking a JSON request as a UTF-8 C string and returning the JSON answer
// as one. The answer's memory belongs to the module and stays valid until the
// next call; the loader's ccall/cwrap with return type "string" copies it.
// Linked into the module only (clients/wasm/CMakeLists.txt lists the names in
// EXPORTED_FUNCTIONS); native programs use EngineApi directly.
#include <string>

#include "clients/wasm/engine_api.hpp"

namespace {

gofish::wasm::EngineApi& api() {
  static gofish::wasm::EngineApi instance;
  return instance;
}

std::string& answer() {
  static std::string text;
  return text;
}

const char* keep(std::string text) {
  answer() = std::move(text);
  return answer().c_str();
}

}  // namespace

extern "C" {
const char* gofish_start(const char* request) { return keep(api().call("start", request)); }
const char* gofish_legal(const char* request) { return keep(api().call("legal", request)); }
const char* gofish_apply(const char* request) { return keep(api().call("apply", request)); }
const char* gofish_view(const char* request) { return keep(api().call("view", request)); }
const char* gofish_events(const char* request) { return keep(api().call("events", request)); }
const char* gofish_bot(const char* request) { return keep(api().call("bot", request)); }
const char* gofish_play(const char* request) { return keep(api().call("play", request)); }
const char* gofish_transcript(const char* request) { return keep(api().call("transcript", request)); }
const char* gofish_replay(const char* request) { return keep(api().call("replay", request)); }
const char* gofish_end(const char* request) { return keep(api().call("end", request)); }
}
