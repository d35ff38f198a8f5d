#include "protocol/results_csv.hpp"

#include <cstdio>

namespace gofish::protocol {

namespace {

std::string number_text(const std::optional<double>& value) {
  if (!value) return {};
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", *value);
  return buffer;
}

}  // namespace

std::string csv_field(std::string_view text, bool free_text) {
  std::string value;
  if (free_text && !text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@')) {
    value = "'";
  }
  value += text;
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string results_csv(const EventResults& results) {
  std::string out = "round,table,seat,name,kind,sets,ranks,place,vs_seat_average,game_id,transcript_url\r\n";
  for (const RoundResults& round : results.rounds) {
    for (const ResultTable& table : round.tables) {
      for (const ResultSeat& seat : table.seats) {
        std::string ranks;
        for (engine::Rank rank : seat.ranks) {
          if (!ranks.empty()) ranks += ' ';
          ranks += engine::rank_name(rank);
        }
        const std::string game = table.game_id.value_or("");
        out += std::to_string(round.round) + ',' + std::to_string(table.table) + ',' + std::to_string(seat.seat) + ',' +
               csv_field(seat.name, true) + ',' + (seat.pupil ? "pupil" : "bot") + ',' + std::to_string(seat.sets) +
               ',' + ranks + ',' + (seat.place ? std::to_string(*seat.place) : std::string()) + ',' +
               number_text(seat.vs_seat_average) + ',' + csv_field(game, false) + ',' +
               (game.empty() ? std::string() : "/api/games/" + game + "/transcript") + "\r\n";
      }
    }
  }
  return out;
}

}  // namespace gofish::protocol
