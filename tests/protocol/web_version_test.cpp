// The browser client says hello with the protocol version of one JavaScript
// constant (kProtocolVersion in clients/web/js/connection.js); the server
// speaks protocol::kProtocolVersion. The two are typed in two languages, so
// this test is what keeps them in step: it fails when they differ, or when a
// script spells a version in a hello of its own instead of the constant.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "protocol/limits.hpp"

namespace {

const std::filesystem::path kWebScripts = std::filesystem::path(GOFISH_SOURCE_DIR) / "clients" / "web" / "js";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

TEST_CASE("web client: the protocol version it sends is the server's") {
  const std::string connection = read_file(kWebScripts / "connection.js");
  std::smatch constant;
  REQUIRE(std::regex_search(connection, constant, std::regex(R"(const kProtocolVersion = (\d+);)")));
  CHECK(std::stoi(constant[1].str()) == gofish::protocol::kProtocolVersion);
  // The hello sends that constant.
  CHECK(std::regex_search(connection, std::regex(R"(type: 'hello', protocol: kProtocolVersion\b)")));
}

TEST_CASE("web client: no script spells a protocol version of its own") {
  const std::regex literal(R"(\bprotocol\s*:\s*\d)");
  int scripts = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kWebScripts)) {
    if (entry.path().extension() != ".js") continue;
    ++scripts;
    CAPTURE(entry.path().string());
    CHECK_FALSE(std::regex_search(read_file(entry.path()), literal));
  }
  CHECK(scripts > 1);
}
