#include "room_harness.hpp"

#include <boost/asio/post.hpp>
#include <doctest/doctest.h>

#include <algorithm>

#include "rooms_support.hpp"

namespace gofish::server::testing {

namespace net = boost::asio;

// ---------------------------------------------------------------- ManualTimers

class ManualTimers::ManualTimer final : public TimerSource::Timer {
 public:
  ManualTimer(const ManualTimers& owner, net::any_io_executor executor, std::uint64_t id)
      : owner_(owner), executor_(std::move(executor)), id_(id) {}
  ~ManualTimer() override { cancel(); }
  void start(Duration delay, std::function<void()> fire) override {
    owner_.pending_[id_] = Entry{owner_.now_ + delay, owner_.next_order_++, executor_, std::move(fire)};
  }
  void cancel() override { owner_.pending_.erase(id_); }

 private:
  const ManualTimers& owner_;
  net::any_io_executor executor_;
  std::uint64_t id_;
};

std::unique_ptr<TimerSource::Timer> ManualTimers::make(const net::any_io_executor& executor) const {
  return std::make_unique<ManualTimer>(*this, executor, next_id_++);
}

std::size_t ManualTimers::pending() const { return pending_.size(); }

bool ManualTimers::fire_next(Duration until) {
  auto due = pending_.end();
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->second.deadline > until) continue;
    if (due == pending_.end() || std::tie(it->second.deadline, it->second.order) <
                                     std::tie(due->second.deadline, due->second.order)) {
      due = it;
    }
  }
  if (due == pending_.end()) return false;
  Entry entry = std::move(due->second);
  pending_.erase(due);
  now_ = std::max(now_, entry.deadline);
  net::post(entry.executor, std::move(entry.fire));
  return true;
}

void ManualTimers::advance(Duration duration) { now_ += duration; }

// ---------------------------------------------------------------- ManualSink

void ManualSink::commit_all(WriteOutcome outcome) {
  auto batch = std::move(waiting);
  waiting.clear();
  told = 0;
  for (auto& [records, done] : batch) {
    if (outcome == WriteOutcome::kWritten) committed.push_back(records);
    done(outcome);
  }
}

void ManualSink::fail_all() {
  for (; told < waiting.size(); ++told) waiting[told].second(WriteOutcome::kRetrying);
}

// ---------------------------------------------------------------- FakeClient

FakeClient::FakeClient(RoomBench& bench, std::uint64_t id)
    : bench_(bench),
      connection_(std::make_shared<FakeConnection>(id)),
      client_(std::make_shared<Client>(connection_)) {}

std::vector<protocol::ServerMessage> FakeClient::received() const {
  std::vector<protocol::ServerMessage> out;
  for (const std::string& text : connection_->sent) {
    auto parsed = protocol::parse_server_message(text);
    REQUIRE_MESSAGE(std::holds_alternative<protocol::ServerMessage>(parsed), "unreadable: " << text);
    out.push_back(std::get<protocol::ServerMessage>(std::move(parsed)));
  }
  return out;
}

std::vector<protocol::ServerMessage> FakeClient::take() {
  auto all = received();
  std::vector<protocol::ServerMessage> fresh(all.begin() + static_cast<std::ptrdiff_t>(taken_), all.end());
  taken_ = all.size();
  return fresh;
}

void FakeClient::send(protocol::ClientBody body) {
  last_id_ = next_id_++;
  protocol::ClientMessage message{protocol::RequestId{last_id_}, std::move(body)};
  Room& room = bench_.room();
  if (auto* join = std::get_if<protocol::Join>(&message.body)) {
    client_->set_room(bench_.room_);
    room.join(client_, std::move(*join), message.id);
  } else if (auto* resume = std::get_if<protocol::Resume>(&message.body)) {
    client_->set_room(bench_.room_);
    const TokenHash hash = bench_.services_.hasher->hash(resume->token);
    room.resume(client_, resume->token, hash, resume->last_v, message.id);
  } else {
    room.handle(client_, std::move(message), bench_.timers().steady_now());
  }
  bench_.settle();
}

std::string FakeClient::reply() const {
  for (const auto& m : received()) {
    if (id_of(m) != protocol::RequestId{last_id_}) continue;
    if (std::holds_alternative<protocol::Ok>(m)) return "ok";
    if (const auto* error = std::get_if<protocol::Error>(&m)) return std::string(protocol::error_code_name(error->code));
    return std::string(protocol::message_type(m));
  }
  return "(no reply)";
}

// ---------------------------------------------------------------- RoomBench

Limits RoomBench::bench_limits() {
  Limits limits;
  limits.bot_delay = std::chrono::milliseconds(800);
  limits.seat_grace_period = std::chrono::milliseconds(120'000);
  limits.parse.min_turn_timer_seconds = 1;
  return limits;
}

RoomBench::RoomBench(Limits limits, bool durable, const StoreHealth* health)
    : services_{io_, limits, std::make_shared<Metrics>(), std::make_shared<const TokenHasher>(),
                durable ? &sink_ : nullptr, health, timers_} {}

RoomBench::~RoomBench() {
  clients_.clear();
  room_.reset();
  io_.restart();
  io_.poll();
}

FakeClient& RoomBench::new_client() {
  clients_.push_back(std::make_unique<FakeClient>(*this, next_connection_++));
  return *clients_.back();
}

FakeClient& RoomBench::create(protocol::CreateRoom request) {
  room_ = Room::make(services_, host_, "K7QXM", request.settings);
  FakeClient& client = new_client();
  client.client_->set_room(room_);
  client.last_id_ = client.next_id_++;
  room_->create(client.client_, std::move(request), protocol::RequestId{client.last_id_});
  return seated_by_created(client);
}

// A durable room holds its `created` until its creation is written: commits
// it, and keeps the token and seat the reply gives.
FakeClient& RoomBench::seated_by_created(FakeClient& client) {
  settle();
  sink_.commit_all();
  settle();
  const auto created = client.last<protocol::Created>();
  REQUIRE(created);
  client.token = created->token;
  client.seat = created->seat;
  return client;
}

FakeClient& RoomBench::open_table(protocol::RoomSettings settings, Room::TableSetup setup) {
  room_ = Room::make(services_, host_, "K7QXM", std::move(settings));
  FakeClient& client = new_client();
  client.client_->set_room(room_);
  client.last_id_ = client.next_id_++;
  setup.player = client.client_;
  setup.player_request = protocol::RequestId{client.last_id_};
  room_->open_table(std::move(setup));
  return seated_by_created(client);
}

FakeClient& RoomBench::join(const std::string& name, protocol::JoinAs as) {
  FakeClient& client = new_client();
  client.send(protocol::Join{"K7QXM", name, as});
  if (const auto joined = client.last<protocol::Joined>()) {
    client.token = joined->token;
    client.seat = joined->seat;
  }
  return client;
}

FakeClient& RoomBench::resume(const std::string& token, std::optional<std::int64_t> last_v) {
  FakeClient& client = new_client();
  resume_on(client, token, last_v);
  return client;
}

void RoomBench::resume_on(FakeClient& client, const std::string& token, std::optional<std::int64_t> last_v) {
  client.send(protocol::Resume{token, last_v});
  if (const auto joined = client.last<protocol::Joined>()) {
    client.token = joined->token;
    client.seat = joined->seat;
  }
}

void RoomBench::disconnect(FakeClient& client) {
  room_->disconnect(client.client_);
  settle();
}

void RoomBench::settle() {
  io_.restart();
  while (io_.poll() > 0) {
    io_.restart();
  }
}

void RoomBench::pass(std::chrono::milliseconds duration) {
  const auto until = timers_->now() + duration;
  while (timers_->fire_next(until)) settle();
  timers_->advance(until - timers_->now());
  settle();
}

std::int64_t RoomBench::v() const {
  std::int64_t v = 0;
  for (const auto& client : clients_) {
    for (const auto& m : client->received()) v = std::max(v, version_of(m).value_or(0));
  }
  return v;
}

void RoomBench::play_until(const std::function<bool()>& done, int max_steps) {
  for (int step = 0; step < max_steps && !done(); ++step) {
    bool acted = false;
    for (const auto& client : clients_) {
      const auto turn = client->last_turn();
      if (!turn || !turn->legal || client->connection().close_reason) continue;
      // Each turn is acted on once.
      const auto all = client->received();
      const auto turns = static_cast<std::size_t>(
          std::count_if(all.begin(), all.end(), [](const auto& m) { return std::holds_alternative<protocol::Turn>(m); }));
      if (turns <= client->turns_acted_on_) continue;
      client->turns_acted_on_ = turns;
      client->send(protocol::request_for(turn->legal->nth(0)));
      acted = true;
      break;
    }
    if (!acted) {
      if (timers_->pending() == 0) return;  // nothing will happen by itself
      pass(services_.limits.bot_delay);
    }
  }
}

}  // namespace gofish::server::testing
