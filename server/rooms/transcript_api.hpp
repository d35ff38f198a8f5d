// GET /api/games/<game_id>/transcript: a finished game's transcript (the
// JSON of docs/TRANSCRIPT.md) for anyone who has its id, while the store
// keeps it. Before the game is over, and for an id the store does not know,
// the answer is the same 404, so an id reveals nothing about a game in play.
// Errors are the protocol's error message: {"type":"error","code":"api/...",
// "message":...}.
#pragma once

#include <string_view>

#include "server/rooms/api_router.hpp"

namespace gofish::server {

class Store;

inline constexpr std::string_view kGamesApiPrefix = "/api/games/";

ApiReply transcript_reply(Store& store, std::string_view path);

// Registers the route; `store` must outlive the router's use.
void add_transcript_api(ApiRouter& router, Store& store);

}  // namespace gofish::server
