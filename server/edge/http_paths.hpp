// Request-target handling for the static web client, kept free of Beast so it
// is unit-tested directly: splitting, percent-decoding, safe resolution inside
// the web root, invite links, and MIME types.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gofish::server {

struct Target {
  std::string_view path;   // before '?', still percent-encoded
  std::string_view query;  // after '?', empty if none
};
Target split_target(std::string_view target);

// The `room` parameter of a query ("room=K7QXM&x=1" gives "K7QXM"), which a
// proxy in front of several servers routes a WebSocket by: empty unless it
// is 1 to 8 letters and digits (a room's or a class's code), so nothing
// longer or stranger is kept.
std::string room_parameter(std::string_view query);

// nullopt for a malformed escape or an encoded NUL.
std::optional<std::string> percent_decode(std::string_view text);

// "/r/<CODE>": an invite link, answered with index.html so the client reads
// the room code from its own URL. CODE is 1-32 letters, digits, '-' or '_'.
bool is_invite_path(std::string_view decoded_path);

enum class StaticStatus { found, not_found, bad_request };

struct StaticFile {
  StaticStatus status = StaticStatus::not_found;
  std::filesystem::path path;  // set when found
};

// Maps a request target to a regular file under `web_root` (which must be
// canonical). "/" and invite links give index.html; a trailing '/' gives the
// directory's index.html. Any segment starting with '.' (so "..", ".", and
// hidden files) is a bad request, checked after decoding so %2e%2e is caught
// too; a symlink that leads outside the root is not found.
StaticFile resolve_static(const std::filesystem::path& web_root, std::string_view target);

// Content-Type for a served file, by extension; text types say utf-8.
std::string_view mime_type(const std::filesystem::path& path);

}  // namespace gofish::server
