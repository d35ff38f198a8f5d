#include "protocol/game_json.hpp"

#include <algorithm>
#include <span>

#include "engine/overloaded.hpp"
#include "protocol/json_read.hpp"
#include "protocol/json_writer.hpp"

namespace gofish::protocol {
namespace engine = gofish::engine;
using detail::Json;
using detail::OrderedJson;
using detail::Reader;

namespace {

std::string rank_text(engine::Rank rank) { return std::string(engine::rank_name(rank)); }

std::string_view status_name(engine::SeatStatus status) {
  switch (status) {
    case engine::SeatStatus::kIn: return "in";
    case engine::SeatStatus::kSittingOut: return "sitting_out";
    case engine::SeatStatus::kOut: return "out";
  }
  return "in";
}

std::string_view phase_name(engine::Phase phase) {
  switch (phase) {
    case engine::Phase::kAsk: return "ask";
    case engine::Phase::kAnswer: return "answer";
    case engine::Phase::kOver: return "over";
  }
  return "ask";
}

// Parses one of a closed list of spellings produced by `name_of`.
template <class Enum, std::size_t N>
std::optional<Enum> parse_choice(std::string_view text, const Enum (&values)[N], std::string_view (*name_of)(Enum)) {
  for (Enum value : values) {
    if (name_of(value) == text) return value;
  }
  return std::nullopt;
}

constexpr engine::SeatStatus kStatuses[] = {engine::SeatStatus::kIn, engine::SeatStatus::kSittingOut,
                                            engine::SeatStatus::kOut};
constexpr engine::Phase kPhases[] = {engine::Phase::kAsk, engine::Phase::kAnswer, engine::Phase::kOver};
constexpr engine::DrawCause kCauses[] = {engine::DrawCause::kFish, engine::DrawCause::kEmptyHand};
constexpr engine::EndReason kReasons[] = {engine::EndReason::kHandEmpty, engine::EndReason::kStockOut,
                                          engine::EndReason::kAllSetsDown, engine::EndReason::kNoOneCanPlay};
constexpr engine::SetOutcome kOutcomes[] = {engine::SetOutcome::kScores, engine::SetOutcome::kBarred,
                                            engine::SetOutcome::kNotShown};
constexpr engine::PenaltyKind kPenalties[] = {engine::PenaltyKind::kAskedOutOfTurn, engine::PenaltyKind::kIllegalCall,
                                              engine::PenaltyKind::kFalseGoFish};

std::string_view end_reason_name(engine::EndReason r) { return engine::to_string(r); }
std::string_view outcome_name(engine::SetOutcome o) { return engine::to_string(o); }
std::string_view penalty_name(engine::PenaltyKind k) { return engine::to_string(k); }
std::string_view cause_name(engine::DrawCause c) { return engine::to_string(c); }

constexpr std::int64_t kLastSeat = engine::kMaxSeats - 1;

// Small typed readers on top of Reader for engine values.
struct GameReader {
  Reader& r;

  engine::Seat seat(std::string_view key) { return static_cast<engine::Seat>(r.required_integer(key, 0, kLastSeat)); }
  int count(std::string_view key, int max) { return static_cast<int>(r.required_integer(key, 0, max)); }
  engine::Rank rank(std::string_view key) {
    const std::string text = r.required_string(key, 2);
    if (r.failed()) return 0;
    const auto rank = engine::parse_rank(text);
    if (!rank) r.fail(key, "\"" + std::string(key) + "\" must be a rank.");
    return rank.value_or(0);
  }
  engine::Card card(std::string_view key) {
    const std::string text = r.required_string(key, 3);
    if (r.failed()) return {};
    const auto card = engine::parse_card(text);
    if (!card) r.fail(key, "\"" + std::string(key) + "\" must be a card.");
    return card.value_or(engine::Card{});
  }
  template <class Enum, std::size_t N>
  Enum choice(std::string_view key, const Enum (&values)[N], std::string_view (*name_of)(Enum)) {
    const std::string text = r.required_string(key, 32);
    if (r.failed()) return values[0];
    const auto value = parse_choice(text, values, name_of);
    if (!value) r.fail(key, "\"" + std::string(key) + "\" has an unknown value.");
    return value.value_or(values[0]);
  }
  engine::CardSet cards(std::string_view key) {
    const Json& list = r.required_array(key, engine::kDeckSize);
    return card_list(list, key);
  }
  engine::CardSet card_list(const Json& list, std::string_view key) {
    engine::CardSet out;
    if (!list.is_array()) {
      r.fail(key, "\"" + std::string(key) + "\" must be a list of cards.");
      return out;
    }
    for (const Json& item : list) {
      const auto text = detail::as_string(item, 3);
      const auto card = text ? engine::parse_card(*text) : std::nullopt;
      if (!card) {
        r.fail(key, "\"" + std::string(key) + "\" must be a list of cards.");
        return out;
      }
      out.add(*card);
    }
    return out;
  }
  std::uint16_t ranks(std::string_view key) {
    const Json& list = r.required_array(key, engine::kRanks);
    std::uint16_t out = 0;
    for (const Json& item : list) {
      const auto text = detail::as_string(item, 2);
      const auto rank = text ? engine::parse_rank(*text) : std::nullopt;
      if (!rank) {
        r.fail(key, "\"" + std::string(key) + "\" must be a list of ranks.");
        return 0;
      }
      out = static_cast<std::uint16_t>(out | (1U << *rank));
    }
    return out;
  }
  std::uint8_t seats(std::string_view key) {
    const Json& list = r.required_array(key, engine::kMaxSeats);
    std::uint8_t out = 0;
    for (const Json& item : list) {
      const auto seat = detail::as_integer(item, 0, kLastSeat);
      if (!seat) {
        r.fail(key, "\"" + std::string(key) + "\" must be a list of seats.");
        return 0;
      }
      out = static_cast<std::uint8_t>(out | (1U << *seat));
    }
    return out;
  }
};

}  // namespace

OrderedJson cards_to_json(engine::CardSet cards) {
  OrderedJson out = OrderedJson::array();
  for (engine::Card c : cards) out.push_back(engine::to_string(c));
  return out;
}

OrderedJson ranks_to_json(std::uint16_t rank_mask) {
  OrderedJson out = OrderedJson::array();
  for (engine::Rank r = 0; r < engine::kRanks; ++r) {
    if ((rank_mask >> r) & 1U) out.push_back(rank_text(r));
  }
  return out;
}

OrderedJson seats_to_json(std::uint8_t seat_mask) {
  OrderedJson out = OrderedJson::array();
  for (engine::Seat s = 0; s < engine::kMaxSeats; ++s) {
    if ((seat_mask >> s) & 1U) out.push_back(s);
  }
  return out;
}

std::string_view event_type(const engine::Event& event) {
  return std::visit(Overloaded{
                        [](const engine::GameStarted&) { return std::string_view("deal"); },
                        [](const engine::HandDealt&) { return std::string_view("hand_dealt"); },
                        [](const engine::HandDealtCount&) { return std::string_view("hand_dealt"); },
                        [](const engine::AskedRank&) { return std::string_view("asked"); },
                        [](const engine::AskedCard&) { return std::string_view("asked"); },
                        [](const engine::Answered&) { return std::string_view("answered"); },
                        [](const engine::Gave&) { return std::string_view("gave"); },
                        [](const engine::GoFish&) { return std::string_view("go_fish"); },
                        [](const engine::Drew&) { return std::string_view("drew"); },
                        [](const engine::DrewHidden&) { return std::string_view("drew"); },
                        [](const engine::LuckyDraw&) { return std::string_view("lucky_draw"); },
                        [](const engine::SetLaid&) { return std::string_view("set_laid"); },
                        [](const engine::Penalty&) { return std::string_view("penalty"); },
                        [](const engine::TurnPassed&) { return std::string_view("turn_passed"); },
                        [](const engine::SatOut&) { return std::string_view("sat_out"); },
                        [](const engine::WentOut&) { return std::string_view("went_out"); },
                        [](const engine::MissedTurn&) { return std::string_view("missed_turn"); },
                        [](const engine::GameOver&) { return std::string_view("game_over"); },
                    },
                    event);
}

namespace {

// The fields of game_over after "type", which are also a finished room's result.
template <class Writer>
void put_game_over(Writer& w, const engine::GameOver& e) {
  const auto players = static_cast<std::size_t>(std::clamp(e.players, 0, engine::kMaxSeats));
  w.token("reason", engine::to_string(e.reason));
  w.card_lists("hands", std::span(e.hands).first(players));
  w.integers("scores", std::span(e.scores).first(players));
  w.seats("winners", e.winners);
}

// The one spelling of every engine event: "type", then its fields in a fixed
// order. Every alternative is named: a new engine event fails to compile here.
template <class Writer>
void put_event(Writer& w, const engine::Event& event) {
  w.token("type", event_type(event));
  std::visit(Overloaded{
                 [&](const engine::GameStarted& e) {
                   w.number("players", e.players).number("dealer", e.dealer).number("first", e.first);
                   w.number("stock", e.stock);
                 },
                 [&](const engine::HandDealt& e) {
                   w.number("seat", e.seat).number("count", e.cards.size()).cards("cards", e.cards);
                 },
                 [&](const engine::HandDealtCount& e) { w.number("seat", e.seat).number("count", e.count); },
                 [&](const engine::AskedRank& e) {
                   w.number("seat", e.seat).number("target", e.target).token("rank", engine::rank_name(e.rank));
                 },
                 [&](const engine::AskedCard& e) {
                   w.number("seat", e.seat).number("target", e.target).card("card", e.card);
                 },
                 [&](const engine::Answered& e) { w.number("seat", e.seat).boolean("give", e.give); },
                 [&](const engine::Gave& e) { w.number("from", e.from).number("to", e.to).cards("cards", e.cards); },
                 [&](const engine::GoFish& e) {
                   w.number("seat", e.seat).number("asker", e.asker).boolean("stock_empty", e.stock_empty);
                 },
                 [&](const engine::Drew& e) {
                   w.number("seat", e.seat).token("cause", engine::to_string(e.cause)).card("card", e.card);
                 },
                 [&](const engine::DrewHidden& e) {
                   w.number("seat", e.seat).token("cause", engine::to_string(e.cause));
                 },
                 [&](const engine::LuckyDraw& e) { w.number("seat", e.seat).card("card", e.card); },
                 [&](const engine::SetLaid& e) {
                   w.number("seat", e.seat).token("rank", engine::rank_name(e.rank)).cards("cards", e.cards);
                   w.token("outcome", engine::to_string(e.outcome)).boolean("from_deal", e.from_deal);
                 },
                 [&](const engine::Penalty& e) {
                   w.number("seat", e.seat).token("kind", engine::to_string(e.kind));
                   w.token("rank", engine::rank_name(e.rank));
                 },
                 [&](const engine::TurnPassed& e) { w.number("from", e.from).number("to", e.to); },
                 [&](const engine::SatOut& e) { w.number("seat", e.seat); },
                 [&](const engine::WentOut& e) { w.number("seat", e.seat); },
                 [&](const engine::MissedTurn& e) { w.number("seat", e.seat); },
                 [&](const engine::GameOver& e) { put_game_over(w, e); },
             },
             event);
}

}  // namespace

namespace detail {
void write_event(StringWriter& w, const engine::Event& event) { put_event(w, event); }
void write_event(ValueWriter& w, const engine::Event& event) { put_event(w, event); }
}  // namespace detail

OrderedJson game_over_fields(const engine::GameOver& over) {
  OrderedJson out;
  detail::ValueWriter w(out);
  put_game_over(w, over);
  return out;
}

OrderedJson event_to_json(const engine::Event& event) {
  OrderedJson out;
  detail::ValueWriter w(out);
  put_event(w, event);
  return out;
}

void append_event_json(std::string& out, const engine::Event& event) {
  detail::StringWriter w(out);
  put_event(w, event);
}

std::variant<engine::GameOver, std::string> game_over_from_json(const Json& json) {
  Reader r(json);
  GameReader g{r};
  engine::GameOver e{};
  e.reason = g.choice("reason", kReasons, end_reason_name);
  const Json& hands = r.required_array("hands", engine::kMaxSeats);
  const Json& scores = r.required_array("scores", engine::kMaxSeats);
  e.winners = g.seats("winners");
  if (r.failed()) return r.error().message;
  if (hands.size() != scores.size() || hands.empty()) return std::string("\"hands\" and \"scores\" need one entry per seat");
  e.players = static_cast<int>(hands.size());
  for (std::size_t s = 0; s < hands.size(); ++s) {
    e.hands[s] = g.card_list(hands[s], "hands");
    const auto score = detail::as_integer(scores[s], 0, engine::kDeckSize / 2);
    if (!score) return std::string("\"scores\" must hold set counts");
    e.scores[s] = static_cast<int>(*score);
  }
  if (r.failed()) return r.error().message;
  return e;
}

std::optional<std::variant<engine::Event, std::string>> event_from_json(const Json& json) {
  Reader r(json);
  GameReader g{r};
  const std::string type = r.required_string("type", 32);
  if (r.failed()) return r.error().message;
  engine::Event event;
  if (type == "deal") {
    engine::GameStarted e{};
    e.players = static_cast<int>(r.required_integer("players", 2, engine::kMaxSeats));
    e.dealer = g.seat("dealer");
    e.first = g.seat("first");
    e.stock = g.count("stock", engine::kDeckSize);
    event = e;
  } else if (type == "hand_dealt") {
    const engine::Seat seat = g.seat("seat");
    const int count = g.count("count", engine::kDeckSize);
    if (r.has("cards")) {
      event = engine::HandDealt{seat, g.cards("cards")};
    } else {
      event = engine::HandDealtCount{seat, count};
    }
  } else if (type == "asked") {
    const engine::Seat seat = g.seat("seat");
    const engine::Seat target = g.seat("target");
    if (r.has("card")) {
      event = engine::AskedCard{seat, target, g.card("card")};
    } else {
      event = engine::AskedRank{seat, target, g.rank("rank")};
    }
  } else if (type == "answered") {
    const engine::Seat seat = g.seat("seat");
    event = engine::Answered{seat, r.required_boolean("give")};
  } else if (type == "gave") {
    const engine::Seat from = g.seat("from");
    const engine::Seat to = g.seat("to");
    event = engine::Gave{from, to, g.cards("cards")};
  } else if (type == "go_fish") {
    const engine::Seat seat = g.seat("seat");
    const engine::Seat asker = g.seat("asker");
    event = engine::GoFish{seat, asker, r.required_boolean("stock_empty")};
  } else if (type == "drew") {
    const engine::Seat seat = g.seat("seat");
    const engine::DrawCause cause = g.choice("cause", kCauses, cause_name);
    if (r.has("card")) {
      event = engine::Drew{seat, g.card("card"), cause};
    } else {
      event = engine::DrewHidden{seat, cause};
    }
  } else if (type == "lucky_draw") {
    const engine::Seat seat = g.seat("seat");
    event = engine::LuckyDraw{seat, g.card("card")};
  } else if (type == "set_laid") {
    engine::SetLaid e{};
    e.seat = g.seat("seat");
    e.rank = g.rank("rank");
    e.cards = g.cards("cards");
    e.outcome = g.choice("outcome", kOutcomes, outcome_name);
    e.from_deal = r.required_boolean("from_deal");
    event = e;
  } else if (type == "penalty") {
    engine::Penalty e{};
    e.seat = g.seat("seat");
    e.kind = g.choice("kind", kPenalties, penalty_name);
    e.rank = g.rank("rank");
    event = e;
  } else if (type == "turn_passed") {
    const engine::Seat from = g.seat("from");
    event = engine::TurnPassed{from, g.seat("to")};
  } else if (type == "sat_out") {
    event = engine::SatOut{g.seat("seat")};
  } else if (type == "went_out") {
    event = engine::WentOut{g.seat("seat")};
  } else if (type == "missed_turn") {
    event = engine::MissedTurn{g.seat("seat")};
  } else if (type == "game_over") {
    auto over = game_over_from_json(json);
    if (auto* error = std::get_if<std::string>(&over)) return *error;
    event = std::get<engine::GameOver>(over);
  } else {
    return std::nullopt;
  }
  if (r.failed()) return r.error().message;
  return event;
}

OrderedJson legal_to_json(const engine::LegalDecisions& l) {
  if (l.empty()) return nullptr;
  OrderedJson legal = OrderedJson::object();
  legal["count"] = l.count();
  const bool can_ask = l.targets != 0 && (l.ask_for == engine::AskFor::kRank ? l.ranks != 0 : !l.cards.empty());
  if (can_ask) {
    OrderedJson ask = OrderedJson::object();
    ask["targets"] = seats_to_json(l.targets);
    if (l.ask_for == engine::AskFor::kRank) {
      ask["ranks"] = ranks_to_json(l.ranks);
    } else {
      ask["cards"] = cards_to_json(l.cards);
    }
    legal["ask"] = std::move(ask);
  }
  if (l.give || l.go_fish) {
    OrderedJson answers = OrderedJson::array();
    if (l.give) answers.push_back("give");
    if (l.go_fish) answers.push_back("go_fish");
    legal["answers"] = std::move(answers);
  }
  if (l.declarable != 0) legal["declare"] = ranks_to_json(l.declarable);
  return legal;
}

std::variant<engine::LegalDecisions, std::string> legal_from_json(const Json& json, engine::Seat seat,
                                                                  engine::AskFor ask_for) {
  if (!json.is_object()) return std::string("must be an object");
  Reader lr(json);
  GameReader lg{lr};
  engine::LegalDecisions l;
  l.seat = seat;
  l.ask_for = ask_for;
  if (const Json* ask = lr.object("ask")) {
    Reader ar(*ask);
    GameReader ag{ar};
    l.targets = ag.seats("targets");
    if (ask_for == engine::AskFor::kRank) {
      l.ranks = ag.ranks("ranks");
    } else {
      l.cards = ag.cards("cards");
    }
    if (ar.failed()) return "ask: " + ar.error().message;
  }
  if (const Json* answers = lr.array("answers", 2)) {
    for (const Json& a : *answers) {
      const auto text = detail::as_string(a, 8);
      if (text == "give") {
        l.give = true;
      } else if (text == "go_fish") {
        l.go_fish = true;
      } else {
        return std::string("answers must hold \"give\" or \"go_fish\"");
      }
    }
  }
  if (lr.has("declare")) l.declarable = lg.ranks("declare");
  if (lr.failed()) return lr.error().message;
  return l;
}

OrderedJson improper_to_json(const engine::ImproperDecisions& improper) {
  if (improper.empty()) return nullptr;
  const engine::LegalDecisions& l = improper.decisions;
  OrderedJson out = OrderedJson::object();
  out["seat"] = l.seat;
  // The groups are spelled as in legal_to_json (no "give", no "declare" is
  // ever improper), then what each group costs.
  OrderedJson groups = legal_to_json(l);
  for (auto it = groups.begin(); it != groups.end(); ++it) out[it.key()] = it.value();
  OrderedJson penalty = OrderedJson::object();
  if (improper.has_asks()) penalty["ask"] = penalty_name(improper.ask_penalty);
  if (l.go_fish) penalty["go_fish"] = penalty_name(engine::PenaltyKind::kFalseGoFish);
  out["penalty"] = std::move(penalty);
  return out;
}

std::variant<engine::ImproperDecisions, std::string> improper_from_json(const Json& json, engine::AskFor ask_for) {
  if (!json.is_object()) return std::string("must be an object");
  Reader r(json);
  GameReader g{r};
  const engine::Seat seat = g.seat("seat");
  const auto count = r.required_integer("count", 1, engine::kMaxSeats * engine::kDeckSize + 1);
  const Json& penalty = r.required_object("penalty");
  if (r.failed()) return r.error().message;
  auto groups = legal_from_json(json, seat, ask_for);
  if (const auto* error = std::get_if<std::string>(&groups)) return *error;
  engine::ImproperDecisions improper;
  improper.decisions = std::get<engine::LegalDecisions>(groups);
  const engine::LegalDecisions& l = improper.decisions;
  if (l.give || l.declarable != 0) return std::string("\"give\" and \"declare\" are never improper");
  if (count != l.count()) return std::string("\"count\" must be the number of decisions listed");
  Reader pr(penalty);
  GameReader pg{pr};
  if (improper.has_asks()) {
    constexpr engine::PenaltyKind kAskPenalties[] = {engine::PenaltyKind::kAskedOutOfTurn,
                                                     engine::PenaltyKind::kIllegalCall};
    improper.ask_penalty = pg.choice("ask", kAskPenalties, penalty_name);
  } else if (pr.has("ask")) {
    return std::string("penalty: \"ask\" without an ask listed");
  }
  if (l.go_fish) {
    constexpr engine::PenaltyKind kGoFishPenalties[] = {engine::PenaltyKind::kFalseGoFish};
    pg.choice("go_fish", kGoFishPenalties, penalty_name);
  } else if (pr.has("go_fish")) {
    return std::string("penalty: \"go_fish\" without a \"Go fish\" listed");
  }
  if (pr.failed()) return "penalty: " + pr.error().message;
  return improper;
}

OrderedJson view_to_json(const engine::View& view) {
  OrderedJson out = OrderedJson::object();
  out["players"] = view.players;
  out["hand"] = cards_to_json(view.hand);
  out["stock"] = view.stock_size;
  out["phase"] = phase_name(view.phase);
  out["turn"] = view.turn;
  out["to_act"] = view.to_act;
  if (view.pending) {
    OrderedJson pending = OrderedJson::object();
    pending["seat"] = view.pending->seat;
    pending["target"] = view.pending->target;
    pending["rank"] = rank_text(view.pending->rank);
    if (view.pending->card) pending["card"] = engine::to_string(*view.pending->card);
    out["pending"] = std::move(pending);
  } else {
    out["pending"] = nullptr;
  }
  out["legal"] = legal_to_json(view.legal);
  if (!view.improper.empty()) out["improper"] = improper_to_json(view.improper);
  OrderedJson seats = OrderedJson::array();
  for (engine::Seat s = 0; s < view.players && s < engine::kMaxSeats; ++s) {
    const engine::SeatView& sv = view.seats[static_cast<std::size_t>(s)];
    OrderedJson seat = OrderedJson::object();
    seat["hand_size"] = sv.hand_size;
    seat["status"] = status_name(sv.status);
    seat["score"] = sv.score;
    OrderedJson sets = OrderedJson::array();
    for (int i = 0; i < sv.set_count && i < engine::kDeckSize / 2; ++i) {
      sets.push_back(OrderedJson{{"rank", rank_text(sv.set_ranks[static_cast<std::size_t>(i)])},
                                 {"scores", ((sv.set_scores >> i) & 1U) != 0}});
    }
    seat["sets"] = std::move(sets);
    seat["misses_next_turn"] = sv.misses_next_turn;
    seat["barred"] = ranks_to_json(sv.barred_ranks);
    seats.push_back(std::move(seat));
  }
  out["seats"] = std::move(seats);
  out["end_reason"] = view.end_reason ? OrderedJson(engine::to_string(*view.end_reason)) : OrderedJson(nullptr);
  out["winners"] = seats_to_json(view.winners);
  return out;
}

std::variant<engine::View, std::string> view_from_json(const Json& json, engine::Viewer viewer,
                                                       engine::AskFor ask_for) {
  Reader r(json);
  GameReader g{r};
  engine::View view;
  view.viewer = viewer;
  view.players = static_cast<int>(r.required_integer("players", 2, engine::kMaxSeats));
  view.hand = g.cards("hand");
  view.stock_size = g.count("stock", engine::kDeckSize);
  view.phase = g.choice("phase", kPhases, phase_name);
  view.turn = g.seat("turn");
  view.to_act = g.seat("to_act");
  if (const Json* pending = r.object("pending")) {
    Reader pr(*pending);
    GameReader pg{pr};
    engine::PendingAsk ask{};
    ask.seat = pg.seat("seat");
    ask.target = pg.seat("target");
    ask.rank = pg.rank("rank");
    if (pr.has("card")) ask.card = pg.card("card");
    if (pr.failed()) return "pending: " + pr.error().message;
    view.pending = ask;
  }
  if (const Json* legal = r.object("legal")) {
    auto parsed = legal_from_json(*legal, viewer.seat.value_or(0), ask_for);
    if (const auto* error = std::get_if<std::string>(&parsed)) return "legal: " + *error;
    view.legal = std::get<engine::LegalDecisions>(parsed);
  }
  if (const Json* improper = r.object("improper")) {
    auto parsed = improper_from_json(*improper, ask_for);
    if (const auto* error = std::get_if<std::string>(&parsed)) return "improper: " + *error;
    view.improper = std::get<engine::ImproperDecisions>(parsed);
    if (!viewer.seat || view.improper.decisions.seat != *viewer.seat) {
      return std::string("improper: only your own improper decisions can be shown to you");
    }
  }
  const Json& seats = r.required_array("seats", engine::kMaxSeats);
  if (!r.failed() && seats.size() != static_cast<std::size_t>(view.players)) {
    return std::string("\"seats\" needs one entry per player");
  }
  for (std::size_t s = 0; s < seats.size() && !r.failed(); ++s) {
    Reader sr(seats[s]);
    GameReader sg{sr};
    engine::SeatView& sv = view.seats[s];
    sv.hand_size = sg.count("hand_size", engine::kDeckSize);
    sv.status = sg.choice("status", kStatuses, status_name);
    sv.misses_next_turn = sr.required_boolean("misses_next_turn");
    sv.barred_ranks = sg.ranks("barred");
    const Json& sets = sr.required_array("sets", engine::kDeckSize / 2);
    for (const Json& set : sets) {
      Reader setr(set);
      GameReader setg{setr};
      const engine::Rank rank = setg.rank("rank");
      const bool scores = setr.required_boolean("scores");
      if (setr.failed()) return "seats.sets: " + setr.error().message;
      const int i = sv.set_count++;
      sv.set_ranks[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(rank);
      if (scores) {
        sv.set_scores |= 1U << i;
        ++sv.score;
      }
    }
    const auto score = sr.required_integer("score", 0, engine::kDeckSize / 2);
    if (sr.failed()) return "seats: " + sr.error().message;
    if (score != sv.score) return std::string("a seat's \"score\" must count its scoring sets");
  }
  if (const auto* end = r.get("end_reason")) {
    const auto text = detail::as_string(*end, 32);
    const auto reason = text ? parse_choice(*text, kReasons, end_reason_name) : std::nullopt;
    if (!reason) return std::string("\"end_reason\" has an unknown value");
    view.end_reason = reason;
  }
  view.winners = g.seats("winners");
  if (r.failed()) return r.error().message;
  return view;
}

}  // namespace gofish::protocol
