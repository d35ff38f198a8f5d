// Client frames: the one place hostile input is turned into typed messages.
//
// Order of checks, cheapest first: frame size, nesting depth (a linear scan,
// before any recursion), JSON syntax (nlohmann's non-throwing parse), object
// shape, request id, type, then the type's fields. Every read goes through
// detail::Reader, which checks presence, type and range before touching a
// value, so nothing here can throw on bad input.
#include <array>
#include <set>

#include "engine/overloaded.hpp"
#include "protocol/event_json.hpp"
#include "protocol/json_read.hpp"
#include "protocol/messages.hpp"
#include "protocol/room_settings.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"

namespace gofish::protocol {
namespace engine = gofish::engine;
using detail::Json;
using detail::OrderedJson;
using detail::Reader;

namespace {

// In ClientBody order.
constexpr std::array<std::string_view, 38> kClientTypes = {
    "hello",          "create_room", "join",         "resume",       "leave",       "lobby",        "add_bot",
    "remove_bot",     "kick",        "start",        "rematch",      "ask",         "answer",       "declare",
    "chat",           "transcript",  "ping",         "create_event", "join_event",  "resume_event", "seat_pupils",
    "move_pupil",     "free_name",   "start_round",  "end_round",    "read_roster", "pause_tables", "resume_tables",
    "message_tables", "set_chat",    "read_results", "remove_pupil", "seat_to_bot", "allow_late",   "watch_table",
    "play_daily",     "read_daily",  "contribute",
};
static_assert(kClientTypes.size() == std::variant_size_v<ClientBody>, "one wire type per client message");

constexpr std::int64_t kLastSeat = engine::kMaxSeats - 1;
// Room for 32 bytes in hex and some; the rooms layer checks the digits and the length (deal/bad_contribution).
constexpr std::size_t kMaxContributionHex = 128;

std::string read_name(Reader& r, std::string_view key, const ParseLimits& limits) {
  if (r.failed()) return {};
  const Json* value = r.get(key);
  if (value == nullptr) {
    r.fail(key, "\"" + std::string(key) + "\" is missing.");
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

engine::Rank read_rank(Reader& r, std::string_view key) {
  const std::string text = r.required_string(key, 8);
  if (r.failed()) return 0;
  const auto rank = engine::parse_rank(text);
  if (!rank) r.fail(key, "\"" + std::string(key) + "\" must be a rank: 2 to 10, J, Q, K or A.");
  return rank.value_or(0);
}

engine::Seat read_seat(Reader& r, std::string_view key) {
  return static_cast<engine::Seat>(r.required_integer(key, 0, kLastSeat));
}

BotLevel read_level(Reader& r, std::string_view key, bool required) {
  const auto text = required ? std::optional(r.required_string(key, 16)) : r.string(key, 16);
  if (r.failed() || !text) return BotLevel::kMedium;
  const auto level = parse_bot_level(*text);
  if (!level) r.fail(key, "\"" + std::string(key) + "\" must be \"easy\", \"medium\" or \"hard\".");
  return level.value_or(BotLevel::kMedium);
}

Hello parse_hello(Reader& r, const ParseLimits& limits) {
  Hello m;
  const Json* version = r.get("protocol");
  if (version == nullptr) {
    r.fail("protocol", "hello must name the protocol version: \"protocol\": " + std::to_string(kProtocolVersion) + ".");
    return m;
  }
  if (!version->is_number_integer()) {
    r.fail("protocol", "\"protocol\" must be a whole number.");
    return m;
  }
  const auto v = detail::as_integer(*version, 0, kMaxSafeInteger);
  if (v != kProtocolVersion) {
    r.fail(ErrorCode::kVersionMismatch, "protocol",
           "This server speaks protocol " + std::to_string(kProtocolVersion) + ", and the client asked for " +
               detail::quote_untrusted(version->dump(), 24) + "; please update the client.");
    return m;
  }
  m.protocol = kProtocolVersion;
  if (auto client = r.string("client", limits.max_client_bytes)) {
    if (!client->empty() && !detail::valid_string_id(*client, limits.max_client_bytes)) {
      r.fail("client", "\"client\" must be printable ASCII.");
    }
    m.client = std::move(*client);
  }
  return m;
}

CreateRoom parse_create_room(Reader& r, const ParseLimits& limits) {
  CreateRoom m;
  m.name = read_name(r, "name", limits);
  RoomSettings& s = m.settings;
  s.rules = read_rules(r);
  s.seats = static_cast<int>(r.required_integer("seats", 2, engine::kMaxSeats));
  if (!r.failed()) {
    if (auto error = engine::validate(s.rules, s.seats)) r.fail(rules_error(*error));
  }
  detail::read_settings_fields(r, s, limits, /*in_request=*/true);
  if (const Json* bots = r.array("bots", engine::kMaxSeats - 1)) {
    std::uint8_t taken = 0;
    for (std::size_t i = 0; i < bots->size() && !r.failed(); ++i) {
      Reader br((*bots)[i]);
      BotSpec bot;
      bot.seat = static_cast<engine::Seat>(br.required_integer("seat", 1, std::max<std::int64_t>(1, s.seats - 1)));
      bot.level = read_level(br, "level", false);
      const std::string where = "bots[" + std::to_string(i) + "]";
      if (br.failed()) {
        Error error = br.error();
        error.field = where + (error.field ? "." + *error.field : std::string());
        if (error.message == "A message must be a JSON object.") error.message = "Each bot must be an object.";
        r.fail(error);
        break;
      }
      if ((taken >> bot.seat) & 1U) {
        r.fail(where + ".seat", "Two bots cannot share seat " + std::to_string(bot.seat) + ".");
        break;
      }
      taken = static_cast<std::uint8_t>(taken | (1U << bot.seat));
      m.bots.push_back(bot);
    }
  }
  return m;
}

Join parse_join(Reader& r, const ParseLimits& limits) {
  Join m;
  const Json* code = r.get("code");
  if (code == nullptr) {
    r.fail("code", "\"code\" is missing.");
  } else if (!code->is_string()) {
    r.fail("code", "\"code\" must be a string.");
  } else if (auto normal = normalize_room_code(*code->get_ptr<const std::string*>())) {
    m.code = std::move(*normal);
  } else {
    r.fail(ErrorCode::kRoomBadCode, "code", std::string(default_message(ErrorCode::kRoomBadCode)));
  }
  m.name = read_name(r, "name", limits);
  if (auto as = r.string("as", 16)) {
    if (*as == "player") {
      m.as = JoinAs::kPlayer;
    } else if (*as == "spectator") {
      m.as = JoinAs::kSpectator;
    } else {
      r.fail("as", "\"as\" must be \"player\" or \"spectator\".");
    }
  }
  return m;
}

Resume parse_resume(Reader& r, const ParseLimits&) {
  Resume m;
  const Json* token = r.get("token");
  if (token == nullptr) {
    r.fail("token", "\"token\" is missing.");
  } else if (!token->is_string() || !is_token(*token->get_ptr<const std::string*>())) {
    r.fail(ErrorCode::kRoomBadToken, "token", std::string(default_message(ErrorCode::kRoomBadToken)));
  } else {
    m.token = *token->get_ptr<const std::string*>();
  }
  m.last_v = r.integer("last_v", 0, kMaxSafeInteger);
  return m;
}

AddBot parse_add_bot(Reader& r, const ParseLimits&) {
  AddBot m;
  if (auto seat = r.integer("seat", 0, kLastSeat)) m.seat = static_cast<engine::Seat>(*seat);
  m.level = read_level(r, "level", true);
  return m;
}

Ask parse_ask(Reader& r, const ParseLimits&) {
  Ask m;
  m.target = read_seat(r, "target");
  const bool has_rank = r.has("rank");
  const bool has_card = r.has("card");
  if (r.failed()) return m;
  if (has_rank && has_card) {
    r.fail("card", "An ask names either a \"rank\" (\"Q\") or a \"card\" (\"QH\"), not both.");
    return m;
  }
  if (!has_rank && !has_card) {
    r.fail("rank", "An ask needs a \"rank\" (\"Q\") or a \"card\" (\"QH\").");
    return m;
  }
  if (has_rank) {
    m.what = read_rank(r, "rank");
  } else {
    const std::string text = r.required_string("card", 8);
    const auto card = engine::parse_card(text);
    if (!r.failed() && !card) r.fail("card", "\"card\" must be a card such as \"QH\" or \"10D\".");
    m.what = card.value_or(engine::Card{});
  }
  return m;
}

Chat parse_chat(Reader& r, const ParseLimits& limits) {
  Chat m;
  const Json* text = r.get("text");
  const Json* phrase = r.get("phrase");
  if ((text == nullptr) == (phrase == nullptr)) {
    r.fail("text", "A chat message has either \"text\" or a \"phrase\" id.");
    return m;
  }
  if (text != nullptr) {
    if (!text->is_string()) {
      r.fail("text", "\"text\" must be a string.");
      return m;
    }
    auto normal = normalize_chat_text(*text->get_ptr<const std::string*>(), limits);
    if (auto* error = std::get_if<Error>(&normal)) {
      error->field = "text";
      r.fail(*error);
      return m;
    }
    m.text = std::get<std::string>(std::move(normal));
    return m;
  }
  const auto id = detail::as_string(*phrase, 32);
  const Phrase* found = id ? find_phrase(*id) : nullptr;
  if (found == nullptr) {
    r.fail(ErrorCode::kChatNotAPhrase, "phrase", "There is no chat phrase with that id; the welcome message lists them.");
    return m;
  }
  m.phrase = std::string(found->id);
  return m;
}

std::optional<ClientBody> parse_body(std::string_view type, Reader& r, const ParseLimits& limits) {
  if (type == "hello") return parse_hello(r, limits);
  if (type == "create_room") return parse_create_room(r, limits);
  if (type == "join") return parse_join(r, limits);
  if (type == "resume") return parse_resume(r, limits);
  if (type == "leave") return Leave{};
  if (type == "lobby") return Lobby{};
  if (type == "add_bot") return parse_add_bot(r, limits);
  if (type == "remove_bot") return RemoveBot{read_seat(r, "seat")};
  if (type == "kick") return Kick{read_seat(r, "seat")};
  if (type == "start") return Start{};
  if (type == "rematch") return Rematch{};
  if (type == "ask") return parse_ask(r, limits);
  if (type == "answer") return Answer{r.required_boolean("give")};
  if (type == "declare") return Declare{read_rank(r, "rank")};
  if (type == "chat") return parse_chat(r, limits);
  if (type == "transcript") return GetTranscript{};
  if (type == "ping") return Ping{};
  if (type == "play_daily") return PlayDaily{read_name(r, "name", limits)};
  if (type == "read_daily") return ReadDaily{};
  if (type == "contribute") return Contribute{r.required_string("value", kMaxContributionHex)};
  return detail::parse_event_request(type, r, limits);
}

OrderedJson id_to_json(const RequestId& id) {
  return std::visit([](const auto& value) { return OrderedJson(value); }, id);
}

// The rules as their preset plus the fields that differ from it: what a
// person would write, and what rules_from_json reads back to the same value.
OrderedJson rules_delta(const engine::Rules& rules) {
  const Json full = rules_to_json(rules);
  const auto base = engine::preset(rules.preset);
  if (!base) return OrderedJson(full);
  const Json base_json = rules_to_json(*base);
  OrderedJson out = OrderedJson::object();
  out["preset"] = rules.preset;
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (it.key() == "preset") continue;
    const auto b = base_json.find(it.key());
    if (b == base_json.end() || *b != *it) out[it.key()] = OrderedJson(*it);
  }
  return out;
}

}  // namespace

std::string_view to_string(ChatMode mode) {
  switch (mode) {
    case ChatMode::kFree: return "free";
    case ChatMode::kPhrases: return "phrases";
    case ChatMode::kOff: return "off";
  }
  return "free";
}

std::string_view to_string(JoinAs as) { return as == JoinAs::kPlayer ? "player" : "spectator"; }

std::string_view to_string(RoomState state) {
  switch (state) {
    case RoomState::kWaiting: return "waiting";
    case RoomState::kPlaying: return "playing";
    case RoomState::kOver: return "over";
  }
  return "waiting";
}

std::string_view to_string(Occupant occupant) {
  switch (occupant) {
    case Occupant::kEmpty: return "empty";
    case Occupant::kHuman: return "human";
    case Occupant::kBot: return "bot";
  }
  return "empty";
}

std::string_view to_string(TakeoverReason reason) {
  switch (reason) {
    case TakeoverReason::kDisconnected: return "disconnected";
    case TakeoverReason::kTimeout: return "timeout";
    case TakeoverReason::kLeft: return "left";
    case TakeoverReason::kKicked: return "kicked";
  }
  return "disconnected";
}

std::string_view to_string(RoomClosedReason reason) {
  return reason == RoomClosedReason::kPlayersLeft ? "players_left" : "idle";
}

std::string_view to_string(PauseReason reason) {
  switch (reason) {
    case PauseReason::kSavingFailed: return "saving_failed";
    case PauseReason::kStoreUnreachable: return "store_unreachable";
    case PauseReason::kTeacher: return "teacher";
  }
  return "saving_failed";
}

std::optional<ChatMode> parse_chat_mode(std::string_view text) {
  for (ChatMode mode : {ChatMode::kFree, ChatMode::kPhrases, ChatMode::kOff}) {
    if (to_string(mode) == text) return mode;
  }
  return std::nullopt;
}

std::string_view message_type(const ClientBody& body) { return kClientTypes[body.index()]; }

std::span<const std::string_view> client_message_types() { return kClientTypes; }

std::variant<ClientMessage, Error> parse_client_message(std::string_view frame, const ParseLimits& limits) {
  if (frame.size() > limits.max_frame_bytes) {
    return make_error(ErrorCode::kTooLarge,
                      "A message can be " + std::to_string(limits.max_frame_bytes) + " bytes at most.");
  }
  if (detail::nesting_depth(frame, limits.max_depth) > limits.max_depth) {
    return make_error(ErrorCode::kBadMessage,
                      "A message can nest objects and arrays " + std::to_string(limits.max_depth) + " deep at most.");
  }
  const Json json = Json::parse(frame.begin(), frame.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return default_error(ErrorCode::kBadJson);
  if (!json.is_object()) return make_error(ErrorCode::kBadMessage, "A message must be a JSON object.");

  ClientMessage message;
  if (const auto it = json.find("id"); it != json.end() && !it->is_null()) {
    if (it->is_string() && detail::valid_string_id(*it->get_ptr<const std::string*>(), limits.max_id_bytes)) {
      message.id = *it->get_ptr<const std::string*>();
    } else if (auto number = detail::as_integer(*it, -kMaxSafeInteger, kMaxSafeInteger)) {
      message.id = *number;
    } else {
      Error error = make_error(ErrorCode::kBadMessage,
                               "\"id\" must be a whole number or a string of 1 to " +
                                   std::to_string(limits.max_id_bytes) + " printable characters.");
      error.field = "id";
      return error;
    }
  }
  const auto type = json.find("type");
  if (type == json.end() || !type->is_string()) {
    Error error = make_error(ErrorCode::kBadMessage, "A message needs a \"type\" string, such as \"hello\".", message.id);
    error.field = "type";
    return error;
  }
  const std::string& type_name = *type->get_ptr<const std::string*>();
  Reader reader(json);
  auto body = parse_body(type_name, reader, limits);
  if (!body) {
    return make_error(ErrorCode::kUnknownType,
                      "There is no message type \"" + detail::quote_untrusted(type_name) + "\".", message.id);
  }
  if (reader.failed()) {
    Error error = reader.error();
    error.id = message.id;
    return error;
  }
  message.body = std::move(*body);
  return message;
}

std::string encode_client_message(const ClientMessage& message) {
  OrderedJson out = OrderedJson::object();
  out["type"] = message_type(message.body);
  if (message.id) out["id"] = id_to_json(*message.id);
  std::visit(Overloaded{
                 [&](const Hello& m) {
                   out["protocol"] = m.protocol;
                   if (!m.client.empty()) out["client"] = m.client;
                 },
                 [&](const CreateRoom& m) {
                   out["name"] = m.name;
                   out["rules"] = rules_delta(m.settings.rules);
                   out["seats"] = m.settings.seats;
                   OrderedJson bots = OrderedJson::array();
                   for (const BotSpec& b : m.bots) {
                     bots.push_back(OrderedJson{{"seat", b.seat}, {"level", to_string(b.level)}});
                   }
                   out["bots"] = std::move(bots);
                   detail::write_settings_fields(m.settings, out);
                 },
                 [&](const Join& m) {
                   out["code"] = m.code;
                   out["name"] = m.name;
                   out["as"] = to_string(m.as);
                 },
                 [&](const Resume& m) {
                   out["token"] = m.token;
                   if (m.last_v) out["last_v"] = *m.last_v;
                 },
                 [&](const Leave&) {},
                 [&](const Lobby&) {},
                 [&](const AddBot& m) {
                   if (m.seat) out["seat"] = *m.seat;
                   out["level"] = to_string(m.level);
                 },
                 [&](const RemoveBot& m) { out["seat"] = m.seat; },
                 [&](const Kick& m) { out["seat"] = m.seat; },
                 [&](const Start&) {},
                 [&](const Rematch&) {},
                 [&](const Ask& m) {
                   out["target"] = m.target;
                   if (const auto* rank = std::get_if<engine::Rank>(&m.what)) {
                     out["rank"] = std::string(engine::rank_name(*rank));
                   } else {
                     out["card"] = engine::to_string(std::get<engine::Card>(m.what));
                   }
                 },
                 [&](const Answer& m) { out["give"] = m.give; },
                 [&](const Declare& m) { out["rank"] = std::string(engine::rank_name(m.rank)); },
                 [&](const Chat& m) {
                   if (!m.phrase.empty()) {
                     out["phrase"] = m.phrase;
                   } else {
                     out["text"] = m.text;
                   }
                 },
                 [&](const GetTranscript&) {},
                 [&](const Ping&) {},
                 [&](const PlayDaily& m) { out["name"] = m.name; },
                 [&](const ReadDaily&) {},
                 [&](const Contribute& m) { out["value"] = m.value; },
                 [&](const auto&) { detail::write_event_request(message.body, out); },
             },
             message.body);
  return out.dump();
}

std::optional<engine::Decision> decision_of(const ClientBody& body, engine::Seat seat) {
  if (const auto* ask = std::get_if<Ask>(&body)) {
    if (const auto* rank = std::get_if<engine::Rank>(&ask->what)) {
      return engine::Decision{seat, engine::AskRank{ask->target, *rank}};
    }
    return engine::Decision{seat, engine::AskCard{ask->target, std::get<engine::Card>(ask->what)}};
  }
  if (const auto* answer = std::get_if<Answer>(&body)) return engine::Decision{seat, engine::Answer{answer->give}};
  if (const auto* declare = std::get_if<Declare>(&body)) return engine::Decision{seat, engine::Declare{declare->rank}};
  return std::nullopt;
}

ClientBody request_for(const engine::Decision& decision) {
  switch (decision.kind) {
    case engine::DecisionKind::kAskRank: return Ask{decision.target, decision.rank};
    case engine::DecisionKind::kAskCard: return Ask{decision.target, decision.card};
    case engine::DecisionKind::kAnswer: return Answer{decision.give};
    case engine::DecisionKind::kDeclare: return Declare{decision.rank};
  }
  return Declare{decision.rank};  // not a kind (only a cast makes one)
}

}  // namespace gofish::protocol
