// GET /api/events/<code>/results.csv: a class event's results as CSV
// (protocol/README.md, "Class results as CSV") for its teacher, who sends
// the teacher token as "Authorization: Bearer <token>". Without the header
// or with another token the answer is 401; for a code of no event open on
// this server or closed in its store (EventRegistry::find_or_closed), 404.
// Errors are the protocol's error message, as the transcript API sends
// them. The results are those last committed (Event::results_for_teacher),
// so the handler never waits on a strand.
#pragma once

#include <string_view>

#include "server/rooms/api_router.hpp"

namespace gofish::server {

class EventRegistry;

inline constexpr std::string_view kEventsApiPrefix = "/api/events/";

ApiReply event_results_reply(const EventRegistry& events, const ApiRequest& request);

// Registers the route; `events` must outlive the router's use.
void add_event_results_api(ApiRouter& router, const EventRegistry& events);

// The Content-Disposition of the download: the event's name with anything
// but plain printable ASCII replaced in `filename`, and whole (UTF-8,
// percent-encoded) in `filename*`.
std::string results_disposition(std::string_view event_name);

}  // namespace gofish::server
