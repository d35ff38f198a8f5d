// A fresh directory under the system's temp folder, removed with everything
// in it when the object goes out of scope. For tests that need a data dir.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace gofish::server::testing {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "gofish-test") {
    std::random_device random;
    path = std::filesystem::temp_directory_path() /
           (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  // The server's database file when this is its data dir.
  std::filesystem::path db() const { return path / "gofish.sqlite"; }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace gofish::server::testing
