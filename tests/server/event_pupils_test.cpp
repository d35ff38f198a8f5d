// The class console's commands on pupils during a round, through the real
// gofish-server binary (protocol/README.md, "remove_pupil", "seat_to_bot",
// "allow_late"): the teacher hands a pupil's seat to a bot (the pupil stays
// and waits, their seat token refused) and removes a pupil (out of the
// event, the name free again, both tokens refused); a pupil who comes late
// takes over the bot's seat at the table with the most of them, or waits
// when the teacher does not allow it. A restart mid-round (SQLite) keeps
// all of it: the unseated pupil, the late pupil's seat, the setting. The
// coaching view (watch_table): the watching teacher's connection is sent
// table_view, paced, with every seat's hand only when the event has
// coaching; no pupil and no other connection is sent one; after a restart
// the teacher's resumed console watches the same table without asking.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "event_support.hpp"
#include "protocol/text.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

const std::vector<std::string> kRoster = {"Ann", "Ben", "Cleo", "Dev", "Eli", "Fay"};

template <class M>
std::optional<M> await_class_message(Peer& peer) {
  const auto message =
      peer.await_class([](const protocol::EventServerMessage& m) { return std::holds_alternative<M>(m); });
  if (!message) return std::nullopt;
  return std::get<M>(*message);
}

bool all_playing(const protocol::EventState& state) {
  return !state.tables.empty() && std::all_of(state.tables.begin(), state.tables.end(), [](const auto& t) {
    return t.state == protocol::RoomState::kPlaying && !t.seats.empty();
  });
}

// The seat of `table` the event shows `pupil` in, if any.
std::optional<std::size_t> seat_in(const protocol::EventTable& table, int pupil) {
  for (std::size_t s = 0; s < table.seats.size(); ++s) {
    if (table.seats[s].pupil == pupil) return s;
  }
  return std::nullopt;
}

int pupils_at(const protocol::EventTable& table) {
  return static_cast<int>(std::count_if(table.seats.begin(), table.seats.end(), [](const auto& s) { return s.pupil; }));
}

struct Pupil {
  std::unique_ptr<Peer> peer;
  std::string token;
  protocol::EventSeat seat;
};

TEST_CASE("class event: a seat handed to a bot, a pupil removed, late pupils, and a restart keeps them") {
  TempDir dir("gofish-event-pupils");
  const std::vector<std::string> options = {"--bot-delay-ms=100", "--seat-grace-ms=300"};
  std::string code;
  std::string teacher_token;
  std::string ann_token;
  std::string ann_seat_token;
  std::string ben_first_token;
  std::string fay_token;
  protocol::EventSeat fay_seat;
  std::string ben_token;
  std::vector<std::string> rooms;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log", options);
    const auto port = server.port();
    Peer teacher(port);
    const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 4C", kRoster, 2));
    code = created.code;
    teacher_token = created.token;
    CHECK(created.event.settings.late_pupils);
    // Five of six join: two tables (three pupils and two), bots in three seats.
    std::vector<Pupil> pupils;
    for (std::size_t i = 0; i < 5; ++i) {
      Pupil pupil;
      pupil.peer = std::make_unique<Peer>(port);
      pupil.token = pupil.peer->expect_class<protocol::EventJoined>(protocol::JoinEvent{code, kRoster[i], ""}).token;
      pupils.push_back(std::move(pupil));
    }
    ann_token = pupils[0].token;
    ben_first_token = pupils[1].token;
    // Not during the round, not a pupil's, not a pupil who has not joined.
    CHECK(teacher.error_of(protocol::SeatToBot{0}) == "event/no_round");
    CHECK(pupils[2].peer->error_of(protocol::RemovePupil{0}) == "event/not_teacher");
    CHECK(pupils[2].peer->error_of(protocol::SeatToBot{0}) == "event/not_teacher");
    CHECK(pupils[2].peer->error_of(protocol::AllowLate{false}) == "event/not_teacher");
    CHECK(teacher.error_of(protocol::RemovePupil{5}) == "event/bad_pupil");
    CHECK(teacher.error_of(protocol::RemovePupil{40}) == "event/bad_pupil");

    CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
    for (auto& pupil : pupils) {
      const auto seat = await_class_message<protocol::EventSeat>(*pupil.peer);
      REQUIRE(seat.has_value());
      pupil.seat = *seat;
    }
    const auto playing = await_event_state(teacher, all_playing);
    REQUIRE(playing.tables.size() == 2);
    for (const auto& table : playing.tables) rooms.push_back(table.room);
    // Everything below happens with the tables paused, so their games are
    // still being played when the late pupils come, after the restart too.
    CHECK(teacher.expect<protocol::Ok>(protocol::PauseTables{}).id.has_value());
    await_event_state(teacher, [](const protocol::EventState& s) { return s.paused; });

    // Ann takes her seat; the teacher hands it to a bot. She is told, her
    // seat token is refused, and she waits in the event.
    Peer& ann = *pupils[0].peer;
    ann_seat_token = pupils[0].seat.token;
    CHECK(ann.expect<protocol::Joined>(protocol::Resume{ann_seat_token, std::nullopt}).seat == pupils[0].seat.seat);
    CHECK(teacher.error_of(protocol::SeatToBot{5}) == "event/bad_pupil");
    CHECK(teacher.expect<protocol::Ok>(protocol::SeatToBot{0}).id.has_value());
    const auto unseated = await_class_message<protocol::EventUnseated>(ann);
    REQUIRE(unseated.has_value());
    CHECK(unseated->reason == "teacher");
    CHECK(teacher.error_of(protocol::SeatToBot{0}) == "event/not_seated");
    CHECK(ann.error_of(protocol::Resume{ann_seat_token, std::nullopt}) == "room/bad_token");
    const auto ann_table = static_cast<std::size_t>(pupils[0].seat.table);
    const auto after_unseat = await_event_state(teacher, [&](const protocol::EventState& s) {
      return s.pupils[0].unseated && s.tables[ann_table].seats[pupils[0].seat.seat].bot_playing;
    });
    CHECK_FALSE(after_unseat.pupils[0].table.has_value());
    CHECK(after_unseat.pupils[0].claimed);
    CHECK_FALSE(after_unseat.tables[ann_table].seats[pupils[0].seat.seat].pupil.has_value());

    // Ben is removed: out of the event, both his tokens refused, his name free.
    Peer& ben = *pupils[1].peer;
    CHECK(teacher.expect<protocol::Ok>(protocol::RemovePupil{1}).id.has_value());
    const auto left = await_class_message<protocol::EventLeft>(ben);
    REQUIRE(left.has_value());
    CHECK(left->reason == "removed");
    CHECK(ben.error_of(protocol::ReadResults{}) == "event/not_in_event");
    CHECK(ben.error_of(protocol::Resume{pupils[1].seat.token, std::nullopt}) == "room/bad_token");
    Peer stranger(port);
    CHECK(stranger.error_of(protocol::JoinEvent{code, "", ben_first_token}) == "event/bad_token");
    CHECK(teacher.error_of(protocol::RemovePupil{1}) == "event/bad_pupil");
    const auto after_remove =
        await_event_state(teacher, [](const protocol::EventState& s) { return !s.pupils[1].claimed; });
    CHECK_FALSE(after_remove.pupils[1].unseated);
    CHECK_FALSE(after_remove.pupils[1].table.has_value());

    // Fay comes late: she takes a bot's seat at the table with the most of
    // them (seats let go by Ann and Ben do not count), and is sent it.
    std::vector<int> bots_from_the_start;
    for (const auto& table : playing.tables) bots_from_the_start.push_back(4 - pupils_at(table));
    const auto most = static_cast<std::size_t>(
        std::max_element(bots_from_the_start.begin(), bots_from_the_start.end()) - bots_from_the_start.begin());
    Peer fay(port);
    const auto fay_joined = fay.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "Fay", ""});
    fay_token = fay_joined.token;
    REQUIRE(fay_joined.pupil.table.has_value());
    CHECK(static_cast<std::size_t>(*fay_joined.pupil.table) == most);
    const auto fay_sent = await_class_message<protocol::EventSeat>(fay);
    REQUIRE(fay_sent.has_value());
    fay_seat = *fay_sent;
    CHECK(fay_seat.room == rooms[most]);
    CHECK(fay_seat.seat == *fay_joined.pupil.seat);
    CHECK_FALSE(playing.tables[most].seats[fay_seat.seat].pupil.has_value());  // a bot's before
    const auto fay_there = await_event_state(teacher, [&](const protocol::EventState& s) {
      return s.tables[most].seats[fay_seat.seat].pupil == 5 && s.tables[most].seats[fay_seat.seat].name == "Fay";
    });
    CHECK(fay_there.pupils[5].table == static_cast<int>(most));

    // Late pupils not allowed: Ben, joining again by name, waits.
    CHECK(teacher.expect<protocol::Ok>(protocol::AllowLate{false}).id.has_value());
    Peer ben_again(port);
    const auto ben_joined = ben_again.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "Ben", ""});
    ben_token = ben_joined.token;
    CHECK(ben_joined.pupil.id == 1);
    CHECK_FALSE(ben_joined.pupil.table.has_value());
    CHECK_FALSE(ben_joined.pupil.unseated);
    await_event_state(teacher,
                      [](const protocol::EventState& s) { return !s.settings.late_pupils && s.pupils[1].claimed; });

    check_no_event_leaks(teacher, "the teacher", EventAudience::kTeacher);
    for (std::size_t i = 0; i < pupils.size(); ++i) check_no_event_leaks(*pupils[i].peer, kRoster[i]);
    check_no_event_leaks(fay, "Fay");
    server.stop(SIGKILL);
  }

  ServerProcess server(dir.path, dir.path / "server-2.log", options);
  const auto port = server.port();
  Peer teacher(port);
  const auto resumed = teacher.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, teacher_token});
  const auto event = all_playing(resumed.event) ? resumed.event : await_event_state(teacher, all_playing);
  CHECK(event.state == protocol::EventPhase::kPlaying);
  CHECK_FALSE(event.settings.late_pupils);
  REQUIRE(event.pupils.size() == 6);
  CHECK(event.pupils[0].unseated);
  CHECK_FALSE(event.pupils[0].table.has_value());
  CHECK(event.pupils[1].claimed);
  CHECK_FALSE(event.pupils[1].table.has_value());
  REQUIRE(event.pupils[5].table.has_value());
  CHECK(event.pupils[5].seat == fay_seat.seat);
  REQUIRE(event.tables.size() == 2);
  for (std::size_t t = 0; t < 2; ++t) CHECK(event.tables[t].room == rooms[t]);

  // The refused tokens stay refused.
  Peer stranger(port);
  CHECK(stranger.error_of(protocol::JoinEvent{code, "", ben_first_token}) == "event/bad_token");
  CHECK(stranger.error_of(protocol::Resume{ann_seat_token, std::nullopt}) == "room/bad_token");
  // Ann comes back: still unseated, she is sent no seat.
  Peer ann(port);
  const auto ann_back = ann.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "", ann_token});
  CHECK(ann_back.pupil.unseated);
  CHECK_FALSE(ann_back.pupil.table.has_value());
  // Fay comes back to the seat she took over, and sits in it.
  Peer fay(port);
  const auto fay_back = fay.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "", fay_token});
  CHECK(fay_back.pupil.table == fay_seat.table);
  const auto fay_sent = await_class_message<protocol::EventSeat>(fay);
  REQUIRE(fay_sent.has_value());
  CHECK(fay_sent->room == fay_seat.room);
  CHECK(fay.expect<protocol::Joined>(protocol::Resume{fay_sent->token, std::nullopt}).seat == fay_seat.seat);

  // Late pupils allowed again: Ben, coming back, takes a bot's seat; Ann,
  // whom the teacher unseated, still waits.
  CHECK(teacher.expect<protocol::Ok>(protocol::AllowLate{true}).id.has_value());
  Peer ben(port);
  const auto ben_back = ben.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "", ben_token});
  REQUIRE(ben_back.pupil.table.has_value());
  const auto ben_sent = await_class_message<protocol::EventSeat>(ben);
  REQUIRE(ben_sent.has_value());
  CHECK(ben.expect<protocol::Joined>(protocol::Resume{ben_sent->token, std::nullopt}).seat == ben_sent->seat);
  const auto now = await_event_state(teacher, [](const protocol::EventState& s) {
    return s.settings.late_pupils && s.pupils[1].table.has_value() && s.pupils[0].unseated;
  });
  CHECK_FALSE(now.pupils[0].table.has_value());
  CHECK(seat_in(now.tables[static_cast<std::size_t>(*ben_back.pupil.table)], 1) == ben_sent->seat);

  // Play goes on and every game ends, with a bot in Ann's seat.
  CHECK(teacher.expect<protocol::Ok>(protocol::ResumeTables{}).id.has_value());
  CHECK(teacher.expect<protocol::Ok>(protocol::EndRound{}).id.has_value());
  check_no_event_leaks(teacher, "the teacher", EventAudience::kTeacher);
  check_no_event_leaks(ann, "Ann");
  check_no_event_leaks(fay, "Fay");
  check_no_event_leaks(ben, "Ben");
  CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("class event: a table whose only pupil was unseated plays on to the end, through a restart") {
  TempDir dir("gofish-event-bots-only");
  const std::vector<std::string> options = {"--bot-delay-ms=40"};
  std::string code;
  std::string token;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log", options);
    Peer teacher(server.port());
    const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 4C", kRoster, 2));
    code = created.code;
    token = created.token;
    Peer ann(server.port());
    ann.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "Ann", ""});
    CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
    await_event_state(teacher, all_playing);
    CHECK(teacher.expect<protocol::Ok>(protocol::PauseTables{}).id.has_value());
    CHECK(teacher.expect<protocol::Ok>(protocol::SeatToBot{0}).id.has_value());
    await_event_state(teacher, [](const protocol::EventState& s) { return s.paused && s.pupils[0].unseated; });
    server.stop(SIGKILL);
  }
  ServerProcess server(dir.path, dir.path / "server-2.log", options);
  Peer teacher(server.port());
  const auto resumed = teacher.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, token});
  CHECK(resumed.event.pupils[0].unseated);
  CHECK(teacher.expect<protocol::Ok>(protocol::ResumeTables{}).id.has_value());
  const auto over = await_event_state(teacher, [](const protocol::EventState& s) {
    return s.tables.size() == 1 && s.tables[0].state == protocol::RoomState::kOver && s.tables[0].game_id;
  });
  CHECK_FALSE(over.tables[0].seats[0].pupil.has_value());
  CHECK(server.stop(SIGTERM) == 0);
}

// Reads whatever comes for `time`, keeping it all for the checks.
void drain(Peer& peer, std::chrono::milliseconds time) {
  peer.await_class([](const protocol::EventServerMessage&) { return false; }, time);
}

std::vector<protocol::TableView> table_views(const Peer& peer) {
  std::vector<protocol::TableView> views;
  for (const auto& frame : peer.class_frames()) {
    if (const auto* view = std::get_if<protocol::TableView>(&frame.message)) views.push_back(*view);
  }
  return views;
}

// A table_view of a table of four (classic rules): with coaching each
// seat's hand, as many cards as it holds, no card in two hands, and every
// card of the pack in a hand, the pond or a set; without, no hand at all.
void check_view(const protocol::TableView& view, const std::string& room, bool coaching) {
  CHECK(view.table == 0);
  CHECK(view.room == room);
  REQUIRE(view.seats.size() == 4);
  engine::CardSet all;
  int held = 0;
  int laid = 0;
  for (std::size_t s = 0; s < view.seats.size(); ++s) {
    const auto& seat = view.seats[s];
    CHECK(seat.seat == static_cast<engine::Seat>(s));
    CHECK_FALSE(seat.name.empty());
    laid += static_cast<int>(seat.sets.size());
    CHECK(seat.hand.has_value() == coaching);
    if (!seat.hand) continue;
    CHECK(seat.hand->size() == seat.cards);
    held += seat.hand->size();
    all.add(*seat.hand);
  }
  if (coaching) {
    CHECK(all.size() == held);
    CHECK(held + view.pond + 4 * laid == 52);
  }
}

TEST_CASE("class event: the coaching view shows the watching teacher a table's hands, and nobody else") {
  TempDir dir("gofish-event-coach");
  ServerProcess server(dir.path, dir.path / "server.log", {"--bot-delay-ms=40"});
  const auto port = server.port();
  for (const bool coaching : {true, false}) {
    CAPTURE(coaching);
    Peer teacher(port);
    auto request = class_event("Class 4C", kRoster, 2);
    request.settings.coaching = coaching;
    const auto created = teacher.expect_class<protocol::EventCreated>(request);
    std::vector<std::unique_ptr<Peer>> pupils;
    for (std::size_t i = 0; i < 3; ++i) {
      pupils.push_back(std::make_unique<Peer>(port));
      pupils.back()->expect_class<protocol::EventJoined>(protocol::JoinEvent{created.code, kRoster[i], ""});
    }
    CHECK(teacher.error_of(protocol::WatchTable{0}) == "event/bad_table");  // no table yet
    CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
    const auto playing = await_event_state(teacher, all_playing);
    REQUIRE(playing.tables.size() == 1);
    const std::string room = playing.tables[0].room;
    CHECK(pupils[0]->error_of(protocol::WatchTable{0}) == "event/not_teacher");
    CHECK(teacher.error_of(protocol::WatchTable{1}) == "event/bad_table");

    // A second console watches the table: a view at once, then one as it
    // changes, at most one every 250 ms.
    Peer console(port);
    console.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{created.code, created.token});
    const auto asked = std::chrono::steady_clock::now();
    CHECK(console.expect<protocol::Ok>(protocol::WatchTable{0}).id.has_value());
    const auto first = await_class_message<protocol::TableView>(console);
    REQUIRE(first.has_value());
    check_view(*first, room, coaching);
    drain(console, 1500ms);
    const auto watched = std::chrono::steady_clock::now() - asked;
    const auto views = table_views(console);
    CHECK(views.size() >= 3);
    CHECK(views.size() <= 2 + static_cast<std::size_t>(watched / 250ms));
    for (const auto& view : views) check_view(view, room, coaching);
    // No more views once it stops watching.
    CHECK(console.expect<protocol::Ok>(protocol::WatchTable{std::nullopt}).id.has_value());
    drain(console, 300ms);
    const auto stopped = table_views(console).size();
    drain(console, 700ms);
    CHECK(table_views(console).size() == stopped);

    CHECK(table_views(teacher).empty());
    check_no_event_leaks(console, "the console", coaching ? EventAudience::kCoach : EventAudience::kTeacher);
    check_no_event_leaks(teacher, "the teacher", EventAudience::kTeacher);
    for (std::size_t i = 0; i < pupils.size(); ++i) check_no_event_leaks(*pupils[i], kRoster[i], EventAudience::kPupil);
  }
  CHECK(server.stop(SIGTERM) == 0);
}

// The teacher's watch_table is the event's: after a restart the teacher's
// resumed console is sent the watched table again (with every hand, the
// class having coaching) without asking, and a pupil still sees no hand.
TEST_CASE("class event: a restart keeps the table the teacher watches") {
  TempDir dir("gofish-event-coach-restart");
  const std::vector<std::string> options = {"--bot-delay-ms=40"};
  std::string code;
  std::string token;
  std::string room;
  std::vector<std::string> pupil_tokens;
  {
    ServerProcess server(dir.path, dir.path / "server-1.log", options);
    Peer teacher(server.port());
    auto request = class_event("Class 4C", kRoster, 2);
    request.settings.coaching = true;
    const auto created = teacher.expect_class<protocol::EventCreated>(request);
    code = created.code;
    token = created.token;
    for (std::size_t i = 0; i < 3; ++i) {
      Peer pupil(server.port());
      pupil_tokens.push_back(
          pupil.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, kRoster[i], ""}).token);
    }
    CHECK(teacher.expect<protocol::Ok>(protocol::StartRound{}).id.has_value());
    const auto playing = await_event_state(teacher, all_playing);
    room = playing.tables.at(0).room;
    // Paused, so the game is still in play after the restart.
    CHECK(teacher.expect<protocol::Ok>(protocol::PauseTables{}).id.has_value());
    CHECK(teacher.expect<protocol::Ok>(protocol::WatchTable{0}).id.has_value());
    const auto first = await_class_message<protocol::TableView>(teacher);
    REQUIRE(first.has_value());
    check_view(*first, room, true);
    server.stop(SIGKILL);
  }
  ServerProcess server(dir.path, dir.path / "server-2.log", options);
  Peer teacher(server.port());
  teacher.expect_class<protocol::EventStateMessage>(protocol::ResumeEvent{code, token});
  Peer ann(server.port());
  ann.expect_class<protocol::EventJoined>(protocol::JoinEvent{code, "", pupil_tokens[0]});
  // Once the table has reported itself again, its view with every hand.
  const auto view = teacher.await_class(
      [](const protocol::EventServerMessage& m) {
        const auto* v = std::get_if<protocol::TableView>(&m);
        return v && v->seats.size() == 4;
      },
      10s);
  REQUIRE(view.has_value());
  check_view(std::get<protocol::TableView>(*view), room, true);
  drain(ann, 300ms);
  CHECK(table_views(ann).empty());
  check_no_event_leaks(teacher, "the teacher", EventAudience::kCoach);
  check_no_event_leaks(ann, kRoster[0], EventAudience::kPupil);
  CHECK(server.stop(SIGTERM) == 0);
}

// A writer that commits at once, or holds every submission while `hold` is
// on until release(): a test stops the store's clock where it likes. The
// callbacks run on the server's I/O threads, as gofish-server's writer's do.
class GatedSink final : public RecordSink {
 public:
  void submit(std::string, std::vector<Record>&& records, Done done) override {
    std::lock_guard lock(mutex_);
    for (const Record& record : records) seen_.push_back(record);
    if (hold_) {
      held_.push_back(std::move(done));
      return;
    }
    boost::asio::post(*io, [done = std::move(done)] { done(WriteOutcome::kWritten); });
  }
  void start_holding() {
    std::lock_guard lock(mutex_);
    hold_ = true;
  }
  void release() {
    std::lock_guard lock(mutex_);
    hold_ = false;
    for (auto& done : std::exchange(held_, {})) {
      boost::asio::post(*io, [done = std::move(done)] { done(WriteOutcome::kWritten); });
    }
  }
  // Waits until a record submitted so far satisfies `match`.
  bool await_record(const std::function<bool(const Record&)>& match) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard lock(mutex_);
        if (std::any_of(seen_.begin(), seen_.end(), match)) return true;
      }
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }
  boost::asio::io_context* io = nullptr;  // set before any traffic

 private:
  std::mutex mutex_;
  bool hold_ = false;
  std::vector<Record> seen_;
  std::vector<Done> held_;
};

// A pupil who joins in the moment a round starts, after the event has made
// its tables but before any has said its game is in play (its first report
// comes once the table's records commit), takes over a computer's seat as
// soon as the table says so, rather than waiting for the next round.
TEST_CASE("class event: a pupil who joins as the round starts takes a computer's seat") {
  GatedSink sink;
  Config config = rooms_config();
  config.limits.bot_delay = 200ms;  // the game goes on well past the checks
  RoomsServer server(config, &sink);
  sink.io = &server.server().io_context();
  const auto port = server.port();
  Peer teacher(port);
  const auto created = teacher.expect_class<protocol::EventCreated>(class_event("Class 4C", kRoster, 2));
  Peer ann(port);
  ann.expect_class<protocol::EventJoined>(protocol::JoinEvent{created.code, "Ann", ""});

  // The store stops: the round starts (the event's tables made, its records
  // waiting), then Ben joins while no table has reported itself yet.
  sink.start_holding();
  const auto start = teacher.send(protocol::StartRound{});
  REQUIRE(sink.await_record([](const Record& r) { return std::holds_alternative<record::EventTableSaved>(r); }));
  Peer ben(port);
  const auto join = ben.send(protocol::JoinEvent{created.code, "Ben", ""});
  REQUIRE(sink.await_record([](const Record& r) {
    const auto* pupil = std::get_if<record::PupilSaved>(&r);
    return pupil && pupil->name == "Ben" && !pupil->token_hash.empty();  // claimed, not the roster's row
  }));
  sink.release();

  CHECK(std::holds_alternative<protocol::Ok>(teacher.reply(start)));
  const auto joined = await_class_message<protocol::EventJoined>(ben);
  REQUIRE(joined.has_value());
  CHECK(joined->id == protocol::RequestId{join});
  const auto seat = await_class_message<protocol::EventSeat>(ben);
  REQUIRE(seat.has_value());
  CHECK(seat->table == 0);
  CHECK(seat->seat == 1);  // Ann's is seat 0; a computer held seat 1
  const auto state = await_event_state(teacher, [](const protocol::EventState& s) {
    return s.tables.size() == 1 && s.pupils.size() >= 2 && s.pupils[1].table == 0;
  });
  CHECK(state.tables[0].seats[1].pupil == 1);
  server.stop();
}

}  // namespace
}  // namespace gofish::server::testing
