// The store writer when the store fails (issue 30): a write that fails is
// tried again until it is written, in order, and nothing waiting for it is
// ever reported written before it is. A fake store fails on the test's word;
// no database, no sleeping beyond the writer's own retry pauses.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/store/sharded_writer.hpp"
#include "server/store/store.hpp"
#include "server/store/store_health.hpp"

namespace gofish::server {
namespace {

using namespace std::chrono_literals;

// Commits into a list, or fails as the test says: `down` fails every try
// as a store that cannot be reached; `uncertain` loses the answer of the
// next commit, which `committed_anyway` says went through or not.
class FakeStore final : public NullStore {
 public:
  std::vector<std::string> commit_rooms(const std::vector<RoomRecords>& batch) override {
    std::lock_guard lock(mutex);
    ++tries;
    if (down) throw StoreUnreachable("the fake store is down");
    if (uncertain) {
      uncertain = false;
      pending_uncertain = batch;
      throw CommitUncertain("the fake store's answer was lost");
    }
    for (const RoomRecords& room : batch) {
      if (std::find(refused.begin(), refused.end(), room.room) != refused.end()) {
        throw RecordsRefused("the fake store refuses room " + room.room);
      }
    }
    write(batch);
    return {};
  }
  std::optional<std::vector<std::string>> resolve_uncertain() override {
    std::lock_guard lock(mutex);
    if (down) throw StoreUnreachable("the fake store is down");
    if (!committed_anyway) return std::nullopt;
    write(pending_uncertain);
    return std::vector<std::string>{};
  }
  void write(const std::vector<RoomRecords>& batch) {
    for (const RoomRecords& room : batch) {
      for (const Record& record : room.records) {
        written[room.room].push_back(std::get<record::RoomVersion>(record).v);
      }
    }
  }
  std::vector<std::int64_t> of(const std::string& room) {
    std::lock_guard lock(mutex);
    return written[room];
  }

  std::mutex mutex;
  bool down = false;
  bool uncertain = false;
  bool committed_anyway = false;
  std::vector<std::string> refused;
  int tries = 0;
  std::vector<RoomRecords> pending_uncertain;
  std::map<std::string, std::vector<std::int64_t>> written;
};

// What each submission was told, by name, in order.
struct Outcomes {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::vector<WriteOutcome>> of;
  RecordSink::Done note(const std::string& name) {
    return [this, name](WriteOutcome outcome) {
      std::lock_guard lock(mutex);
      of[name].push_back(outcome);
      changed.notify_all();
    };
  }
  std::vector<WriteOutcome> get(const std::string& name) {
    std::lock_guard lock(mutex);
    return of[name];
  }
  // Waits until `name` has been told `count` things.
  bool await(const std::string& name, std::size_t count, std::chrono::milliseconds within = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, within, [&] { return of[name].size() >= count; });
  }
};

std::vector<Record> version(std::int64_t v, const std::string& room = "ROOM") { return {record::RoomVersion{room, v}}; }

const std::vector<WriteOutcome> kWrittenOnly{WriteOutcome::kWritten};
const std::vector<WriteOutcome> kRetriedThenWritten{WriteOutcome::kRetrying, WriteOutcome::kWritten};

TEST_CASE("store writer: a write that fails is tried again until written, and holds back what comes after it") {
  FakeStore store;
  StoreHealth health;
  Outcomes outcomes;
  StoreWriter writer(store, std::nullopt, 1min, &health);
  writer.submit("ROOM", version(1), outcomes.note("one"));
  REQUIRE(outcomes.await("one", 1));
  CHECK(outcomes.get("one") == kWrittenOnly);

  {
    std::lock_guard lock(store.mutex);
    store.down = true;
  }
  writer.submit("ROOM", version(2), outcomes.note("two"));
  REQUIRE(outcomes.await("two", 1));
  CHECK(outcomes.get("two") == std::vector{WriteOutcome::kRetrying});
  CHECK(health.failing());
  CHECK(health.report().rooms == 1);
  // While the store is down, later submissions wait too, of this room and
  // of any other, each told once.
  writer.submit("ROOM", version(3), outcomes.note("three"));
  writer.submit("MOOR", version(1, "MOOR"), outcomes.note("other"));
  REQUIRE(outcomes.await("three", 1));
  REQUIRE(outcomes.await("other", 1));
  std::this_thread::sleep_for(StoreWriter::kFirstRetry * 4);  // a few more tries fail
  CHECK(outcomes.get("two").size() == 1);
  CHECK(store.of("ROOM") == std::vector<std::int64_t>{1});
  CHECK(health.report().records == 3);
  CHECK(health.report().oldest_age.has_value());
  CHECK(health.health().text.starts_with("degraded:"));
  CHECK(health.not_ready());

  {
    std::lock_guard lock(store.mutex);
    store.down = false;
  }
  REQUIRE(outcomes.await("three", 2));
  REQUIRE(outcomes.await("other", 2));
  CHECK(outcomes.get("two") == kRetriedThenWritten);
  CHECK(outcomes.get("three") == kRetriedThenWritten);
  CHECK(outcomes.get("other") == kRetriedThenWritten);
  CHECK(store.of("ROOM") == std::vector<std::int64_t>{1, 2, 3});  // in order, each once
  CHECK(store.of("MOOR") == std::vector<std::int64_t>{1});
  CHECK_FALSE(health.failing());
  CHECK(health.health().status == 200);
  CHECK(health.report().failures >= 2);
  CHECK(health.report().outages == 1);
  CHECK(writer.stop().empty());
}

TEST_CASE("store writer: the retry pause grows to its longest and no further") {
  FakeStore store;
  Outcomes outcomes;
  StoreWriter writer(store);
  {
    std::lock_guard lock(store.mutex);
    store.down = true;
  }
  writer.submit("ROOM", version(1), outcomes.note("one"));
  std::this_thread::sleep_for(3s);
  int tries = 0;
  {
    std::lock_guard lock(store.mutex);
    tries = store.tries;
    store.down = false;
  }
  // 100, 200, 400, 800, 1000 ms, ...: five or six tries in three seconds,
  // not one a millisecond.
  CHECK(tries >= 4);
  CHECK(tries <= 7);
  REQUIRE(outcomes.await("one", 2, 3s));
  CHECK(outcomes.get("one") == kRetriedThenWritten);
}

TEST_CASE("store writer: a commit whose answer was lost is settled with the store, never written twice") {
  FakeStore store;
  Outcomes outcomes;
  StoreWriter writer(store);
  SUBCASE("it had committed") {
    {
      std::lock_guard lock(store.mutex);
      store.uncertain = true;
      store.committed_anyway = true;
    }
    writer.submit("ROOM", version(1), outcomes.note("one"));
    writer.submit("ROOM", version(2), outcomes.note("two"));
    REQUIRE(outcomes.await("two", 1));
    REQUIRE(outcomes.await("one", 2));
    CHECK(outcomes.get("one") == kRetriedThenWritten);
    REQUIRE(outcomes.await("two", 2));
    const auto written = store.of("ROOM");
    CHECK(written.front() == 1);
    CHECK(std::count(written.begin(), written.end(), 1) == 1);
  }
  SUBCASE("it had not") {
    {
      std::lock_guard lock(store.mutex);
      store.uncertain = true;
      store.committed_anyway = false;
    }
    writer.submit("ROOM", version(1), outcomes.note("one"));
    REQUIRE(outcomes.await("one", 2));
    CHECK(outcomes.get("one") == kRetriedThenWritten);
    CHECK(store.of("ROOM") == std::vector<std::int64_t>{1});
  }
  writer.submit("ROOM", version(3), outcomes.note("three"));
  REQUIRE(outcomes.await("three", 1));
  CHECK(outcomes.get("three").back() == WriteOutcome::kWritten);
  CHECK(store.of("ROOM").back() == 3);
  CHECK(writer.stop().empty());
}

TEST_CASE("store writer: stopped while the store is down, it tries until the deadline and names what is left") {
  FakeStore store;
  Outcomes outcomes;
  StoreWriter writer(store);
  {
    std::lock_guard lock(store.mutex);
    store.down = true;
  }
  writer.submit("ROOM", version(1), outcomes.note("one"));
  writer.submit("ROOM", version(2), outcomes.note("two"));
  writer.submit("MOOR", {record::RoomVersion{"MOOR", 1}, record::RoomVersion{"MOOR", 2}}, outcomes.note("other"));
  REQUIRE(outcomes.await("other", 1));
  const auto started = std::chrono::steady_clock::now();
  const auto unwritten = writer.stop(started + 400ms);
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took >= 400ms);
  CHECK(took < 5s);
  std::map<std::string, std::size_t> left(unwritten.begin(), unwritten.end());
  CHECK(left == std::map<std::string, std::size_t>{{"MOOR", 2}, {"ROOM", 2}});
  // Nothing was ever said written.
  for (const char* name : {"one", "two", "other"}) CHECK(outcomes.get(name) == std::vector{WriteOutcome::kRetrying});
  // A room given up on writes nothing more after the stop either.
  writer.submit("ROOM", version(3), outcomes.note("late"));
  CHECK(outcomes.get("late").empty());
}

TEST_CASE("store writer: stopped while the store is down, it writes everything once the store is back in time") {
  FakeStore store;
  Outcomes outcomes;
  StoreWriter writer(store);
  {
    std::lock_guard lock(store.mutex);
    store.down = true;
  }
  writer.submit("ROOM", version(1), outcomes.note("one"));
  REQUIRE(outcomes.await("one", 1));
  std::thread back([&] {
    std::this_thread::sleep_for(300ms);
    std::lock_guard lock(store.mutex);
    store.down = false;
  });
  const auto unwritten = writer.stop(std::chrono::steady_clock::now() + 10s);
  back.join();
  CHECK(unwritten.empty());
  CHECK(outcomes.get("one") == kRetriedThenWritten);
}

TEST_CASE("store writer: lanes report to one health, which sees one outage") {
  FakeStore first;
  FakeStore second;
  StoreHealth health(2);
  Outcomes outcomes;
  ShardedWriter writer({&first, &second}, std::nullopt, 1min, &health);
  {
    std::scoped_lock lock(first.mutex, second.mutex);
    first.down = true;
    second.down = true;
  }
  std::vector<std::string> rooms;
  for (int i = 0; i < 8; ++i) {
    rooms.push_back("ROOM" + std::to_string(i));
    writer.submit(rooms.back(), version(1, rooms.back()), outcomes.note(rooms.back()));
  }
  for (const auto& room : rooms) REQUIRE(outcomes.await(room, 1));
  CHECK(health.report().rooms == 8);
  CHECK(health.report().outages == 1);
  {
    std::scoped_lock lock(first.mutex, second.mutex);
    first.down = false;
    second.down = false;
  }
  for (const auto& room : rooms) REQUIRE(outcomes.await(room, 2));
  CHECK_FALSE(health.failing());
  CHECK(writer.stop().empty());
}

}  // namespace
}  // namespace gofish::server
