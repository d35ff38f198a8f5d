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

// `now_ms`: the wall clock, which says whether today's deal's seed may be
// served yet (served_fairness). A same-deal round's seed is never served
// here: this answer cannot know whether every table of the round is over
// (docs/FAIRNESS.md, "Shared deals"; the room's transcript and the event's
// state carry it then).
ApiReply transcript_reply(Store& store, std::string_view path, std::int64_t now_ms);
ApiReply transcript_reply(Store& store, std::string_view path);  // on the real clock

// Registers the route; `store` and `clock` must outlive the router's use.
void add_transcript_api(ApiRouter& router, Store& store, std::shared_ptr<const TimerSource> clock = steady_timers());

}  // namespace gofish::server
