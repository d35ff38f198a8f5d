#include "clients/cli/class_console.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "clients/cli/commands.hpp"

namespace gofish::cli {
namespace {

std::string plural(int count, std::string_view one, std::string_view many) {
  return std::to_string(count) + " " + std::string(count == 1 ? one : many);
}

// "Ann 5 cards, 1 set" with what needs the teacher's eye first.
std::string seat_line(const protocol::EventTable& table, std::size_t index, std::size_t width) {
  const auto& seat = table.seats[index];
  std::string line = table.turn && static_cast<std::size_t>(*table.turn) == index && table.state ==
                                                                                         protocol::RoomState::kPlaying
                         ? "  > "
                         : "    ";
  std::string name = seat.name.empty() ? "(empty)" : seat.name;
  name.resize(std::max(width, name.size()), ' ');
  line += name + "  " + plural(seat.cards, "card ", "cards") + "  " + plural(seat.sets, "set", "sets");
  if (seat.pupil) {
    if (seat.bot_playing) {
      line += "  AWAY: a bot plays for them";
    } else if (!seat.connected) {
      line += "  not connected";
    }
  } else if (seat.occupant == protocol::Occupant::kBot) {
    line += "  (bot)";
  }
  return line;
}

std::string table_heading(const protocol::EventTable& table) {
  std::string line = "Table " + std::to_string(table.table + 1);
  if (!table.room.empty()) line += "  room " + table.room;
  switch (table.state) {
    case protocol::RoomState::kWaiting: line += table.room.empty() ? "  planned" : "  waiting"; break;
    case protocol::RoomState::kPlaying: line += "  playing  pond " + std::to_string(table.pond); break;
    case protocol::RoomState::kOver: line += "  FINISHED"; break;
  }
  int away = 0;
  for (const auto& seat : table.seats) {
    if (seat.pupil && (seat.bot_playing || !seat.connected)) ++away;
  }
  if (away > 0 && table.state == protocol::RoomState::kPlaying) {
    line += "  needs help: " + plural(away, "pupil away", "pupils away");
  }
  return line;
}

std::string sets_summary(const protocol::EventTable& table) {
  std::string out;
  for (const auto& seat : table.seats) {
    out += (out.empty() ? "" : ", ") + seat.name + " " + plural(seat.sets, "set", "sets");
  }
  return out;
}

}  // namespace

std::vector<std::string> class_lines(const protocol::EventState& state) {
  std::vector<std::string> lines;
  int connected = 0;
  int joined = 0;
  for (const auto& p : state.pupils) {
    joined += p.claimed ? 1 : 0;
    connected += p.connected ? 1 : 0;
  }
  std::string heading = "Class " + state.name + " (code " + state.code + "): ";
  switch (state.state) {
    case protocol::EventPhase::kOpen:
      heading += state.round == 0 ? "waiting for the first round" : "between rounds";
      break;
    case protocol::EventPhase::kPlaying: heading += "round " + std::to_string(state.round) + " in play"; break;
    case protocol::EventPhase::kClosed: heading += "closed"; break;
  }
  heading += ", round " + std::to_string(state.round) + " of " + std::to_string(state.settings.rounds) + ".";
  if (state.paused) heading += " Every table is PAUSED ('resume' lets them play on).";
  lines.push_back(heading);
  lines.push_back("Pupils: " + std::to_string(joined) + " joined, " + std::to_string(connected) + " connected.");
  std::string waiting;
  for (const auto& p : state.pupils) {
    std::string entry = std::to_string(p.id + 1) + ". " + p.name;
    if (!p.claimed) {
      entry += " (not joined)";
    } else if (!p.connected) {
      entry += " (not connected)";
    }
    if (p.table) {
      entry += " at table " + std::to_string(*p.table + 1);
    } else if (p.claimed) {
      entry += " not seated";
    }
    waiting += (waiting.empty() ? "  " : "; ") + entry;
  }
  if (!waiting.empty()) lines.push_back(waiting);
  for (const auto& table : state.tables) {
    lines.push_back(table_heading(table));
    std::size_t width = 0;
    for (const auto& seat : table.seats) width = std::max(width, seat.name.size());
    for (std::size_t i = 0; i < table.seats.size(); ++i) lines.push_back(seat_line(table, i, width));
  }
  if (state.tables.empty()) lines.push_back("No tables yet: 'seat' seats the pupils who have joined.");
  return lines;
}

std::vector<std::string> class_changes(const protocol::EventState& before, const protocol::EventState& after) {
  std::vector<std::string> lines;
  std::map<int, const protocol::EventPupil*> was;
  for (const auto& p : before.pupils) was[p.id] = &p;
  for (const auto& p : after.pupils) {
    const auto found = was.find(p.id);
    const protocol::EventPupil* old = found == was.end() ? nullptr : found->second;
    if (p.claimed && (!old || !old->claimed)) {
      lines.push_back(p.name + " joined.");
    } else if (old && old->claimed && !p.claimed) {
      lines.push_back(p.name + " was let go: the name is free again.");
    } else if (old && p.claimed && !old->unseated && p.unseated) {
      lines.push_back(p.name + "'s seat went to a bot; " + p.name + " waits for the next round.");
    } else if (old && p.claimed && old->connected && !p.connected) {
      lines.push_back(p.name + " lost the connection.");
    } else if (old && p.claimed && !old->connected && p.connected) {
      lines.push_back(p.name + " is back.");
    }
  }
  if (after.round != before.round && after.state == protocol::EventPhase::kPlaying) {
    lines.push_back("Round " + std::to_string(after.round) + " started at " +
                    plural(static_cast<int>(after.tables.size()), "table.", "tables."));
  } else if (after.state == protocol::EventPhase::kOpen && after.tables != before.tables && !after.tables.empty() &&
             after.tables.front().room.empty()) {
    int seated = 0;
    for (const auto& p : after.pupils) seated += p.table ? 1 : 0;
    lines.push_back("Seating for the next round: " + plural(seated, "pupil", "pupils") + " at " +
                    plural(static_cast<int>(after.tables.size()), "table.", "tables."));
  }
  for (const auto& table : after.tables) {
    const auto old = std::find_if(before.tables.begin(), before.tables.end(),
                                  [&](const protocol::EventTable& t) { return t.room == table.room; });
    const bool finished_now = table.state == protocol::RoomState::kOver &&
                              (old == before.tables.end() || old->state != protocol::RoomState::kOver);
    if (finished_now && !table.room.empty()) {
      lines.push_back("Table " + std::to_string(table.table + 1) + " finished: " + sets_summary(table) + ".");
    }
  }
  if (after.paused != before.paused) {
    lines.push_back(after.paused ? "Every table is paused." : "Every table plays on.");
  }
  if (after.state == protocol::EventPhase::kOpen && before.state == protocol::EventPhase::kPlaying) {
    lines.push_back("Round " + std::to_string(after.round) + " is over. 'seat' and 'start' begin the next.");
  }
  if (after.state == protocol::EventPhase::kClosed && before.state != protocol::EventPhase::kClosed) {
    lines.push_back("The class is over: every round has been played.");
  }
  return lines;
}

std::vector<std::string> results_lines(const protocol::EventResults& results) {
  std::vector<std::string> lines{"Results of the class " + results.name + ":"};
  const auto signed_hundredths = [](double value) {
    const long hundredths = std::lround(value * 100);
    std::string text = std::to_string(std::labs(hundredths) / 100) + "." + (std::labs(hundredths) % 100 < 10 ? "0" : "") +
                       std::to_string(std::labs(hundredths) % 100);
    return (hundredths < 0 ? "-" : "+") + text;
  };
  for (const auto& round : results.rounds) {
    for (const auto& table : round.tables) {
      std::vector<protocol::ResultSeat> seats = table.seats;
      std::stable_sort(seats.begin(), seats.end(), [](const auto& a, const auto& b) { return a.sets > b.sets; });
      std::string line = "  Round " + std::to_string(round.round) + ", table " + std::to_string(table.table + 1) +
                         (table.finished ? ": " : " (still playing): ");
      for (std::size_t i = 0; i < seats.size(); ++i) {
        const auto& seat = seats[i];
        line += (i == 0 ? "" : "; ") + (seat.place ? "#" + std::to_string(*seat.place) + " " : std::string()) +
                seat.name + " " + plural(seat.sets, "set", "sets");
        if (seat.vs_seat_average) line += " (" + signed_hundredths(*seat.vs_seat_average) + " on the seat's average)";
      }
      lines.push_back(line);
    }
  }
  if (results.rounds.empty()) lines.push_back("  No round has been played yet.");
  for (const auto& pupil : results.pupils) {
    std::string line = "  " + pupil.name + ": " + plural(pupil.games, "game", "games") + ", " +
                       plural(pupil.sets, "set", "sets") + ", " + plural(pupil.wins, "win", "wins");
    if (pupil.vs_seat_average) line += ", " + signed_hundredths(*pupil.vs_seat_average) + " a game on the seat's average";
    lines.push_back(line + ".");
  }
  return lines;
}

std::variant<int, std::string> resolve_pupil(std::string_view typed, const protocol::EventState& state) {
  std::vector<std::string> names;
  for (const auto& p : state.pupils) names.push_back(p.name);
  const auto picked = pick_by_name(typed, names);
  if (const int* index = std::get_if<int>(&picked)) return state.pupils[static_cast<std::size_t>(*index)].id;
  switch (std::get<PickProblem>(picked)) {
    case PickProblem::kNoSuchNumber:
      return "There is no pupil " + std::string(typed) + "; 'class' lists them with their numbers.";
    case PickProblem::kSeveral:
      return "'" + std::string(typed) + "' could be several pupils; use their number from 'class'.";
    case PickProblem::kNoSuchName: break;
  }
  return "No pupil is called '" + std::string(typed) + "'; 'class' lists them.";
}

}  // namespace gofish::cli
