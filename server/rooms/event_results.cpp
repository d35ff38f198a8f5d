#include "server/rooms/event_results.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gofish::server {

namespace {

double hundredths(double value) { return std::round(value * 100.0) / 100.0; }

struct PupilTally {
  int games = 0;
  int sets = 0;
  int wins = 0;
  int same_deal_games = 0;
  double vs_sum = 0;
};

protocol::ResultTable table_results(const EventResultsInput::Table& in, int number,
                                    const std::vector<std::string>& pupil_names) {
  protocol::ResultTable out;
  out.table = number;
  out.room = in.room;
  out.game_id = in.game_id;
  out.finished = in.game_id.has_value();
  for (std::size_t s = 0; s < in.pupils.size(); ++s) {
    protocol::ResultSeat seat;
    seat.seat = static_cast<engine::Seat>(s);
    seat.pupil = in.pupils[s];
    if (s < in.names.size() && !in.names[s].empty()) {
      seat.name = in.names[s];
    } else if (seat.pupil && static_cast<std::size_t>(*seat.pupil) < pupil_names.size()) {
      seat.name = pupil_names[static_cast<std::size_t>(*seat.pupil)];
    } else {
      seat.name = "Bot";
    }
    if (s < in.ranks.size()) seat.ranks = in.ranks[s];
    seat.sets = static_cast<int>(seat.ranks.size());
    out.seats.push_back(std::move(seat));
  }
  if (out.finished) {
    for (auto& seat : out.seats) {
      int ahead = 0;
      for (const auto& other : out.seats) ahead += other.sets > seat.sets ? 1 : 0;
      seat.place = 1 + ahead;
    }
  }
  return out;
}

// Same deal: each seat position's sets at the round's finished tables, and
// each finished seat's difference from its position's average.
std::vector<protocol::SeatPosition> seat_positions(std::vector<protocol::ResultTable>& tables) {
  std::size_t seats = 0;
  for (const auto& table : tables) seats = std::max(seats, table.seats.size());
  std::vector<protocol::SeatPosition> positions;
  for (std::size_t s = 0; s < seats; ++s) {
    protocol::SeatPosition position;
    position.seat = static_cast<engine::Seat>(s);
    int total = 0;
    for (const auto& table : tables) {
      if (!table.finished || s >= table.seats.size()) continue;
      position.tables.push_back(protocol::SeatPositionTable{table.table, table.seats[s].sets});
      total += table.seats[s].sets;
    }
    if (!position.tables.empty()) {
      const double average = static_cast<double>(total) / static_cast<double>(position.tables.size());
      position.average = hundredths(average);
      for (auto& table : tables) {
        if (table.finished && s < table.seats.size()) {
          table.seats[s].vs_seat_average = hundredths(table.seats[s].sets - average);
        }
      }
    }
    positions.push_back(std::move(position));
  }
  return positions;
}

}  // namespace

protocol::EventResults event_results(const EventResultsInput& input) {
  protocol::EventResults out;
  out.code = input.code;
  out.name = input.name;
  out.same_deal = input.same_deal;
  std::map<int, PupilTally> tallies;  // every pupil seated in some round
  for (const auto& round : input.rounds) {
    protocol::RoundResults results;
    results.round = round.round;
    for (std::size_t t = 0; t < round.tables.size(); ++t) {
      results.tables.push_back(table_results(round.tables[t], static_cast<int>(t), input.pupil_names));
    }
    if (input.same_deal) {
      results.seat_positions = seat_positions(results.tables);
      // A finished table's game shows the deck the others still play: no
      // id (so no replay link, no transcript URL) until every table is over.
      const bool held = std::ranges::any_of(results.tables, [](const auto& table) { return !table.finished; });
      if (held) {
        for (auto& table : results.tables) table.game_id.reset();
      }
    }
    for (const auto& table : results.tables) {
      for (const auto& seat : table.seats) {
        if (!seat.pupil) continue;
        PupilTally& tally = tallies[*seat.pupil];
        if (!table.finished) continue;
        ++tally.games;
        tally.sets += seat.sets;
        tally.wins += seat.place == 1 ? 1 : 0;
        if (seat.vs_seat_average) {
          ++tally.same_deal_games;
          tally.vs_sum += *seat.vs_seat_average;
        }
      }
    }
    out.rounds.push_back(std::move(results));
  }
  for (const auto& [pupil, tally] : tallies) {
    protocol::PupilResults p;
    p.pupil = pupil;
    if (static_cast<std::size_t>(pupil) < input.pupil_names.size()) {
      p.name = input.pupil_names[static_cast<std::size_t>(pupil)];
    }
    p.games = tally.games;
    p.sets = tally.sets;
    p.wins = tally.wins;
    if (tally.same_deal_games > 0) p.vs_seat_average = hundredths(tally.vs_sum / tally.same_deal_games);
    out.pupils.push_back(std::move(p));
  }
  return out;
}

}  // namespace gofish::server
