// GET /api/... routes that other layers register (a later issue serves
// /api/games/<id>/transcript). Handlers see a plain request and return a plain
// reply, so they need no Beast. Thread-safe: routes may be added while serving.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gofish::server {

struct ApiRequest {
  std::string_view path;   // percent-decoded, starting with the route's prefix
  std::string_view query;  // raw, after '?'
  std::string_view authorization;  // the Authorization header, raw; empty without one
};

struct ApiReply {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string content_disposition{};  // sent when not empty (a download's file name)
};

// Called on an I/O thread; keep it short (no blocking on other strands).
using ApiHandler = std::function<ApiReply(const ApiRequest&)>;

class ApiRouter {
 public:
  // `prefix` starts with "/api/"; the longest matching prefix wins.
  void add(std::string prefix, ApiHandler handler) {
    std::unique_lock lock(mutex_);
    routes_.emplace_back(std::move(prefix), std::move(handler));
  }

  // nullopt when no route matches (the caller answers 404).
  std::optional<ApiReply> route(const ApiRequest& request) const {
    ApiHandler chosen;
    {
      std::shared_lock lock(mutex_);
      std::size_t best = 0;
      for (const auto& [prefix, handler] : routes_) {
        if (request.path.starts_with(prefix) && prefix.size() > best) {
          best = prefix.size();
          chosen = handler;
        }
      }
    }
    if (!chosen) return std::nullopt;
    return chosen(request);
  }

 private:
  mutable std::shared_mutex mutex_;
  std::vector<std::pair<std::string, ApiHandler>> routes_;
};

}  // namespace gofish::server
