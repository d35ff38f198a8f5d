// Support for the class event tests through the binary (event_test,
// event_pupils_test, event_results_test): the event they create, waiting for
// the teacher's event_state, and the event hiding check on a peer's frames.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "protocol/messages.hpp"
#include "rooms_support.hpp"

namespace gofish::server::testing {

// A create_event request: classic rules, tables of four, easy bots.
protocol::CreateEvent class_event(std::string name, std::vector<std::string> roster, int rounds,
                                  bool same_deal = false);

// Waits (pumping the teacher's frames) for an event_state that satisfies
// `done`, and fails the test with the last one seen if none does in time.
protocol::EventState await_event_state(Peer& teacher, const std::function<bool(const protocol::EventState&)>& done,
                                       std::chrono::milliseconds timeout = 20s);

// Fails the test for each frame `peer` received (room and class frames) that
// find_event_leaks finds fault with.
void check_no_event_leaks(Peer& peer, const std::string& who, EventAudience audience = EventAudience::kPupil);

}  // namespace gofish::server::testing
