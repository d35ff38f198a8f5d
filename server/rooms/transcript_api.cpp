#include "server/rooms/transcript_api.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <string>

#include "protocol/messages.hpp"
#include "protocol/text.hpp"
#include "server/rooms/next_deal.hpp"
#include "server/rooms/room_restore.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

namespace {

// The body is the protocol's error message (protocol/README.md, "Errors").
ApiReply error_reply(unsigned status, protocol::ErrorCode code) {
  return ApiReply{status, "application/json", protocol::encode(protocol::default_error(code))};
}

ApiReply not_found() { return error_reply(404, protocol::ErrorCode::kApiGameNotFound); }

}  // namespace

ApiReply transcript_reply(Store& store, std::string_view path) {
  return transcript_reply(store, path, steady_timers()->wall_ms());
}

ApiReply transcript_reply(Store& store, std::string_view path, std::int64_t now_ms) {
  constexpr std::string_view kSuffix = "/transcript";
  if (!path.starts_with(kGamesApiPrefix) || !path.ends_with(kSuffix)) return not_found();
  const std::string_view id =
      path.substr(kGamesApiPrefix.size(), path.size() - kGamesApiPrefix.size() - kSuffix.size());
  // Game ids are seat-token shaped; anything else is no game of ours.
  if (!protocol::is_token(id)) return not_found();
  try {
    if (auto game = store.finished_game(std::string(id))) {
      if (auto played = finished_game(*game)) {
        const auto& kept = played->fairness;
        const bool over =
            kept && kept->shared && kept->event && kept->round && event_round_over(store, *kept->event, *kept->round);
        const TranscriptHold hold = transcript_hold(kept, now_ms, over);
        if (hold != TranscriptHold::kNone) {
          return ApiReply{403, "application/json",
                          protocol::encode(transcript_held_error(protocol::ErrorCode::kApiTranscriptHeld, hold))};
        }
        const auto fairness = served_fairness(kept, now_ms, over);
        return ApiReply{200, "application/json",
                        protocol::transcript_document(played->transcript, played->players, fairness)};
      }
      return ApiReply{200, "application/json", finished_transcript(*game)};  // an older server's, as it wrote it
    }
  } catch (const std::exception& error) {
    spdlog::error("transcript api: {}", error.what());
    return error_reply(503, protocol::ErrorCode::kApiStorage);
  }
  return not_found();
}

void add_transcript_api(ApiRouter& router, Store& store, std::shared_ptr<const TimerSource> clock) {
  router.add(std::string(kGamesApiPrefix), [&store, clock = std::move(clock)](const ApiRequest& request) {
    return transcript_reply(store, request.path, clock->wall_ms());
  });
}

}  // namespace gofish::server
