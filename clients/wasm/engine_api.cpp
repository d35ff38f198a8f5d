#include "clients/wasm/engine_api.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>

#include "engine/match.hpp"
#include "engine/view.hpp"
#include "protocol/errors.hpp"
#include "protocol/game_json.hpp"
#include "protocol/rules_json.hpp"

namespace gofish::wasm {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;
using protocol::ErrorCode;

// The answer's text. A string from the request that is not valid UTF-8 (a
// misspelt rules field, say) is written with replacement characters rather
// than thrown over: the module cannot catch exceptions.
std::string answer_text(const OrderedJson& answer) {
  return answer.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

OrderedJson error_answer(const protocol::Error& error) {
  OrderedJson body = OrderedJson::object();
  body["code"] = protocol::error_code_name(error.code);
  body["message"] = error.message;
  if (error.field) body["field"] = *error.field;
  OrderedJson out = OrderedJson::object();
  out["error"] = std::move(body);
  return out;
}

OrderedJson error_answer(ErrorCode code, std::string message) {
  return error_answer(protocol::make_error(code, std::move(message)));
}

// The request as a JSON object, or an error answer. Parsed without
// exceptions: the module is built without exception catching.
std::variant<Json, OrderedJson> parse(std::string_view text) {
  Json parsed = Json::parse(text.begin(), text.end(), nullptr, false);
  if (parsed.is_discarded()) return error_answer(ErrorCode::kBadJson, "The request is not JSON.");
  if (!parsed.is_object()) return error_answer(ErrorCode::kBadMessage, "The request must be a JSON object.");
  return parsed;
}

const Json* member(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found == object.end() || found->is_null() ? nullptr : &*found;
}

std::optional<int> integer(const Json& object, const char* key, int min, int max) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_number_integer()) return std::nullopt;
  const auto number = value->get<std::int64_t>();
  if (number < min || number > max) return std::nullopt;
  return static_cast<int>(number);
}

// A seat of the game: an integer from 0 to players - 1.
std::optional<engine::Seat> seat_of(const Json& object, const char* key, const engine::Game& game) {
  return integer(object, key, 0, game.players() - 1);
}

// "viewer": a seat, "spectator", or (where allowed) "all": every event as it
// happened, private cards included. nullopt inside means "all".
struct ViewerChoice {
  std::optional<engine::Viewer> viewer;
};

std::optional<ViewerChoice> viewer_of(const Json& request, const engine::Game& game, bool all_allowed) {
  const Json* value = member(request, "viewer");
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    if (text == "spectator") return ViewerChoice{engine::Viewer::spectator()};
    if (text == "all" && all_allowed) return ViewerChoice{};
    return std::nullopt;
  }
  if (auto seat = seat_of(request, "viewer", game)) return ViewerChoice{engine::Viewer::of(*seat)};
  return std::nullopt;
}

// The events from `since` on, as a JSON array's text: protocol's text
// encoder, the server's, which writes the bytes event_to_json(e).dump() would
// without building a value for each event (measured here: a replay's answer
// in about half the time).
std::string events_json(const std::vector<engine::Event>& events, std::size_t since, const ViewerChoice& choice) {
  std::string out = "[";
  for (std::size_t i = since; i < events.size(); ++i) {
    if (i > since) out += ',';
    protocol::append_event_json(out, choice.viewer ? engine::event_for(events[i], *choice.viewer) : events[i]);
  }
  out += ']';
  return out;
}

// `head`'s members, then "events": `events` (the text of a JSON array).
std::string with_events(const OrderedJson& head, const std::string& events) {
  std::string out = answer_text(head);
  out.pop_back();
  out += out.size() > 1 ? ",\"events\":" : "\"events\":";
  out += events;
  out += '}';
  return out;
}

OrderedJson to_act_json(const engine::Game& game) {
  return game.over() ? OrderedJson(nullptr) : OrderedJson(game.to_act());
}

// `out` and where the game stands after a move: the first new event
// ("since"), the number of events, over, and who is to act.
OrderedJson with_progress(OrderedJson out, const Table& table, std::size_t since) {
  out["since"] = since;
  out["events"] = table.events().size();
  out["over"] = table.game().over();
  out["to_act"] = to_act_json(table.game());
  return out;
}

std::optional<std::uint64_t> seed_of(const Json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) return value.get<std::uint64_t>();
  if (!value.is_string()) return std::nullopt;
  const auto& text = value.get_ref<const std::string&>();
  std::uint64_t seed = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (status != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return seed;
}

}  // namespace

Table* EngineApi::find(const Json& request, OrderedJson& error) {
  const auto id = integer(request, "game", 1, next_id_);
  const auto found = id ? tables_.find(*id) : tables_.end();
  if (found == tables_.end()) {
    error = error_answer(ErrorCode::kBadMessage, "\"game\" must name a game this module holds.");
    return nullptr;
  }
  return &found->second;
}

std::string EngineApi::call(std::string_view function, std::string_view text) {
  using OnGame = std::string (EngineApi::*)(const Json&, Table&);
  static constexpr std::array<std::pair<std::string_view, OnGame>, 8> kOnGame{{
      {"legal", &EngineApi::legal},
      {"apply", &EngineApi::apply},
      {"view", &EngineApi::view},
      {"events", &EngineApi::events},
      {"bot", &EngineApi::bot},
      {"play", &EngineApi::play},
      {"transcript", &EngineApi::transcript},
      {"end", &EngineApi::end},
  }};
  const auto on_game = std::find_if(kOnGame.begin(), kOnGame.end(), [&](const auto& f) { return f.first == function; });
  if (function != "start" && function != "replay" && on_game == kOnGame.end()) {
    return answer_text(error_answer(ErrorCode::kUnknownType, "No function is called \"" + std::string(function) + "\"."));
  }
  auto parsed = parse(text);
  if (auto* error = std::get_if<OrderedJson>(&parsed)) return answer_text(*error);
  const Json& request = std::get<Json>(parsed);
  if (function == "start") return start(request);
  if (function == "replay") return replay(request);
  OrderedJson error;
  Table* table = find(request, error);
  if (table == nullptr) return answer_text(error);
  return (this->*on_game->second)(request, *table);
}

std::string EngineApi::start(const Json& request) {
  const Json* rules_json = member(request, "rules");
  auto rules = protocol::rules_from_json(rules_json != nullptr ? *rules_json : Json::object());
  if (auto* error = std::get_if<engine::ConfigError>(&rules))
    return answer_text(error_answer(protocol::rules_error(*error)));
  const auto players = integer(request, "players", 0, engine::kMaxSeats);
  if (!players) {
    return answer_text(error_answer(ErrorCode::kBadMessage, "\"players\" must be the number of seats, up to 6."));
  }
  // Required: the module has no random source of its own (libc++'s
  // random_device reads a file the module does not have). A page draws one
  // with crypto.getRandomValues.
  const Json* given_seed = member(request, "seed");
  const auto seed = given_seed != nullptr ? seed_of(*given_seed) : std::nullopt;
  if (!seed) {
    return answer_text(error_answer(ErrorCode::kBadMessage,
                                    "\"seed\" must be a whole number from 0 to 2^64 - 1, "
                                    "as a decimal string or a JSON integer."));
  }
  auto dealt = Table::deal(std::get<engine::Rules>(rules), *players, *seed);
  if (auto* error = std::get_if<engine::ConfigError>(&dealt))
    return answer_text(error_answer(protocol::rules_error(*error)));
  const int id = next_id_++;
  const Table& table = tables_.emplace(id, std::get<Table>(std::move(dealt))).first->second;
  OrderedJson out = OrderedJson::object();
  out["game"] = id;
  out["seed"] = std::to_string(*seed);
  out["rules"] = protocol::rules_to_json(table.game().rules());
  out["players"] = table.game().players();
  out["dealer"] = table.game().dealer();
  out["first"] = table.game().first();
  out["to_act"] = to_act_json(table.game());
  out["events"] = table.events().size();
  return answer_text(out);
}

std::string EngineApi::legal(const Json& request, Table& table) {
  const engine::Game& game = table.game();
  std::optional<engine::Seat> seat;
  if (member(request, "seat") != nullptr) {
    seat = seat_of(request, "seat", game);
    if (!seat) return answer_text(error_answer(ErrorCode::kBadMessage, "\"seat\" must be a seat of the game."));
  } else if (!game.over()) {
    seat = game.to_act();
  }
  OrderedJson out = OrderedJson::object();
  out["seat"] = seat ? OrderedJson(*seat) : OrderedJson(nullptr);
  out["to_act"] = to_act_json(game);
  const engine::LegalDecisions legal = seat ? game.legal(*seat) : engine::LegalDecisions{};
  out["legal"] = protocol::legal_to_json(legal);
  OrderedJson decisions = OrderedJson::array();
  for (const engine::Decision& decision : legal.list()) decisions.push_back(protocol::decision_to_json(decision));
  out["decisions"] = std::move(decisions);
  out["improper"] = seat ? protocol::improper_to_json(game.improper(*seat)) : OrderedJson(nullptr);
  return answer_text(out);
}

std::string EngineApi::apply(const Json& request, Table& table) {
  const Json* decision_json = member(request, "decision");
  if (decision_json == nullptr) return answer_text(error_answer(ErrorCode::kBadMessage, "\"decision\" is missing."));
  auto decision = protocol::decision_from_json(*decision_json);
  if (auto* wrong = std::get_if<std::string>(&decision)) {
    auto bad = protocol::make_error(ErrorCode::kBadMessage, "The decision is not one: " + *wrong + ".");
    bad.field = "decision";
    return answer_text(error_answer(bad));
  }
  const std::size_t before = table.events().size();
  if (auto refusal = table.apply(std::get<engine::Decision>(decision))) {
    return answer_text(error_answer(protocol::refusal_error(*refusal)));
  }
  OrderedJson out = OrderedJson::object();
  out["applied"] = true;
  return answer_text(with_progress(std::move(out), table, before));
}

std::string EngineApi::view(const Json& request, Table& table) {
  const auto choice = viewer_of(request, table.game(), false);
  if (!choice) return answer_text(error_answer(ErrorCode::kBadMessage, "\"viewer\" must be a seat or \"spectator\"."));
  OrderedJson out = OrderedJson::object();
  out["view"] = protocol::view_to_json(engine::view_of(table.game(), *choice->viewer));
  return answer_text(out);
}

std::string EngineApi::events(const Json& request, Table& table) {
  const auto choice = viewer_of(request, table.game(), true);
  if (!choice) {
    return answer_text(error_answer(ErrorCode::kBadMessage, "\"viewer\" must be a seat, \"spectator\" or \"all\"."));
  }
  const int total = static_cast<int>(table.events().size());
  int since = 0;
  if (member(request, "since") != nullptr) {
    const auto given = integer(request, "since", 0, total);
    if (!given)
      return answer_text(
          error_answer(ErrorCode::kBadMessage, "\"since\" must be from 0 to " + std::to_string(total) + "."));
    since = *given;
  }
  OrderedJson out = OrderedJson::object();
  out["next"] = total;
  return with_events(out, events_json(table.events(), static_cast<std::size_t>(since), *choice));
}

std::string EngineApi::bot(const Json& request, Table& table) {
  const engine::Game& game = table.game();
  if (game.over()) return answer_text(error_answer(ErrorCode::kActionGameOver, "The game is over."));
  engine::Seat seat = game.to_act();
  if (member(request, "seat") != nullptr) {
    const auto given = seat_of(request, "seat", game);
    if (!given) return answer_text(error_answer(ErrorCode::kBadMessage, "\"seat\" must be a seat of the game."));
    seat = *given;
  }
  const Json* level_json = member(request, "level");
  const auto level = level_json != nullptr && level_json->is_string()
                         ? engine::parse_bot_level(level_json->get_ref<const std::string&>())
                         : std::nullopt;
  if (!level)
    return answer_text(error_answer(ErrorCode::kBadMessage, "\"level\" must be \"easy\", \"medium\" or \"hard\"."));
  if (game.legal(seat).empty()) {
    return answer_text(
        error_answer(ErrorCode::kActionNotYourTurn, "Seat " + std::to_string(seat) + " has nothing to decide now."));
  }
  OrderedJson out = OrderedJson::object();
  out["decision"] = protocol::decision_to_json(table.bot_decision(seat, *level));
  return answer_text(out);
}

std::string EngineApi::play(const Json& request, Table& table) {
  const int players = table.game().players();
  const Json* bots_json = member(request, "bots");
  std::array<std::optional<engine::BotLevel>, engine::kMaxSeats> levels{};
  const bool listed =
      bots_json != nullptr && bots_json->is_array() && bots_json->size() == static_cast<std::size_t>(players);
  for (int seat = 0; listed && seat < players; ++seat) {
    const Json& entry = (*bots_json)[static_cast<std::size_t>(seat)];
    if (entry.is_null()) continue;
    if (entry.is_string())
      levels[static_cast<std::size_t>(seat)] = engine::parse_bot_level(entry.get_ref<const std::string&>());
    if (!levels[static_cast<std::size_t>(seat)]) {
      return answer_text(error_answer(ErrorCode::kBadMessage, "\"bots\" must name a level or null for each seat."));
    }
  }
  if (!listed) {
    return answer_text(error_answer(ErrorCode::kBadMessage,
                                    "\"bots\" must hold one entry per seat: \"easy\", \"medium\", \"hard\" or null."));
  }
  const std::size_t before = table.events().size();
  OrderedJson decisions = OrderedJson::array();
  // A game longer than engine::MatchOptions' bound is a bug, not a game.
  for (int count = 0; !table.game().over() && count < engine::MatchOptions{}.max_decisions; ++count) {
    const engine::Seat seat = table.game().to_act();
    const auto level = levels[static_cast<std::size_t>(seat)];
    if (!level) break;
    const engine::Decision decision = table.bot_decision(seat, *level);
    if (auto refusal = table.apply(decision)) {
      return answer_text(error_answer(ErrorCode::kServerInternal, "The bot at seat " + std::to_string(seat) +
                                                                      " made a refused decision: " + refusal->message));
    }
    decisions.push_back(protocol::decision_to_json(decision));
  }
  OrderedJson out = OrderedJson::object();
  out["decisions"] = std::move(decisions);
  return answer_text(with_progress(std::move(out), table, before));
}

std::string EngineApi::transcript(const Json&, Table& table) {
  if (!table.game().over()) {
    return answer_text(
        error_answer(ErrorCode::kRoomNotOver, "A transcript shows every hand: it exists once the game is over."));
  }
  OrderedJson out = OrderedJson::object();
  out["transcript"] = protocol::transcript_to_json(engine::make_transcript(table.game()));
  return answer_text(out);
}

std::string EngineApi::replay(const Json& request) {
  const Json* transcript_json = member(request, "transcript");
  if (transcript_json == nullptr)
    return answer_text(error_answer(ErrorCode::kBadMessage, "\"transcript\" is missing."));
  auto transcript = protocol::transcript_from_json(*transcript_json);
  if (auto* wrong = std::get_if<std::string>(&transcript)) {
    return answer_text(error_answer(ErrorCode::kBadMessage, "Not a transcript: " + *wrong + "."));
  }
  const engine::Transcript& recorded = std::get<engine::Transcript>(transcript);
  auto replayed = Table::replay(recorded);
  if (auto* wrong = std::get_if<std::string>(&replayed)) {
    return answer_text(error_answer(ErrorCode::kBadMessage, "The transcript cannot be replayed: " + *wrong));
  }
  const Table& table = std::get<Table>(replayed);
  ViewerChoice choice;
  if (member(request, "viewer") != nullptr) {
    const auto given = viewer_of(request, table.game(), true);
    if (!given) {
      return answer_text(error_answer(ErrorCode::kBadMessage, "\"viewer\" must be a seat, \"spectator\" or \"all\"."));
    }
    choice = *given;
  }
  OrderedJson out = OrderedJson::object();
  const bool over = table.game().over();
  out["over"] = over;
  std::optional<std::string> difference;
  if (over) {
    const engine::Transcript reached = engine::make_transcript(table.game());
    out["result"] = protocol::transcript_to_json(reached)["result"];
    // The engine's check (a second replay) only to word a difference.
    if (reached.books != recorded.books || reached.winners != recorded.winners) {
      difference = engine::replay_check(recorded);
    }
  } else {
    out["result"] = nullptr;
    difference = engine::replay_check(recorded);
  }
  out["check"] = difference ? OrderedJson(*difference) : OrderedJson(nullptr);
  return with_events(out, events_json(table.events(), 0, choice));
}

std::string EngineApi::end(const Json& request, Table&) {
  tables_.erase(*integer(request, "game", 1, next_id_));
  return R"({"ended":true})";
}

}  // namespace gofish::wasm
