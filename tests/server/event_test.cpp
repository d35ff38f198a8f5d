// Class events through the real gofish-server binary (protocol/README.md,
// "Class events"): a teacher creates an event with a roster of twelve,
// twelve pupils join (a claimed name, a name not on the roster, a wrong
// code and a full event are refused), a pupil's teacher command is refused,
// and a round seats them at three tables of four whose games are dealt the
// same deck (read back from each table's transcript) with same_deal, and
// different decks without. A restart mid-round (SQLite) brings back the
// event, its pupils' tokens and its tables; a restart keeps a same-deal
// event's seeds (its next commitment, a revealed round's seed). No event
// message a pupil or the teacher receives names a card (find_event_leaks).
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "event_support.hpp"
#include "fairness/deal_algorithm.hpp"
#include "fairness/deal_check.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

const std::vector<std::string> kRoster = {"Ann", "Ben",  "Cleo", "Dev",  "Eli", "Fay",
                                          "Gus", "Hana", "Ivo",  "Jade", "Kai", "Lena"};

struct Pupil {
  std::unique_ptr<Peer> peer;
  std::string token;
  int id = 0;
};

std::vector<Pupil> join_all(std::uint16_t port, const std::string& code, bool coaching = false) {
  std::vector<Pupil> pupils;
  for (std::size_t i = 0; i < kRoster.size(); ++i) {
    Pupil pupil;
    pupil.peer = std::make_unique<Peer>(port);
    const auto joined = pupil.peer->expect_class<protocol::EventJoined>(protocol::JoinEvent{code, kRoster[i], ""});
    CHECK(joined.code == code);
    CHECK(joined.pupil.name == kRoster[i]);
    CHECK_FALSE(joined.resumed);
    CHECK(joined.coaching == coaching);
    REQUIRE(protocol::is_token(joined.token));
    pupil.token = joined.token;
    pupil.id = joined.pupil.id;
    pupils.push_back(std::move(pupil));
  }
  return pupils;
}

// The deck each finished table was dealt, from its transcript over HTTP.
std::vector<engine::Deck> decks_of(std::uint16_t port, const protocol::EventState& state) {
  std::vector<engine::Deck> decks;
  for (const auto& table : state.tables) {
    REQUIRE(table.game_id);
    const auto reply = http_request(port, "/api/games/" + *table.game_id + "/transcript");
    REQUIRE(reply.status == 200);
    auto parsed = protocol::transcript_from_json(nlohmann::json::parse(reply.body));
    REQUIRE(std::holds_alternative<engine::Transcript>(parsed));
    const auto& transcript = std::get<engine::Transcript>(parsed);
    CHECK(engine::replay_check(transcript) == std::nullopt);
    decks.push_back(transcript.deck);
  }
  return decks;
}

bool all_over(const protocol::EventState& state) {
  if (state.tables.empty()) return false;
  for (const auto& table : state.tables) {
    if (table.state != protocol::RoomState::kOver || !table.game_id) return false;
  }
  return true;
}

// A round played by bots alone (the pupils are told where to sit and do not
// take their seats): the decks of its tables once every game is over.
std::vector<engine::Deck> play_round(bool same_deal) {
  TempDir dir("gofish-event");
  ServerProcess server(dir.path, dir.path / "server.log");
  Peer teacher(server.port());
  const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 3B", kRoster, 2, same_deal));
  auto pupils = join_all(server.port(), created.code);
  CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
  const auto state = await_event_state(teacher, all_over);
  CHECK(state.tables.size() == 3);
  for (auto& pupil : pupils) {
    const auto seat = pupil.peer->await_class(
        [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventSeat>(m); });
    CHECK(seat.has_value());
  }
  check_no_event_leaks(teacher, "the teacher");
  for (auto& pupil : pupils) check_no_event_leaks(*pupil.peer, "pupil " + std::to_string(pupil.id));
  return decks_of(server.port(), state);
}

TEST_CASE("class event: twelve pupils, the refusals, three tables, and a pupil takes their seat") {
  TempDir dir("gofish-event");
  // Bots take a moment, so Ann sits down before her table's game is over.
  ServerProcess server(dir.path, dir.path / "server.log", {"--bot-delay-ms=20"});
  const auto port = server.port();
  Peer teacher(port);
  const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 3B", kRoster, 2, true));
  REQUIRE(protocol::is_event_code(created.code));
  CHECK_FALSE(protocol::is_room_code(created.code));
  CHECK(protocol::is_token(created.token));
  CHECK(created.event.state == protocol::EventPhase::kOpen);
  REQUIRE(created.event.pupils.size() == 12);
  for (const auto& pupil : created.event.pupils) CHECK_FALSE(pupil.claimed);

  Peer other(port);
  CHECK(other.error_of(protocol::JoinEvent{"ZZZZZZ" == created.code ? "ZZZZZY" : "ZZZZZZ", "Ann", ""}) ==
        "event/not_found");
  other.send_raw(R"({"type":"join_event","code":"AB","name":"Ann","id":"bad"})");
  const auto bad_code = other.await([](const protocol::ServerMessage& m) {
    const auto* error = std::get_if<protocol::Error>(&m);
    return error != nullptr && error->code == protocol::ErrorCode::kEventBadCode;
  });
  CHECK(bad_code.has_value());

  std::vector<Pupil> pupils;
  for (std::size_t i = 0; i < kRoster.size(); ++i) {
    if (i == 11) {
      // Eleven have joined: a claimed name, and a name not on the roster.
      CHECK(other.error_of(protocol::JoinEvent{created.code, "ann", ""}) == "event/name_taken");
      CHECK(other.error_of(protocol::JoinEvent{created.code, "Zed", ""}) == "event/not_on_roster");
    }
    Pupil pupil;
    pupil.peer = std::make_unique<Peer>(port);
    const auto joined =
        pupil.peer->expect_class<protocol::EventJoined>(protocol::JoinEvent{created.code, kRoster[i], ""});
    CHECK(joined.pupil.name == kRoster[i]);
    pupil.token = joined.token;
    pupil.id = joined.pupil.id;
    pupils.push_back(std::move(pupil));
  }
  CHECK(other.error_of(protocol::JoinEvent{created.code, "Lena", ""}) == "event/full");
  CHECK(other.error_of(protocol::JoinEvent{created.code, "Mo", ""}) == "event/full");
  // A pupil's teacher commands, and a stranger's, are refused; nothing changes.
  CHECK(pupils[0].peer->error_of(protocol::StartRound{}) == "event/not_teacher");
  CHECK(pupils[0].peer->error_of(protocol::FreeName{1}) == "event/not_teacher");
  CHECK(other.error_of(protocol::StartRound{}) == "event/not_in_event");
  CHECK(other.error_of(protocol::ResumeEvent{created.code, pupils[0].token}) == "event/bad_token");

  const auto seated = await_event_state(teacher, [](const protocol::EventState& s) {
    return std::count_if(s.pupils.begin(), s.pupils.end(), [](const auto& p) { return p.claimed; }) == 12;
  });
  CHECK(seated.round == 0);
  CHECK(teacher.expect<protocol::Ok>(protocol::SeatPupils{}).id.has_value());
  const auto planned = await_event_state(teacher, [](const protocol::EventState& s) { return s.tables.size() == 3; });
  for (const auto& table : planned.tables) CHECK(table.seats.size() == 4);
  // Ann moves to the second table and back, before the round.
  CHECK(teacher.error_of(protocol::MovePupil{0, 1}) == "event/bad_table");  // it is full
  CHECK(teacher.error_of(protocol::MovePupil{40, 1}) == "event/bad_pupil");

  CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
  CHECK(teacher.error_of(protocol::StartRound{}) == "event/round_in_play");
  CHECK(teacher.error_of(protocol::MovePupil{0, 1}) == "event/round_in_play");

  // Ann takes her seat with the seat token she was sent, and plays.
  const auto seat = pupils[0].peer->await_class(
      [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventSeat>(m); });
  REQUIRE(seat.has_value());
  const auto& where = std::get<protocol::EventSeat>(*seat);
  CHECK(where.event == created.code);
  CHECK(where.round == 1);
  CHECK(protocol::is_room_code(where.room));
  AutoPlayer ann(std::move(pupils[0].peer), where.seat, where.token, 34);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  std::optional<protocol::EventState> over;
  while (std::chrono::steady_clock::now() < deadline && ann.games_over() == 0) {
    ann.step();
    std::this_thread::sleep_for(2ms);
  }
  CHECK(ann.games_over() == 1);
  CHECK(ann.decisions() > 0);
  const auto finished = await_event_state(teacher, all_over);
  REQUIRE(finished.tables.size() == 3);
  std::set<std::string> rooms;
  for (const auto& table : finished.tables) {
    rooms.insert(table.room);
    CHECK(table.seats.size() == 4);
    int humans = 0;
    for (const auto& s : table.seats) humans += s.pupil ? 1 : 0;
    CHECK(humans == 4);
  }
  CHECK(rooms.size() == 3);
  const auto decks = decks_of(port, finished);
  CHECK(decks[0] == decks[1]);
  CHECK(decks[1] == decks[2]);

  // The round ends; the next is the last, and after it the event is closed.
  CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
  CHECK(teacher.error_of(protocol::EndRound{}) == "event/no_round");
  CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
  CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
  CHECK(teacher.error_of(protocol::StartRound{}) == "event/closed");
  CHECK(other.error_of(protocol::JoinEvent{created.code, "Mo", ""}) == "event/closed");

  check_no_event_leaks(teacher, "the teacher");
  check_no_event_leaks(ann.peer(), "Ann");
  for (std::size_t i = 1; i < pupils.size(); ++i) check_no_event_leaks(*pupils[i].peer, kRoster[i]);
  for (const auto& problem : ann.problems) FAIL_CHECK(problem);
  // A clean stop (under the sanitizers: nothing leaked) with the event open
  // in memory and its connections still there.
  CHECK(server.stop(SIGTERM) == 0);
}

// The event as a second console connection reads it now (resume_event).
protocol::EventState state_now(std::uint16_t port, const std::string& code, const std::string& token) {
  Peer console(port);
  return console.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, token}).event;
}

std::vector<int> ponds_of(const protocol::EventState& state) {
  std::vector<int> ponds;
  for (const auto& table : state.tables) ponds.push_back(table.pond);
  return ponds;
}

bool all_playing(const protocol::EventState& state) {
  return !state.tables.empty() && std::all_of(state.tables.begin(), state.tables.end(), [](const auto& t) {
    return t.state == protocol::RoomState::kPlaying && !t.seats.empty();
  });
}

// Bots that move every 100 ms draw from the pond within 700 ms; a
// paused table's pond stays as it is.
void check_tables_stand_still(std::uint16_t port, const std::string& code, const std::string& token) {
  std::this_thread::sleep_for(300ms);  // the last report before the pause has come
  const auto before = state_now(port, code, token);
  std::this_thread::sleep_for(700ms);
  const auto after = state_now(port, code, token);
  CHECK(after.paused);
  CHECK(ponds_of(before) == ponds_of(after));
  for (std::size_t t = 0; t < before.tables.size() && t < after.tables.size(); ++t) {
    CHECK(before.tables[t].turn == after.tables[t].turn);
  }
}

TEST_CASE("class event: the roster before joining, every table paused and resumed, a message to every table") {
  TempDir dir("gofish-event-console");
  ServerProcess server(dir.path, dir.path / "server.log", {"--bot-delay-ms=100", "--seat-grace-ms=200"});
  const auto port = server.port();
  Peer teacher(port);
  auto request = class_event("Class 3B", kRoster, 2, false);
  request.settings.coaching = true;
  const auto created = teacher.expect_class<protocol::EventCreated>(request);

  // Before joining: the roster, nobody's name claimed yet; a wrong code.
  Peer looker(port);
  const auto roster = looker.expect_class<protocol::EventRoster>(protocol::ReadRoster{created.code});
  CHECK(roster.code == created.code);
  CHECK(roster.name == "Class 3B");
  CHECK(roster.roster);
  CHECK(roster.coaching);
  CHECK(roster.state == protocol::EventPhase::kOpen);
  REQUIRE(roster.names.size() == kRoster.size());
  for (std::size_t i = 0; i < kRoster.size(); ++i) {
    CHECK(roster.names[i].name == kRoster[i]);
    CHECK_FALSE(roster.names[i].claimed);
  }
  CHECK(looker.error_of(protocol::ReadRoster{created.code == "ZZZZZZ" ? "ZZZZZY" : "ZZZZZZ"}) == "event/not_found");

  auto pupils = join_all(port, created.code, /*coaching=*/true);
  const auto claimed = looker.expect_class<protocol::EventRoster>(protocol::ReadRoster{created.code});
  for (const auto& name : claimed.names) CHECK(name.claimed);
  // Reading the roster does not put the looker in the event.
  CHECK(looker.error_of(protocol::PauseTables{}) == "event/not_in_event");

  CHECK(pupils[0].peer->error_of(protocol::PauseTables{}) == "event/not_teacher");
  CHECK(pupils[0].peer->error_of(protocol::MessageTables{"Hello"}) == "event/not_teacher");
  CHECK(teacher.error_of(protocol::PauseTables{}) == "event/no_round");
  CHECK(teacher.error_of(protocol::ResumeTables{}) == "event/no_round");

  CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
  const auto seat = pupils[0].peer->await_class(
      [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventSeat>(m); });
  REQUIRE(seat.has_value());
  const auto where = std::get<protocol::EventSeat>(*seat);
  CHECK(where.coaching);
  Peer& ann = *pupils[0].peer;
  CHECK(ann.expect<protocol::Joined>(protocol::Resume{where.token, std::nullopt}).seat == where.seat);
  await_event_state(teacher, all_playing);

  // Chat off at every table, then free: Ann's table tells her each time.
  CHECK(ann.error_of(protocol::SetChat{protocol::ChatMode::kOff}) == "event/not_teacher");
  CHECK(teacher.expect<protocol::Ok>(protocol::SetChat{protocol::ChatMode::kOff}).id.has_value());
  const auto off = ann.await_event<protocol::ChatModeChanged>();
  REQUIRE(off.has_value());
  CHECK(off->chat == protocol::ChatMode::kOff);
  CHECK(ann.error_of(protocol::Chat{"", "good_luck"}) == "chat/off");
  CHECK(teacher.expect<protocol::Ok>(protocol::SetChat{protocol::ChatMode::kFree}).id.has_value());
  const auto free = ann.await_event<protocol::ChatModeChanged>();
  REQUIRE(free.has_value());
  CHECK(free->chat == protocol::ChatMode::kFree);
  CHECK(ann.expect<protocol::Ok>(protocol::Chat{"hello table", ""}).id.has_value());
  await_event_state(teacher,
                    [](const protocol::EventState& s) { return s.settings.chat == protocol::ChatMode::kFree; });

  // Pause: every table stops, Ann is told why, and her moves are refused.
  CHECK(teacher.expect<protocol::Ok>(protocol::PauseTables{}).id.has_value());
  const auto paused = ann.await([](const protocol::ServerMessage& m) {
    const auto* p = std::get_if<protocol::RoomPaused>(&m);
    return p != nullptr && p->reason == protocol::PauseReason::kTeacher;
  });
  CHECK(paused.has_value());
  await_event_state(teacher, [](const protocol::EventState& s) { return s.paused; });
  check_tables_stand_still(port, created.code, created.token);
  CHECK(ann.error_of(protocol::Ask{static_cast<engine::Seat>((where.seat + 1) % 4), engine::Rank{2}}) == "room/paused");
  // A pupil who comes to the table during the pause is let in and told.
  Peer& ben = *pupils[1].peer;
  const auto ben_seat = ben.await_class(
      [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventSeat>(m); });
  REQUIRE(ben_seat.has_value());
  CHECK(ben.expect<protocol::Joined>(protocol::Resume{std::get<protocol::EventSeat>(*ben_seat).token, std::nullopt})
            .code == std::get<protocol::EventSeat>(*ben_seat).room);
  CHECK(ben.await([](const protocol::ServerMessage& m) {
             const auto* p = std::get_if<protocol::RoomPaused>(&m);
             return p != nullptr && p->reason == protocol::PauseReason::kTeacher;
           })
            .has_value());

  // A message to every table: each pupil hears it, and not twice in 2 s.
  CHECK(teacher.expect<protocol::Ok>(protocol::MessageTables{"  Eyes on me, please. "}).id.has_value());
  for (auto& pupil : pupils) {
    const auto heard = pupil.peer->await_class(
        [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventTeacherMessage>(m); });
    REQUIRE(heard.has_value());
    CHECK(std::get<protocol::EventTeacherMessage>(*heard).text == "Eyes on me, please.");
  }
  CHECK(teacher.error_of(protocol::MessageTables{"Again"}) == "event/rate_limited");
  teacher.send_raw(R"({"type":"message_tables","id":"long","text":")" + std::string(201, 'a') + R"("})");
  CHECK(teacher
            .await([](const protocol::ServerMessage& m) {
              const auto* e = std::get_if<protocol::Error>(&m);
              return e != nullptr && e->code == protocol::ErrorCode::kChatTooLong;
            })
            .has_value());

  // A round started while paused starts paused; resume_tables lets it go on.
  CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
  CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
  const auto second =
      await_event_state(teacher, [](const protocol::EventState& s) { return s.round == 2 && all_playing(s); });
  CHECK(second.paused);
  check_tables_stand_still(port, created.code, created.token);
  const auto held = ponds_of(state_now(port, created.code, created.token));
  CHECK(teacher.expect<protocol::Ok>(protocol::ResumeTables{}).id.has_value());
  await_event_state(teacher, [&](const protocol::EventState& s) {
    if (s.paused || s.tables.size() != held.size()) return false;
    for (std::size_t t = 0; t < held.size(); ++t) {
      if (s.tables[t].pond == held[t] && s.tables[t].state == protocol::RoomState::kPlaying) return false;
    }
    return true;
  });

  check_no_event_leaks(teacher, "the teacher");
  check_no_event_leaks(looker, "the looker");
  for (auto& pupil : pupils) check_no_event_leaks(*pupil.peer, "pupil " + std::to_string(pupil.id));
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("class event: the leak check catches a card or a hand in an event message") {
  CHECK(find_event_leaks({R"({"type":"event_state","event":{"tables":[{"pond":3,"top":"QH"}]}})"}, "t").size() == 1);
  CHECK(find_event_leaks({R"({"type":"event_seat","hand":[]})"}, "t").size() == 1);
  CHECK(find_event_leaks({R"({"type":"event_joined","pupil":{"name":"10D"}})"}, "t").size() == 1);
  // A same-deal round's seed: only in event_state's deal, once every table is over.
  const std::string seed = R"("seed":")" + std::string(64, 'a') + R"(")";
  CHECK(find_event_leaks({R"({"type":"event_state","event":{"tables":[{"state":"over"},{"state":"playing"}],"deal":{)" +
                          seed + "}}}"},
                         "t")
            .size() == 1);
  CHECK(find_event_leaks(
            {R"({"type":"event_state","event":{"tables":[{"state":"over"},{"state":"over"}],"deal":{)" + seed + "}}}"},
            "t")
            .empty());
  CHECK(find_event_leaks({R"({"type":"event_seat","next_deal":{)" + seed + "}}"}, "t").size() == 1);
  // Room messages are left to find_leaks; counts and names are fine.
  CHECK(find_event_leaks({R"({"type":"event","v":1,"event":{"type":"drew","card":"QH"}})"}, "t").empty());
  CHECK(find_event_leaks({R"({"type":"event_state","event":{"tables":[{"pond":3,"seats":[{"cards":5}]}]}})"}, "t")
            .empty());
  // The console's table_view: never to a pupil; hands to a coaching teacher
  // alone, each as big as the seat's count, and no card elsewhere.
  const std::string coached = R"({"type":"table_view","table":0,"seats":[{"cards":2,"sets":[],"hand":["2C","QH"]}]})";
  const std::string plain = R"({"type":"table_view","table":0,"seats":[{"cards":2,"sets":["Q"]}]})";
  CHECK(find_event_leaks({plain}, "t", EventAudience::kPupil).size() == 1);
  CHECK(find_event_leaks({plain}, "t", EventAudience::kTeacher).empty());
  CHECK(find_event_leaks({coached}, "t", EventAudience::kTeacher).size() == 2);
  CHECK(find_event_leaks({coached}, "t", EventAudience::kCoach).empty());
  CHECK(find_event_leaks({R"({"type":"table_view","seats":[{"cards":3,"hand":["2C","QH"]}]})"}, "t",
                         EventAudience::kCoach)
            .size() == 1);
  CHECK(find_event_leaks({R"({"type":"table_view","top":"KS","seats":[{"cards":1,"hand":["2C"]}]})"}, "t",
                         EventAudience::kCoach)
            .size() == 1);
}

// A table's transcript as `port` serves it: over HTTP by game id, or to a
// spectator in its room.
nlohmann::json http_transcript(std::uint16_t port, const std::string& game_id) {
  const auto reply = http_request(port, "/api/games/" + game_id + "/transcript");
  REQUIRE(reply.status == 200);
  return nlohmann::json::parse(reply.body);
}

nlohmann::json room_transcript(Peer& peer) {
  const auto message = peer.expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
  return nlohmann::json::parse(protocol::encode(message))["transcript"];
}

TEST_CASE("class event: a same-deal round's commitment comes before its deal, its seed after every table") {
  TempDir dir("gofish-event-deal");
  // Bots take a moment, so Ann sits down before her table's game is over.
  ServerProcess server(dir.path, dir.path / "server.log", {"--bot-delay-ms=20"});
  const auto port = server.port();
  Peer teacher(port);
  const std::vector<std::string> roster = {"Ann", "Ben", "Cleo", "Dev", "Eli"};
  const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 3B", roster, 2, true));
  // Before any round: the first round's commitment, to the teacher and to
  // every pupil as they join.
  REQUIRE(created.event.next_deal);
  CHECK_FALSE(created.event.deal);
  CHECK_FALSE(created.event.next_deal->seed);
  const std::string commitment = created.event.next_deal->commitment;
  CHECK(commitment.size() == 64);
  std::vector<std::unique_ptr<Peer>> pupils;
  for (const auto& name : roster) {
    pupils.push_back(std::make_unique<Peer>(port));
    const auto joined = pupils.back()->expect_class<protocol::EventJoined>(protocol::JoinEvent{created.code, name, ""});
    REQUIRE(joined.next_deal);
    CHECK(joined.next_deal->commitment == commitment);
  }
  CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
  const auto seat = pupils[0]->await_class(
      [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventSeat>(m); });
  REQUIRE(seat.has_value());
  const auto where = std::get<protocol::EventSeat>(*seat);
  // The seat names the next round's commitment, a new one.
  REQUIRE(where.next_deal);
  CHECK(where.next_deal->commitment != commitment);
  // Ann sits down and does not play: her table waits for her.
  pupils[0]->expect<protocol::Joined>(protocol::Resume{where.token, std::nullopt});
  const auto others_over = [&](const protocol::EventState& s) {
    if (s.tables.size() < 2) return false;
    for (std::size_t t = 0; t < s.tables.size(); ++t) {
      const bool over = s.tables[t].state == protocol::RoomState::kOver && s.tables[t].game_id;
      if (static_cast<int>(t) == where.table ? s.tables[t].state != protocol::RoomState::kPlaying : !over) return false;
    }
    return true;
  };
  const protocol::EventState waiting = await_event_state(teacher, others_over, 30s);
  REQUIRE(others_over(waiting));
  REQUIRE(waiting.deal);
  CHECK(waiting.deal->commitment == commitment);
  CHECK_FALSE(waiting.deal->seed);
  REQUIRE(waiting.next_deal);
  CHECK(waiting.next_deal->commitment == where.next_deal->commitment);

  // While Ann's table plays, a finished table's transcript shows the deck
  // she is playing: it is held, over HTTP and to a spectator in its room,
  // with a sentence saying until when (and nothing of the deck).
  const int done = where.table == 0 ? 1 : 0;
  const auto& finished = waiting.tables[static_cast<std::size_t>(done)];
  const auto early = http_request(port, "/api/games/" + *finished.game_id + "/transcript");
  REQUIRE(early.status == 403);
  const auto early_body = nlohmann::json::parse(early.body);
  CHECK(early_body["code"] == "api/transcript_held");
  CHECK(early_body["message"].get<std::string>().find("after the round ends at every table") != std::string::npos);
  CHECK(early.body.find("deck") == std::string::npos);
  Peer watcher(port);
  watcher.expect<protocol::Joined>(protocol::Join{finished.room, "Watcher", protocol::JoinAs::kSpectator});
  CHECK(watcher.error_of(protocol::GetTranscript{}) == "room/transcript_held");

  // Ann plays her game to its end: now every table is over, and the seed
  // is revealed, the one committed to before the round.
  AutoPlayer ann(std::move(pupils[0]), where.seat, where.token, 35);
  const auto play_deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < play_deadline && ann.games_over() == 0) {
    ann.step();
    std::this_thread::sleep_for(2ms);
  }
  REQUIRE(ann.games_over() == 1);
  const auto revealed = await_event_state(
      teacher, [](const protocol::EventState& s) { return all_over(s) && s.deal && s.deal->seed.has_value(); });
  const auto seed = fairness::from_hex(*revealed.deal->seed);
  REQUIRE(seed);
  CHECK(fairness::to_hex(fairness::commitment_of(*seed)) == commitment);
  // Every table's transcript is served now, over HTTP too (the store says
  // every table of the round is over), with the seed: each checks fair.
  for (const auto& table : revealed.tables) {
    const nlohmann::json transcript = http_transcript(port, *table.game_id);
    CHECK(transcript["fairness"]["seed"] == *revealed.deal->seed);
    const fairness::Verdict verdict = fairness::check_transcript(transcript);
    CHECK(verdict.fair);
    if (!verdict.fair) MESSAGE(verdict.sentence);
  }
  const nlohmann::json served = room_transcript(watcher);
  CHECK(served["fairness"]["seed"] == *revealed.deal->seed);
  CHECK(fairness::check_transcript(served).fair);
  const nlohmann::json own = room_transcript(ann.peer());
  CHECK(own["fairness"]["seed"] == *revealed.deal->seed);
  CHECK(fairness::check_transcript(own).fair);

  // Nothing sent before the reveal carried the seed.
  check_no_event_leaks(teacher, "the teacher", EventAudience::kTeacher);
  check_no_event_leaks(ann.peer(), "Ann");
  for (std::size_t i = 1; i < pupils.size(); ++i) check_no_event_leaks(*pupils[i], roster[i]);
  for (const auto& problem : ann.problems) FAIL_CHECK(problem);
}

TEST_CASE("class event: without same_deal the tables are dealt different decks") {
  const auto decks = play_round(false);
  REQUIRE(decks.size() == 3);
  CHECK(decks[0] != decks[1]);
  CHECK(decks[1] != decks[2]);
  CHECK(decks[0] != decks[2]);
}

TEST_CASE("class event: a restart mid-round brings back the event, its pupils and its tables") {
  TempDir dir("gofish-event-restart");
  // Bots think for a while, so the games are still being played at the
  // stop; after the restart a bot plays for each pupil who is not back
  // within half a second.
  const std::vector<std::string> slow = {"--bot-delay-ms=200", "--seat-grace-ms=500"};
  std::string code;
  std::string teacher_token;
  std::vector<std::string> tokens;
  protocol::EventState before;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log", slow);
    Peer teacher(server.port());
    const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 3B", kRoster, 2, true));
    code = created.code;
    teacher_token = created.token;
    auto pupils = join_all(server.port(), code);
    for (const auto& pupil : pupils) tokens.push_back(pupil.token);
    CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
    before = await_event_state(teacher, [](const protocol::EventState& s) {
      return s.tables.size() == 3 && std::all_of(s.tables.begin(), s.tables.end(), [](const auto& t) {
               return t.state == protocol::RoomState::kPlaying;
             });
    });
    // Paused when the server stops: paused again when it comes back.
    CHECK(teacher.expect<protocol::Ok>(protocol::PauseTables{}).id.has_value());
    await_event_state(teacher, [](const protocol::EventState& s) { return s.paused; });
    server.stop(SIGKILL);
  }
  ServerProcess server(dir.path, dir.path / "server-2.log", slow);
  CHECK(server.log_text().find("1 class events restored") != std::string::npos);
  Peer teacher(server.port());
  CHECK(teacher.error_of(protocol::ResumeEvent{code, tokens[0]}) == "event/bad_token");
  Peer console(server.port());
  const auto resumed = console.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, teacher_token});
  CHECK(resumed.event.state == protocol::EventPhase::kPlaying);
  CHECK(resumed.event.round == 1);
  REQUIRE(resumed.event.pupils.size() == 12);
  for (const auto& pupil : resumed.event.pupils) CHECK(pupil.claimed);
  REQUIRE(resumed.event.tables.size() == 3);
  for (std::size_t t = 0; t < 3; ++t) CHECK(resumed.event.tables[t].room == before.tables[t].room);
  CHECK(resumed.event.paused);
  // The round in play keeps its deal (not revealed: its tables play on),
  // and the next round its commitment.
  REQUIRE(before.deal);
  REQUIRE(resumed.event.deal);
  CHECK(resumed.event.deal->commitment == before.deal->commitment);
  CHECK_FALSE(resumed.event.deal->seed);
  REQUIRE(resumed.event.next_deal);
  CHECK(resumed.event.next_deal->commitment == before.next_deal->commitment);
  // The paused tables report once, when the event watches them again; then
  // nothing changes, so nothing more is pushed: ask until they have.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto now = state_now(server.port(), code, teacher_token);
    if (std::all_of(now.tables.begin(), now.tables.end(), [](const auto& t) { return t.seats.size() == 4; })) break;
    std::this_thread::sleep_for(100ms);
  }
  check_tables_stand_still(server.port(), code, teacher_token);
  CHECK(console.expect<protocol::Ok>(protocol::ResumeTables{}).id.has_value());
  // The tables report again once their rooms are watched: the games go on.
  const int pond_before = before.tables[0].pond;
  const auto live = await_event_state(console, [&](const protocol::EventState& s) {
    return s.tables.size() == 3 && s.tables[0].seats.size() == 4 && s.tables[0].pond < pond_before &&
           std::all_of(s.tables.begin(), s.tables.end(), [](const auto& t) { return t.seats.size() == 4; });
  });
  CHECK(live.tables[0].seats[0].pupil.has_value());

  // A pupil comes back with the token and is given their seat again.
  Peer ben(server.port());
  const auto back = ben.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "", tokens[1]});
  CHECK(back.resumed);
  CHECK(back.pupil.name == "Ben");
  REQUIRE(back.pupil.table.has_value());
  const auto seat = ben.await_class(
      [](const protocol::EventServerMessage& m) { return std::holds_alternative<protocol::EventSeat>(m); });
  REQUIRE(seat.has_value());
  const auto& where = std::get<protocol::EventSeat>(*seat);
  CHECK(where.room == before.tables[static_cast<std::size_t>(*back.pupil.table)].room);
  const auto joined = ben.expect<protocol::Joined>(protocol::Resume{where.token, std::nullopt});
  CHECK(joined.code == where.room);
  CHECK(joined.seat == where.seat);
  // A wrong pupil token is refused, and so is a claimed name.
  Peer stranger(server.port());
  CHECK(stranger.error_of(protocol::JoinEvent{code, "Ben", ""}) == "event/full");
  CHECK(stranger.error_of(protocol::JoinEvent{code, "", teacher_token}) == "event/bad_token");
  CHECK(console.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
  check_no_event_leaks(console, "the teacher");
  check_no_event_leaks(ben, "Ben");
  CHECK(server.stop(SIGTERM) == 0);
}

// The room's transcript once it carries its deal's seed, asked until it
// does (a restored table is told so by its event just after the restart;
// until then the room holds the transcript back or serves it without).
std::optional<nlohmann::json> revealed_transcript(Peer& peer) {
  for (int tries = 0; tries < 50; ++tries) {
    const auto reply = peer.request(protocol::GetTranscript{});
    if (const auto* message = std::get_if<protocol::TranscriptMessage>(&reply)) {
      auto transcript = nlohmann::json::parse(protocol::encode(*message))["transcript"];
      if (transcript["fairness"].contains("seed")) return transcript;
    }
    std::this_thread::sleep_for(20ms);
  }
  return std::nullopt;
}

// A spectator in each table's room of `round` (revealed) is served its
// transcript with the round's seed, and it checks fair.
void check_rooms_reveal(std::uint16_t port, const protocol::EventState& round) {
  for (const auto& table : round.tables) {
    Peer watcher(port);
    watcher.expect<protocol::Joined>(protocol::Join{table.room, "Watcher", protocol::JoinAs::kSpectator});
    const auto served = revealed_transcript(watcher);
    REQUIRE(served);
    CHECK((*served)["fairness"]["seed"] == *round.deal->seed);
    CHECK(fairness::check_transcript(*served).fair);
  }
}

// A same-deal event keeps its seeds over a kill -9: the next round's
// commitment the class was shown stays the one its round is dealt from, and
// a round over before the stop keeps its revealed seed, in the teacher's
// state and in its tables' transcripts served in their rooms, also once
// the event is closed.
TEST_CASE("class event: a same-deal event's seeds survive a restart") {
  TempDir dir("gofish-event-seeds");
  const std::vector<std::string> roster = {"Ann", "Ben", "Cleo", "Dev", "Eli"};
  const auto revealed = [](const protocol::EventState& s) { return all_over(s) && s.deal && s.deal->seed; };
  std::string code;
  std::string teacher_token;
  protocol::EventState first;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log");
    Peer teacher(server.port());
    const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 3B", roster, 2, true));
    code = created.code;
    teacher_token = created.token;
    // The pupils join and never take their seats: bots play the games.
    std::vector<std::unique_ptr<Peer>> pupils;
    for (const auto& name : roster) {
      pupils.push_back(std::make_unique<Peer>(server.port()));
      pupils.back()->expect_class<protocol::EventJoined>(protocol::JoinEvent{code, name, ""});
    }
    CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
    await_event_state(teacher, revealed);
    CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
    first = await_event_state(
        teacher, [&](const protocol::EventState& s) { return s.state == protocol::EventPhase::kOpen && revealed(s); });
    REQUIRE(first.next_deal);
    REQUIRE(first.deal);
    REQUIRE(first.deal->commitment == created.event.next_deal->commitment);
    server.stop(SIGKILL);
  }
  ServerProcess server(dir.path, dir.path / "server-2.log");
  Peer teacher(server.port());
  const auto resumed = teacher.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, teacher_token});
  CHECK(resumed.event.state == protocol::EventPhase::kOpen);
  // The commitment announced before the stop is still the next round's.
  REQUIRE(resumed.event.next_deal);
  CHECK(resumed.event.next_deal->commitment == first.next_deal->commitment);
  // The round over before the stop keeps its deal, revealed.
  REQUIRE(resumed.event.deal);
  CHECK(resumed.event.deal->commitment == first.deal->commitment);
  CHECK(resumed.event.deal->seed == first.deal->seed);
  // Its tables, told again, serve their transcripts with the seed, in the
  // room (waiting for the event to tell them, just after the restore).
  check_rooms_reveal(server.port(), first);
  // The next round, started after the restart, is dealt from the seed of
  // that commitment.
  CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
  const auto second = await_event_state(
      teacher, [](const protocol::EventState& s) { return s.round == 2 && all_over(s) && s.deal && s.deal->seed; });
  CHECK(second.deal->commitment == first.next_deal->commitment);
  const auto seed = fairness::from_hex(*second.deal->seed);
  REQUIRE(seed);
  CHECK(fairness::to_hex(fairness::commitment_of(*seed)) == first.next_deal->commitment);
  for (const auto& table : second.tables) {
    nlohmann::json transcript = http_transcript(server.port(), *table.game_id);
    CHECK(transcript["fairness"]["commitment"] == first.next_deal->commitment);
    transcript["fairness"]["seed"] = *second.deal->seed;
    CHECK(fairness::check_transcript(transcript).fair);
  }
  // The last round ends, and with it the event. After one more kill -9 no
  // open event tells the last round's tables anything: each room reads
  // from the store that its round was over at every table, and serves its
  // transcript with the seed.
  CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
  await_event_state(teacher, [](const protocol::EventState& s) { return s.state == protocol::EventPhase::kClosed; });
  check_no_event_leaks(teacher, "the teacher", EventAudience::kTeacher);
  server.stop(SIGKILL);
  ServerProcess again(dir.path, dir.path / "server-3.log");
  check_rooms_reveal(again.port(), second);
  CHECK(again.stop(SIGTERM) == 0);
}

}  // namespace
}  // namespace gofish::server::testing
