#include "server/edge/http_paths.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <system_error>
#include <utility>

namespace gofish::server {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_code_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
}

// True when `path` is `root` or lies below it, comparing whole components.
bool is_within(const std::filesystem::path& root, const std::filesystem::path& path) {
  auto root_it = root.begin();
  auto path_it = path.begin();
  for (; root_it != root.end(); ++root_it, ++path_it) {
    // A trailing separator shows up as an empty last component.
    if (root_it->empty() && std::next(root_it) == root.end()) return true;
    if (path_it == path.end() || *root_it != *path_it) return false;
  }
  return true;
}

}  // namespace

Target split_target(std::string_view target) {
  const auto cut = target.find_first_of("?#");
  if (cut == std::string_view::npos) return {target, {}};
  Target result{target.substr(0, cut), {}};
  if (target[cut] == '?') {
    auto query = target.substr(cut + 1);
    result.query = query.substr(0, query.find('#'));
  }
  return result;
}

std::string room_parameter(std::string_view query) {
  constexpr std::size_t kLongest = 8;
  while (!query.empty()) {
    const auto end = query.find('&');
    const auto pair = query.substr(0, end);
    if (pair.starts_with("room=")) {
      const auto value = pair.substr(5);
      const bool code = !value.empty() && value.size() <= kLongest &&
                        std::all_of(value.begin(), value.end(),
                                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
      return code ? std::string(value) : std::string();
    }
    if (end == std::string_view::npos) break;
    query.remove_prefix(end + 1);
  }
  return {};
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;  // fewer than two digits follow
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    const int value = high * 16 + low;
    if (value == 0) return std::nullopt;
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

bool is_invite_path(std::string_view decoded_path) {
  constexpr std::string_view kPrefix = "/r/";
  if (!decoded_path.starts_with(kPrefix)) return false;
  auto code = decoded_path.substr(kPrefix.size());
  if (code.ends_with('/')) code.remove_suffix(1);
  return !code.empty() && code.size() <= 32 && std::all_of(code.begin(), code.end(), is_code_char);
}

StaticFile resolve_static(const std::filesystem::path& web_root, std::string_view target) {
  const auto raw_path = split_target(target).path;
  if (raw_path.empty() || raw_path.front() != '/') return {StaticStatus::bad_request, {}};
  const auto decoded = percent_decode(raw_path);
  if (!decoded || decoded->find('\\') != std::string::npos) {
    return {StaticStatus::bad_request, {}};
  }

  std::filesystem::path relative;
  if (*decoded == "/" || is_invite_path(*decoded)) {
    relative = "index.html";
  } else {
    std::string_view rest(*decoded);
    rest.remove_prefix(1);
    while (!rest.empty()) {
      const auto slash = rest.find('/');
      const auto segment = rest.substr(0, slash);
      if (segment.starts_with('.')) return {StaticStatus::bad_request, {}};
      if (!segment.empty()) relative /= std::string(segment);
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
    if (decoded->ends_with('/')) relative /= "index.html";
    if (relative.empty()) return {StaticStatus::not_found, {}};
  }

  // Resolve symlinks so a link cannot lead out of the root.
  std::error_code ec;
  auto full = std::filesystem::weakly_canonical(web_root / relative, ec);
  if (ec || !is_within(web_root, full)) return {StaticStatus::not_found, {}};
  if (!std::filesystem::is_regular_file(full, ec) || ec) return {StaticStatus::not_found, {}};
  return {StaticStatus::found, std::move(full)};
}

std::string_view mime_type(const std::filesystem::path& path) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kTypes{{
      {".html", "text/html; charset=utf-8"},
      {".htm", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".webmanifest", "application/manifest+json"},
      {".txt", "text/plain; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},
      {".webp", "image/webp"},
      {".ico", "image/x-icon"},
      {".woff", "font/woff"},
      {".woff2", "font/woff2"},
      {".wasm", "application/wasm"},
      {".mp3", "audio/mpeg"},
  }};
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& [ext, type] : kTypes) {
    if (ext == extension) return type;
  }
  return "application/octet-stream";
}

}  // namespace gofish::server
