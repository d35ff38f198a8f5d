// GET /api/games/<game_id>/transcript: a finished game's transcript (the
// JSON of docs/TRANSCRIPT.md) for anyone who has its id, while the store
// keeps it. Before the game is over, and for an id the store does not know,
// the answer is the same 404, so an id reveals nothing about a game in play.
// Errors are the protocol's error message: {"type":"error","code":"api/...",
// "message":...}.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "server/rooms/api_router.hpp"
#include "server/rooms/timer_source.hpp"

namespace gofish::server {

class Store;

inline constexpr std::string_view kGamesApiPrefix = "/api/games/";

// A shared deal's transcript is held (transcript_hold: 403, the error
// api/transcript_held, its sentence saying until when) while other tables
// may still play its deck (docs/FAIRNESS.md, "Shared deals"): today's deal
// until its day is over by `now_ms`, the wall clock; a same-deal round until
// the store holds every table of the round's finished game. Then it is
// served whole, with its seed.
ApiReply transcript_reply(Store& store, std::string_view path, std::int64_t now_ms);
ApiReply transcript_reply(Store& store, std::string_view path);  // on the real clock

// Registers the route; `store` and `clock` must outlive the router's use.
void add_transcript_api(ApiRouter& router, Store& store, std::shared_ptr<const TimerSource> clock = steady_timers());

}  // namespace gofish::server
