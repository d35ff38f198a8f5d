#include "server/transcript_api.hpp"

#include <nlohmann/json.hpp>

#include <exception>
#include <string>

#include "protocol/text.hpp"
#include "server/store.hpp"

namespace gofish::server {

namespace {

ApiReply not_found() {
  nlohmann::json body;
  body["error"] = "api/game_not_found";
  body["message"] = "No finished game with this id is kept here.";
  return ApiReply{404, "application/json", body.dump()};
}

}  // namespace

ApiReply transcript_reply(Store& store, std::string_view path) {
  constexpr std::string_view kSuffix = "/transcript";
  if (!path.starts_with(kGamesApiPrefix) || !path.ends_with(kSuffix)) return not_found();
  const std::string_view id =
      path.substr(kGamesApiPrefix.size(), path.size() - kGamesApiPrefix.size() - kSuffix.size());
  // Game ids are seat-token shaped; anything else is no game of ours.
  if (!protocol::is_token(id)) return not_found();
  try {
    if (auto transcript = store.finished_transcript(std::string(id))) {
      return ApiReply{200, "application/json", std::move(*transcript)};
    }
  } catch (const std::exception&) {
    nlohmann::json body;
    body["error"] = "api/storage";
    body["message"] = "The game store could not be read.";
    return ApiReply{503, "application/json", body.dump()};
  }
  return not_found();
}

void add_transcript_api(ApiRouter& router, Store& store) {
  router.add(std::string(kGamesApiPrefix),
             [&store](const ApiRequest& request) { return transcript_reply(store, request.path); });
}

}  // namespace gofish::server
