// JSON spelling of what a viewer sees of a game: engine events and views.
//
// Cards are "QH", ranks "Q", seats integers, enums snake_case. An event is
// encoded exactly as given: the caller passes it through engine::event_for
// first, so a private event (HandDealt, Drew) reaches only its owner and
// everyone else is handed the public twin, which has no card field at all.
// Twins share their wire type ("hand_dealt", "drew"); the owner's copy adds
// the cards.
//
// The encoder names every engine::Event alternative (no generic fallback), so
// a new event type breaks the build here until it has a spelling.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "engine/event.hpp"
#include "engine/view.hpp"

namespace gofish::protocol {

// Each event's fields are written by one function (game_json.cpp), through
// either writer of protocol/json_writer.hpp:
// {"type":"drew","seat":1,"cause":"fish"}, as a json value...
nlohmann::ordered_json event_to_json(const engine::Event& event);
// ...or appended to `out` as text, without building a value (the server's hot
// path): the same bytes as event_to_json(event).dump().
void append_event_json(std::string& out, const engine::Event& event);
std::string_view event_type(const engine::Event& event);
namespace detail {
class StringWriter;
class ValueWriter;
// The event's fields, "type" first, into an open object (for the encoders
// of messages that carry an event).
void write_event(StringWriter& w, const engine::Event& event);
void write_event(ValueWriter& w, const engine::Event& event);
}  // namespace detail
// nullopt when the type is not an engine event's; otherwise the event or a sentence.
std::optional<std::variant<engine::Event, std::string>> event_from_json(const nlohmann::json& json);

// {"reason":"stock_out","hands":[[...]],"scores":[..],"winners":[..]}: the
// fields of the game_over event, also used for a finished room's result.
nlohmann::ordered_json game_over_fields(const engine::GameOver& over);
std::variant<engine::GameOver, std::string> game_over_from_json(const nlohmann::json& json);

// The viewer's view: own hand, every seat's public facts, stock, turn, the
// pending ask and the viewer's legal decisions (compact: targets x ranks or
// cards, answers, declarable ranks); under table rules, when it has any, the
// viewer's improper decisions ("improper", absent otherwise).
nlohmann::ordered_json view_to_json(const engine::View& view);
// `viewer` and `ask_for` are not spelled in the view's JSON; the room
// snapshot around it supplies them.
std::variant<engine::View, std::string> view_from_json(const nlohmann::json& json, engine::Viewer viewer,
                                                       engine::AskFor ask_for);

// The legal decisions of one seat, compact: {"count":N,"ask":{"targets":[..],
// "ranks":[..] or "cards":[..]},"answers":[..],"declare":[..]} (the parts
// that apply), as in a view's "legal". Null when there are none.
nlohmann::ordered_json legal_to_json(const engine::LegalDecisions& legal);
// The decisions of `seat` from that spelling.
std::variant<engine::LegalDecisions, std::string> legal_from_json(const nlohmann::json& json, engine::Seat seat,
                                                                  engine::AskFor ask_for);

// Table rules: the decisions of one seat that are accepted with a penalty,
// compact: {"seat":S,"count":N,"ask":{...},"answers":["go_fish"],
// "penalty":{"ask":"asked_out_of_turn" or "illegal_call","go_fish":
// "false_go_fish"}} (the parts that apply; the groups spelled as in
// legal_to_json), as in a view's and a turn's "improper". Null when there are none.
nlohmann::ordered_json improper_to_json(const engine::ImproperDecisions& improper);
std::variant<engine::ImproperDecisions, std::string> improper_from_json(const nlohmann::json& json,
                                                                        engine::AskFor ask_for);

// Helpers for the encoders that build json values.
nlohmann::ordered_json cards_to_json(engine::CardSet cards);
nlohmann::ordered_json ranks_to_json(std::uint16_t rank_mask);
nlohmann::ordered_json seats_to_json(std::uint8_t seat_mask);

}  // namespace gofish::protocol
