// The web client's static files, served small and revalidated cheaply: each
// file is read once (and again when it changes on disk), gzip-compressed once
// with zlib when that makes it smaller, and given a strong ETag. A request
// with a matching If-None-Match gets 304 and no body, so a repeat visit costs
// a few hundred bytes per file. No Beast here: http_session.cpp turns the answer into
// a response, and the decisions are unit-tested directly.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gofish::server {

struct StaticAnswer {
  int status = 200;                                  // 200, or 304 (not modified: no body)
  std::shared_ptr<const std::string> body;           // the bytes to send (null for 304)
  std::string etag;                                  // quoted, of the representation sent
  bool gzip = false;                                 // Content-Encoding: gzip
  bool varies = false;                               // Vary: Accept-Encoding (a gzip form exists)
  std::size_t length = 0;                            // Content-Length (also for HEAD)
};

class StaticFiles {
 public:
  // `file` is a regular file found by resolve_static; the two headers are the
  // request's (empty when absent). nullopt when the file cannot be read.
  std::optional<StaticAnswer> answer(const std::filesystem::path& file, std::string_view accept_encoding,
                                     std::string_view if_none_match);

 private:
  struct Entry {
    std::filesystem::file_time_type modified;
    std::uintmax_t size = 0;
    std::string etag;       // of the file's own bytes
    std::string gzip_etag;  // of the gzip form
    std::shared_ptr<const std::string> identity;
    std::shared_ptr<const std::string> gzipped;  // null when gzip would not be smaller
  };
  std::shared_ptr<const Entry> load(const std::filesystem::path& file);

  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Entry>> entries_;
};

// True when Accept-Encoding allows gzip (not refused with q=0).
bool accepts_gzip(std::string_view accept_encoding);
// True when an If-None-Match list names `etag` (weak comparison, as RFC 9110
// asks for If-None-Match) or is "*".
bool etag_matches(std::string_view if_none_match, std::string_view etag);
// The gzip member (RFC 1952) of `data`, at zlib's best compression.
std::string gzip_compress(std::string_view data);
// Whether a file of this name is text worth compressing.
bool compressible(const std::filesystem::path& file);

}  // namespace gofish::server
