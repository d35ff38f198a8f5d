#include "event_support.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <utility>
#include <variant>

#include "engine/rules.hpp"
#include "protocol/text.hpp"

namespace gofish::server::testing {

protocol::CreateEvent class_event(std::string name, std::vector<std::string> roster, int rounds, bool same_deal) {
  protocol::CreateEvent request;
  request.name = std::move(name);
  request.settings.rules = *engine::preset("classic");
  request.settings.table_size = 4;
  request.settings.bots = protocol::BotLevel::kEasy;
  request.settings.rounds = rounds;
  request.settings.same_deal = same_deal;
  request.roster = std::move(roster);
  return request;
}

protocol::EventState await_event_state(Peer& teacher, const std::function<bool(const protocol::EventState&)>& done,
                                       std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::optional<protocol::EventState> last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto message = teacher.await_class(
        [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventStateMessage>(m); },
        200ms);
    if (!message) continue;
    last = std::get<protocol::EventStateMessage>(*message).event;
    if (done(*last)) return *last;
  }
  FAIL("the teacher never saw the event state waited for; the last: "
       << (last ? protocol::encode(protocol::EventStateMessage{std::nullopt, *last}) : std::string("none")));
  return {};
}

void check_no_event_leaks(Peer& peer, const std::string& who, EventAudience audience) {
  std::vector<std::string> texts;
  for (const auto& frame : peer.frames()) texts.push_back(frame.text);
  for (const auto& frame : peer.class_frames()) texts.push_back(frame.text);
  for (const auto& problem : find_event_leaks(texts, who, audience)) FAIL_CHECK(problem);
}

}  // namespace gofish::server::testing
