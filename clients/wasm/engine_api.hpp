// The engine's API for the browser, JSON in and JSON out (README.md beside
// this file documents each function with an example).
//
// Every function takes one JSON object as text and returns one JSON object as
// text: its answer, or {"error":{"code":...,"message":...}} with the
// protocol's error codes (an engine refusal as "action/...", carrying the
// engine's sentence). Every JSON spelling (rules, decisions, events, views,
// legal decisions, transcripts) is protocol/'s. Games are held here between
// calls and named by a number, "game".
//
// exports.cpp makes these the WebAssembly module's exported functions; the
// parity test's native driver (tests/wasm/engine_api_native.cpp) calls the
// same class compiled natively.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "clients/wasm/table.hpp"

namespace gofish::wasm {

class EngineApi {
 public:
  // The function named `function` ("start", "legal", ...) on `request`; an
  // unknown name is an error answer, like any other.
  std::string call(std::string_view function, std::string_view request);


 private:
  using Json = nlohmann::json;
  using OrderedJson = nlohmann::ordered_json;

  // The functions, on the parsed request (and the game it names).
  std::string start(const Json& request);
  std::string replay(const Json& request);
  std::string legal(const Json& request, Table& table);
  std::string apply(const Json& request, Table& table);
  std::string view(const Json& request, Table& table);
  std::string events(const Json& request, Table& table);
  std::string bot(const Json& request, Table& table);
  std::string play(const Json& request, Table& table);
  std::string transcript(const Json& request, Table& table);
  std::string end(const Json& request, Table& table);

  // The game a request names, or nullptr (and `error` set).
  Table* find(const Json& request, OrderedJson& error);

  std::map<int, Table> tables_;
  int next_id_ = 1;
};

}  // namespace gofish::wasm
