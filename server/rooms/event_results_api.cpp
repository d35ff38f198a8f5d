#include "server/rooms/event_results_api.hpp"

#include <string>

#include "protocol/messages.hpp"
#include "protocol/results_csv.hpp"
#include "protocol/text.hpp"
#include "server/rooms/event_registry.hpp"

namespace gofish::server {

namespace {

ApiReply error_reply(unsigned status, protocol::ErrorCode code) {
  return ApiReply{status, "application/json", protocol::encode(protocol::default_error(code)), {}};
}

// The token of "Bearer <token>" (the scheme in any case, RFC 7235); empty
// for anything else.
std::string_view bearer_token(std::string_view header) {
  constexpr std::string_view kScheme = "bearer ";
  if (header.size() <= kScheme.size()) return {};
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    char c = header[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kScheme[i]) return {};
  }
  std::string_view token = header.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

}  // namespace

std::string results_disposition(std::string_view event_name) {
  std::string plain;
  std::string encoded;
  constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : event_name) {
    const auto byte = static_cast<unsigned char>(c);
    const bool safe = byte > 0x20 && byte < 0x7f && c != '"' && c != '\\' && c != '%' && c != '/' && c != ';';
    plain += safe || c == ' ' ? c : '_';
    const bool attr_char = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                           c == '.' || c == '_' || c == '~';
    if (attr_char) {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 0xF];
    }
  }
  return "attachment; filename=\"" + plain + "-results.csv\"; filename*=UTF-8''" + encoded + "-results.csv";
}

ApiReply event_results_reply(const EventRegistry& events, const ApiRequest& request) {
  constexpr std::string_view kSuffix = "/results.csv";
  const std::string_view path = request.path;
  if (!path.starts_with(kEventsApiPrefix) || !path.ends_with(kSuffix) ||
      path.size() < kEventsApiPrefix.size() + kSuffix.size()) {
    return error_reply(404, protocol::ErrorCode::kApiEventNotFound);
  }
  const std::string_view code =
      path.substr(kEventsApiPrefix.size(), path.size() - kEventsApiPrefix.size() - kSuffix.size());
  const auto normal = protocol::normalize_event_code(code);
  const auto event = normal ? events.find_or_closed(*normal) : nullptr;
  if (!event) return error_reply(404, protocol::ErrorCode::kApiEventNotFound);
  const std::string_view token = bearer_token(request.authorization);
  const auto results = protocol::is_token(token) ? event->results_for_teacher(token) : nullptr;
  if (!results) return error_reply(401, protocol::ErrorCode::kApiNotAuthorized);
  return ApiReply{200, "text/csv; charset=utf-8", protocol::results_csv(*results), results_disposition(results->name)};
}

void add_event_results_api(ApiRouter& router, const EventRegistry& events) {
  router.add(std::string(kEventsApiPrefix),
             [&events](const ApiRequest& request) { return event_results_reply(events, request); });
}

}  // namespace gofish::server
