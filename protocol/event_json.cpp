// Every JSON spelling of class events (event_json.hpp). Requests are read
// through detail::Reader like every client message (nothing here throws on
// what a client sends); server messages are written field by field in a
// fixed order and read back for C++ clients and tests, where a malformed
// frame becomes a sentence.
#include "protocol/event_json.hpp"

#include <algorithm>
#include <set>

#include "engine/overloaded.hpp"
#include "protocol/game_json.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"

namespace gofish::protocol {
namespace engine = gofish::engine;
using detail::Json;
using detail::OrderedJson;
using detail::Reader;

namespace {

constexpr std::int64_t kMaxIndex = static_cast<std::int64_t>(kMaxRosterNames) - 1;

std::string read_event_name(Reader& r, std::string_view key, const ParseLimits& limits, bool required) {
  if (r.failed()) return {};
  const Json* value = r.get(key);
  if (value == nullptr) {
    if (required) r.fail(key, "\"" + std::string(key) + "\" is missing.");
    return {};
  }
  if (!value->is_string()) {
    r.fail(key, "\"" + std::string(key) + "\" must be a string.");
    return {};
  }
  auto name = normalize_name(*value->get_ptr<const std::string*>(), limits);
  if (auto* error = std::get_if<Error>(&name)) {
    error->field = std::string(key);
    r.fail(*error);
    return {};
  }
  return std::get<std::string>(std::move(name));
}

std::string read_event_code(Reader& r) {
  if (r.failed()) return {};
  const Json* code = r.get("code");
  if (code == nullptr) {
    r.fail("code", "\"code\" is missing.");
  } else if (!code->is_string()) {
    r.fail("code", "\"code\" must be a string.");
  } else if (auto normal = normalize_event_code(*code->get_ptr<const std::string*>())) {
    return std::move(*normal);
  } else {
    r.fail(ErrorCode::kEventBadCode, "code", std::string(default_message(ErrorCode::kEventBadCode)));
  }
  return {};
}

std::string read_event_token(Reader& r, bool required) {
  if (r.failed()) return {};
  const Json* token = r.get("token");
  if (token == nullptr) {
    if (required) r.fail("token", "\"token\" is missing.");
    return {};
  }
  if (!token->is_string() || !is_token(*token->get_ptr<const std::string*>())) {
    r.fail(ErrorCode::kEventBadToken, "token", std::string(default_message(ErrorCode::kEventBadToken)));
    return {};
  }
  return *token->get_ptr<const std::string*>();
}

template <class Enum>
std::optional<Enum> enum_of(std::string_view text, std::initializer_list<Enum> values) {
  for (Enum value : values) {
    if (to_string(value) == text) return value;
  }
  return std::nullopt;
}

CreateEvent parse_create_event(Reader& r, const ParseLimits& limits) {
  CreateEvent m;
  m.name = read_event_name(r, "name", limits, true);
  EventSettings& s = m.settings;
  s.rules = read_rules(r);
  s.table_size = static_cast<int>(r.required_integer("table_size", 2, engine::kMaxSeats));
  if (!r.failed()) {
    if (auto error = engine::validate(s.rules, s.table_size)) r.fail(rules_error(*error));
  }
  if (auto level = r.string("bots", 16)) {
    if (auto parsed = parse_bot_level(*level)) {
      s.bots = *parsed;
    } else {
      r.fail("bots", "\"bots\" must be \"easy\", \"medium\" or \"hard\".");
    }
  }
  if (auto chat = r.string("chat", 16)) {
    if (auto parsed = parse_chat_mode(*chat)) {
      s.chat = *parsed;
    } else {
      r.fail("chat", "\"chat\" must be \"phrases\", \"off\" or \"free\".");
    }
  }
  if (auto timer = r.integer("turn_timer_seconds", 0, limits.max_turn_timer_seconds)) {
    if (*timer != 0 && *timer < limits.min_turn_timer_seconds) {
      r.fail("turn_timer_seconds", "\"turn_timer_seconds\" must be 0 (no timer) or from " +
                                       std::to_string(limits.min_turn_timer_seconds) + " to " +
                                       std::to_string(limits.max_turn_timer_seconds) + ".");
    }
    s.turn_timer_seconds = static_cast<int>(*timer);
  }
  if (auto rounds = r.integer("rounds", 1, kMaxEventRounds)) s.rounds = static_cast<int>(*rounds);
  if (auto same = r.boolean("same_deal")) s.same_deal = *same;
  if (auto coaching = r.boolean("coaching")) s.coaching = *coaching;
  if (auto late = r.boolean("late_pupils")) s.late_pupils = *late;
  if (const Json* roster = r.array("roster", kMaxRosterNames)) {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < roster->size() && !r.failed(); ++i) {
      const std::string where = "roster[" + std::to_string(i) + "]";
      const Json& entry = (*roster)[i];
      if (!entry.is_string()) {
        r.fail(where, "Each roster entry must be a name (a string).");
        break;
      }
      auto name = normalize_name(*entry.get_ptr<const std::string*>(), limits);
      if (auto* error = std::get_if<Error>(&name)) {
        error->field = where;
        r.fail(*error);
        break;
      }
      std::string folded = std::get<std::string>(name);
      for (char& c : folded) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      if (!seen.insert(folded).second) {
        r.fail(where, "The roster names " + std::get<std::string>(name) + " twice.");
        break;
      }
      m.roster.push_back(std::get<std::string>(std::move(name)));
    }
  }
  return m;
}

// Checked as chat text is, at most kMaxTeacherMessageChars (or the
// server's chat limit, if lower).
MessageTables parse_message_tables(Reader& r, const ParseLimits& limits) {
  MessageTables m;
  const std::string text = r.required_string("text", 4 * kMaxTeacherMessageChars);
  if (r.failed()) return m;
  ParseLimits teacher = limits;
  teacher.max_chat_chars = std::min(limits.max_chat_chars, static_cast<int>(kMaxTeacherMessageChars));
  auto normal = normalize_chat_text(text, teacher);
  if (auto* error = std::get_if<Error>(&normal)) {
    error->field = "text";
    r.fail(*error);
    return m;
  }
  m.text = std::get<std::string>(std::move(normal));
  return m;
}

JoinEvent parse_join_event(Reader& r, const ParseLimits& limits) {
  JoinEvent m;
  m.code = read_event_code(r);
  const bool has_name = r.has("name");
  const bool has_token = r.has("token");
  if (r.failed()) return m;
  if (has_name == has_token) {
    r.fail("name", "join_event needs a \"name\" (the first time) or your \"token\" (coming back), not both.");
    return m;
  }
  if (has_name) {
    m.name = read_event_name(r, "name", limits, true);
  } else {
    m.token = read_event_token(r, true);
  }
  return m;
}

OrderedJson settings_json(const EventSettings& s) {
  OrderedJson out = OrderedJson::object();
  out["rules"] = rules_to_json(s.rules);
  out["table_size"] = s.table_size;
  out["bots"] = to_string(s.bots);
  out["chat"] = to_string(s.chat);
  out["turn_timer_seconds"] = s.turn_timer_seconds;
  out["rounds"] = s.rounds;
  out["same_deal"] = s.same_deal;
  out["coaching"] = s.coaching;
  out["late_pupils"] = s.late_pupils;
  return out;
}

OrderedJson optional_int(const std::optional<int>& value) { return value ? OrderedJson(*value) : OrderedJson(nullptr); }

OrderedJson pupil_json(const EventPupil& p) {
  return OrderedJson{{"id", p.id},
                     {"name", p.name},
                     {"claimed", p.claimed},
                     {"connected", p.connected},
                     {"table", optional_int(p.table)},
                     {"seat", p.seat ? OrderedJson(*p.seat) : OrderedJson(nullptr)},
                     {"unseated", p.unseated}};
}

OrderedJson table_json(const EventTable& t) {
  OrderedJson seats = OrderedJson::array();
  for (const EventTableSeat& s : t.seats) {
    seats.push_back(OrderedJson{{"occupant", to_string(s.occupant)},
                                {"name", s.name},
                                {"pupil", optional_int(s.pupil)},
                                {"bot", s.bot ? OrderedJson(to_string(*s.bot)) : OrderedJson(nullptr)},
                                {"connected", s.connected},
                                {"bot_playing", s.bot_playing},
                                {"cards", s.cards},
                                {"sets", s.sets},
                                {"ranks", detail::rank_list_json(s.ranks)}});
  }
  return OrderedJson{{"table", t.table},
                     {"room", t.room},
                     {"state", to_string(t.state)},
                     {"turn", t.turn ? OrderedJson(*t.turn) : OrderedJson(nullptr)},
                     {"pond", t.pond},
                     {"game_id", t.game_id ? OrderedJson(*t.game_id) : OrderedJson(nullptr)},
                     {"seats", std::move(seats)}};
}

OrderedJson state_json(const EventState& e) {
  OrderedJson pupils = OrderedJson::array();
  for (const EventPupil& p : e.pupils) pupils.push_back(pupil_json(p));
  OrderedJson tables = OrderedJson::array();
  for (const EventTable& t : e.tables) tables.push_back(table_json(t));
  OrderedJson out{
      {"code", e.code},   {"name", e.name},     {"settings", settings_json(e.settings)}, {"state", to_string(e.state)},
      {"round", e.round}, {"paused", e.paused}, {"pupils", std::move(pupils)},           {"tables", std::move(tables)}};
  if (e.next_deal) out["next_deal"] = deal_notice_to_json(*e.next_deal);
  if (e.deal) out["deal"] = deal_notice_to_json(*e.deal);
  return out;
}

OrderedJson start(std::string_view type, const std::optional<RequestId>& id) {
  OrderedJson out = OrderedJson::object();
  out["type"] = type;
  if (id) std::visit([&](const auto& value) { out["id"] = value; }, *id);
  return out;
}

// ---- reading back (trusted-ish frames; every failure becomes a sentence)

std::optional<int> read_optional_int(const Json& json, const char* key) {
  const Json& value = json.at(key);
  if (value.is_null()) return std::nullopt;
  return value.get<int>();
}

EventSettings settings_from(const Json& json) {
  EventSettings s;
  auto rules = rules_from_json(json.at("rules"));
  if (auto* error = std::get_if<engine::ConfigError>(&rules)) throw std::runtime_error("rules: " + error->message);
  s.rules = std::get<engine::Rules>(std::move(rules));
  s.table_size = json.at("table_size").get<int>();
  if (s.table_size < 2 || s.table_size > engine::kMaxSeats) throw std::runtime_error("table_size out of range");
  const auto level = parse_bot_level(json.at("bots").get<std::string>());
  if (!level) throw std::runtime_error("unknown bot level");
  s.bots = *level;
  const auto chat = parse_chat_mode(json.at("chat").get<std::string>());
  if (!chat) throw std::runtime_error("unknown chat mode");
  s.chat = *chat;
  s.turn_timer_seconds = json.at("turn_timer_seconds").get<int>();
  s.rounds = json.at("rounds").get<int>();
  s.same_deal = json.at("same_deal").get<bool>();
  s.coaching = json.at("coaching").get<bool>();
  // Absent in records from before allow_late: its default.
  if (const auto it = json.find("late_pupils"); it != json.end()) s.late_pupils = it->get<bool>();
  return s;
}

EventPupil pupil_from(const Json& json) {
  EventPupil p;
  p.id = json.at("id").get<int>();
  p.name = json.at("name").get<std::string>();
  p.claimed = json.at("claimed").get<bool>();
  p.connected = json.at("connected").get<bool>();
  p.table = read_optional_int(json, "table");
  if (auto seat = read_optional_int(json, "seat")) p.seat = static_cast<engine::Seat>(*seat);
  p.unseated = json.at("unseated").get<bool>();
  return p;
}

EventTable table_from(const Json& json) {
  EventTable t;
  t.table = json.at("table").get<int>();
  t.room = json.at("room").get<std::string>();
  const auto state = enum_of(json.at("state").get<std::string>(),
                             {RoomState::kWaiting, RoomState::kPlaying, RoomState::kOver});
  if (!state) throw std::runtime_error("unknown table state");
  t.state = *state;
  if (auto turn = read_optional_int(json, "turn")) t.turn = static_cast<engine::Seat>(*turn);
  t.pond = json.at("pond").get<int>();
  if (!json.at("game_id").is_null()) t.game_id = json.at("game_id").get<std::string>();
  for (const Json& seat : json.at("seats")) {
    EventTableSeat s;
    const auto occupant = enum_of(seat.at("occupant").get<std::string>(),
                                  {Occupant::kEmpty, Occupant::kHuman, Occupant::kBot});
    if (!occupant) throw std::runtime_error("unknown occupant");
    s.occupant = *occupant;
    s.name = seat.at("name").get<std::string>();
    s.pupil = read_optional_int(seat, "pupil");
    if (!seat.at("bot").is_null()) {
      const auto level = parse_bot_level(seat.at("bot").get<std::string>());
      if (!level) throw std::runtime_error("unknown bot level");
      s.bot = *level;
    }
    s.connected = seat.at("connected").get<bool>();
    s.bot_playing = seat.at("bot_playing").get<bool>();
    s.cards = seat.at("cards").get<int>();
    s.sets = seat.at("sets").get<int>();
    s.ranks = detail::rank_list_from(seat.at("ranks"));
    t.seats.push_back(std::move(s));
  }
  return t;
}

// An optional deal notice; throws, naming it, when it is malformed.
std::optional<DealFairness> deal_notice_from(const Json& json, const char* key) {
  const auto it = json.find(key);
  if (it == json.end()) return std::nullopt;
  auto deal = deal_notice_from_json(*it);
  if (const auto* error = std::get_if<std::string>(&deal)) throw std::runtime_error(std::string(key) + ": " + *error);
  return std::get<DealFairness>(std::move(deal));
}

EventState state_from(const Json& json) {
  EventState e;
  e.code = json.at("code").get<std::string>();
  e.name = json.at("name").get<std::string>();
  e.settings = settings_from(json.at("settings"));
  const auto phase = enum_of(json.at("state").get<std::string>(),
                             {EventPhase::kOpen, EventPhase::kPlaying, EventPhase::kClosed});
  if (!phase) throw std::runtime_error("unknown event state");
  e.state = *phase;
  e.round = json.at("round").get<int>();
  e.paused = json.at("paused").get<bool>();
  for (const Json& pupil : json.at("pupils")) e.pupils.push_back(pupil_from(pupil));
  for (const Json& table : json.at("tables")) e.tables.push_back(table_from(table));
  e.next_deal = deal_notice_from(json, "next_deal");
  e.deal = deal_notice_from(json, "deal");
  return e;
}

std::optional<RequestId> id_from(const Json& json) {
  const auto it = json.find("id");
  if (it == json.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return RequestId(it->get<std::string>());
  return RequestId(it->get<std::int64_t>());
}

}  // namespace

std::string_view to_string(EventPhase phase) {
  switch (phase) {
    case EventPhase::kOpen: return "open";
    case EventPhase::kPlaying: return "playing";
    case EventPhase::kClosed: return "closed";
  }
  return "open";
}

bool is_teacher_command(const ClientBody& body) {
  return std::holds_alternative<SeatPupils>(body) || std::holds_alternative<MovePupil>(body) ||
         std::holds_alternative<FreeName>(body) || std::holds_alternative<StartRound>(body) ||
         std::holds_alternative<EndRound>(body) || std::holds_alternative<PauseTables>(body) ||
         std::holds_alternative<ResumeTables>(body) || std::holds_alternative<MessageTables>(body) ||
         std::holds_alternative<SetChat>(body) || std::holds_alternative<ReadResults>(body) ||
         std::holds_alternative<RemovePupil>(body) || std::holds_alternative<SeatToBot>(body) ||
         std::holds_alternative<AllowLate>(body) || std::holds_alternative<WatchTable>(body);
}

namespace detail {

std::optional<ClientBody> parse_event_request(std::string_view type, Reader& r, const ParseLimits& limits) {
  if (type == "create_event") return parse_create_event(r, limits);
  if (type == "join_event") return parse_join_event(r, limits);
  if (type == "resume_event") {
    ResumeEvent m;
    m.code = read_event_code(r);
    m.token = read_event_token(r, true);
    return m;
  }
  if (type == "seat_pupils") return SeatPupils{};
  if (type == "move_pupil") {
    MovePupil m;
    m.pupil = static_cast<int>(r.required_integer("pupil", 0, kMaxIndex));
    m.table = static_cast<int>(r.required_integer("table", 0, kMaxIndex));
    return m;
  }
  if (type == "free_name") return FreeName{static_cast<int>(r.required_integer("pupil", 0, kMaxIndex))};
  if (type == "start_round") return StartRound{};
  if (type == "end_round") return EndRound{};
  if (type == "read_roster") return ReadRoster{read_event_code(r)};
  if (type == "pause_tables") return PauseTables{};
  if (type == "resume_tables") return ResumeTables{};
  if (type == "message_tables") return parse_message_tables(r, limits);
  if (type == "set_chat") {
    SetChat m;
    const std::string chat = r.required_string("chat", 16);
    if (r.failed()) return m;
    if (auto parsed = parse_chat_mode(chat)) {
      m.chat = *parsed;
    } else {
      r.fail("chat", "\"chat\" must be \"phrases\", \"off\" or \"free\".");
    }
    return m;
  }
  if (type == "read_results") return ReadResults{};
  if (type == "remove_pupil") return RemovePupil{static_cast<int>(r.required_integer("pupil", 0, kMaxIndex))};
  if (type == "seat_to_bot") return SeatToBot{static_cast<int>(r.required_integer("pupil", 0, kMaxIndex))};
  if (type == "allow_late") return AllowLate{r.required_boolean("allow")};
  // Null (like any null member, or an absent one): stop watching.
  if (type == "watch_table") {
    WatchTable m;
    if (auto table = r.integer("table", 0, kMaxIndex)) m.table = static_cast<int>(*table);
    return m;
  }
  return std::nullopt;
}

bool write_event_request(const ClientBody& body, OrderedJson& out) {
  return std::visit(Overloaded{
                        [&](const CreateEvent& m) {
                          out["name"] = m.name;
                          OrderedJson settings = settings_json(m.settings);
                          for (auto it = settings.begin(); it != settings.end(); ++it) out[it.key()] = *it;
                          if (!m.roster.empty()) out["roster"] = m.roster;
                          return true;
                        },
                        [&](const JoinEvent& m) {
                          out["code"] = m.code;
                          if (!m.token.empty()) {
                            out["token"] = m.token;
                          } else {
                            out["name"] = m.name;
                          }
                          return true;
                        },
                        [&](const ResumeEvent& m) {
                          out["code"] = m.code;
                          out["token"] = m.token;
                          return true;
                        },
                        [&](const SeatPupils&) { return true; },
                        [&](const MovePupil& m) {
                          out["pupil"] = m.pupil;
                          out["table"] = m.table;
                          return true;
                        },
                        [&](const FreeName& m) {
                          out["pupil"] = m.pupil;
                          return true;
                        },
                        [&](const StartRound&) { return true; },
                        [&](const EndRound&) { return true; },
                        [&](const ReadRoster& m) {
                          out["code"] = m.code;
                          return true;
                        },
                        [&](const PauseTables&) { return true; },
                        [&](const ResumeTables&) { return true; },
                        [&](const MessageTables& m) {
                          out["text"] = m.text;
                          return true;
                        },
                        [&](const SetChat& m) {
                          out["chat"] = to_string(m.chat);
                          return true;
                        },
                        [&](const ReadResults&) { return true; },
                        [&](const RemovePupil& m) {
                          out["pupil"] = m.pupil;
                          return true;
                        },
                        [&](const SeatToBot& m) {
                          out["pupil"] = m.pupil;
                          return true;
                        },
                        [&](const AllowLate& m) {
                          out["allow"] = m.allow;
                          return true;
                        },
                        [&](const WatchTable& m) {
                          out["table"] = optional_int(m.table);
                          return true;
                        },
                        [&](const auto&) { return false; },
                    },
                    body);
}

OrderedJson event_message_json(const EventCreated& m) {
  OrderedJson out = start("event_created", m.id);
  out["code"] = m.code;
  out["token"] = m.token;
  out["event"] = state_json(m.event);
  return out;
}

OrderedJson event_message_json(const EventJoined& m) {
  OrderedJson out = start("event_joined", m.id);
  out["code"] = m.code;
  out["name"] = m.name;
  if (!m.token.empty()) out["token"] = m.token;
  out["resumed"] = m.resumed;
  out["round"] = m.round;
  out["coaching"] = m.coaching;
  out["pupil"] = pupil_json(m.pupil);
  if (m.next_deal) out["next_deal"] = deal_notice_to_json(*m.next_deal);
  return out;
}

OrderedJson event_message_json(const EventStateMessage& m) {
  OrderedJson out = start("event_state", m.id);
  out["event"] = state_json(m.event);
  return out;
}

OrderedJson event_message_json(const EventSeat& m) {
  OrderedJson out = start("event_seat", std::nullopt);
  out["event"] = m.event;
  out["round"] = m.round;
  out["table"] = m.table;
  out["room"] = m.room;
  out["seat"] = m.seat;
  out["token"] = m.token;
  out["coaching"] = m.coaching;
  if (m.next_deal) out["next_deal"] = deal_notice_to_json(*m.next_deal);
  return out;
}

OrderedJson event_message_json(const EventRoster& m) {
  OrderedJson out = start("event_roster", m.id);
  out["code"] = m.code;
  out["name"] = m.name;
  out["roster"] = m.roster;
  OrderedJson names = OrderedJson::array();
  for (const EventRosterName& n : m.names) names.push_back(OrderedJson{{"name", n.name}, {"claimed", n.claimed}});
  out["names"] = std::move(names);
  out["coaching"] = m.coaching;
  out["state"] = to_string(m.state);
  return out;
}

OrderedJson event_message_json(const EventTeacherMessage& m) {
  OrderedJson out = start("event_message", std::nullopt);
  out["text"] = m.text;
  return out;
}

OrderedJson event_message_json(const EventLeft& m) {
  OrderedJson out = start("event_left", std::nullopt);
  out["reason"] = m.reason;
  return out;
}

OrderedJson event_message_json(const EventUnseated& m) {
  OrderedJson out = start("event_unseated", std::nullopt);
  out["reason"] = m.reason;
  return out;
}

OrderedJson event_message_json(const TableView& m) {
  OrderedJson out = start("table_view", std::nullopt);
  out["table"] = m.table;
  out["room"] = m.room;
  out["state"] = to_string(m.state);
  out["turn"] = m.turn ? OrderedJson(*m.turn) : OrderedJson(nullptr);
  out["pond"] = m.pond;
  OrderedJson seats = OrderedJson::array();
  for (const TableViewSeat& s : m.seats) {
    OrderedJson seat{{"seat", s.seat},
                     {"name", s.name},
                     {"pupil", optional_int(s.pupil)},
                     {"cards", s.cards},
                     {"sets", rank_list_json(s.sets)}};
    if (s.hand) seat["hand"] = cards_to_json(*s.hand);
    seats.push_back(std::move(seat));
  }
  out["seats"] = std::move(seats);
  return out;
}

std::optional<std::variant<EventServerMessage, std::string>> parse_event_message(std::string_view type,
                                                                                const Json& json) {
  if (type == "event_results") return event_results_from_json(json);
  if (type != "event_created" && type != "event_joined" && type != "event_state" && type != "event_seat" &&
      type != "event_roster" && type != "event_message" && type != "event_left" && type != "event_unseated" &&
      type != "table_view") {
    return std::nullopt;
  }
  try {
    if (type == "event_created") {
      return EventServerMessage(EventCreated{id_from(json), json.at("code").get<std::string>(),
                                        json.at("token").get<std::string>(), state_from(json.at("event"))});
    }
    if (type == "event_joined") {
      EventJoined m;
      m.id = id_from(json);
      m.code = json.at("code").get<std::string>();
      m.name = json.at("name").get<std::string>();
      if (json.contains("token")) m.token = json.at("token").get<std::string>();
      m.resumed = json.at("resumed").get<bool>();
      m.round = json.at("round").get<int>();
      m.coaching = json.at("coaching").get<bool>();
      m.pupil = pupil_from(json.at("pupil"));
      m.next_deal = deal_notice_from(json, "next_deal");
      return EventServerMessage(std::move(m));
    }
    if (type == "event_state") return EventServerMessage(EventStateMessage{id_from(json), state_from(json.at("event"))});
    if (type == "event_roster") {
      EventRoster m;
      m.id = id_from(json);
      m.code = json.at("code").get<std::string>();
      m.name = json.at("name").get<std::string>();
      m.roster = json.at("roster").get<bool>();
      for (const Json& n : json.at("names")) {
        m.names.push_back(EventRosterName{n.at("name").get<std::string>(), n.at("claimed").get<bool>()});
      }
      m.coaching = json.at("coaching").get<bool>();
      const auto phase = enum_of(json.at("state").get<std::string>(),
                                 {EventPhase::kOpen, EventPhase::kPlaying, EventPhase::kClosed});
      if (!phase) return std::string("event_roster: unknown state");
      m.state = *phase;
      return EventServerMessage(std::move(m));
    }
    if (type == "event_message") return EventServerMessage(EventTeacherMessage{json.at("text").get<std::string>()});
    if (type == "event_left") return EventServerMessage(EventLeft{json.at("reason").get<std::string>()});
    if (type == "event_unseated") return EventServerMessage(EventUnseated{json.at("reason").get<std::string>()});
    if (type == "table_view") {
      TableView m;
      m.table = json.at("table").get<int>();
      m.room = json.at("room").get<std::string>();
      const auto state = enum_of(json.at("state").get<std::string>(),
                                 {RoomState::kWaiting, RoomState::kPlaying, RoomState::kOver});
      if (!state) return std::string("table_view: unknown state");
      m.state = *state;
      if (auto turn = read_optional_int(json, "turn")) m.turn = static_cast<engine::Seat>(*turn);
      m.pond = json.at("pond").get<int>();
      for (const Json& seat : json.at("seats")) {
        TableViewSeat s;
        s.seat = static_cast<engine::Seat>(seat.at("seat").get<int>());
        s.name = seat.at("name").get<std::string>();
        s.pupil = read_optional_int(seat, "pupil");
        s.cards = seat.at("cards").get<int>();
        s.sets = rank_list_from(seat.at("sets"));
        if (const auto hand = seat.find("hand"); hand != seat.end()) {
          engine::CardSet cards;
          for (const Json& card : *hand) {
            const auto parsed = engine::parse_card(card.get<std::string>());
            if (!parsed) return std::string("table_view: not a card");
            cards.add(*parsed);
          }
          s.hand = cards;
        }
        m.seats.push_back(std::move(s));
      }
      return EventServerMessage(std::move(m));
    }
    EventSeat m;
    m.event = json.at("event").get<std::string>();
    m.round = json.at("round").get<int>();
    m.table = json.at("table").get<int>();
    m.room = json.at("room").get<std::string>();
    const int seat = json.at("seat").get<int>();
    if (seat < 0 || seat >= engine::kMaxSeats) return std::string("event_seat: seat out of range");
    m.seat = static_cast<engine::Seat>(seat);
    m.token = json.at("token").get<std::string>();
    m.coaching = json.at("coaching").get<bool>();
    m.next_deal = deal_notice_from(json, "next_deal");
    return EventServerMessage(std::move(m));
  } catch (const std::exception& error) {
    return std::string(type) + ": " + error.what();
  }
}

}  // namespace detail

namespace {

// A seed as the record keeps it: 64 lowercase hex digits (32 bytes).
bool is_seed_hex(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::string event_settings_record(const EventSettingsRecord& record) {
  OrderedJson out = settings_json(record.settings);
  out["roster"] = record.roster;
  if (record.paused) out["paused"] = true;
  if (record.watching) out["watching"] = *record.watching;
  if (!record.next_seed.empty()) out["next_seed"] = record.next_seed;
  if (!record.round_seed.empty()) out["round_seed"] = record.round_seed;
  return out.dump();
}

std::string event_settings_record(const EventSettings& settings, const std::vector<std::string>& roster, bool paused,
                                  std::optional<int> watching) {
  return event_settings_record(EventSettingsRecord{settings, roster, paused, watching, {}, {}});
}

std::optional<EventSettingsRecord> event_settings_from_record(std::string_view text) {
  const Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  try {
    EventSettingsRecord record;
    record.settings = settings_from(json);
    record.roster = json.at("roster").get<std::vector<std::string>>();
    if (const auto it = json.find("paused"); it != json.end()) record.paused = it->get<bool>();
    if (const auto it = json.find("watching"); it != json.end()) {
      const int table = it->get<int>();
      if (table < 0) return std::nullopt;
      record.watching = table;
    }
    for (auto [key, seed] : {std::pair{"next_seed", &record.next_seed}, std::pair{"round_seed", &record.round_seed}}) {
      if (const auto it = json.find(key); it != json.end()) {
        *seed = it->get<std::string>();
        if (!is_seed_hex(*seed)) return std::nullopt;
      }
    }
    return record;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A seat is `null` (a bot), a pupil's number, or (let go during the round)
// {"let_go":true} with "unseated": the pupil seat_to_bot took it from.
std::string table_seats_record(const TableSeatsRecord& seats) {
  OrderedJson out = OrderedJson::array();
  for (std::size_t s = 0; s < seats.pupils.size(); ++s) {
    const bool let_go = s < seats.let_go.size() && seats.let_go[s];
    if (!let_go) {
      out.push_back(optional_int(seats.pupils[s]));
      continue;
    }
    OrderedJson seat{{"let_go", true}};
    if (s < seats.unseated.size() && seats.unseated[s]) seat["unseated"] = *seats.unseated[s];
    out.push_back(std::move(seat));
  }
  return out.dump();
}

std::optional<TableSeatsRecord> table_seats_from_record(std::string_view text) {
  const Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_array()) return std::nullopt;
  TableSeatsRecord out;
  for (const Json& entry : json) {
    std::optional<int> unseated;
    bool let_go = false;
    if (entry.is_null()) {
      out.pupils.emplace_back();
    } else if (entry.is_number_integer()) {
      out.pupils.emplace_back(entry.get<int>());
    } else if (entry.is_object() && entry.value("let_go", false) == true) {
      out.pupils.emplace_back();
      let_go = true;
      if (const auto it = entry.find("unseated"); it != entry.end()) {
        if (!it->is_number_integer()) return std::nullopt;
        unseated = it->get<int>();
      }
    } else {
      return std::nullopt;
    }
    out.let_go.push_back(let_go);
    out.unseated.push_back(unseated);
  }
  return out;
}

}  // namespace gofish::protocol
