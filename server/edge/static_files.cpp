#include "server/edge/static_files.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace gofish::server {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Calls `each` with every comma-separated element of a header list, trimmed.
template <class F>
void for_each_element(std::string_view list, F each) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    each(trim(list.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

std::string make_etag(std::string_view data, std::string_view suffix) {
  static constexpr std::array<char, 16> kHex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                                '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
  // zlib's CRC-32 is enough to tell versions of one file apart (an ETag only
  // has to change when the bytes do; the size is part of it too).
  std::uint32_t hash = static_cast<std::uint32_t>(
      crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(data.data()), data.size()));
  std::string hex(8, '0');
  for (int i = 7; i >= 0; --i, hash >>= 4) hex[static_cast<std::size_t>(i)] = kHex[hash & 0xF];
  return "\"" + hex + "-" + std::to_string(data.size()) + std::string(suffix) + "\"";
}

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  std::optional<bool> gzip;  // set when gzip is named
  bool any = false;          // "*" allows codings not named
  for_each_element(accept_encoding, [&](std::string_view element) {
    const auto semicolon = element.find(';');
    const auto coding = trim(element.substr(0, semicolon));
    bool refused = false;  // q=0 (or 0.0, 0.00...)
    if (semicolon != std::string_view::npos) {
      const auto params = trim(element.substr(semicolon + 1));
      if (params.size() >= 2 && (params[0] == 'q' || params[0] == 'Q') && params[1] == '=') {
        const auto q = trim(params.substr(2));
        refused = !q.empty() && std::all_of(q.begin(), q.end(), [](char c) { return c == '0' || c == '.'; });
      }
    }
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) gzip = !refused;
    if (coding == "*") any = !refused;
  });
  return gzip.value_or(any);
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  const auto opaque = [](std::string_view tag) {
    if (tag.size() >= 2 && (tag[0] == 'W' || tag[0] == 'w') && tag[1] == '/') tag.remove_prefix(2);
    return tag;
  };
  bool match = false;
  for_each_element(if_none_match, [&](std::string_view element) {
    if (element == "*" || (!element.empty() && opaque(element) == opaque(etag))) match = true;
  });
  return match;
}

std::string gzip_compress(std::string_view data) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  const auto written = stream.total_out;
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("zlib: deflate did not finish");
  out.resize(written);
  return out;
}

bool compressible(const std::filesystem::path& file) {
  const auto ext = file.extension().string();
  for (const char* text : {".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt", ".map", ".wasm"}) {
    if (iequals(ext, text)) return true;
  }
  return false;
}

std::shared_ptr<const StaticFiles::Entry> StaticFiles::load(const std::filesystem::path& file) {
  std::error_code ec;
  const auto modified = std::filesystem::last_write_time(file, ec);
  if (ec) return nullptr;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) return nullptr;
  const std::string key = file.string();
  {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(key);
    if (found != entries_.end() && found->second->modified == modified && found->second->size == size) {
      return found->second;
    }
  }
  // Read and compress outside the lock: another thread may do the same for a
  // changed file, and either result is right.
  std::ifstream in(file, std::ios::binary);
  if (!in) return nullptr;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return nullptr;
  auto entry = std::make_shared<Entry>();
  entry->modified = modified;
  entry->size = size;
  entry->etag = make_etag(bytes, "");
  if (compressible(file)) {
    auto gzipped = gzip_compress(bytes);
    if (gzipped.size() < bytes.size()) {
      entry->gzip_etag = make_etag(bytes, "-gz");
      entry->gzipped = std::make_shared<const std::string>(std::move(gzipped));
    }
  }
  entry->identity = std::make_shared<const std::string>(std::move(bytes));
  std::lock_guard lock(mutex_);
  entries_[key] = entry;
  return entry;
}

std::optional<StaticAnswer> StaticFiles::answer(const std::filesystem::path& file, std::string_view accept_encoding,
                                                std::string_view if_none_match) {
  const auto entry = load(file);
  if (!entry) return std::nullopt;
  StaticAnswer answer;
  answer.varies = entry->gzipped != nullptr;
  answer.gzip = entry->gzipped && accepts_gzip(accept_encoding);
  answer.etag = answer.gzip ? entry->gzip_etag : entry->etag;
  // Either form's tag names the same bytes: a client that has one is current.
  if (!if_none_match.empty() && (etag_matches(if_none_match, entry->etag) ||
                                 (entry->gzipped && etag_matches(if_none_match, entry->gzip_etag)))) {
    answer.status = 304;
    return answer;
  }
  answer.body = answer.gzip ? entry->gzipped : entry->identity;
  answer.length = answer.body->size();
  return answer;
}

}  // namespace gofish::server
