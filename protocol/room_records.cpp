#include "protocol/room_records.hpp"

#include <nlohmann/json.hpp>

#include "protocol/json_read.hpp"
#include "protocol/room_settings.hpp"
#include "protocol/rules_json.hpp"

namespace gofish::protocol {

namespace {

using nlohmann::json;

std::string quoted(std::string_view text) { return detail::quote_untrusted(std::string(text)); }

constexpr std::string_view kHexDigits = "0123456789abcdef";

std::string to_hex(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += kHexDigits[byte >> 4U];
    out += kHexDigits[byte & 15U];
  }
  return out;
}

// nullopt unless `text` is lowercase hex of whole bytes.
std::optional<std::string> from_hex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const auto high = kHexDigits.find(text[i]);
    const auto low = kHexDigits.find(text[i + 1]);
    if (high == std::string_view::npos || low == std::string_view::npos) return std::nullopt;
    out += static_cast<char>((high << 4U) | low);
  }
  return out;
}

}  // namespace

std::string settings_record(const RoomSettings& settings, const std::vector<RemovedPlayer>& removed) {
  nlohmann::ordered_json out = settings_to_json(settings);
  if (!removed.empty()) {
    auto& list = out["removed"] = nlohmann::ordered_json::array();
    for (const RemovedPlayer& player : removed) {
      list.push_back({{"name", player.name}, {"seat", player.seat}, {"token", to_hex(player.token_hash)}});
    }
  }
  return out.dump();
}

std::variant<StoredSettings, std::string> settings_from_record(std::string_view text) {
  const json parsed = json::parse(text, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("rules")) return "unreadable settings " + quoted(text);
  json copy = parsed;
  StoredSettings out;
  if (const auto removed = copy.find("removed"); removed != copy.end()) {
    if (!removed->is_array()) return "unreadable removed players in " + quoted(text);
    for (const json& entry : *removed) {
      const auto name = entry.is_object() ? entry.find("name") : entry.end();
      const auto seat = entry.is_object() ? entry.find("seat") : entry.end();
      const auto token = entry.is_object() ? entry.find("token") : entry.end();
      std::optional<std::string> hash;
      if (token != entry.end() && token->is_string()) hash = from_hex(token->get<std::string>());
      if (name == entry.end() || !name->is_string() || seat == entry.end() || !seat->is_number_integer() || !hash) {
        return "unreadable removed player in " + quoted(text);
      }
      out.removed.push_back(RemovedPlayer{name->get<std::string>(), seat->get<int>(), *hash});
    }
    copy.erase(removed);
  }
  // Before 0.2 the store spelt chat as the enum's number.
  if (const auto chat = copy.find("chat"); chat != copy.end() && chat->is_number_integer()) {
    const auto number = chat->get<std::int64_t>();
    const ChatMode modes[] = {ChatMode::kFree, ChatMode::kPhrases, ChatMode::kOff};
    if (number < 0 || number > 2) return "unknown chat mode in " + quoted(text);
    *chat = std::string(to_string(modes[number]));
  }
  // A setting added since the room was stored takes its default.
  nlohmann::ordered_json defaults;
  detail::write_settings_fields(RoomSettings{}, defaults);
  for (auto it = defaults.begin(); it != defaults.end(); ++it) {
    if (!copy.contains(it.key())) copy[it.key()] = json(*it);
  }
  auto settings = settings_from_json(copy);
  if (auto* error = std::get_if<std::string>(&settings)) return std::move(*error);
  out.settings = std::get<RoomSettings>(std::move(settings));
  return out;
}

std::string seat_record(const SeatRecord& seat) {
  json out;
  out["occupant"] = std::string(to_string(seat.occupant));
  out["name"] = seat.name;
  if (seat.level) out["level"] = std::string(engine::to_string(*seat.level));
  out["host"] = seat.host;
  if (seat.takeover) out["takeover"] = std::string(to_string(*seat.takeover));
  if (seat.kicked) out["kicked"] = true;
  if (seat.rematch) out["rematch"] = true;
  return out.dump();
}

std::variant<SeatRecord, std::string> seat_from_record(std::string_view text) {
  const json state = json::parse(text, nullptr, false);
  if (!state.is_object() || !state.contains("name") || !state["name"].is_string()) {
    return "unreadable seat state " + quoted(text);
  }
  SeatRecord seat;
  const std::string occupant = state.value("occupant", json()).is_string() ? state["occupant"].get<std::string>() : "";
  if (occupant != "human" && occupant != "bot") return "unknown occupant in " + quoted(text);
  seat.occupant = occupant == "human" ? Occupant::kHuman : Occupant::kBot;
  seat.name = state["name"].get<std::string>();
  if (state.contains("level")) {
    seat.level = state["level"].is_string() ? engine::parse_bot_level(state["level"].get<std::string>()) : std::nullopt;
    if (!seat.level) return "unknown bot level in " + quoted(text);
  }
  seat.host = state.value("host", false);
  const std::string takeover = state.value("takeover", std::string());
  if (takeover == "left") seat.takeover = TakeoverReason::kLeft;
  if (takeover == "kicked") seat.takeover = TakeoverReason::kKicked;
  seat.kicked = state.value("kicked", false);
  seat.rematch = state.value("rematch", false);
  return seat;
}

std::string setup_record(const engine::Transcript& deal, const std::vector<Player>& players,
                         const std::optional<DealFairness>& fairness) {
  json setup = transcript_to_json(deal);
  setup["seats"] = players_to_json(players);
  if (fairness) setup["fairness"] = fairness_to_json(*fairness);
  return setup.dump();
}

std::variant<GameSetup, std::string> setup_from_record(std::string_view text) {
  const json parsed = json::parse(text, nullptr, false);
  auto deal = transcript_from_json(parsed);
  if (const auto* error = std::get_if<std::string>(&deal)) return *error;
  GameSetup setup{std::get<engine::Transcript>(std::move(deal)), std::nullopt, std::nullopt};
  if (const auto kept = parsed.find("fairness"); kept != parsed.end()) {
    auto fairness = fairness_from_json(*kept);
    if (const auto* error = std::get_if<std::string>(&fairness)) return *error;
    setup.fairness = std::get<DealFairness>(std::move(fairness));
  }
  if (const auto kept = parsed.find("seats"); kept != parsed.end()) {
    auto players = players_from_json(*kept);
    if (!players) return std::string("unreadable players in the set-up");
    setup.players = std::move(*players);
  }
  return setup;
}

std::string next_deal_record(const DealFairness& deal) { return fairness_to_json(deal).dump(); }

std::variant<DealFairness, std::string> next_deal_from_record(std::string_view text) {
  const json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return std::string("next deal: not JSON");
  auto deal = fairness_from_json(parsed);
  if (const auto* error = std::get_if<std::string>(&deal)) return "next deal: " + *error;
  if (!std::get<DealFairness>(deal).seed) return std::string("next deal: no seed");
  return deal;
}

std::string daily_note_record(const DailyNoteRecord& note) {
  json out;
  out["seat"] = note.seat;
  out["token"] = to_hex(note.token_hash);
  out["game"] = note.game;
  out["result"] = {{"date", note.result.date},
                   {"sets", note.result.sets},
                   {"players", note.result.players},
                   {"percentile", note.result.percentile},
                   {"best", note.result.best}};
  return out.dump();
}

std::variant<DailyNoteRecord, std::string> daily_note_from_record(std::string_view text) {
  const json parsed = json::parse(text, nullptr, false);
  const auto integer = [](const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number_integer() ? std::optional(it->get<std::int64_t>()) : std::nullopt;
  };
  if (!parsed.is_object() || !parsed.contains("result") || !parsed["result"].is_object()) {
    return "unreadable daily note " + quoted(text);
  }
  const json& result = parsed["result"];
  const auto token = parsed.find("token");
  std::optional<std::string> hash;
  if (token != parsed.end() && token->is_string()) hash = from_hex(token->get<std::string>());
  const auto date = result.find("date");
  const auto seat = integer(parsed, "seat");
  const auto game = integer(parsed, "game");
  const auto sets = integer(result, "sets");
  const auto players = integer(result, "players");
  const auto percentile = integer(result, "percentile");
  const auto best = integer(result, "best");
  if (!hash || !seat || !game || !sets || !players || !percentile || !best || date == result.end() ||
      !date->is_string()) {
    return "unreadable daily note " + quoted(text);
  }
  return DailyNoteRecord{static_cast<int>(*seat), *hash, static_cast<int>(*game),
                         DailyResult{date->get<std::string>(), static_cast<int>(*sets), *players,
                                     static_cast<int>(*percentile), static_cast<int>(*best)}};
}

}  // namespace gofish::protocol
