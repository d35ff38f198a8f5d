// The results of a class event (protocol/README.md, "event_results"), as a
// pure function of what the event keeps of its rounds: for each table the
// pupil in each seat, the names the room gave its seats, the ranks of the
// sets each seat laid and, once its game is over, the game's id.
//
// Readings chosen:
// - A seat's sets are the sets it laid (scored or not); its place is 1 plus
//   the number of seats at its table with more sets, so ties share a place
//   and the next place is skipped (two firsts, then a third).
// - Places, wins, games and seat averages count finished tables only; a
//   table still playing shows its sets so far with no place.
// - With the same deal, a seat position's average is over the round's
//   finished tables; a seat's vs_seat_average is its sets minus that
//   average, and a pupil's is the mean of theirs over their finished games.
//   Figures are rounded to hundredths.
// - With the same deal, a round's game ids are left out until every table
//   of the round is over: a finished table's transcript shows the deck the
//   others still play (docs/FAIRNESS.md, "Shared deals"). A round left
//   with a table unfinished keeps them out for good, as its transcripts
//   stay held (transcript_api.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gofish::server {

struct EventResultsInput {
  struct Table {
    std::string room;
    std::vector<std::optional<int>> pupils;        // the pupil in each seat; none: a bot
    std::vector<std::string> names;                // each seat's name (may be shorter: then the pupil's or "Bot")
    std::vector<std::vector<engine::Rank>> ranks;  // each seat's sets (may be shorter: none yet)
    std::optional<std::string> game_id;            // set once the table's game is over
  };
  struct Round {
    int round = 0;
    std::vector<Table> tables;
  };
  std::string code;
  std::string name;
  bool same_deal = false;
  std::vector<Round> rounds;             // round 1 first
  std::vector<std::string> pupil_names;  // by pupil number
};

protocol::EventResults event_results(const EventResultsInput& input);

}  // namespace gofish::server
