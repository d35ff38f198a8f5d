// Server messages, JSON text back to typed values: what C++ clients (the
// terminal client, the load generator) and tests read. Treats every frame as
// untrusted: malformed input yields a sentence, never an exception. The
// spellings it reads are the ones server_messages_encode.cpp writes.
#include <algorithm>

#include "engine/overloaded.hpp"
#include "protocol/event_json.hpp"
#include "protocol/game_json.hpp"
#include "protocol/json_read.hpp"
#include "protocol/messages.hpp"
#include "protocol/room_records.hpp"
#include "protocol/room_settings.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"

namespace gofish::protocol {
namespace engine = gofish::engine;
using detail::Json;
using detail::Reader;

namespace {

constexpr std::size_t kMaxText = 1024;       // names, codes, messages in server frames
constexpr std::int64_t kLastSeat = engine::kMaxSeats - 1;

std::optional<RequestId> read_id(Reader& r) {
  const Json* id = r.get("id");
  if (id == nullptr) return std::nullopt;
  if (id->is_string()) return RequestId(*id->get_ptr<const std::string*>());
  if (auto i = detail::as_integer(*id, -kMaxSafeInteger, kMaxSafeInteger)) return RequestId(*i);
  r.fail("id", "\"id\" must be a string or an integer.");
  return std::nullopt;
}

std::optional<engine::Seat> read_optional_seat(Reader& r, std::string_view key) {
  if (auto s = r.integer(key, 0, kLastSeat)) return static_cast<engine::Seat>(*s);
  return std::nullopt;
}

engine::Seat read_seat(Reader& r, std::string_view key) {
  return static_cast<engine::Seat>(r.required_integer(key, 0, kLastSeat));
}

int read_int(Reader& r, std::string_view key, std::int64_t max = kMaxSafeInteger) {
  return static_cast<int>(r.required_integer(key, 0, std::min<std::int64_t>(max, 1 << 30)));
}

template <class Enum>
Enum read_enum(Reader& r, std::string_view key, std::initializer_list<Enum> values) {
  const std::string text = r.required_string(key, 32);
  for (Enum value : values) {
    if (to_string(value) == text) return value;
  }
  if (!r.failed()) r.fail(key, "\"" + std::string(key) + "\" has an unknown value.");
  return *values.begin();
}

BotLevel read_level(Reader& r, std::string_view key) {
  return read_enum(r, key, {BotLevel::kEasy, BotLevel::kMedium, BotLevel::kHard});
}

std::optional<BotLevel> read_optional_level(Reader& r, std::string_view key) {
  if (!r.has(key)) return std::nullopt;
  return read_level(r, key);
}

std::string read_text(Reader& r, std::string_view key) { return r.required_string(key, kMaxText); }

std::optional<Player> player_from_json(const Json& json) {
  Reader r(json);
  Player p;
  p.name = read_text(r, "name");
  p.bot = read_optional_level(r, "bot");
  if (r.failed()) return std::nullopt;
  return p;
}

TurnTimer read_timer(Reader& r) {
  TurnTimer t;
  t.seat = read_seat(r, "seat");
  t.seconds = read_int(r, "seconds", 24 * 3600);
  t.deadline_ms = r.required_integer("deadline_ms", 0, kMaxSafeInteger);
  return t;
}

std::variant<RoomEvent, std::string> room_event_from_json(const Json& json) {
  if (auto game_event = event_from_json(json)) {
    if (auto* error = std::get_if<std::string>(&*game_event)) return *error;
    return RoomEvent(std::get<engine::Event>(std::move(*game_event)));
  }
  Reader r(json);
  const std::string type = r.required_string("type", 32);
  RoomEvent event;
  if (type == "seat_joined") {
    SeatJoined e;
    e.seat = read_seat(r, "seat");
    e.name = read_text(r, "name");
    event = e;
  } else if (type == "seat_left") {
    SeatLeft e;
    e.seat = read_seat(r, "seat");
    e.name = read_text(r, "name");
    event = e;
  } else if (type == "bot_added") {
    BotAdded e;
    e.seat = read_seat(r, "seat");
    e.level = read_level(r, "level");
    e.name = read_text(r, "name");
    event = e;
  } else if (type == "bot_removed") {
    event = BotRemoved{read_seat(r, "seat")};
  } else if (type == "kicked") {
    Kicked e;
    e.seat = read_seat(r, "seat");
    e.name = read_text(r, "name");
    event = e;
  } else if (type == "connection") {
    ConnectionChanged e;
    e.seat = read_seat(r, "seat");
    e.connected = r.required_boolean("connected");
    event = e;
  } else if (type == "spectators") {
    event = SpectatorsChanged{read_int(r, "count")};
  } else if (type == "host_changed") {
    event = HostChanged{read_seat(r, "seat")};
  } else if (type == "game_started") {
    NewGame e;
    e.game = read_int(r, "game");
    const Json& list = r.required_array("players", engine::kMaxSeats);
    if (r.failed()) return r.error().message;
    auto players = players_from_json(list);
    if (!players) return std::string("\"players\" must hold {name, bot} objects");
    e.players = std::move(*players);
    event = e;
  } else if (type == "bot_takeover") {
    BotTakeover e;
    e.seat = read_seat(r, "seat");
    e.reason = read_enum(r, "reason", {TakeoverReason::kDisconnected, TakeoverReason::kTimeout, TakeoverReason::kLeft,
                                       TakeoverReason::kKicked});
    e.level = read_level(r, "level");
    event = e;
  } else if (type == "turn_timer") {
    event = read_timer(r);
  } else if (type == "deal_committed") {
    DealCommitted e;
    e.algorithm = read_text(r, "algorithm");
    e.commitment = read_text(r, "commitment");
    event = e;
  } else if (type == "rematch") {
    RematchVote e;
    e.seat = read_seat(r, "seat");
    for (const Json& s : r.required_array("ready", engine::kMaxSeats)) {
      const auto seat = detail::as_integer(s, 0, kLastSeat);
      if (!seat) return std::string("\"ready\" must list seats");
      e.ready.push_back(static_cast<engine::Seat>(*seat));
    }
    event = e;
  } else if (type == "chat") {
    ChatPosted e;
    e.seat = read_optional_seat(r, "seat");
    e.name = read_text(r, "name");
    if (r.has("phrase")) {
      e.phrase = read_text(r, "phrase");
    } else {
      e.text = read_text(r, "text");
    }
    event = e;
  } else if (type == "chat_mode") {
    const auto mode = parse_chat_mode(read_text(r, "chat"));
    if (!r.failed() && !mode) return std::string("\"chat\" must be \"free\", \"phrases\" or \"off\"");
    event = ChatModeChanged{mode.value_or(ChatMode::kFree)};
  } else {
    if (r.failed()) return r.error().message;
    return "unknown event type \"" + detail::quote_untrusted(type) + "\"";
  }
  if (r.failed()) return r.error().message;
  return event;
}

std::variant<ServerMessage, std::string> parse_welcome(Reader& r, std::optional<RequestId> id) {
  Welcome m;
  m.id = std::move(id);
  m.server = read_text(r, "server");
  m.version = read_text(r, "version");
  m.protocol = read_int(r, "protocol");
  Reader l(r.required_object("limits"));
  if (r.failed()) return r.error().message;
  WelcomeLimits& w = m.limits;
  const auto integer = [&](std::string_view key) { return l.required_integer(key, 0, kMaxSafeInteger); };
  const auto number = [&](std::string_view key) { return l.number(key, 0, 1e9).value_or(0); };
  w.max_frame_bytes = integer("max_frame_bytes");
  w.messages_per_second = number("messages_per_second");
  w.message_burst = integer("message_burst");
  // Absent from a server older than them: 0, and the client picks a margin.
  w.pace_messages_per_second = number("pace_messages_per_second");
  w.pace_message_burst = l.integer("pace_message_burst", 0, kMaxSafeInteger).value_or(0);
  w.chats_per_second = number("chats_per_second");
  w.chat_burst = integer("chat_burst");
  w.max_name_chars = integer("max_name_chars");
  w.max_chat_chars = integer("max_chat_chars");
  w.max_id_bytes = integer("max_id_bytes");
  w.min_turn_timer_seconds = integer("min_turn_timer_seconds");
  w.max_turn_timer_seconds = integer("max_turn_timer_seconds");
  w.max_spectators = integer("max_spectators");
  w.idle_timeout_ms = integer("idle_timeout_ms");
  w.seat_grace_ms = integer("seat_grace_ms");
  if (l.failed()) return "limits: " + l.error().message;
  return m;
}

std::variant<ServerMessage, std::string> parse_room(Reader& r, std::optional<RequestId> id) {
  RoomSnapshot m;
  m.id = std::move(id);
  m.v = r.required_integer("v", 0, kMaxSafeInteger);
  m.code = read_text(r, "code");
  m.state = read_enum(r, "state", {RoomState::kWaiting, RoomState::kPlaying, RoomState::kOver});
  m.game_number = read_int(r, "game_number");
  const Json& players = r.required_array("players", engine::kMaxSeats);
  if (!r.failed()) {
    auto parsed = players_from_json(players);
    if (!parsed) return std::string("players must hold {name, bot} objects");
    m.players = std::move(*parsed);
  }
  m.host = read_seat(r, "host");
  m.you = read_optional_seat(r, "you");
  m.spectators = read_int(r, "spectators");
  const Json& settings = r.required_object("settings");
  const Json& seats = r.required_array("seats", engine::kMaxSeats);
  if (r.failed()) return r.error().message;
  auto parsed_settings = settings_from_json(settings);
  if (auto* error = std::get_if<std::string>(&parsed_settings)) return *error;
  m.settings = std::get<RoomSettings>(std::move(parsed_settings));

  for (const Json& item : seats) {
    Reader sr(item);
    SeatInfo info;
    info.occupant = read_enum(sr, "occupant", {Occupant::kEmpty, Occupant::kHuman, Occupant::kBot});
    info.name = read_text(sr, "name");
    info.bot = read_optional_level(sr, "bot");
    info.connected = sr.required_boolean("connected");
    info.bot_playing = sr.required_boolean("bot_playing");
    info.kicked = sr.required_boolean("kicked");
    info.rematch = sr.required_boolean("rematch");
    if (sr.failed()) return "seats: " + sr.error().message;
    m.seats.push_back(std::move(info));
  }
  if (const Json* timer = r.object("timer")) {
    Reader tr(*timer);
    m.timer = read_timer(tr);
    if (tr.failed()) return "timer: " + tr.error().message;
  }
  if (const Json* game = r.object("game")) {
    const engine::Viewer viewer = m.you ? engine::Viewer::of(*m.you) : engine::Viewer::spectator();
    auto view = view_from_json(*game, viewer, m.settings.rules.ask_for);
    if (auto* error = std::get_if<std::string>(&view)) return "game: " + *error;
    m.game = std::get<engine::View>(std::move(view));
  }
  if (const Json* result = r.object("result")) {
    auto over = game_over_from_json(*result);
    if (auto* error = std::get_if<std::string>(&over)) return "result: " + *error;
    m.result = std::get<engine::GameOver>(over);
  }
  if (const Json* next = r.object("next_deal")) {
    Reader nr(*next);
    DealFairness deal;
    deal.algorithm = read_text(nr, "algorithm");
    deal.commitment = read_text(nr, "commitment");
    if (nr.failed()) return "next_deal: " + nr.error().message;
    m.next_deal = std::move(deal);
  }
  if (r.failed()) return r.error().message;
  return m;
}

std::variant<ServerMessage, std::string> parse_lobby(Reader& r, std::optional<RequestId> id) {
  LobbyList m;
  m.id = std::move(id);
  const Json& rooms = r.required_array("rooms", 100000);
  if (r.failed()) return r.error().message;
  for (const Json& item : rooms) {
    Reader rr(item);
    LobbyRoom room;
    room.code = read_text(rr, "code");
    room.host = read_text(rr, "host");
    room.preset = read_text(rr, "preset");
    room.seats = read_int(rr, "seats", engine::kMaxSeats);
    room.taken = read_int(rr, "taken", engine::kMaxSeats);
    room.bots = read_int(rr, "bots", engine::kMaxSeats);
    room.spectators = rr.required_boolean("spectators");
    room.turn_timer_seconds = read_int(rr, "turn_timer_seconds");
    room.chat = read_enum(rr, "chat", {ChatMode::kFree, ChatMode::kPhrases, ChatMode::kOff});
    if (rr.failed()) return "rooms: " + rr.error().message;
    m.rooms.push_back(std::move(room));
  }
  return m;
}

std::variant<ServerMessage, std::string> parse_transcript(Reader& r, std::optional<RequestId> id) {
  TranscriptMessage m;
  m.id = std::move(id);
  m.code = read_text(r, "code");
  m.game = read_int(r, "game");
  m.game_id = r.string("game_id", kMaxText);
  const Json& transcript = r.required_object("transcript");
  if (r.failed()) return r.error().message;
  auto parsed = transcript_from_json(transcript);
  if (auto* error = std::get_if<std::string>(&parsed)) return "transcript: " + *error;
  m.transcript = std::get<engine::Transcript>(std::move(parsed));
  if (const auto seats = transcript.find("seats"); seats != transcript.end() && seats->is_array()) {
    auto players = players_from_json(*seats);
    if (!players) return std::string("transcript.seats must hold {name, bot} objects");
    m.players = std::move(*players);
  }
  if (const auto fairness = transcript.find("fairness"); fairness != transcript.end()) {
    auto parsed_fairness = fairness_from_json(*fairness);
    if (auto* error = std::get_if<std::string>(&parsed_fairness)) return "transcript." + *error;
    m.fairness = std::get<DealFairness>(std::move(parsed_fairness));
  }
  return m;
}

}  // namespace

std::optional<std::vector<Player>> players_from_json(const Json& list) {
  if (!list.is_array()) return std::nullopt;
  std::vector<Player> out;
  for (const Json& item : list) {
    auto p = player_from_json(item);
    if (!p) return std::nullopt;
    out.push_back(std::move(*p));
  }
  return out;
}

std::variant<RoomSettings, std::string> settings_from_json(const Json& settings) {
  Reader s(settings);
  RoomSettings out;
  const Json& rules = s.required_object("rules");
  out.seats = static_cast<int>(s.required_integer("seats", 2, engine::kMaxSeats));
  detail::read_settings_fields(s, out, ParseLimits{}, /*in_request=*/false);
  if (s.failed()) return "settings: " + s.error().message;
  auto parsed_rules = rules_from_json(rules);
  if (auto* error = std::get_if<engine::ConfigError>(&parsed_rules)) return "settings.rules: " + error->message;
  out.rules = std::get<engine::Rules>(std::move(parsed_rules));
  return out;
}

std::variant<ServerMessage, std::string> parse_server_message(std::string_view frame) {
  // Server frames are larger than client ones (a room snapshot, a
  // transcript) but nest no deeper than 6.
  if (detail::nesting_depth(frame, 8) > 8) return std::string("nested too deeply");
  const Json json = Json::parse(frame.begin(), frame.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::string("not valid JSON");
  if (!json.is_object()) return std::string("not a JSON object");
  Reader r(json);
  const std::string type = r.required_string("type", 32);
  auto id = read_id(r);
  if (r.failed()) return r.error().message;
  if (detail::parse_event_message(type, json)) {
    return "\"" + type + "\" is a class-event message: parse_event_server_message reads it";
  }

  std::variant<ServerMessage, std::string> result = std::string();
  if (type == "welcome") {
    result = parse_welcome(r, std::move(id));
  } else if (type == "ok") {
    result = Ok{std::move(id)};
  } else if (type == "created") {
    Created m;
    m.id = std::move(id);
    m.code = read_text(r, "code");
    m.seat = read_seat(r, "seat");
    m.token = read_text(r, "token");
    result = m;
  } else if (type == "joined") {
    Joined m;
    m.id = std::move(id);
    m.code = read_text(r, "code");
    m.as = read_enum(r, "as", {JoinAs::kPlayer, JoinAs::kSpectator});
    m.seat = read_optional_seat(r, "seat");
    if (r.has("token")) m.token = read_text(r, "token");
    m.resumed = r.required_boolean("resumed");
    result = m;
  } else if (type == "room") {
    result = parse_room(r, std::move(id));
  } else if (type == "event") {
    EventMessage m;
    m.v = r.required_integer("v", 0, kMaxSafeInteger);
    const Json& event = r.required_object("event");
    if (r.failed()) return r.error().message;
    auto parsed = room_event_from_json(event);
    if (auto* error = std::get_if<std::string>(&parsed)) return "event: " + *error;
    m.event = std::get<RoomEvent>(std::move(parsed));
    result = std::move(m);
  } else if (type == "lobby") {
    result = parse_lobby(r, std::move(id));
  } else if (type == "transcript") {
    result = parse_transcript(r, std::move(id));
  } else if (type == "pong") {
    result = Pong{std::move(id)};
  } else if (type == "error") {
    Error m;
    m.id = std::move(id);
    const std::string code = read_text(r, "code");
    m.message = read_text(r, "message");
    if (r.has("field")) m.field = read_text(r, "field");
    if (r.has("event")) m.event = read_text(r, "event");
    const auto parsed = parse_error_code(code);
    if (!r.failed() && !parsed) return "unknown error code \"" + detail::quote_untrusted(code) + "\"";
    m.code = parsed.value_or(ErrorCode::kServerInternal);
    result = m;
  } else if (type == "closing") {
    Closing m;
    const std::string reason = read_text(r, "reason");
    m.message = read_text(r, "message");
    const auto parsed = parse_close_reason(reason);
    if (!r.failed() && !parsed) return "unknown close reason \"" + detail::quote_untrusted(reason) + "\"";
    m.reason = parsed.value_or(CloseReason::kNormal);
    result = m;
  } else if (type == "turn") {
    Turn m;
    m.v = r.required_integer("v", 0, kMaxSafeInteger);
    m.seat = read_optional_seat(r, "seat");
    if (r.failed()) return r.error().message;
    // The decisions are spelled without the seat's ask form; a client knows
    // the room's rules, a parser without them reads both (cards, then ranks).
    if (const Json* legal = r.object("legal")) {
      if (!m.seat) return std::string("legal without a seat to act");
      const bool cards = legal->contains("ask") && (*legal)["ask"].contains("cards");
      auto parsed = legal_from_json(*legal, *m.seat, cards ? engine::AskFor::kCard : engine::AskFor::kRank);
      if (const auto* error = std::get_if<std::string>(&parsed)) return "legal: " + *error;
      m.legal = std::get<engine::LegalDecisions>(parsed);
    }
    if (const Json* improper = r.object("improper")) {
      const bool cards = improper->contains("ask") && (*improper)["ask"].contains("cards");
      auto parsed = improper_from_json(*improper, cards ? engine::AskFor::kCard : engine::AskFor::kRank);
      if (const auto* error = std::get_if<std::string>(&parsed)) return "improper: " + *error;
      m.improper = std::get<engine::ImproperDecisions>(parsed);
    }
    result = std::move(m);
  } else if (type == "room_closed") {
    RoomClosed m;
    m.code = read_text(r, "code");
    m.reason = read_enum(r, "reason", {RoomClosedReason::kPlayersLeft, RoomClosedReason::kIdle});
    m.message = read_text(r, "message");
    result = std::move(m);
  } else if (type == "room_paused") {
    RoomPaused m;
    m.code = read_text(r, "code");
    m.reason = read_enum(r, "reason", {PauseReason::kSavingFailed, PauseReason::kStoreUnreachable, PauseReason::kTeacher});
    m.message = read_text(r, "message");
    result = std::move(m);
  } else if (type == "room_resumed") {
    RoomResumed m;
    m.code = read_text(r, "code");
    m.message = read_text(r, "message");
    result = std::move(m);
  } else if (type == "daily_result") {
    DailyResult m;
    m.date = read_text(r, "date");
    m.sets = read_int(r, "sets", engine::kRanks);
    m.players = r.required_integer("players", 0, kMaxSafeInteger);
    m.percentile = read_int(r, "percentile", 100);
    m.best = read_int(r, "best", engine::kRanks);
    result = std::move(m);
  } else if (type == "daily") {
    DailySummary m;
    m.id = std::move(id);
    m.date = read_text(r, "date");
    m.players = r.required_integer("players", 0, kMaxSafeInteger);
    m.best = read_int(r, "best", engine::kRanks);
    if (const Json* deal = r.object("deal")) {
      auto read = deal_notice_from_json(*deal);
      if (const auto* error = std::get_if<std::string>(&read)) return "deal: " + *error;
      m.deal = std::get<DealFairness>(std::move(read));
    }
    result = std::move(m);
  } else {
    return "unknown message type \"" + detail::quote_untrusted(type) + "\"";
  }
  if (r.failed()) return r.error().message;
  return result;
}

std::variant<EventServerMessage, std::string> parse_event_server_message(std::string_view frame) {
  const Json json = Json::parse(frame.begin(), frame.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::string("not valid JSON");
  if (!json.is_object()) return std::string("not a JSON object");
  Reader r(json);
  const std::string type = r.required_string("type", 32);
  if (r.failed()) return r.error().message;
  auto parsed = detail::parse_event_message(type, json);
  if (!parsed) return "not a class-event message: \"" + detail::quote_untrusted(type) + "\"";
  return std::move(*parsed);
}

}  // namespace gofish::protocol
