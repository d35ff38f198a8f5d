// A room whose store fails (issue 30): the writer tries a failed write again
// until it is written, and the room pauses meanwhile. Driven through fake
// connections and a sink the test fails and commits by hand
// (room_harness.hpp), on a clock the test moves.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <thread>

#include "room_harness.hpp"
#include "rooms_support.hpp"
#include "server/store/store_health.hpp"

namespace gofish::server::testing {
namespace {

using namespace std::chrono_literals;
using protocol::BotLevel;

protocol::CreateRoom room_of(int seats, std::vector<protocol::BotSpec> bots = {}) {
  return create_request("Ann", "classic", seats, std::move(bots));
}

template <class T>
std::size_t count_of(const FakeClient& client) {
  const auto all = client.received();
  return static_cast<std::size_t>(
      std::count_if(all.begin(), all.end(), [](const auto& m) { return std::holds_alternative<T>(m); }));
}

// Index of the first message of type T, or the count of messages.
template <class T>
std::size_t first_of(const FakeClient& client) {
  const auto all = client.received();
  return static_cast<std::size_t>(
      std::find_if(all.begin(), all.end(), [](const auto& m) { return std::holds_alternative<T>(m); }) - all.begin());
}

// Plays as RoomBench::play_until does, committing every write, until `done`.
void play_durably(RoomBench& bench, const std::function<bool()>& done) {
  for (int i = 0; i < 5000 && !done(); ++i) {
    bench.sink().commit_all();
    bench.settle();
    bench.play_until(done, 1);
  }
  bench.sink().commit_all();
  bench.settle();
}

void until_anns_turn(RoomBench& bench, FakeClient& ann) {
  play_durably(bench, [&] { return ann.last_turn() && ann.last_turn()->legal; });
  REQUIRE(ann.last_turn()->legal);
}

TEST_CASE("room pause: a failed write pauses the room, holds its effects, and play goes on once it is written") {
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true);
  FakeClient& ann = bench.create(room_of(3, {{2, BotLevel::kEasy}}));
  bench.sink().commit_all();
  bench.settle();
  FakeClient& bob = bench.join("Bob");
  FakeClient& zoe = bench.join("Zoe", protocol::JoinAs::kSpectator);
  bench.sink().commit_all();
  bench.settle();
  ann.send(protocol::Start{});
  until_anns_turn(bench, ann);

  // Ann asks; the write of her decision fails.
  const auto v_before = bench.v();
  ann.send(protocol::request_for(ann.last_turn()->legal->nth(0)));
  CHECK(ann.reply() == "(no reply)");
  bench.sink().fail_all();
  bench.settle();
  // Everyone is told at once, and nothing the decision caused goes out.
  for (FakeClient* client : {&ann, &bob, &zoe}) {
    const auto paused = client->last<protocol::RoomPaused>();
    REQUIRE(paused);
    CHECK(paused->reason == protocol::PauseReason::kSavingFailed);
    CHECK(paused->code == "K7QXM");
  }
  CHECK(bench.v() == v_before);
  CHECK(ann.reply() == "(no reply)");

  // Paused: no decision, chat or seat change; nobody comes in; no bot or
  // timer runs however long it lasts; the transcript request is answered.
  bob.send(protocol::Chat{"hello", ""});
  CHECK(bob.reply() == "room/paused");
  ann.send(protocol::Leave{});
  CHECK(ann.reply() == "room/paused");
  FakeClient& late = bench.join("Late", protocol::JoinAs::kSpectator);
  CHECK(late.reply() == "room/paused");
  const auto submissions = bench.sink().waiting.size();
  bench.pass(10min);
  bench.settle();
  CHECK(bench.sink().waiting.size() == submissions);  // no bot moved, no timer wrote
  CHECK(bench.host().closed.empty());
  // The failure is told again (another try failed): no second notice.
  bench.sink().fail_all();
  bench.settle();
  CHECK(count_of<protocol::RoomPaused>(ann) == 1);

  // Written at last: what waited goes out in order, then room_resumed.
  bench.sink().commit_all();
  bench.settle();
  CHECK(bench.v() > v_before);
  for (FakeClient* client : {&ann, &bob, &zoe}) {
    CHECK(count_of<protocol::RoomResumed>(*client) == 1);
    const auto all = client->received();
    CHECK(std::holds_alternative<protocol::RoomResumed>(all.back()));
  }
  // The ask's ok came after the pause notice, with the events it caused.
  const auto anns = ann.received();
  const auto ok_at = std::find_if(anns.rbegin(), anns.rend(), [](const auto& m) {
    return std::holds_alternative<protocol::Ok>(m);
  });
  CHECK(anns.rend() - ok_at - 1 > static_cast<std::ptrdiff_t>(first_of<protocol::RoomPaused>(ann)));
  // And the game goes on.
  play_durably(bench, [&] { return !ann.events<engine::GameOver>().empty(); });
  CHECK_FALSE(ann.events<engine::GameOver>().empty());
}

// protocol/README.md: an `ok` goes out only once the records behind it are
// stored, and before the events its request caused. A chat, a rematch vote,
// a bot added and a leave each answer `ok` before their handlers write: the
// ok still waits for the turn's records, and a failing store holds it.
TEST_CASE("room pause: the ok to a chat, an added bot, a rematch vote or a leave waits for its records") {
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true);
  FakeClient& ann = bench.create(room_of(3));
  bench.sink().commit_all();
  bench.settle();
  FakeClient& bob = bench.join("Bob");
  bench.sink().commit_all();
  bench.settle();
  const auto held_until_written = [&](FakeClient& client, const protocol::ClientBody& request, const char* what) {
    CAPTURE(what);
    client.send(request);
    CHECK(client.reply() == "(no reply)");
    bench.sink().fail_all();
    bench.settle();
    CHECK(client.reply() == "(no reply)");
    REQUIRE(client.last<protocol::RoomPaused>());
    bench.sink().commit_all();
    bench.settle();
    CHECK(client.reply() == "ok");
  };
  held_until_written(ann, protocol::Chat{"hello", ""}, "chat");
  held_until_written(ann, protocol::AddBot{std::nullopt, BotLevel::kEasy}, "add_bot");
  ann.send(protocol::Start{});
  play_durably(bench, [&] { return !ann.events<engine::GameOver>().empty(); });
  REQUIRE_FALSE(ann.events<engine::GameOver>().empty());
  held_until_written(bob, protocol::Rematch{}, "rematch");
  held_until_written(bob, protocol::Leave{}, "leave");
}

TEST_CASE("room pause: a bot's move waits for the store too, and resumes the bot and the grace period afresh") {
  Limits limits = RoomBench::bench_limits();
  limits.seat_grace_period = 5s;
  RoomBench bench(limits, /*durable=*/true);
  FakeClient& ann = bench.create(room_of(2, {{1, BotLevel::kEasy}}));
  bench.sink().commit_all();
  bench.settle();
  ann.send(protocol::Start{});
  bench.settle();
  bench.sink().fail_all();  // the game's start fails to be written
  bench.settle();
  CHECK(count_of<protocol::RoomPaused>(ann) == 1);
  CHECK(ann.events<protocol::NewGame>().empty());
  const std::string token = ann.token;
  bench.disconnect(ann);
  // Past the grace period and many bot delays: nothing moves.
  bench.pass(1min);
  bench.settle();
  const auto waiting = bench.sink().waiting.size();
  CHECK(waiting <= 2);  // the start, and the disconnect's version
  bench.sink().commit_all();
  bench.settle();
  // Back: the bot moves and the grace period runs again, from now.
  bench.pass(4s);
  bench.sink().commit_all();
  bench.settle();
  FakeClient& back = bench.resume(token, std::nullopt);
  bench.sink().commit_all();
  bench.settle();
  CHECK(back.reply() != "room/bad_token");
  CHECK(back.reply() != "room/paused");
}

// The writer throws instead of taking a turn's records (out of memory): a
// write that failed. Before issue 30 the turn's messages went out all the
// same; now the room pauses, hands the records over again, and goes on once
// they are written. (Before issue 28's fix the throw ended the server.)
TEST_CASE("room pause: a store writer that refuses a turn's records pauses the room until it takes them") {
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true);
  FakeClient& ann = bench.create(room_of(2, {{1, BotLevel::kEasy}}));
  bench.sink().commit_all();
  bench.settle();
  bench.sink().refuse = true;
  ann.send(protocol::Start{});
  bench.settle();
  // The start's ok waits for the game's records, as every ok waits for its own.
  CHECK(ann.reply() == "(no reply)");
  CHECK(ann.last<protocol::RoomPaused>());
  CHECK(ann.events<protocol::NewGame>().empty());
  bench.pass(1s);  // tried again, refused again
  bench.settle();
  CHECK(bench.sink().waiting.empty());
  bench.sink().refuse = false;
  bench.pass(StoreWriter::kFirstRetry);
  bench.settle();
  REQUIRE_FALSE(bench.sink().waiting.empty());
  CHECK(ann.events<protocol::NewGame>().empty());
  bench.sink().commit_all();
  bench.settle();
  CHECK(ann.reply() == "ok");
  CHECK(ann.events<protocol::NewGame>().size() == 1);
  CHECK(count_of<protocol::RoomResumed>(ann) == 1);
}

// Several servers on one store: a node whose leases could have run out
// sends nothing, even what is committed, until a renewal confirms them.
TEST_CASE("room pause: past its leases' validity a room sends nothing and pauses when told, until a renewal") {
  StoreHealth health;
  health.use_leases(300ms, 0ms);
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true, &health);
  FakeClient& ann = bench.create(room_of(2, {{1, BotLevel::kEasy}}));
  bench.sink().commit_all();
  bench.settle();
  CHECK(ann.last<protocol::RoomSnapshot>());
  ann.send(protocol::Start{});
  bench.settle();
  // No renewal comes: the leases could have run out.
  std::this_thread::sleep_for(350ms);
  CHECK_FALSE(health.may_release());
  bench.sink().commit_all();  // the start is written, but may not be sent
  bench.settle();
  CHECK(ann.events<protocol::NewGame>().empty());
  bench.room().leases_confirmed(false);
  bench.settle();
  const auto paused = ann.last<protocol::RoomPaused>();
  REQUIRE(paused);
  CHECK(paused->reason == protocol::PauseReason::kStoreUnreachable);
  // A renewal: everything committed goes out, then play goes on.
  health.leases_renewed(StoreHealth::Clock::now());
  CHECK(health.may_release());
  bench.room().leases_confirmed(true);
  bench.settle();
  CHECK(ann.events<protocol::NewGame>().size() == 1);
  CHECK(count_of<protocol::RoomResumed>(ann) == 1);
  CHECK(first_of<protocol::RoomResumed>(ann) > first_of<protocol::EventMessage>(ann));
}

}  // namespace
}  // namespace gofish::server::testing
