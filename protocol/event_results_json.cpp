// The JSON of event_results (protocol/README.md, "event_results"), both
// ways: written field by field in a fixed order, read back for C++ clients
// and tests (a malformed frame becomes a sentence).
#include <cmath>

#include "protocol/event_json.hpp"

namespace gofish::protocol {
using detail::Json;
using detail::OrderedJson;

namespace {

OrderedJson optional_number(const std::optional<double>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}
OrderedJson optional_int(const std::optional<int>& value) { return value ? OrderedJson(*value) : OrderedJson(nullptr); }

std::optional<double> number_from(const Json& json, const char* key) {
  const Json& value = json.at(key);
  if (value.is_null()) return std::nullopt;
  const double number = value.get<double>();
  if (!std::isfinite(number)) throw std::runtime_error(std::string(key) + " is not a number");
  return number;
}
std::optional<int> int_from(const Json& json, const char* key) {
  const Json& value = json.at(key);
  if (value.is_null()) return std::nullopt;
  return value.get<int>();
}
engine::Seat seat_from(const Json& json) {
  const int seat = json.at("seat").get<int>();
  if (seat < 0 || seat >= engine::kMaxSeats) throw std::runtime_error("seat out of range");
  return static_cast<engine::Seat>(seat);
}

OrderedJson table_json(const ResultTable& t) {
  OrderedJson seats = OrderedJson::array();
  for (const ResultSeat& s : t.seats) {
    seats.push_back(OrderedJson{{"seat", s.seat},
                                {"name", s.name},
                                {"pupil", optional_int(s.pupil)},
                                {"sets", s.sets},
                                {"ranks", detail::rank_list_json(s.ranks)},
                                {"place", optional_int(s.place)},
                                {"vs_seat_average", optional_number(s.vs_seat_average)}});
  }
  return OrderedJson{{"table", t.table},
                     {"room", t.room},
                     {"game_id", t.game_id ? OrderedJson(*t.game_id) : OrderedJson(nullptr)},
                     {"finished", t.finished},
                     {"seats", std::move(seats)}};
}

OrderedJson position_json(const SeatPosition& p) {
  OrderedJson tables = OrderedJson::array();
  for (const SeatPositionTable& t : p.tables) tables.push_back(OrderedJson{{"table", t.table}, {"sets", t.sets}});
  return OrderedJson{{"seat", p.seat}, {"tables", std::move(tables)}, {"average", optional_number(p.average)}};
}

ResultTable table_from(const Json& json) {
  ResultTable t;
  t.table = json.at("table").get<int>();
  t.room = json.at("room").get<std::string>();
  if (!json.at("game_id").is_null()) t.game_id = json.at("game_id").get<std::string>();
  t.finished = json.at("finished").get<bool>();
  for (const Json& seat : json.at("seats")) {
    ResultSeat s;
    s.seat = seat_from(seat);
    s.name = seat.at("name").get<std::string>();
    s.pupil = int_from(seat, "pupil");
    s.sets = seat.at("sets").get<int>();
    s.ranks = detail::rank_list_from(seat.at("ranks"));
    s.place = int_from(seat, "place");
    s.vs_seat_average = number_from(seat, "vs_seat_average");
    t.seats.push_back(std::move(s));
  }
  return t;
}

SeatPosition position_from(const Json& json) {
  SeatPosition p;
  p.seat = seat_from(json);
  for (const Json& t : json.at("tables")) {
    p.tables.push_back(SeatPositionTable{t.at("table").get<int>(), t.at("sets").get<int>()});
  }
  p.average = number_from(json, "average");
  return p;
}

}  // namespace

namespace detail {

OrderedJson rank_list_json(const std::vector<engine::Rank>& ranks) {
  OrderedJson out = OrderedJson::array();
  for (engine::Rank rank : ranks) out.push_back(std::string(engine::rank_name(rank)));
  return out;
}

std::vector<engine::Rank> rank_list_from(const Json& json) {
  std::vector<engine::Rank> out;
  for (const Json& entry : json) {
    const auto rank = engine::parse_rank(entry.get<std::string>());
    if (!rank) throw std::runtime_error("not a rank");
    out.push_back(*rank);
  }
  return out;
}

OrderedJson event_results_json(const EventResults& m) {
  OrderedJson out = OrderedJson::object();
  out["type"] = "event_results";
  if (m.id) std::visit([&](const auto& value) { out["id"] = value; }, *m.id);
  out["code"] = m.code;
  out["name"] = m.name;
  out["same_deal"] = m.same_deal;
  OrderedJson rounds = OrderedJson::array();
  for (const RoundResults& round : m.rounds) {
    OrderedJson tables = OrderedJson::array();
    for (const ResultTable& table : round.tables) tables.push_back(table_json(table));
    OrderedJson positions = OrderedJson::array();
    for (const SeatPosition& position : round.seat_positions) positions.push_back(position_json(position));
    rounds.push_back(
        OrderedJson{{"round", round.round}, {"tables", std::move(tables)}, {"seat_positions", std::move(positions)}});
  }
  out["rounds"] = std::move(rounds);
  OrderedJson pupils = OrderedJson::array();
  for (const PupilResults& p : m.pupils) {
    pupils.push_back(OrderedJson{{"pupil", p.pupil},
                                 {"name", p.name},
                                 {"games", p.games},
                                 {"sets", p.sets},
                                 {"wins", p.wins},
                                 {"vs_seat_average", optional_number(p.vs_seat_average)}});
  }
  out["pupils"] = std::move(pupils);
  return out;
}

std::variant<EventServerMessage, std::string> event_results_from_json(const Json& json) {
  try {
    EventResults m;
    if (const auto it = json.find("id"); it != json.end() && !it->is_null()) {
      m.id = it->is_string() ? RequestId(it->get<std::string>()) : RequestId(it->get<std::int64_t>());
    }
    m.code = json.at("code").get<std::string>();
    m.name = json.at("name").get<std::string>();
    m.same_deal = json.at("same_deal").get<bool>();
    for (const Json& round : json.at("rounds")) {
      RoundResults r;
      r.round = round.at("round").get<int>();
      for (const Json& table : round.at("tables")) r.tables.push_back(table_from(table));
      for (const Json& position : round.at("seat_positions")) r.seat_positions.push_back(position_from(position));
      m.rounds.push_back(std::move(r));
    }
    for (const Json& pupil : json.at("pupils")) {
      PupilResults p;
      p.pupil = pupil.at("pupil").get<int>();
      p.name = pupil.at("name").get<std::string>();
      p.games = pupil.at("games").get<int>();
      p.sets = pupil.at("sets").get<int>();
      p.wins = pupil.at("wins").get<int>();
      p.vs_seat_average = number_from(pupil, "vs_seat_average");
      m.pupils.push_back(std::move(p));
    }
    return EventServerMessage(std::move(m));
  } catch (const std::exception& error) {
    return std::string("event_results: ") + error.what();
  }
}

}  // namespace detail

std::string table_result_record(const TableResultRecord& result) {
  OrderedJson seats = OrderedJson::array();
  for (std::size_t s = 0; s < result.names.size(); ++s) {
    seats.push_back(OrderedJson{
        {"name", result.names[s]},
        {"ranks", detail::rank_list_json(s < result.ranks.size() ? result.ranks[s] : std::vector<engine::Rank>{})}});
  }
  return seats.dump();
}

std::optional<TableResultRecord> table_result_from_record(std::string_view text) {
  const Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_array()) return std::nullopt;
  try {
    TableResultRecord out;
    for (const Json& seat : json) {
      out.names.push_back(seat.at("name").get<std::string>());
      out.ranks.push_back(detail::rank_list_from(seat.at("ranks")));
    }
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace gofish::protocol
