// event_results (server/rooms/event_results.hpp): places with ties, bots,
// unfinished tables, seat-position averages with the same deal, and each
// pupil's totals; and the CSV written from the results (RFC 4180 quoting,
// formula-guarded names).
#include <doctest/doctest.h>

#include "protocol/results_csv.hpp"
#include "server/rooms/event_results.hpp"

namespace gofish::server {
namespace {

std::vector<engine::Rank> sets(int count, engine::Rank first = 0) {
  std::vector<engine::Rank> out;
  for (int i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

EventResultsInput::Table table(std::string room, std::vector<std::optional<int>> pupils, std::vector<int> counts,
                               std::optional<std::string> game_id) {
  EventResultsInput::Table t;
  t.room = std::move(room);
  t.pupils = std::move(pupils);
  for (std::size_t s = 0; s < counts.size(); ++s) {
    t.names.push_back(t.pupils[s] ? "" : "Bot " + std::to_string(s));
    t.ranks.push_back(sets(counts[s]));
  }
  t.game_id = std::move(game_id);
  return t;
}

EventResultsInput class_of_four(bool same_deal) {
  EventResultsInput input;
  input.code = "K7QXM2";
  input.name = "Class 3B";
  input.same_deal = same_deal;
  input.pupil_names = {"Ann", "Ben", "Cleo", "Dev", "Eli"};
  // Round 1: table 0 Ann 5, Ben 5 (tie), a bot 3; table 1 Cleo 2, Dev 6, a bot 5.
  // Seat positions: seat 0 (5, 2) average 3.5; seat 1 (5, 6) 5.5; seat 2 (3, 5) 4.
  input.rounds.push_back(
      {1,
       {table("AAAAA", {0, 1, std::nullopt}, {5, 5, 3}, "g1"), table("BBBBB", {2, 3, std::nullopt}, {2, 6, 5}, "g2")}});
  // Round 2: one table finished (Ann 7, Cleo 6), one still playing (Ben 1, Dev 0).
  input.rounds.push_back({2,
                          {table("CCCCC", {0, 2, std::nullopt}, {7, 6, 0}, "g3"),
                           table("DDDDD", {1, 3, std::nullopt}, {1, 0, 0}, std::nullopt)}});
  return input;
}

TEST_CASE("event results: places share ties, bots are seats, an unfinished table has no places") {
  const auto results = event_results(class_of_four(false));
  CHECK(results.code == "K7QXM2");
  CHECK_FALSE(results.same_deal);
  REQUIRE(results.rounds.size() == 2);
  const auto& first = results.rounds[0].tables[0];
  CHECK(first.finished);
  CHECK(first.game_id == "g1");
  REQUIRE(first.seats.size() == 3);
  CHECK(first.seats[0].name == "Ann");
  CHECK(first.seats[0].pupil == 0);
  CHECK(first.seats[0].place == 1);
  CHECK(first.seats[1].place == 1);  // tied with Ann
  CHECK(first.seats[2].name == "Bot 2");
  CHECK_FALSE(first.seats[2].pupil);
  CHECK(first.seats[2].place == 3);  // two ahead of it
  CHECK(first.seats[2].ranks == sets(3));
  CHECK(first.seats[2].sets == 3);
  CHECK(results.rounds[0].seat_positions.empty());
  CHECK_FALSE(first.seats[0].vs_seat_average);

  // Not the same deal: a finished table's game is offered at once.
  CHECK(results.rounds[1].tables[0].game_id == "g3");
  const auto& playing = results.rounds[1].tables[1];
  CHECK_FALSE(playing.finished);
  CHECK_FALSE(playing.game_id);
  CHECK(playing.seats[0].sets == 1);
  for (const auto& seat : playing.seats) CHECK_FALSE(seat.place);

  // Pupils: finished games only.
  REQUIRE(results.pupils.size() == 4);  // Eli never sat at a table
  CHECK(results.pupils[0].name == "Ann");
  CHECK(results.pupils[0].games == 2);
  CHECK(results.pupils[0].sets == 12);
  CHECK(results.pupils[0].wins == 2);
  CHECK(results.pupils[1].name == "Ben");
  CHECK(results.pupils[1].games == 1);  // round 2 not over
  CHECK(results.pupils[1].wins == 1);
  CHECK(results.pupils[2].games == 2);
  CHECK(results.pupils[2].wins == 0);
  CHECK(results.pupils[3].wins == 1);
  CHECK_FALSE(results.pupils[0].vs_seat_average);
}

TEST_CASE("event results: with the same deal, each seat position is compared across the round's tables") {
  const auto results = event_results(class_of_four(true));
  const auto& positions = results.rounds[0].seat_positions;
  REQUIRE(positions.size() == 3);
  CHECK(positions[0].average == doctest::Approx(3.5));
  REQUIRE(positions[0].tables.size() == 2);
  CHECK(positions[0].tables[1].table == 1);
  CHECK(positions[0].tables[1].sets == 2);
  CHECK(positions[1].average == doctest::Approx(5.5));
  CHECK(positions[2].average == doctest::Approx(4.0));
  const auto& tables = results.rounds[0].tables;
  CHECK(tables[0].seats[0].vs_seat_average == doctest::Approx(1.5));   // Ann 5 - 3.5
  CHECK(tables[1].seats[0].vs_seat_average == doctest::Approx(-1.5));  // Cleo 2 - 3.5
  CHECK(tables[0].seats[1].vs_seat_average == doctest::Approx(-0.5));  // Ben 5 - 5.5
  CHECK(tables[0].seats[2].vs_seat_average == doctest::Approx(-1.0));  // a bot 3 - 4
  // Round 2: only one table finished, so each seat equals its average.
  const auto& second = results.rounds[1];
  CHECK(second.seat_positions[0].tables.size() == 1);
  CHECK(second.tables[0].seats[0].vs_seat_average == doctest::Approx(0.0));
  CHECK_FALSE(second.tables[1].seats[0].vs_seat_average);
  // Its finished table's game shows the deck the other table still plays:
  // no id (no replay link, no transcript URL) until that table is over too;
  // round 1's tables are all over, so theirs are offered.
  CHECK(second.tables[0].finished);
  CHECK_FALSE(second.tables[0].game_id);
  CHECK(tables[0].game_id == "g1");
  CHECK(tables[1].game_id == "g2");
  // Ann: +1.5 and 0 -> mean 0.75; Ben: -0.5 (round 2 unfinished); Dev: 6 - 5.5.
  CHECK(results.pupils[0].vs_seat_average == doctest::Approx(0.75));
  CHECK(results.pupils[1].vs_seat_average == doctest::Approx(-0.5));
  CHECK(results.pupils[3].vs_seat_average == doctest::Approx(0.5));
}

TEST_CASE("event results: thirds are rounded to hundredths") {
  EventResultsInput input;
  input.same_deal = true;
  input.pupil_names = {"Ann", "Ben", "Cleo"};
  input.rounds.push_back(
      {1,
       {table("AAAAA", {0, std::nullopt}, {1, 0}, "g1"), table("BBBBB", {1, std::nullopt}, {1, 0}, "g2"),
        table("CCCCC", {2, std::nullopt}, {2, 0}, "g3")}});
  const auto results = event_results(input);
  CHECK(*results.rounds[0].seat_positions[0].average == 1.33);
  CHECK(*results.rounds[0].tables[2].seats[0].vs_seat_average == 0.67);
  CHECK(*results.rounds[0].tables[0].seats[0].vs_seat_average == -0.33);
}

TEST_CASE("event results CSV: one row per seat, RFC 4180 quoting, names guarded against formulas") {
  EventResultsInput input = class_of_four(true);
  input.pupil_names[0] = "=HYPERLINK(\"x\")";
  input.pupil_names[1] = "Ben, the \"Fish\"";
  const auto csv = protocol::results_csv(event_results(input));
  const std::string header = "round,table,seat,name,kind,sets,ranks,place,vs_seat_average,game_id,transcript_url\r\n";
  REQUIRE(csv.starts_with(header));
  CHECK(csv.find("1,0,0,\"'=HYPERLINK(\"\"x\"\")\",pupil,5,2 3 4 5 6,1,1.50,g1,/api/games/g1/transcript\r\n") !=
        std::string::npos);
  CHECK(csv.find("1,0,1,\"Ben, the \"\"Fish\"\"\",pupil,5,2 3 4 5 6,1,-0.50,g1,") != std::string::npos);
  CHECK(csv.find("1,0,2,Bot 2,bot,3,2 3 4,3,-1.00,g1,") != std::string::npos);
  // The unfinished table: no place, no average, no game; the finished one
  // beside it in a same-deal round: its game held back as well.
  CHECK(csv.find("2,1,1,Dev,pupil,0,,,,,\r\n") != std::string::npos);
  CHECK(csv.find("2,0,2,Bot 2,bot,0,,3,0.00,,\r\n") != std::string::npos);
  CHECK(csv.find("g3") == std::string::npos);
  std::size_t rows = 0;
  for (std::size_t at = csv.find("\r\n"); at != std::string::npos; at = csv.find("\r\n", at + 2)) ++rows;
  CHECK(rows == 1 + 4 * 3);
  CHECK(protocol::csv_field("-2", true) == "'-2");
  CHECK(protocol::csv_field("+x", true) == "'+x");
  CHECK(protocol::csv_field("@x", true) == "'@x");
  CHECK(protocol::csv_field("a\nb", true) == "\"a\nb\"");
  CHECK(protocol::csv_field("plain", true) == "plain");
}

}  // namespace
}  // namespace gofish::server
