// Rooms without sockets or sleeps: a room (server/rooms/room.hpp) driven through
// fake connections, on an io_context the test steps by hand, with timers on a
// clock the test moves. A test says "three seconds pass" and the room's bot
// delay, grace periods and turn timers fire exactly then.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "protocol/messages.hpp"
#include "server/rooms/client.hpp"
#include "server/rooms/room.hpp"
#include "server/rooms/room_host.hpp"
#include "server/store/store.hpp"

namespace gofish::server::testing {

// Timers on a clock that only moves when the test says so. Its steady and
// wall clocks move with it: the steady one starts at the steady clock's epoch,
// the wall one at kWallStart.
class ManualTimers final : public TimerSource {
 public:
  // 2026-01-01T00:00:00Z: any fixed moment does, so deadlines are exact.
  static constexpr std::chrono::milliseconds kWallStart{1'767'225'600'000};

  std::unique_ptr<Timer> make(const boost::asio::any_io_executor& executor) const override;
  SteadyTime steady_now() const override { return SteadyTime(now_); }
  WallTime wall_now() const override { return WallTime(kWallStart + now_); }
  // The earliest timer due by `until`, if any: the clock moves to its
  // deadline and its callback is posted to its executor.
  bool fire_next(Duration until);
  // Moves the clock on without firing anything.
  void advance(Duration duration);
  Duration now() const { return now_; }
  std::size_t pending() const;

 private:
  struct Entry {
    Duration deadline{};
    std::uint64_t order = 0;
    boost::asio::any_io_executor executor;
    std::function<void()> fire;
  };
  class ManualTimer;
  mutable std::map<std::uint64_t, Entry> pending_;  // by timer id
  mutable std::uint64_t next_id_ = 1;
  mutable std::uint64_t next_order_ = 0;
  Duration now_{0};
};

// A connection that keeps what it is sent.
class FakeConnection final : public Connection {
 public:
  explicit FakeConnection(std::uint64_t id) : id_(id) {}
  void send(SharedText text) override {
    if (!closed_) sent.push_back(*text);
  }
  void close(CloseReason reason) override {
    if (!closed_) close_reason = reason;
    closed_ = true;
  }
  std::uint64_t id() const override { return id_; }
  const std::string& remote_address() const override { return address_; }
  const std::string& address_key() const override { return key_; }

  std::vector<std::string> sent;
  std::optional<CloseReason> close_reason;

 private:
  std::uint64_t id_;
  std::string address_ = "127.0.0.1:1";
  std::string key_ = "127.0.0.1";
  bool closed_ = false;
};

// A store writer that commits only when the test says so.
class ManualSink final : public RecordSink {
 public:
  void submit(std::string, std::vector<Record>&& records, Done done) override {
    if (refuse) throw std::bad_alloc();
    waiting.push_back({std::move(records), std::move(done)});
  }
  // Throws instead of taking a submission, as a writer out of memory would.
  bool refuse = false;
  // Commits every submission so far, in order (or fences them all out).
  void commit_all(WriteOutcome outcome = WriteOutcome::kWritten);
  // Every submission so far failed, and is tried again: each is told so
  // once, and stays waiting.
  void fail_all();
  std::vector<std::vector<Record>> committed;
  std::vector<std::pair<std::vector<Record>, Done>> waiting;
  std::size_t told = 0;  // of `waiting`, those fail_all() told
};

// What the room tells its host.
class RecordingHost final : public RoomHost {
 public:
  void token_issued(const TokenHash& token, const std::shared_ptr<Room>&, engine::Seat seat) override {
    tokens[token] = seat;
  }
  void token_revoked(const TokenHash& token) override { tokens.erase(token); }
  void room_closed(const std::string& code, const Room*) override { closed.push_back(code); }
  std::unordered_map<TokenHash, engine::Seat, TokenHashHash> tokens;
  std::vector<std::string> closed;
};

class RoomBench;

// One client of the room under test: its connection and what it received.
class FakeClient {
 public:
  FakeClient(RoomBench& bench, std::uint64_t id);
  const std::shared_ptr<Client>& client() const { return client_; }
  FakeConnection& connection() { return *connection_; }
  // Every message received so far, parsed.
  std::vector<protocol::ServerMessage> received() const;
  // Messages received since the last call.
  std::vector<protocol::ServerMessage> take();
  // The last message of type T received, if any.
  template <class T>
  std::optional<T> last() const {
    std::optional<T> found;
    for (const auto& m : received()) {
      if (const auto* t = std::get_if<T>(&m)) found = *t;
    }
    return found;
  }
  // Room events of type E received so far.
  template <class E>
  std::vector<E> events() const;
  std::optional<protocol::Turn> last_turn() const { return last<protocol::Turn>(); }

  // Sends a room message (as the handler would) and lets the room run.
  void send(protocol::ClientBody body);
  // The reply to the last request sent: ok, an error code, or another message's type.
  std::string reply() const;
  std::string token;
  std::optional<engine::Seat> seat;

 private:
  friend class RoomBench;
  RoomBench& bench_;
  std::shared_ptr<FakeConnection> connection_;
  std::shared_ptr<Client> client_;
  std::size_t taken_ = 0;
  std::int64_t next_id_ = 1;
  std::int64_t last_id_ = 0;
  std::size_t turns_acted_on_ = 0;
};

// A room and everything around it.
class RoomBench {
 public:
  // With `health`, the rooms ask it whether they may send (leases).
  explicit RoomBench(Limits limits = bench_limits(), bool durable = false, const StoreHealth* health = nullptr);
  ~RoomBench();

  // Defaults for room tests: the server's, with a short bot delay.
  static Limits bench_limits();

  // Makes the room (as the registry would) and seats its creator.
  FakeClient& create(protocol::CreateRoom request);
  // Makes the room as today's deal does (Room::open_table, seat 0 for a
  // new client, dealt at once) and returns that client.
  FakeClient& open_table(protocol::RoomSettings settings, Room::TableSetup setup);
  FakeClient& join(const std::string& name, protocol::JoinAs as = protocol::JoinAs::kPlayer);
  // A new connection resuming `token`.
  FakeClient& resume(const std::string& token, std::optional<std::int64_t> last_v);
  void resume_on(FakeClient& client, const std::string& token, std::optional<std::int64_t> last_v);
  void disconnect(FakeClient& client);

  // Runs everything the room has queued.
  void settle();
  // The clock moves on by `duration`; what falls due runs.
  void pass(std::chrono::milliseconds duration);
  // Plays, for whoever is to act (bots after their delay), until `done`
  // holds or the game is over; the humans choose their first legal decision.
  void play_until(const std::function<bool()>& done, int max_steps = 2000);

  Room& room() { return *room_; }
  RecordingHost& host() { return *host_; }
  ManualSink& sink() { return sink_; }
  ManualTimers& timers() { return *timers_; }
  const Limits& limits() const { return services_.limits; }
  std::int64_t v() const;  // the latest version any client received
  std::vector<std::unique_ptr<FakeClient>>& clients() { return clients_; }
  FakeClient& new_client();

 private:
  FakeClient& seated_by_created(FakeClient& client);
  friend class FakeClient;
  boost::asio::io_context io_;
  std::shared_ptr<ManualTimers> timers_ = std::make_shared<ManualTimers>();
  ManualSink sink_;
  RoomServices services_;
  std::shared_ptr<RecordingHost> host_ = std::make_shared<RecordingHost>();
  std::shared_ptr<Room> room_;
  std::vector<std::unique_ptr<FakeClient>> clients_;
  std::uint64_t next_connection_ = 1;
};

template <class T, class V>
struct IsAlternativeOf;
template <class T, class... Ts>
struct IsAlternativeOf<T, std::variant<Ts...>> : std::disjunction<std::is_same<T, Ts>...> {};

template <class E>
std::vector<E> FakeClient::events() const {
  std::vector<E> out;
  for (const auto& m : received()) {
    const auto* event = std::get_if<protocol::EventMessage>(&m);
    if (!event) continue;
    if constexpr (IsAlternativeOf<E, engine::Event>::value) {
      if (const auto* game = std::get_if<engine::Event>(&event->event)) {
        if (const auto* e = std::get_if<E>(game)) out.push_back(*e);
      }
    } else {
      if (const auto* e = std::get_if<E>(&event->event)) out.push_back(*e);
    }
  }
  return out;
}

}  // namespace gofish::server::testing
