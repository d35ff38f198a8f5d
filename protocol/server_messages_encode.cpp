// Server messages, typed values to JSON text: what the server sends. Field
// order is fixed ("type" first, then "id") so the same message always
// encodes to the same bytes. Reading them back, for C++ clients and tests,
// is server_messages_parse.cpp.
#include <array>

#include "engine/overloaded.hpp"
#include "protocol/event_json.hpp"
#include "protocol/game_json.hpp"
#include "protocol/json_read.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/messages.hpp"
#include "protocol/room_records.hpp"
#include "protocol/room_settings.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"

namespace gofish::protocol {
namespace engine = gofish::engine;
using detail::Json;
using detail::OrderedJson;

namespace {


constexpr std::array<std::string_view, 17> kServerTypes = {
    "welcome", "ok",    "created", "joined",  "room", "event",       "lobby",       "transcript",
    "pong",    "error", "closing", "turn",    "room_closed", "room_paused", "room_resumed", "daily_result", "daily",
};
constexpr std::array<std::string_view, 10> kEventServerTypes = {
    "event_created", "event_joined",  "event_state", "event_seat",     "event_roster",
    "event_message", "event_results", "event_left",  "event_unseated", "table_view"};
static_assert(kEventServerTypes.size() == std::variant_size_v<EventServerMessage>, "one wire type per event message");
static_assert(kServerTypes.size() == std::variant_size_v<ServerMessage>, "one wire type per server message");

// Room events that are not engine events, in RoomEvent order (index 0 is the
// engine's, whose types come from event_type(engine::Event)).
constexpr std::array<std::string_view, 16> kRoomEventTypes = {
    "",           "seat_joined", "seat_left",    "bot_added",      "bot_removed",  "kicked",
    "connection", "spectators",  "host_changed", "game_started",   "bot_takeover", "turn_timer",
    "rematch",    "chat",        "chat_mode",    "deal_committed",
};
static_assert(kRoomEventTypes.size() == std::variant_size_v<RoomEvent>, "one wire type per room event");


template <class Writer>
void write_id(Writer& w, const RequestId& id) {
  std::visit(Overloaded{
                 [&](std::int64_t number) { w.number("id", number); },
                 [&](const std::string& text) { w.text("id", text); },
             },
             id);
}

// "type" first, then "id" when the message answers a request.
template <class Writer>
void write_start(Writer& w, std::string_view type, const std::optional<RequestId>& id) {
  w.token("type", type);
  if (id) write_id(w, *id);
}

OrderedJson start(std::string_view type, const std::optional<RequestId>& id) {
  OrderedJson out;
  detail::ValueWriter w(out);
  write_start(w, type, id);
  return out;
}

OrderedJson optional_seat(const std::optional<engine::Seat>& seat) {
  return seat ? OrderedJson(*seat) : OrderedJson(nullptr);
}

OrderedJson optional_level(const std::optional<BotLevel>& level) {
  return level ? OrderedJson(to_string(*level)) : OrderedJson(nullptr);
}

OrderedJson player_to_json(const Player& p) { return OrderedJson{{"name", p.name}, {"bot", optional_level(p.bot)}}; }


OrderedJson timer_fields(OrderedJson out, const TurnTimer& t) {
  out["seat"] = t.seat;
  out["seconds"] = t.seconds;
  out["deadline_ms"] = t.deadline_ms;
  return out;
}

// A room event as a json value. Engine events go through event_to_json
// (EventMessage's writer spells them itself, without a value).
OrderedJson room_event_to_json(const RoomEvent& event) {
  OrderedJson out = OrderedJson::object();
  out["type"] = kRoomEventTypes[event.index()];
  std::visit(Overloaded{
                 [&](const engine::Event& e) { out = event_to_json(e); },
                 [&](const SeatJoined& e) {
                   out["seat"] = e.seat;
                   out["name"] = e.name;
                 },
                 [&](const SeatLeft& e) {
                   out["seat"] = e.seat;
                   out["name"] = e.name;
                 },
                 [&](const BotAdded& e) {
                   out["seat"] = e.seat;
                   out["level"] = to_string(e.level);
                   out["name"] = e.name;
                 },
                 [&](const BotRemoved& e) { out["seat"] = e.seat; },
                 [&](const Kicked& e) {
                   out["seat"] = e.seat;
                   out["name"] = e.name;
                 },
                 [&](const ConnectionChanged& e) {
                   out["seat"] = e.seat;
                   out["connected"] = e.connected;
                 },
                 [&](const SpectatorsChanged& e) { out["count"] = e.count; },
                 [&](const HostChanged& e) { out["seat"] = e.seat; },
                 [&](const NewGame& e) {
                   out["game"] = e.game;
                   OrderedJson players = OrderedJson::array();
                   for (const Player& p : e.players) players.push_back(player_to_json(p));
                   out["players"] = std::move(players);
                 },
                 [&](const BotTakeover& e) {
                   out["seat"] = e.seat;
                   out["reason"] = to_string(e.reason);
                   out["level"] = to_string(e.level);
                 },
                 [&](const TurnTimer& e) { out = timer_fields(std::move(out), e); },
                 [&](const DealCommitted& e) {
                   out["algorithm"] = e.algorithm;
                   out["commitment"] = e.commitment;
                 },
                 [&](const RematchVote& e) {
                   out["seat"] = e.seat;
                   OrderedJson ready = OrderedJson::array();
                   for (engine::Seat s : e.ready) ready.push_back(s);
                   out["ready"] = std::move(ready);
                 },
                 [&](const ChatPosted& e) {
                   out["seat"] = optional_seat(e.seat);
                   out["name"] = e.name;
                   if (!e.phrase.empty()) {
                     out["phrase"] = e.phrase;
                     const Phrase* p = find_phrase(e.phrase);
                     out["text"] = p != nullptr ? std::string(p->text) : std::string();
                   } else {
                     out["text"] = e.text;
                   }
                 },
                 [&](const ChatModeChanged& e) { out["chat"] = to_string(e.chat); },
             },
             event);
  return out;
}

OrderedJson to_json(const Welcome& m) {
  OrderedJson out = start("welcome", m.id);
  out["server"] = m.server;
  out["version"] = m.version;
  out["protocol"] = m.protocol;
  const WelcomeLimits& l = m.limits;
  out["limits"] = OrderedJson{
      {"max_frame_bytes", l.max_frame_bytes},
      {"messages_per_second", l.messages_per_second},
      {"message_burst", l.message_burst},
      {"pace_messages_per_second", l.pace_messages_per_second},
      {"pace_message_burst", l.pace_message_burst},
      {"chats_per_second", l.chats_per_second},
      {"chat_burst", l.chat_burst},
      {"max_name_chars", l.max_name_chars},
      {"max_chat_chars", l.max_chat_chars},
      {"max_id_bytes", l.max_id_bytes},
      {"min_turn_timer_seconds", l.min_turn_timer_seconds},
      {"max_turn_timer_seconds", l.max_turn_timer_seconds},
      {"max_spectators", l.max_spectators},
      {"idle_timeout_ms", l.idle_timeout_ms},
      {"seat_grace_ms", l.seat_grace_ms},
  };
  out["room_code"] = OrderedJson{{"length", kRoomCodeLength}, {"alphabet", kRoomCodeAlphabet}};
  OrderedJson presets = OrderedJson::array();
  for (std::string_view name : engine::preset_names()) {
    presets.push_back(OrderedJson{{"name", name}, {"summary", engine::preset_summary(name)}});
  }
  out["presets"] = std::move(presets);
  out["bot_levels"] = OrderedJson::array({"easy", "medium", "hard"});
  OrderedJson phrases = OrderedJson::array();
  for (const Phrase& p : chat_phrases()) phrases.push_back(OrderedJson{{"id", p.id}, {"text", p.text}});
  out["phrases"] = std::move(phrases);
  return out;
}

// Ok and game events are most of what a server sends: their fields are
// written once, to a writer of json_writer.hpp, and encode() writes them
// straight into the string rather than build a json value first.
template <class Writer>
void write(Writer& w, const Ok& m) {
  write_start(w, "ok", m.id);
}

template <class Writer>
void write(Writer& w, const EventMessage& m) {
  write_start(w, "event", std::nullopt);
  w.number("v", m.v);
  if (const auto* event = std::get_if<engine::Event>(&m.event)) {
    w.object("event", [&](Writer& nested) { detail::write_event(nested, *event); });
  } else {
    w.value("event", room_event_to_json(m.event));
  }
}

template <class Message>
std::string write_string(const Message& m) {
  std::string out;
  // One allocation: most events take 40 to 120 bytes; the string would
  // otherwise grow three times on the way.
  out.reserve(128);
  {
    detail::StringWriter w(out);
    write(w, m);
  }
  return out;
}

OrderedJson to_json(const Created& m) {
  OrderedJson out = start("created", m.id);
  out["code"] = m.code;
  out["invite"] = invite_path(m.code);
  out["seat"] = m.seat;
  out["token"] = m.token;
  return out;
}

OrderedJson to_json(const Joined& m) {
  OrderedJson out = start("joined", m.id);
  out["code"] = m.code;
  out["invite"] = invite_path(m.code);
  out["as"] = to_string(m.as);
  out["seat"] = optional_seat(m.seat);
  if (!m.token.empty()) out["token"] = m.token;
  out["resumed"] = m.resumed;
  return out;
}

OrderedJson to_json(const RoomSnapshot& m) {
  OrderedJson out = start("room", m.id);
  out["v"] = m.v;
  out["code"] = m.code;
  out["invite"] = invite_path(m.code);
  out["state"] = to_string(m.state);
  out["game_number"] = m.game_number;
  OrderedJson players = OrderedJson::array();
  for (const Player& p : m.players) players.push_back(player_to_json(p));
  out["players"] = std::move(players);
  out["host"] = m.host;
  out["you"] = optional_seat(m.you);
  out["settings"] = settings_to_json(m.settings);
  OrderedJson seats = OrderedJson::array();
  for (std::size_t i = 0; i < m.seats.size(); ++i) {
    const SeatInfo& s = m.seats[i];
    seats.push_back(OrderedJson{{"seat", i},
                                {"occupant", to_string(s.occupant)},
                                {"name", s.name},
                                {"bot", optional_level(s.bot)},
                                {"connected", s.connected},
                                {"bot_playing", s.bot_playing},
                                {"kicked", s.kicked},
                                {"rematch", s.rematch}});
  }
  out["seats"] = std::move(seats);
  out["spectators"] = m.spectators;
  out["timer"] = m.timer ? timer_fields(OrderedJson::object(), *m.timer) : OrderedJson(nullptr);
  out["game"] = m.game ? view_to_json(*m.game) : OrderedJson(nullptr);
  out["result"] = m.result ? game_over_fields(*m.result) : OrderedJson(nullptr);
  // The commitment alone, whatever the struct holds: the seed never goes out before the game is over.
  out["next_deal"] = m.next_deal
                         ? OrderedJson{{"algorithm", m.next_deal->algorithm}, {"commitment", m.next_deal->commitment}}
                         : OrderedJson(nullptr);
  return out;
}

OrderedJson to_json(const LobbyList& m) {
  OrderedJson out = start("lobby", m.id);
  OrderedJson rooms = OrderedJson::array();
  for (const LobbyRoom& r : m.rooms) {
    rooms.push_back(OrderedJson{{"code", r.code},
                                {"invite", invite_path(r.code)},
                                {"host", r.host},
                                {"preset", r.preset},
                                {"seats", r.seats},
                                {"taken", r.taken},
                                {"bots", r.bots},
                                {"spectators", r.spectators},
                                {"turn_timer_seconds", r.turn_timer_seconds},
                                {"chat", to_string(r.chat)}});
  }
  out["rooms"] = std::move(rooms);
  return out;
}

OrderedJson transcript_object(const engine::Transcript& t, const std::vector<Player>& players,
                              const std::optional<DealFairness>& fairness) {
  OrderedJson transcript = transcript_to_json(t);
  OrderedJson seats = OrderedJson::array();
  for (const Player& p : players) seats.push_back(player_to_json(p));
  transcript["seats"] = std::move(seats);  // an extra field, as docs/TRANSCRIPT.md allows
  if (fairness) transcript["fairness"] = fairness_to_json(*fairness);  // docs/FAIRNESS.md
  return transcript;
}

OrderedJson to_json(const TranscriptMessage& m) {
  OrderedJson out = start("transcript", m.id);
  out["code"] = m.code;
  out["game"] = m.game;
  if (m.game_id) out["game_id"] = *m.game_id;
  out["transcript"] = transcript_object(m.transcript, m.players, m.fairness);
  return out;
}

OrderedJson to_json(const Pong& m) { return start("pong", m.id); }

OrderedJson to_json(const Error& m) {
  OrderedJson out = start("error", m.id);
  out["code"] = error_code_name(m.code);
  out["message"] = m.message;
  if (m.field) out["field"] = *m.field;
  if (m.event) out["event"] = *m.event;
  return out;
}

OrderedJson to_json(const Closing& m) {
  OrderedJson out = start("closing", std::nullopt);
  out["reason"] = close_reason_name(m.reason);
  out["code"] = close_code(m.reason);
  out["message"] = m.message;
  return out;
}

OrderedJson to_json(const Turn& m) {
  OrderedJson out = start("turn", std::nullopt);
  out["v"] = m.v;
  out["seat"] = optional_seat(m.seat);
  if (m.legal) out["legal"] = legal_to_json(*m.legal);
  if (m.improper) out["improper"] = improper_to_json(*m.improper);
  return out;
}

OrderedJson to_json(const RoomClosed& m) {
  OrderedJson out = start("room_closed", std::nullopt);
  out["code"] = m.code;
  out["reason"] = to_string(m.reason);
  out["message"] = m.message;
  return out;
}

OrderedJson to_json(const RoomPaused& m) {
  OrderedJson out = start("room_paused", std::nullopt);
  out["code"] = m.code;
  out["reason"] = to_string(m.reason);
  out["message"] = m.message;
  return out;
}

OrderedJson to_json(const RoomResumed& m) {
  OrderedJson out = start("room_resumed", std::nullopt);
  out["code"] = m.code;
  out["message"] = m.message;
  return out;
}

OrderedJson to_json(const DailyResult& m) {
  OrderedJson out = start("daily_result", std::nullopt);
  out["date"] = m.date;
  out["sets"] = m.sets;
  out["players"] = m.players;
  out["percentile"] = m.percentile;
  out["best"] = m.best;
  return out;
}

OrderedJson to_json(const DailySummary& m) {
  OrderedJson out = start("daily", m.id);
  out["date"] = m.date;
  out["players"] = m.players;
  out["best"] = m.best;
  if (m.deal) out["deal"] = deal_notice_to_json(*m.deal);
  return out;
}

}  // namespace

Json players_to_json(const std::vector<Player>& players) {
  Json out = Json::array();
  for (const Player& p : players) out.push_back(Json(player_to_json(p)));
  return out;
}

OrderedJson settings_to_json(const RoomSettings& s) {
  OrderedJson out = OrderedJson::object();
  out["rules"] = rules_to_json(s.rules);
  out["seats"] = s.seats;
  detail::write_settings_fields(s, out);
  return out;
}

std::string_view event_type(const RoomEvent& event) {
  if (const auto* game_event = std::get_if<engine::Event>(&event)) return event_type(*game_event);
  return kRoomEventTypes[event.index()];
}

std::string_view message_type(const ServerMessage& message) { return kServerTypes[message.index()]; }

std::string encode(const Welcome& m) { return to_json(m).dump(); }
std::string encode(const Ok& m) { return write_string(m); }
std::string encode(const Created& m) { return to_json(m).dump(); }
std::string encode(const Joined& m) { return to_json(m).dump(); }
std::string encode(const EventCreated& m) { return detail::event_message_json(m).dump(); }
std::string encode(const EventJoined& m) { return detail::event_message_json(m).dump(); }
std::string encode(const EventStateMessage& m) { return detail::event_message_json(m).dump(); }
std::string encode(const EventSeat& m) { return detail::event_message_json(m).dump(); }
std::string encode(const EventRoster& m) { return detail::event_message_json(m).dump(); }
std::string encode(const EventTeacherMessage& m) { return detail::event_message_json(m).dump(); }
std::string encode(const EventResults& m) { return detail::event_results_json(m).dump(); }
std::string encode(const EventLeft& m) { return detail::event_message_json(m).dump(); }
std::string encode(const EventUnseated& m) { return detail::event_message_json(m).dump(); }
std::string encode(const TableView& m) { return detail::event_message_json(m).dump(); }
std::string encode(const RoomSnapshot& m) { return to_json(m).dump(); }
std::string encode(const EventMessage& m) { return write_string(m); }
std::string encode(const LobbyList& m) { return to_json(m).dump(); }
std::string encode(const TranscriptMessage& m) { return to_json(m).dump(); }
std::string encode(const Pong& m) { return to_json(m).dump(); }
std::string encode(const Error& m) { return to_json(m).dump(); }
std::string encode(const Closing& m) { return to_json(m).dump(); }
std::string encode(const Turn& m) { return to_json(m).dump(); }
std::string encode(const RoomClosed& m) { return to_json(m).dump(); }
std::string encode(const RoomPaused& m) { return to_json(m).dump(); }
std::string encode(const RoomResumed& m) { return to_json(m).dump(); }
std::string encode(const DailyResult& m) { return to_json(m).dump(); }
std::string encode(const DailySummary& m) { return to_json(m).dump(); }

std::string transcript_document(const engine::Transcript& transcript, const std::vector<Player>& players,
                                const std::optional<DealFairness>& fairness) {
  return transcript_object(transcript, players, fairness).dump();
}

std::string_view message_type(const EventServerMessage& message) { return kEventServerTypes[message.index()]; }

std::string encode(const EventServerMessage& message) {
  return std::visit([](const auto& m) { return encode(m); }, message);
}

std::string encode(const ServerMessage& message) {
  return std::visit([](const auto& m) { return encode(m); }, message);
}

}  // namespace gofish::protocol
