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

// {"type":"drew","seat":1,"cause":"fish"}
nlohmann::ordered_json event_to_json(const engine::Event& event);
std::string_view event_type(const engine::Event& event);
// The server's hot path: appends what event_to_json(event).dump() gives, byte
// for byte, without building a json value (every string in a game event is a
// fixed token: a rank, a card, an enum). Returns false, appending nothing,
// for GameOver, which is left to event_to_json.
bool append_event_json(std::string& out, const engine::Event& event);
// Appends an integer as JSON writes it.
void append_json_integer(std::string& out, std::int64_t value);
// nullopt when the type is not an engine event's; otherwise the event or a sentence.
std::optional<std::variant<engine::Event, std::string>> event_from_json(const nlohmann::json& json);

// {"reason":"stock_out","hands":[[...]],"scores":[..],"winners":[..]}: the
// fields of the game_over event, also used for a finished room's result.
nlohmann::ordered_json game_over_fields(const engine::GameOver& over);
std::variant<engine::GameOver, std::string> game_over_from_json(const nlohmann::json& json);

// The viewer's view: own hand, every seat's public facts, stock, turn, the
// pending ask and the viewer's legal decisions (compact: targets x ranks or
// cards, answers, declarable ranks).
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

// Helpers shared by the encoders.
nlohmann::ordered_json cards_to_json(engine::CardSet cards);
nlohmann::ordered_json ranks_to_json(std::uint16_t rank_mask);
nlohmann::ordered_json seats_to_json(std::uint8_t seat_mask);

}  // namespace gofish::protocol
