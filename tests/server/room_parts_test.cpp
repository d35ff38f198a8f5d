// The room's collaborators, each on its own: the seat table, the event log,
// the durability hold and the guarded timer. No sockets, no sleeps.
#include <doctest/doctest.h>

#include <new>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "engine/setup.hpp"
#include "room_harness.hpp"
#include "server/rooms/durable_outbox.hpp"
#include "server/rooms/guarded_timer.hpp"
#include "server/rooms/room_log.hpp"
#include "server/rooms/room_view.hpp"
#include "server/rooms/seat_table.hpp"
#include "server/rooms/turn_clock.hpp"

namespace gofish::server::testing {
namespace {

TokenHash hash_of(const std::string& token) {
  static const TokenHasher hasher;
  return hasher.hash(token);
}

TokenBucket bucket() { return TokenBucket(1.0, 5, TokenBucket::Clock::now()); }

std::shared_ptr<Client> client_on(const std::shared_ptr<FakeConnection>& connection) {
  return std::make_shared<Client>(connection);
}

// ---------------------------------------------------------------- SeatTable

TEST_CASE("seat table: seats, names, bots, the host and who may sit down again") {
  SeatTable table(4);
  auto ann = std::make_shared<FakeConnection>(1);
  auto bob = std::make_shared<FakeConnection>(2);
  table.seat_human(0, client_on(ann), "Ann", hash_of("ann"), bucket());
  const auto bob_client = client_on(bob);
  table.seat_human(2, bob_client, "Bob", hash_of("bob"), bucket());
  table.seat_bot(1, protocol::BotLevel::kHard);
  table.seat_bot(3, protocol::BotLevel::kHard);
  CHECK(table[1].name == "Hard bot");
  CHECK(table[3].name == "Hard bot 2");
  CHECK(table.full());
  CHECK(table.name_taken("ANN"));
  CHECK(table.name_taken("B\xd0\xbe" "b"));  // Cyrillic o: the same name to a reader
  CHECK_FALSE(table.name_taken("Anne"));
  CHECK(table.member_of(*bob_client)->seat == 2);
  CHECK(table.connected() == 2);

  // The host leaves: the lowest seat a human still owns takes over.
  table.set_host(0);
  CHECK_FALSE(table.pass_host_on_if_needed());
  const auto token = table.free(0);
  REQUIRE(token);
  CHECK(*token == hash_of("ann"));
  CHECK(table.first_empty() == 0);
  CHECK(table.pass_host_on_if_needed() == 2);
  CHECK(table.host() == 2);

  // Rematch votes: a freed seat loses its vote.
  table.vote(2);
  table.vote(1);
  CHECK(table.voters() == std::vector<engine::Seat>{1, 2});
  table.free(1);
  CHECK(table.voters() == std::vector<engine::Seat>{2});

  // A kick: the token, the connection and the name are remembered.
  const auto kicked = table.remember_kick(2);
  REQUIRE(kicked);
  CHECK(table.kicked_token(hash_of("bob")));
  CHECK_FALSE(table[2].token);
  CHECK(table.kicked_player(*bob_client, "Someone"));
  CHECK(table.kicked_player(Client(std::make_shared<FakeConnection>(9)), "BOB"));
  CHECK_FALSE(table.kicked_player(Client(std::make_shared<FakeConnection>(9)), "Rob"));
  CHECK_FALSE(table.anyone_holds_a_seat());
}

// ---------------------------------------------------------------- RoomLog

TEST_CASE("room log: versions climb by one, and since() gives what was missed or says it cannot") {
  RoomLog log(3);
  CHECK(log.v() == 0);
  for (int i = 1; i <= 5; ++i) CHECK(log.append(protocol::SpectatorsChanged{i}).v == i);
  CHECK(log.since(5)->empty());  // up to date
  const auto missed = log.since(3);
  REQUIRE(missed);
  REQUIRE(missed->size() == 2);
  CHECK((*missed)[0]->v == 4);
  CHECK((*missed)[1]->v == 5);
  CHECK(log.since(2)->size() == 3);  // exactly what is kept
  CHECK_FALSE(log.since(1));         // older than the history
  CHECK_FALSE(log.since(6));         // newer than the room
  RoomLog restored(3, 40);           // a restored room keeps no history
  CHECK(restored.since(40)->empty());
  CHECK_FALSE(restored.since(39));
  CHECK(restored.append(protocol::SpectatorsChanged{1}).v == 41);
}

// ---------------------------------------------------------------- DurableOutbox

// The usual action writes one record: its decision, carrying the version.
// A turn that starts a game writes the version on its own, where the store
// keeps it beside the game it starts.
TEST_CASE("durable outbox: a turn ending with a decision puts the room's version in it") {
  ManualSink sink;
  DurableOutbox outbox(&sink, "K7QXM");
  const auto ignore = [](std::uint64_t, WriteOutcome) {};
  CHECK(outbox.write(record::DecisionAccepted{"g", 3, "{}", std::nullopt}));
  outbox.version_moved();
  outbox.submit(12, ignore);
  REQUIRE(sink.waiting.size() == 1);
  REQUIRE(sink.waiting[0].first.size() == 1);
  CHECK(std::get<record::DecisionAccepted>(sink.waiting[0].first[0]).v == 12);

  outbox.write(record::GameStarted{"K7QXM", 2, "g2", "{}", 1});
  outbox.write(record::DecisionAccepted{"g2", 0, "{}", std::nullopt});
  outbox.version_moved();
  outbox.submit(15, ignore);
  REQUIRE(sink.waiting.size() == 2);
  REQUIRE(sink.waiting[1].first.size() == 3);
  CHECK_FALSE(std::get<record::DecisionAccepted>(sink.waiting[1].first[1]).v);
  CHECK(std::get<record::RoomVersion>(sink.waiting[1].first[2]).v == 15);

  // A decision written, the version not moved: nothing to carry.
  outbox.write(record::DecisionAccepted{"g2", 1, "{}", std::nullopt});
  outbox.submit(15, ignore);
  REQUIRE(sink.waiting.size() == 3);
  REQUIRE(sink.waiting[2].first.size() == 1);
  CHECK_FALSE(std::get<record::DecisionAccepted>(sink.waiting[2].first[0]).v);
}

TEST_CASE("durable outbox: a message waits for the records written before it, in order") {
  ManualSink sink;
  DurableOutbox outbox(&sink, "K7QXM");
  auto connection = std::make_shared<FakeConnection>(1);
  const auto client = client_on(connection);
  std::vector<std::pair<std::uint64_t, WriteOutcome>> outcomes;
  const auto remember = [&](std::uint64_t number, WriteOutcome outcome) { outcomes.push_back({number, outcome}); };

  outbox.send(client, make_shared_text("before any write"));
  CHECK(connection->sent.size() == 1);  // nothing pending: at once

  CHECK(outbox.write(record::RoomClosed{"A"}));        // the first of a turn: submit
  CHECK_FALSE(outbox.write(record::RoomClosed{"B"}));  // the same turn
  CHECK_FALSE(outbox.version_moved());
  outbox.send(client, make_shared_text("after the first write"));
  CHECK(connection->sent.size() == 1);
  CHECK(outbox.submit(7, remember));
  REQUIRE(sink.waiting.size() == 1);
  CHECK(sink.waiting[0].first.size() == 3);  // two records and the version
  CHECK(std::get<record::RoomVersion>(sink.waiting[0].first[2]).v == 7);

  CHECK(outbox.write(record::RoomClosed{"C"}));
  outbox.send(client, make_shared_text("after the second write"));
  CHECK(outbox.submit(8, remember));
  sink.waiting[0].second(WriteOutcome::kWritten);  // the first commit only
  REQUIRE(outcomes.size() == 1);
  outbox.committed(outcomes[0].first);
  CHECK(connection->sent == std::vector<std::string>{"before any write", "after the first write"});
  CHECK_FALSE(outbox.stalled());

  // The second write fails: it is tried again, and what waits for it stays
  // held however long that takes, and so does everything after it.
  sink.waiting[1].second(WriteOutcome::kRetrying);
  REQUIRE(outcomes.size() == 2);
  CHECK(outbox.retrying(outcomes[1].first));  // the room pauses
  CHECK(outbox.stalled());
  CHECK_FALSE(outbox.retrying(outcomes[1].first));  // once
  outbox.send(client, make_shared_text("during the outage"));
  CHECK(connection->sent.size() == 2);
  sink.waiting[1].second(WriteOutcome::kWritten);  // written at last
  outbox.committed(outcomes[2].first);
  CHECK_FALSE(outbox.stalled());
  CHECK(connection->sent == std::vector<std::string>{"before any write", "after the first write",
                                                     "after the second write", "during the outage"});
  // News of a failure that comes after the write's success is old news.
  CHECK_FALSE(outbox.retrying(outcomes[1].first));
  CHECK_FALSE(outbox.stalled());

  // The final submission carries what is still held, and sends it only
  // once it is written.
  CHECK(outbox.write(record::RoomClosed{"D"}));
  outbox.send(client, make_shared_text("the room closed"));
  outbox.submit_final(9);
  CHECK(connection->sent.size() == 4);
  sink.waiting.back().second(WriteOutcome::kRetrying);
  CHECK(connection->sent.size() == 4);
  sink.waiting.back().second(WriteOutcome::kWritten);
  CHECK(connection->sent.back() == "the room closed");
  outbox.send(client, make_shared_text("afterwards"));
  CHECK(connection->sent.back() == "afterwards");
}

TEST_CASE("durable outbox: a fenced-out write releases nothing, its final one neither") {
  ManualSink sink;
  DurableOutbox outbox(&sink, "K7QXM");
  auto connection = std::make_shared<FakeConnection>(1);
  CHECK(outbox.write(record::RoomClosed{"A"}));
  outbox.send(client_on(connection), make_shared_text("held"));
  outbox.submit_final(1);
  sink.waiting.back().second(WriteOutcome::kFenced);
  CHECK(connection->sent.empty());
}

// A sink that throws instead of taking a submission (out of memory) is a
// write that failed: the records are kept, nothing they hold goes out, and
// the next submit hands them over first.
TEST_CASE("durable outbox: records a sink refuses are kept and handed over again, first") {
  ManualSink sink;
  DurableOutbox outbox(&sink, "K7QXM");
  auto connection = std::make_shared<FakeConnection>(1);
  std::vector<std::uint64_t> written;
  const auto on_outcome = [&](std::uint64_t number, WriteOutcome outcome) {
    if (outcome == WriteOutcome::kWritten) written.push_back(number);
  };
  CHECK(outbox.write(record::RoomClosed{"A"}));
  outbox.send(client_on(connection), make_shared_text("held"));
  sink.refuse = true;
  bool submitted = true;
  CHECK_NOTHROW(submitted = outbox.submit(3, on_outcome));
  CHECK_FALSE(submitted);
  CHECK(outbox.stalled());
  CHECK(connection->sent.empty());
  // Meanwhile the room writes more: it goes after the kept records.
  CHECK(outbox.write(record::RoomClosed{"B"}));
  outbox.send(client_on(connection), make_shared_text("later"));
  CHECK_FALSE(outbox.submit(4, on_outcome));
  sink.refuse = false;
  CHECK(outbox.submit(4, on_outcome));
  CHECK_FALSE(outbox.stalled());
  REQUIRE(sink.waiting.size() == 2);
  CHECK(std::get<record::RoomClosed>(sink.waiting[0].first[0]).room == "A");
  CHECK(std::get<record::RoomClosed>(sink.waiting[1].first[0]).room == "B");
  sink.commit_all();
  for (const std::uint64_t number : written) outbox.committed(number);
  CHECK(connection->sent == std::vector<std::string>{"held", "later"});
}

TEST_CASE("durable outbox: without a store nothing is written or held") {
  DurableOutbox outbox(nullptr, "K7QXM");
  auto connection = std::make_shared<FakeConnection>(1);
  CHECK_FALSE(outbox.write(record::RoomClosed{"A"}));
  CHECK_FALSE(outbox.version_moved());
  outbox.send(client_on(connection), make_shared_text("now"));
  CHECK(connection->sent.size() == 1);
}

// ---------------------------------------------------------------- GuardedTimer

TEST_CASE("guarded timer: only the latest arming fires, and a cancelled one never does") {
  boost::asio::io_context io;
  auto strand = boost::asio::make_strand(io);
  ManualTimers timers;
  const auto run = [&] {
    io.restart();
    io.poll();
  };
  std::vector<std::string> fired;
  {
    GuardedTimer timer(timers, strand);
    timer.arm(std::chrono::milliseconds(100), [&] { fired.push_back("first"); });
    timer.arm(std::chrono::milliseconds(300), [&] { fired.push_back("second"); });
    CHECK(timer.armed());
    CHECK(timers.fire_next(std::chrono::milliseconds(250)) == false);
    CHECK(timers.fire_next(std::chrono::milliseconds(300)));
    run();
    CHECK(fired == std::vector<std::string>{"second"});
    CHECK_FALSE(timer.armed());

    timer.arm(std::chrono::milliseconds(50), [&] { fired.push_back("third"); });
    timer.cancel();
    CHECK_FALSE(timers.fire_next(std::chrono::milliseconds(1000)));
    run();
    CHECK(fired.size() == 1);

    // An expiry already on its way when the timer is re-armed is dropped.
    timer.arm(std::chrono::milliseconds(10), [&] { fired.push_back("stale"); });
    CHECK(timers.fire_next(std::chrono::milliseconds(2000)));  // posted, not yet run
    timer.arm(std::chrono::milliseconds(10), [&] { fired.push_back("fresh"); });
    run();
    CHECK(fired.size() == 1);
    CHECK(timers.fire_next(std::chrono::milliseconds(3000)));
    run();
    CHECK(fired.back() == "fresh");

    timer.arm(std::chrono::milliseconds(10), [&] { fired.push_back("after destruction"); });
  }
  CHECK(timers.pending() == 0);  // destroying the timer cancels it
  run();
  CHECK(fired.size() == 2);
}

// ---------------------------------------------------------------- TurnClock

TEST_CASE("turn clock: one bot move per decision, a turn timer per human turn, and the room's pace") {
  using std::chrono::milliseconds;
  boost::asio::io_context io;
  auto strand = boost::asio::make_strand(io);
  ManualTimers timers;
  const auto run = [&] {
    io.restart();
    io.poll();
  };
  CHECK(TurnClock::paced(milliseconds(500), protocol::BotPace::kNormal) == milliseconds(500));
  CHECK(TurnClock::paced(milliseconds(500), protocol::BotPace::kRelaxed) == milliseconds(1000));
  CHECK(TurnClock::paced(milliseconds(500), protocol::BotPace::kQuick) == milliseconds(200));

  TurnClock clock(timers, strand, milliseconds(500), protocol::BotPace::kRelaxed, 30);
  int moves = 0;
  int timeouts = 0;
  // Asked again for the same decision (a chat line, a reconnect): the bot's
  // move is not put off.
  clock.wait_for_bot(3, [&] { ++moves; });
  timers.advance(milliseconds(600));
  clock.wait_for_bot(3, [&] { ++moves; });
  CHECK_FALSE(timers.fire_next(milliseconds(999)));
  CHECK(timers.fire_next(milliseconds(1000)));  // relaxed: twice --bot-delay-ms
  run();
  CHECK(moves == 1);

  // A human's turn: a timer is started once per decision, announced once.
  const auto started = clock.wait_for_human(1, 4, [&] { ++timeouts; });
  REQUIRE(started.has_value());
  CHECK(started->seat == 1);
  CHECK(started->seconds == 30);
  // Its deadline is on the room's wall clock, which moved with the timers.
  CHECK(started->deadline_ms == ManualTimers::kWallStart.count() + 1000 + 30'000);
  CHECK(clock.timer() == started);
  CHECK_FALSE(clock.wait_for_human(1, 4, [&] { ++timeouts; }).has_value());
  // The same seat deciding again (a lucky fish) gets a fresh timer.
  CHECK(clock.wait_for_human(1, 5, [&] { ++timeouts; }).has_value());
  CHECK(timers.fire_next(milliseconds(1000 + 30'000)));
  run();
  CHECK(timeouts == 1);
  CHECK(clock.take_expired()->seat == 1);
  CHECK_FALSE(clock.timer().has_value());

  // A bot's turn stops the human's timer; stop() stops everything.
  CHECK(clock.wait_for_human(2, 6, [&] { ++timeouts; }).has_value());
  clock.wait_for_bot(7, [&] { ++moves; });
  CHECK_FALSE(clock.timer().has_value());
  clock.stop();
  CHECK(timers.pending() == 0);
  CHECK_FALSE(timers.fire_next(milliseconds(1'000'000)));
  run();
  CHECK(moves == 1);
  CHECK(timeouts == 1);

  // Without a turn timer a human's turn has no deadline.
  TurnClock untimed(timers, strand, milliseconds(500), protocol::BotPace::kNormal, 0);
  CHECK_FALSE(untimed.wait_for_human(0, 1, [&] { ++timeouts; }).has_value());
  CHECK(timers.pending() == 0);
}

// ---------------------------------------------------------------- RoomView

// A deal for three from a seeded shuffle, and the game Ann, Bob and Cy
// start with it.
engine::DealSetup dealt(const engine::Rules& rules, std::uint64_t seed) {
  engine::Rng rng(seed);
  return engine::prepare_deal(rules, 3, rng);
}

std::optional<RoomGame> three_players(const engine::Rules& rules, const engine::DealSetup& deal) {
  std::vector<protocol::Player> players = {{"Ann", std::nullopt}, {"Bob", std::nullopt}, {"Cy", std::nullopt}};
  auto started = RoomGame::start(rules, deal.deck, deal.dealer, deal.first, 1, "", players, {{}, {}, {}});
  REQUIRE(std::holds_alternative<RoomGame>(started));
  return std::get<RoomGame>(std::move(started));
}

TEST_CASE("room view: a turn carries legal decisions for the seat to act alone, and a snapshot shows only your hand") {
  const auto rules = engine::preset("classic");
  REQUIRE(rules.has_value());
  const engine::DealSetup deal = dealt(*rules, 7);
  const std::optional<RoomGame> game = three_players(*rules, deal);
  SeatTable seats(3);
  protocol::RoomSettings settings;
  settings.seats = 3;
  const std::string code = "ABCDE";
  const std::optional<protocol::TurnTimer> timer = protocol::TurnTimer{deal.first, 30, 1234};

  const RoomView playing(code, settings, seats, protocol::RoomState::kPlaying, 1, game, 42, timer);
  const engine::Seat to_act = game->game().to_act();
  for (int seat = 0; seat < 3; ++seat) {
    const protocol::Turn turn = playing.turn(seat);
    CHECK(turn.v == 42);
    CHECK(turn.seat == to_act);
    CHECK(turn.legal.has_value() == (seat == to_act));
    const auto snapshot = playing.snapshot(seat);
    REQUIRE(snapshot.game.has_value());
    CHECK(snapshot.game->hand.size() == game->game().hand_size(seat));
    CHECK_FALSE(snapshot.game->hand.empty());
    CHECK(snapshot.timer == timer);
  }
  const protocol::Turn public_turn = playing.turn(std::nullopt);
  CHECK(public_turn.seat == to_act);
  CHECK_FALSE(public_turn.legal.has_value());
  const auto watching = playing.snapshot(std::nullopt);
  REQUIRE(watching.game.has_value());
  CHECK(watching.game->hand.empty());
  CHECK_FALSE(watching.you.has_value());

  // Before a game nobody is to act.
  const std::optional<RoomGame> none;
  const RoomView waiting(code, settings, seats, protocol::RoomState::kWaiting, 0, none, 3, std::nullopt);
  CHECK_FALSE(waiting.turn(0).seat.has_value());
  CHECK_FALSE(waiting.snapshot(0).game.has_value());
}

TEST_CASE("room view: under table rules every seat's turn and snapshot carry its own improper decisions") {
  auto rules = engine::preset("specific-card");
  REQUIRE(rules.has_value());
  rules->table_rules = true;
  const std::optional<RoomGame> game = three_players(*rules, dealt(*rules, 9));
  SeatTable seats(3);
  protocol::RoomSettings settings;
  settings.seats = 3;
  settings.rules = *rules;
  const std::string code = "ABCDE";
  const RoomView playing(code, settings, seats, protocol::RoomState::kPlaying, 1, game, 42, std::nullopt);
  for (int seat = 0; seat < 3; ++seat) {
    CAPTURE(seat);
    const engine::ImproperDecisions own = game->game().improper(seat);
    REQUIRE_FALSE(own.empty());  // at the start anyone may ask out of turn, or call wrongly
    const protocol::Turn turn = playing.turn(seat);
    REQUIRE(turn.improper.has_value());
    CHECK(*turn.improper == own);
    const auto snapshot = playing.snapshot(seat);
    REQUIRE(snapshot.game.has_value());
    CHECK(snapshot.game->improper == own);
  }
  CHECK_FALSE(playing.turn(std::nullopt).improper.has_value());
  CHECK(playing.snapshot(std::nullopt).game->improper.empty());
  // Once the game is over, nobody has any.
  const RoomView over(code, settings, seats, protocol::RoomState::kOver, 1, game, 43, std::nullopt);
  CHECK_FALSE(over.turn(0).improper.has_value());
}

}  // namespace
}  // namespace gofish::server::testing
