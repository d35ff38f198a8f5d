#include "protocol/rules_json.hpp"

#include <nlohmann/json.hpp>

namespace gofish::protocol {
namespace engine = gofish::engine;
using nlohmann::json;
using nlohmann::ordered_json;

ordered_json rules_to_json(const engine::Rules& rules) {
  ordered_json out = ordered_json::object();
  const auto fields = engine::rules_field_info();
  const auto values = engine::rules_fields(rules);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& [name, value] = values[i];
    switch (fields[i].kind) {
      case engine::FieldKind::kInt: out[name] = std::stoi(value); break;
      case engine::FieldKind::kBool: out[name] = value == "true"; break;
      case engine::FieldKind::kText:
      case engine::FieldKind::kChoice: out[name] = value; break;
    }
  }
  return out;
}

std::variant<engine::Rules, engine::ConfigError> rules_from_json(const json& in) {
  if (!in.is_object()) return engine::ConfigError{"rules", "The rules must be a JSON object."};
  std::string preset_name = "classic";
  if (auto it = in.find("preset"); it != in.end()) {
    if (!it->is_string()) return engine::ConfigError{"preset", "preset must be a string."};
    preset_name = it->get<std::string>();
  }
  auto rules = engine::preset(preset_name);
  if (!rules) return engine::ConfigError{"preset", "Unknown preset \"" + preset_name + "\"."};
  for (const auto& [name, value] : in.items()) {
    if (name == "preset") continue;
    const engine::FieldInfo* info = nullptr;
    for (const auto& f : engine::rules_field_info()) {
      if (f.name == name) info = &f;
    }
    if (!info) return engine::ConfigError{name, "There is no rules field called \"" + name + "\"."};
    std::string text;
    switch (info->kind) {
      case engine::FieldKind::kInt:
        if (!value.is_number_integer()) return engine::ConfigError{name, name + " must be a whole number."};
        text = std::to_string(value.get<long long>());
        break;
      case engine::FieldKind::kBool:
        if (!value.is_boolean()) return engine::ConfigError{name, name + " must be true or false."};
        text = value.get<bool>() ? "true" : "false";
        break;
      case engine::FieldKind::kText:
      case engine::FieldKind::kChoice:
        if (!value.is_string()) return engine::ConfigError{name, name + " must be a string."};
        text = value.get<std::string>();
        break;
    }
    if (auto error = engine::set_rules_field(*rules, name, text)) return *error;
  }
  if (auto error = engine::validate(*rules)) return *error;
  return *rules;
}

ordered_json decision_to_json(const engine::Decision& d) {
  ordered_json out = ordered_json::object();
  out["seat"] = d.seat;
  switch (d.kind) {
    case engine::DecisionKind::kAskRank:
      out["target"] = d.target;
      out["rank"] = std::string(engine::rank_name(d.rank));
      break;
    case engine::DecisionKind::kAskCard:
      out["target"] = d.target;
      out["card"] = engine::to_string(d.card);
      break;
    case engine::DecisionKind::kAnswer: out["answer"] = d.give ? "give" : "go_fish"; break;
    case engine::DecisionKind::kDeclare: out["declare"] = std::string(engine::rank_name(d.rank)); break;
  }
  return out;
}

std::variant<engine::Decision, std::string> decision_from_json(const json& in) {
  if (!in.is_object()) return std::string("an action must be an object");
  const auto seat = in.find("seat");
  if (seat == in.end() || !seat->is_number_integer()) return std::string("an action needs an integer \"seat\"");
  const engine::Seat by = seat->get<int>();
  const auto string_field = [&](const char* name) -> std::optional<std::string> {
    const auto it = in.find(name);
    if (it == in.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (in.contains("answer")) {
    const auto answer = string_field("answer");
    if (answer != "give" && answer != "go_fish") return std::string("\"answer\" must be \"give\" or \"go_fish\"");
    return engine::Decision{by, engine::Answer{*answer == "give"}};
  }
  if (in.contains("declare")) {
    const auto text = string_field("declare");
    const auto rank = text ? engine::parse_rank(*text) : std::nullopt;
    if (!rank) return std::string("\"declare\" must be a rank such as \"7\" or \"Q\"");
    return engine::Decision{by, engine::Declare{*rank}};
  }
  const auto target = in.find("target");
  if (target == in.end() || !target->is_number_integer()) return std::string("an ask needs an integer \"target\"");
  if (in.contains("card")) {
    const auto text = string_field("card");
    const auto card = text ? engine::parse_card(*text) : std::nullopt;
    if (!card) return std::string("\"card\" must be a card such as \"QH\" or \"10D\"");
    return engine::Decision{by, engine::AskCard{target->get<int>(), *card}};
  }
  const auto text = string_field("rank");
  const auto rank = text ? engine::parse_rank(*text) : std::nullopt;
  if (!rank) return std::string("an ask needs a \"rank\" such as \"Q\" or a \"card\" such as \"QH\"");
  return engine::Decision{by, engine::AskRank{target->get<int>(), *rank}};
}

ordered_json transcript_to_json(const engine::Transcript& t) {
  ordered_json deck = ordered_json::array();
  for (engine::Card c : t.deck) deck.push_back(engine::to_string(c));
  ordered_json actions = ordered_json::array();
  for (const auto& d : t.actions) actions.push_back(decision_to_json(d));
  ordered_json books = ordered_json::array();
  for (const auto& seat_books : t.books) {
    ordered_json ranks = ordered_json::array();
    for (engine::Rank r : seat_books) ranks.push_back(std::string(engine::rank_name(r)));
    books.push_back(std::move(ranks));
  }
  ordered_json out = ordered_json::object();
  out["format"] = "gofish-transcript/1";
  out["rules"] = rules_to_json(t.rules);
  out["players"] = t.players;
  out["deck"] = std::move(deck);
  out["dealer"] = t.dealer;
  out["first"] = t.first;
  out["actions"] = std::move(actions);
  out["result"] = ordered_json::object();
  out["result"]["books"] = std::move(books);
  out["result"]["winners"] = t.winners;
  return out;
}

std::variant<engine::Transcript, std::string> transcript_from_json(const json& in) {
  if (!in.is_object()) return std::string("a transcript must be a JSON object");
  // Guarded: json::value would throw on a "format" that is not a string.
  const auto format = in.find("format");
  if (format == in.end() || !format->is_string() || *format != "gofish-transcript/1") {
    return std::string("\"format\" must be \"gofish-transcript/1\"");
  }
  engine::Transcript t;
  const auto rules = rules_from_json(in.value("rules", json::object()));
  if (const auto* error = std::get_if<engine::ConfigError>(&rules)) return "rules: " + error->message;
  t.rules = std::get<engine::Rules>(rules);
  const auto int_field = [&](const char* name, int& out) -> bool {
    const auto it = in.find(name);
    if (it == in.end() || !it->is_number_integer()) return false;
    out = it->get<int>();
    return true;
  };
  if (!int_field("players", t.players)) return std::string("\"players\" must be an integer");
  if (!int_field("dealer", t.dealer)) return std::string("\"dealer\" must be an integer");
  if (!int_field("first", t.first)) return std::string("\"first\" must be an integer");
  const auto deck = in.find("deck");
  if (deck == in.end() || !deck->is_array() || deck->size() != engine::kDeckSize) {
    return std::string("\"deck\" must list the 52 cards");
  }
  for (std::size_t i = 0; i < engine::kDeckSize; ++i) {
    const auto card = (*deck)[i].is_string() ? engine::parse_card((*deck)[i].get<std::string>()) : std::nullopt;
    if (!card) return "deck entry " + std::to_string(i) + " is not a card";
    t.deck[i] = *card;
  }
  const auto actions = in.find("actions");
  if (actions == in.end() || !actions->is_array()) return std::string("\"actions\" must be an array");
  for (std::size_t i = 0; i < actions->size(); ++i) {
    auto d = decision_from_json((*actions)[i]);
    if (const auto* error = std::get_if<std::string>(&d)) return "action " + std::to_string(i) + ": " + *error;
    t.actions.push_back(std::get<engine::Decision>(d));
  }
  const auto result = in.find("result");
  if (result == in.end() || !result->is_object()) return std::string("\"result\" must be an object");
  const auto books = result->find("books");
  if (books == result->end() || !books->is_array()) return std::string("\"result.books\" must be an array");
  for (const auto& seat_books : *books) {
    if (!seat_books.is_array()) return std::string("\"result.books\" must hold one array per seat");
    std::vector<engine::Rank> ranks;
    for (const auto& r : seat_books) {
      const auto rank = r.is_string() ? engine::parse_rank(r.get<std::string>()) : std::nullopt;
      if (!rank) return std::string("\"result.books\" holds something that is not a rank");
      ranks.push_back(*rank);
    }
    t.books.push_back(std::move(ranks));
  }
  const auto winners = result->find("winners");
  if (winners == result->end() || !winners->is_array()) return std::string("\"result.winners\" must be an array");
  for (const auto& w : *winners) {
    if (!w.is_number_integer()) return std::string("\"result.winners\" must hold seat numbers");
    t.winners.push_back(w.get<int>());
  }
  return t;
}

}  // namespace gofish::protocol
