// Class results through the real gofish-server binary (protocol/README.md,
// "event_results" and "Class results as CSV"): a same-deal event of six
// pupils at two tables of four (bots in the other seats, and playing for the
// pupils, who never sit down) plays two rounds to the end. Every seat's sets
// in `event_results` are those of its table's transcript fetched over HTTP;
// the CSV download holds the same rows; a pupil's read_results and a wrong
// token are refused; and after a kill and a restart (SQLite) the teacher
// reads the same results. A class closed before a restart still serves its
// results, CSV and transcripts after it.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "event_support.hpp"
#include "protocol/results_csv.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

const std::vector<std::string> kRoster = {"Ann", "Ben", "Cleo", "Dev", "-Eli", "Fay"};

bool round_over(const protocol::EventResults& results, int round) {
  if (static_cast<int>(results.rounds.size()) < round) return false;
  const auto& tables = results.rounds[static_cast<std::size_t>(round - 1)].tables;
  return !tables.empty() && std::all_of(tables.begin(), tables.end(), [](const auto& t) { return t.finished; });
}

// Waits (pumping the teacher's frames) for a pushed event_results in which
// every table of `round` is finished.
protocol::EventResults await_round_over(Peer& teacher, int round) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto message = teacher.await_class(
        [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventResults>(m); }, 200ms);
    if (!message) continue;
    const auto& results = std::get<protocol::EventResults>(*message);
    CHECK_FALSE(results.id.has_value());  // pushed, not a reply
    if (round_over(results, round)) return results;
  }
  FAIL("round " << round << " never finished in the teacher's event_results");
  return {};
}

// Each table's result against its transcript, fetched as anyone with the
// game id would: the ranks of each seat's sets (classic rules: every set
// scores), and the places they give.
void check_against_transcripts(std::uint16_t port, const protocol::RoundResults& round) {
  for (const auto& table : round.tables) {
    CAPTURE(table.table);
    REQUIRE(table.game_id);
    const auto reply = http_request(port, "/api/games/" + *table.game_id + "/transcript");
    REQUIRE(reply.status == 200);
    auto parsed = protocol::transcript_from_json(nlohmann::json::parse(reply.body));
    REQUIRE(std::holds_alternative<engine::Transcript>(parsed));
    const auto& transcript = std::get<engine::Transcript>(parsed);
    REQUIRE(transcript.books.size() == table.seats.size());
    int best = 0;
    for (const auto& book : transcript.books) best = std::max(best, static_cast<int>(book.size()));
    for (const auto& seat : table.seats) {
      CAPTURE(seat.seat);
      CHECK(seat.ranks == transcript.books[seat.seat]);
      CHECK(seat.sets == static_cast<int>(transcript.books[seat.seat].size()));
      CHECK((seat.place == 1) == (seat.sets == best));
      CHECK(seat.vs_seat_average.has_value());
    }
  }
  // The same deal: each seat position's average is over both tables.
  REQUIRE(round.seat_positions.size() == 4);
  for (const auto& position : round.seat_positions) {
    REQUIRE(position.tables.size() == 2);
    const double mean = (position.tables[0].sets + position.tables[1].sets) / 2.0;
    CHECK(position.average == doctest::Approx(mean));
    for (const auto& at : position.tables) {
      const auto& seat = round.tables[static_cast<std::size_t>(at.table)].seats[position.seat];
      CHECK(at.sets == seat.sets);
      CHECK(*seat.vs_seat_average == doctest::Approx(seat.sets - mean));
    }
  }
}

TEST_CASE("class results: two same-deal rounds at two tables match the transcripts, the CSV, and a restart") {
  TempDir dir("gofish-event-results");
  std::string code;
  std::string teacher_token;
  protocol::EventResults before;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log");
    const auto port = server.port();
    Peer teacher(port);
    const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 3B", kRoster, 2, true));
    code = created.code;
    teacher_token = created.token;
    std::vector<std::unique_ptr<Peer>> pupils;
    std::string ann_token;
    for (const auto& name : kRoster) {
      pupils.push_back(std::make_unique<Peer>(port));
      const auto joined = pupils.back()->expect_class<protocol::EventJoined>(protocol::JoinEvent{code, name, ""});
      if (ann_token.empty()) ann_token = joined.token;
    }
    // Before any round: no rounds, no pupils with games.
    const auto empty = teacher.expect_class<protocol::EventResults>(protocol::ReadResults{});
    CHECK(empty.id.has_value());
    CHECK(empty.code == code);
    CHECK(empty.name == "Class 3B");
    CHECK(empty.same_deal);
    CHECK(empty.rounds.empty());
    // A pupil's read_results, and a stranger's, are refused.
    CHECK(pupils[0]->error_of(protocol::ReadResults{}) == "event/not_teacher");
    Peer stranger(port);
    CHECK(stranger.error_of(protocol::ReadResults{}) == "event/not_in_event");

    for (int round = 1; round <= 2; ++round) {
      CAPTURE(round);
      CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
      const auto pushed = await_round_over(teacher, round);
      const auto read = teacher.expect_class<protocol::EventResults>(protocol::ReadResults{});
      auto unnumbered = read;
      unnumbered.id.reset();
      CHECK(unnumbered == pushed);
      REQUIRE(read.rounds.size() == static_cast<std::size_t>(round));
      const auto& this_round = read.rounds.back();
      CHECK(this_round.round == round);
      REQUIRE(this_round.tables.size() == 2);
      int pupils_seated = 0;
      int bots = 0;
      for (const auto& table : this_round.tables) {
        CHECK(protocol::is_room_code(table.room));
        REQUIRE(table.seats.size() == 4);
        for (const auto& seat : table.seats) {
          if (seat.pupil) {
            ++pupils_seated;
            CHECK(seat.name == kRoster[static_cast<std::size_t>(*seat.pupil)]);
          } else {
            ++bots;
          }
        }
      }
      CHECK(pupils_seated == 6);
      CHECK(bots == 2);
      check_against_transcripts(port, this_round);
      if (round == 1) CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
      before = unnumbered;
    }
    // Over both rounds: each pupil played two games.
    REQUIRE(before.pupils.size() == 6);
    for (const auto& pupil : before.pupils) {
      CAPTURE(pupil.name);
      CHECK(pupil.games == 2);
      int sets = 0;
      int wins = 0;
      for (const auto& round : before.rounds) {
        for (const auto& table : round.tables) {
          for (const auto& seat : table.seats) {
            if (seat.pupil != pupil.pupil) continue;
            sets += seat.sets;
            wins += seat.place == 1 ? 1 : 0;
          }
        }
      }
      CHECK(pupil.sets == sets);
      CHECK(pupil.wins == wins);
      CHECK(pupil.vs_seat_average.has_value());
    }

    // The CSV: the teacher's token, a wrong one, none, an unknown code.
    const std::string target = "/api/events/" + code + "/results.csv";
    const auto csv = http_request(port, target, "GET", "Authorization: Bearer " + teacher_token + "\r\n");
    REQUIRE(csv.status == 200);
    CHECK(csv.header("content-type").starts_with("text/csv"));
    CHECK(csv.header("content-disposition").find("filename=\"Class 3B-results.csv\"") != std::string::npos);
    CHECK(csv.body == protocol::results_csv(before));
    // The formula guard: "-Eli" is written '-Eli.
    CHECK(csv.body.find(",'-Eli,pupil,") != std::string::npos);
    std::size_t rows = 0;
    for (std::size_t at = csv.body.find("\r\n"); at != std::string::npos; at = csv.body.find("\r\n", at + 2)) ++rows;
    CHECK(rows == 1 + 2 * 2 * 4);
    const auto first = before.rounds[0].tables[0];
    CHECK(csv.body.find("/api/games/" + *first.game_id + "/transcript") != std::string::npos);

    // A pupil's token is no teacher's; nor is a mangled one.
    const auto wrong = http_request(port, target, "GET", "Authorization: Bearer " + ann_token + "\r\n");
    CHECK(wrong.status == 401);
    CHECK(wrong.body.find("api/not_authorized") != std::string::npos);
    const auto mangled = http_request(port, target, "GET", "Authorization: Bearer " + teacher_token + "x\r\n");
    CHECK(mangled.status == 401);
    const auto none = http_request(port, target);
    CHECK(none.status == 401);
    CHECK(none.body.find("\"type\":\"error\"") != std::string::npos);
    const auto unknown =
        http_request(port, "/api/events/" + std::string(code == "ZZZZZZ" ? "ZZZZZY" : "ZZZZZZ") + "/results.csv", "GET",
                     "Authorization: Bearer " + teacher_token + "\r\n");
    CHECK(unknown.status == 404);
    CHECK(unknown.body.find("api/event_not_found") != std::string::npos);
    // No event message, event_results included, names a card.
    std::vector<std::string> texts;
    for (const auto& frame : teacher.class_frames()) texts.push_back(frame.text);
    CHECK(std::count_if(texts.begin(), texts.end(), [](const std::string& text) {
            return text.find("\"type\":\"event_results\"") != std::string::npos;
          }) >= 4);
    for (const auto& problem : find_event_leaks(texts, "the teacher")) FAIL_CHECK(problem);
    server.stop(SIGKILL);
  }
  // A restart: the results of both rounds come back from the store.
  ServerProcess server(dir.path, dir.path / "server-2.log");
  Peer teacher(server.port());
  teacher.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, teacher_token});
  auto after = teacher.expect_class<protocol::EventResults>(protocol::ReadResults{});
  after.id.reset();
  CHECK(after == before);
  const auto csv = http_request(server.port(), "/api/events/" + code + "/results.csv", "GET",
                                "Authorization: bearer " + teacher_token + "\r\n");
  CHECK(csv.status == 200);
  CHECK(csv.body == protocol::results_csv(before));
  CHECK(server.stop(SIGTERM) == 0);
}

// A class closed before the server last started: its results, their CSV
// and its games' transcripts (the replay links) are served after a restart,
// byte for byte, from the store; the event stays closed.
TEST_CASE("class results: a class closed before a restart keeps its results, CSV and replays") {
  TempDir dir("gofish-event-closed");
  const std::vector<std::string> roster = {"Ann", "Ben", "Cleo"};
  std::string code;
  std::string teacher_token;
  std::string pupil_token;
  protocol::EventResults before;
  std::string csv_before;
  std::string transcript_before;
  std::string transcript_target;
  const auto bearer = [&] { return "Authorization: Bearer " + teacher_token + "\r\n"; };
  {
    ServerProcess server(dir.path, dir.path / "server-1.log");
    const auto port = server.port();
    Peer teacher(port);
    const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 5A", roster, 1));
    code = created.code;
    teacher_token = created.token;
    std::vector<std::unique_ptr<Peer>> pupils;
    for (const auto& name : roster) {
      pupils.push_back(std::make_unique<Peer>(port));
      const auto joined = pupils.back()->expect_class<protocol::EventJoined>(protocol::JoinEvent{code, name, ""});
      if (pupil_token.empty()) pupil_token = joined.token;
    }
    CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
    await_round_over(teacher, 1);
    CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());  // the last round: closed
    before = teacher.expect_class<protocol::EventResults>(protocol::ReadResults{});
    before.id.reset();
    REQUIRE(before.rounds.size() == 1);
    REQUIRE(before.rounds[0].tables.size() == 1);
    REQUIRE(before.rounds[0].tables[0].game_id);
    const auto csv = http_request(port, "/api/events/" + code + "/results.csv", "GET", bearer());
    REQUIRE(csv.status == 200);
    csv_before = csv.body;
    transcript_target = "/api/games/" + *before.rounds[0].tables[0].game_id + "/transcript";
    const auto transcript = http_request(port, transcript_target);
    REQUIRE(transcript.status == 200);
    transcript_before = transcript.body;
    server.stop(SIGKILL);
  }
  ServerProcess server(dir.path, dir.path / "server-2.log");
  const auto port = server.port();
  const auto csv = http_request(port, "/api/events/" + code + "/results.csv", "GET", bearer());
  CHECK(csv.status == 200);
  CHECK(csv.body == csv_before);
  CHECK(csv.header("content-disposition").find("filename=\"Class 5A-results.csv\"") != std::string::npos);
  const auto transcript = http_request(port, transcript_target);
  CHECK(transcript.status == 200);
  CHECK(transcript.body == transcript_before);
  // Still only the teacher's, and still 404 for a code of no event.
  const auto none = http_request(port, "/api/events/" + code + "/results.csv");
  CHECK(none.status == 401);
  const auto pupil = http_request(port, "/api/events/" + code + "/results.csv", "GET",
                                  "Authorization: Bearer " + pupil_token + "\r\n");
  CHECK(pupil.status == 401);
  const auto unknown = http_request(
      port, "/api/events/" + std::string(code == "ZZZZZZ" ? "ZZZZZY" : "ZZZZZZ") + "/results.csv", "GET", bearer());
  CHECK(unknown.status == 404);

  // The console comes back to the closed class and reads its results (the
  // printable results and their replay links); it stays closed.
  Peer teacher(port);
  const auto state = teacher.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, teacher_token});
  CHECK(state.event.state == protocol::EventPhase::kClosed);
  auto after = teacher.expect_class<protocol::EventResults>(protocol::ReadResults{});
  after.id.reset();
  CHECK(after == before);
  CHECK(teacher.error_of(protocol::StartRound{}) == "event/closed");
  Peer newcomer(port);
  CHECK(newcomer.error_of(protocol::JoinEvent{code, "Dev", ""}) == "event/closed");
  CHECK(server.stop(SIGTERM) == 0);
}

}  // namespace
}  // namespace gofish::server::testing
