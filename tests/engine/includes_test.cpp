// The engine is pure (README, Architecture): standard library
// only, and no clock or I/O even from the standard library, so a game stays a
// deterministic function of its inputs. Every #include in engine/ must name
// a standard header from the list below or another engine header. Also, the
// test-only accessor engine/testing.hpp must not be included by the engine,
// the protocol, the server or the tools.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::filesystem::path kSource(GOFISH_SOURCE_DIR);

// C++20 standard headers, minus those for clocks, time, streams to files or
// the console, the filesystem and threads.
const std::set<std::string> kAllowedStandard = {
    "algorithm", "any",         "array",       "atomic",       "bit",          "bitset",      "cassert",
    "cctype",    "cerrno",      "cfloat",      "charconv",     "climits",      "cmath",       "compare",
    "concepts",  "cstddef",     "cstdint",     "cstdlib",      "cstring",      "deque",       "exception",
    "expected",  "functional",  "initializer_list", "iterator", "limits",      "list",        "map",
    "memory",    "memory_resource", "new",     "numbers",      "numeric",      "optional",    "random",
    "ranges",    "ratio",       "set",         "source_location", "span",      "stdexcept",   "string",
    "string_view", "system_error", "tuple",    "type_traits",  "typeinfo",     "unordered_map", "unordered_set",
    "utility",   "variant",     "vector",      "version",
};
// Named so that a failure can say why they are refused.
const std::set<std::string> kRefusedStandard = {
    "chrono", "ctime", "time.h", "iostream", "istream", "ostream", "fstream", "sstream", "cstdio",
    "stdio.h", "filesystem", "thread", "mutex", "future", "syncstream", "print",
};

struct Include {
  std::filesystem::path file;
  int line;
  bool angled;
  std::string name;
};

const std::regex kIncludeLine(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");

void scan(std::istream& in, const std::filesystem::path& file, std::vector<Include>& out) {
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::smatch m;
    if (std::regex_search(line, m, kIncludeLine)) out.push_back({file, number, m[1] == "<", m[2]});
  }
}

std::vector<Include> includes_in(const std::filesystem::path& dir) {
  std::vector<Include> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension();
    if (ext != ".hpp" && ext != ".cpp" && ext != ".h" && ext != ".cc" && ext != ".ipp") continue;
    std::ifstream in(entry.path());
    scan(in, entry.path(), out);
  }
  return out;
}

std::string where(const Include& inc) {
  return std::filesystem::relative(inc.file, kSource).string() + ":" + std::to_string(inc.line);
}

}  // namespace

TEST_CASE("engine/ includes only standard headers and engine headers") {
  const auto includes = includes_in(kSource / "engine");
  REQUIRE(includes.size() > 20);  // the scan found the engine's sources
  for (const Include& inc : includes) {
    if (!inc.angled) {
      CHECK_MESSAGE(inc.name.starts_with("engine/"), where(inc) << ": \"" << inc.name << "\" is not an engine header");
      CHECK_MESSAGE(std::filesystem::exists(kSource / inc.name), where(inc) << ": \"" << inc.name << "\" does not exist");
      CHECK_MESSAGE(inc.name != "engine/testing.hpp", where(inc) << ": the engine must not include the test accessor");
      continue;
    }
    if (kRefusedStandard.contains(inc.name)) {
      FAIL_CHECK(where(inc) << ": <" << inc.name << "> is clock, time, I/O or threads: the engine must stay pure");
    } else {
      CHECK_MESSAGE(kAllowedStandard.contains(inc.name),
                    where(inc) << ": <" << inc.name << "> is not a standard header the engine may use "
                               << "(Boost, JSON, logging and storage libraries are for protocol/ and server/)");
    }
  }
}

TEST_CASE("only tests include the test accessor engine/testing.hpp") {
  for (const char* dir : {"engine", "protocol", "server", "tools", "bench"}) {
    if (!std::filesystem::exists(kSource / dir)) continue;
    for (const Include& inc : includes_in(kSource / dir)) {
      CHECK_MESSAGE(inc.name != "engine/testing.hpp", where(inc) << " includes the test-only engine/testing.hpp");
    }
  }
}

// The scan must be able to fail.
TEST_CASE("the include check recognises a forbidden include") {
  std::istringstream text("#include <boost/asio.hpp>\n  #  include <chrono>\n#include \"nlohmann/json.hpp\"\n// #include x\n");
  std::vector<Include> includes;
  scan(text, "bad.cpp", includes);
  REQUIRE(includes.size() == 3);
  CHECK(includes[0].name == "boost/asio.hpp");
  CHECK_FALSE(kAllowedStandard.contains(includes[0].name));
  CHECK(kRefusedStandard.contains(includes[1].name));
  CHECK_FALSE(includes[2].angled);
  CHECK_FALSE(includes[2].name.starts_with("engine/"));
}
