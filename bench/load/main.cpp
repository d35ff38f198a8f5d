// gofish-load: opens rooms of players over real WebSocket connections and
// measures the server (docs/BENCHMARKS.md; bench/run drives it). The only
// translation unit of the load generator that sees Beast.
//
// One thread, one io_context: every connection, timer and counter lives on
// it, so nothing is locked and the client stays cheap next to the server.
//
// A player acts on the protocol's `turn`: it closes every decision's events,
// and the copy for the seat to act lists that seat's legal decisions. Each
// seat also folds its own events into its view (seat_tracker.hpp) and checks
// every turn against it; a disagreement is an error in the report.
//
// Behind a proxy in front of several servers (scripts/cluster.sh) a room can
// move: the host creates it on whichever server the proxy picks, the guests
// join at /ws?room=CODE, which the proxy sends to the room's home server,
// and that server takes the room over; the first server closes the host with
// 4001 `moved`. A seated player that loses its connection while the run goes
// on (4001 or otherwise) connects again at /ws?room=CODE and resumes its seat
// with its token and the last version it saw, folding the replay or starting
// again from the snapshot. Moves and resumes are counted in the report; any
// other close is still an error.
#include <sys/resource.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/load/latency_histogram.hpp"
#include "bench/load/load_options.hpp"
#include "bench/load/proc_stats.hpp"
#include "bench/load/seat_tracker.hpp"
#include "engine/bot.hpp"
#include "engine/overloaded.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "protocol/errors.hpp"
#include "protocol/messages.hpp"

namespace gofish::load {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kTick = 20ms;             // how often the run checks its phase
constexpr auto kSetupTimeout = 60s;      // beyond the ramp-up, for every room to be ready
constexpr int kErrorsPrinted = 5;        // the first few errors go to stderr

std::uint64_t micros_between(Clock::time_point from, Clock::time_point to) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(to - from).count());
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// The exact bytes a player sends to ask: the echo run sends messages of this size.
std::string sample_ask() {
  return protocol::encode_client_message(
      protocol::ClientMessage{protocol::RequestId(std::int64_t{100000}), protocol::Ask{1, engine::Rank{8}}});
}

// Whether `event` is the first event of a decision by `seat`: its ask, its
// answer, or (table rules) a set it declared.
bool opens_decision_of(const engine::Event& event, engine::Seat seat, bool table_rules) {
  if (const auto* asked = std::get_if<engine::AskedRank>(&event)) return asked->seat == seat;
  if (const auto* asked = std::get_if<engine::AskedCard>(&event)) return asked->seat == seat;
  if (const auto* answered = std::get_if<engine::Answered>(&event)) return answered->seat == seat;
  if (const auto* laid = std::get_if<engine::SetLaid>(&event)) {
    return table_rules && laid->seat == seat && !laid->from_deal;
  }
  return false;
}

class Room;

// What every connection reports to.
class LoadRun {
 public:
  explicit LoadRun(LoadOptions options);
  int run();

  net::io_context& io() { return io_; }
  const LoadOptions& options() const { return options_; }
  const std::string& host_header() const { return host_header_; }
  const std::string& echo_message() const { return echo_message_; }
  std::uint64_t next_seed() { return seeds_.next(); }
  bool measuring() const { return phase_ == Phase::kMeasuring; }
  bool stopping() const { return phase_ == Phase::kDone; }

  // Connections wait their turn here so at most max_pending_connects are being set up.
  void request_connect(std::function<void()> connect);
  void connect_finished(bool ok);
  tcp::endpoint source_for(std::size_t connection) const;
  const tcp::endpoint& server() const { return server_; }

  void room_ready() { ++rooms_ready_; }
  // `rules` indexes options().rules, the rules of the room.
  void action_done(std::size_t rules, Clock::time_point sent, Clock::time_point answered);
  void game_over(std::size_t rules) {
    if (!measuring()) return;
    ++games_;
    ++by_rules_[rules].games;
  }
  void refused(std::string_view code, std::string_view message);
  void error(std::string_view what, std::string_view detail);
  // The server said something a seat's own events contradict.
  void disagreement(std::string_view detail) {
    ++disagreements_;
    error("disagreement", detail);
  }
  std::size_t next_connection_index() { return connections_opened_++; }
  // A seat's connection was closed with 4001 `moved`; `first_of_room` for
  // the first such close in its room.
  void moved(bool first_of_room) {
    ++moves_;
    if (first_of_room) ++rooms_moved_;
  }
  // A seat's connection ended while the run went on (moved or not); it reconnects.
  void reconnecting() { ++reconnects_; }
  // A resume was answered: by replaying events or by a snapshot.
  void resumed() { ++resumes_; }
  void resumed_from_snapshot() { ++resume_snapshots_; }

 private:
  enum class Phase { kSettingUp, kMeasuring, kDone };
  void tick();
  void open_due_rooms();
  void begin_window();
  void finish();
  nlohmann::json report() const;

  LoadOptions options_;
  net::io_context io_{1};
  net::steady_timer ticker_{io_};
  tcp::endpoint server_;
  std::string host_header_;
  std::string echo_message_ = sample_ask();
  engine::Rng seeds_;

  std::vector<std::unique_ptr<Room>> rooms_;
  Phase phase_ = Phase::kSettingUp;
  Clock::time_point started_;
  Clock::time_point window_start_;
  Clock::time_point window_end_;
  int rooms_ready_ = 0;

  std::deque<std::function<void()>> connect_queue_;
  int pending_connects_ = 0;
  std::size_t connections_opened_ = 0;
  std::uint64_t connections_ = 0;
  std::uint64_t connect_failures_ = 0;
  Clock::time_point first_connect_;
  Clock::time_point last_connected_;

  LatencyHistogram latency_;
  std::uint64_t actions_ = 0;
  std::uint64_t games_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t errors_ = 0;
  std::uint64_t disagreements_ = 0;
  // Over the whole run, set-up included (rooms move as guests join).
  std::uint64_t moves_ = 0;
  std::uint64_t rooms_moved_ = 0;
  std::uint64_t reconnects_ = 0;
  std::uint64_t resumes_ = 0;
  std::uint64_t resume_snapshots_ = 0;
  struct RulesFigures {
    int rooms = 0;
    std::uint64_t actions = 0;  // in the measuring window
    std::uint64_t games = 0;
  };
  std::vector<RulesFigures> by_rules_;  // one per options().rules

  std::optional<ProcessSample> server_before_run_;
  std::optional<ProcessSample> server_at_start_;
  std::optional<ProcessSample> server_at_end_;
  std::optional<ProcessSample> self_at_start_;
  std::optional<ProcessSample> self_at_end_;
  std::vector<std::optional<ProcessSample>> watched_at_start_;  // one per options().watch_pids
  std::vector<std::optional<ProcessSample>> watched_at_end_;
};

// One connection: a seated player (game and idle runs) or an echo peer.
class Player {
 public:
  // Index 0 is the room's host (it creates the room and starts its games).
  Player(LoadRun& run, Room& room, int index)
      : run_(run),
        room_(room),
        index_(index),
        host_(index == 0),
        think_timer_(run.io()),
        rng_(run.next_seed()) {}

  void connect();
  void send(std::string text);
  // Game: the host starts the next game. Echo: this peer's turn to send.
  void send_start();
  void echo_turn();
  void join(const std::string& code);

 private:
  using Stream = websocket::stream<tcp::socket>;
  void on_connected(const std::shared_ptr<Stream>& ws, beast::error_code ec);
  void on_handshake(const std::shared_ptr<Stream>& ws, beast::error_code ec);
  void read();
  void on_read(const std::shared_ptr<Stream>& ws, beast::error_code ec);
  // The connection ended while the run goes on: a seated player resumes.
  void lost(beast::error_code ec);
  void handle(const protocol::ServerMessage& message);
  void handle_event(const protocol::EventMessage& message);
  void handle_turn(const protocol::Turn& turn);
  void handle_error(const protocol::Error& error);
  void handle_joined(const protocol::Joined& joined);
  void check(const std::optional<std::string>& disagreement) {
    if (disagreement) run_.disagreement(*disagreement);
  }
  void write_next();
  void fail(std::string_view what, beast::error_code ec);
  void think_then(void (Player::*act)());
  void maybe_decide();
  void decide();
  void send_echo();
  std::string encode(protocol::ClientBody body) {
    return protocol::encode_client_message(protocol::ClientMessage{protocol::RequestId(next_id_++), std::move(body)});
  }

  LoadRun& run_;
  Room& room_;
  const int index_;
  const bool host_;
  // A new stream for each connection; a handler of an earlier one holds that
  // one alive and finds it is no longer ws_.
  std::shared_ptr<Stream> ws_;
  bool live_ = false;  // ws_ is open and greeted: sends go out
  beast::flat_buffer in_;
  std::string out_;  // the message being written
  std::deque<std::string> queued_;
  bool writing_ = false;
  bool failed_ = false;
  Clock::time_point connect_started_;

  net::steady_timer think_timer_;
  bool thinking_ = false;
  engine::Rng rng_;
  std::int64_t next_id_ = 1;
  std::optional<SeatTracker> tracker_;  // once seated
  std::string token_;                   // the seat's token, once seated
  bool replaying_ = false;              // reconnecting: the turn that ends the resume's answer has not come yet
  int games_counted_ = 0;               // the host counts each game's end once
  std::unique_ptr<engine::Bot> bot_;    // for the game under way
  bool asking_ = false;                 // a decision (or echo) is on its way; its first event is due
  Clock::time_point sent_at_;
};

class Room {
 public:
  // The room plays run.options().rules[rules].
  Room(LoadRun& run, std::size_t rules) : run_(run), rules_index_(rules) {}

  std::size_t rules_index() const { return rules_index_; }
  const engine::Rules& rules() const { return run_.options().rules[rules_index_]; }

  // The server encodes a public event once and sends the same bytes to every
  // seat; the room's players parse such a frame once between them (the
  // parse is most of the load client's time). Frames still arrive, and are
  // read, per connection. Nullptr when the frame does not parse.
  const protocol::ServerMessage* parse(std::string_view frame);

  void open() { add_player(); }
  // The host's room exists: the others connect and join it.
  void created(std::string code) {
    code_ = std::move(code);
    add_guests();
  }
  const std::string& code() const { return code_; }
  void joined() {
    if (++joined_ < run_.options().players - 1) return;
    if (run_.options().mode == Mode::kIdle) {
      run_.room_ready();
    } else {
      players_.front()->send_start();
    }
  }
  void game_finished() { ++games_; }
  int games() const { return games_; }  // finished in the measuring window
  bool all_joined() const { return joined_ >= run_.options().players - 1; }
  // A seat was closed with 4001: true for the room's first.
  bool note_moved() { return !std::exchange(moved_, true); }
  void first_game_started() {
    if (!playing_) run_.room_ready();
    playing_ = true;
  }
  // Echo runs: every peer of the room is connected; they take turns.
  void echo_connected() {
    if (connected_++ == 0) add_guests();
    if (connected_ < run_.options().players) return;
    run_.room_ready();
    players_.front()->echo_turn();
  }
  void echo_answered() {
    echo_turn_ = (echo_turn_ + 1) % players_.size();
    players_[echo_turn_]->echo_turn();
  }

 private:
  void add_player() {
    players_.push_back(std::make_unique<Player>(run_, *this, static_cast<int>(players_.size())));
    players_.back()->connect();
  }
  void add_guests() {
    while (static_cast<int>(players_.size()) < run_.options().players) add_player();
  }

  struct ParsedFrame {
    std::string text;
    protocol::ServerMessage message;
  };
  // The last few distinct frames: one action's events fit with room to spare.
  static constexpr std::size_t kParsedFrames = 8;

  LoadRun& run_;
  const std::size_t rules_index_;
  std::array<std::optional<ParsedFrame>, kParsedFrames> parsed_;
  std::size_t next_parsed_ = 0;
  std::vector<std::unique_ptr<Player>> players_;
  std::string code_;
  int joined_ = 0;
  int connected_ = 0;
  std::size_t echo_turn_ = 0;
  bool playing_ = false;
  bool moved_ = false;
  int games_ = 0;
};

// ------------------------------------------------------------------ Room

const protocol::ServerMessage* Room::parse(std::string_view frame) {
  for (const auto& parsed : parsed_) {
    if (parsed && parsed->text == frame) return &parsed->message;
  }
  auto result = protocol::parse_server_message(frame);
  if (auto* error = std::get_if<std::string>(&result)) {
    run_.error("parse", *error);
    return nullptr;
  }
  auto& slot = parsed_[next_parsed_];
  next_parsed_ = (next_parsed_ + 1) % kParsedFrames;
  slot.emplace(ParsedFrame{std::string(frame), std::move(std::get<protocol::ServerMessage>(result))});
  return &slot->message;
}

// ------------------------------------------------------------------ Player

void Player::connect() {
  run_.request_connect([this] {
    connect_started_ = Clock::now();
    ws_ = std::make_shared<Stream>(run_.io());
    auto& socket = ws_->next_layer();
    beast::error_code ec;
    socket.open(tcp::v4(), ec);
    if (!ec) socket.bind(run_.source_for(run_.next_connection_index()), ec);
    if (ec) return on_connected(ws_, ec);
    socket.async_connect(run_.server(),
                         [this, ws = ws_](beast::error_code connect_ec) { on_connected(ws, connect_ec); });
  });
}

void Player::on_connected(const std::shared_ptr<Stream>& ws, beast::error_code ec) {
  if (ec) {
    run_.connect_finished(false);
    return fail("connect", ec);
  }
  ws->next_layer().set_option(tcp::no_delay(true), ec);
  ws->set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
  // Guests connect once the host has created the room, so they know its
  // code; a player that reconnects knows it too.
  const std::string path =
      room_.code().empty() ? run_.options().target.path : room_path(run_.options().target, room_.code());
  ws->async_handshake(run_.host_header(), path,
                      [this, ws](beast::error_code handshake_ec) { on_handshake(ws, handshake_ec); });
}

void Player::on_handshake(const std::shared_ptr<Stream>& ws, beast::error_code ec) {
  run_.connect_finished(!ec);
  if (ec) return fail("handshake", ec);
  ws->text(true);
  live_ = true;
  read();
  if (run_.options().mode == Mode::kEcho) return room_.echo_connected();
  send(encode(protocol::Hello{protocol::kProtocolVersion, "gofish-load"}));
}

void Player::read() {
  ws_->async_read(in_, [this, ws = ws_](beast::error_code ec, std::size_t) { on_read(ws, ec); });
}

void Player::on_read(const std::shared_ptr<Stream>& ws, beast::error_code ec) {
  if (ws != ws_) return;  // an earlier connection's last read
  if (ec) {
    if (!run_.stopping()) lost(ec);
    return;
  }
  const auto data = in_.data();
  const std::string_view frame(static_cast<const char*>(data.data()), data.size());
  if (run_.options().mode == Mode::kEcho) {
    if (asking_ && frame == run_.echo_message()) {
      asking_ = false;
      run_.action_done(room_.rules_index(), sent_at_, Clock::now());
      room_.echo_answered();
    } else {
      run_.error("echo", "an unexpected message came back");
    }
  } else {
    if (const auto* message = room_.parse(frame)) handle(*message);
  }
  in_.consume(in_.size());
  read();
}

void Player::handle(const protocol::ServerMessage& message) {
  if (std::holds_alternative<protocol::Welcome>(message)) {
    if (!token_.empty()) {
      send(encode(protocol::Resume{token_, tracker_->last_v()}));
    } else if (host_) {
      protocol::CreateRoom create;
      create.name = "Player 0";
      create.settings.rules = room_.rules();
      create.settings.seats = run_.options().players;
      send(encode(std::move(create)));
    } else {
      join(room_.code());
    }
  } else if (const auto* created = std::get_if<protocol::Created>(&message)) {
    tracker_.emplace(created->seat, room_.rules(), run_.options().players);
    token_ = created->token;
    room_.created(created->code);
  } else if (const auto* joined = std::get_if<protocol::Joined>(&message)) {
    handle_joined(*joined);
  } else if (const auto* snapshot = std::get_if<protocol::RoomSnapshot>(&message)) {
    if (!tracker_) return run_.error("room", "a room snapshot before the seat was known");
    if (!replaying_) return check(tracker_->snapshot(snapshot->v));
    run_.resumed_from_snapshot();
    check(tracker_->resync(*snapshot));
    // The bot starts again from what the snapshot shows.
    if (snapshot->game) bot_ = engine::make_bot(run_.options().bot, room_.rules(), snapshot->game->players,
                                                 tracker_->seat());
  } else if (const auto* event = std::get_if<protocol::EventMessage>(&message)) {
    handle_event(*event);
  } else if (const auto* turn = std::get_if<protocol::Turn>(&message)) {
    handle_turn(*turn);
  } else if (const auto* error = std::get_if<protocol::Error>(&message)) {
    handle_error(*error);
  } else if (const auto* closing = std::get_if<protocol::Closing>(&message)) {
    // `moved` is counted when the close itself arrives.
    if (closing->reason != protocol::CloseReason::kMoved) run_.error("closing", closing->message);
  }
}

void Player::handle_joined(const protocol::Joined& joined) {
  if (!joined.resumed) {
    tracker_.emplace(joined.seat.value_or(0), room_.rules(), run_.options().players);
    token_ = joined.token;
    return room_.joined();
  }
  if (!tracker_ || joined.seat != tracker_->seat()) return run_.error("resume", "the resume answered for another seat");
  run_.resumed();
}

// Seated: connect again at /ws?room=CODE and resume (on `welcome`). The
// decision on its way, if any, is not timed: its events come in the replay,
// or the turn after the resume offers the decision again.
void Player::lost(beast::error_code ec) {
  const bool closed = ec == websocket::error::closed;
  const int code = closed ? static_cast<int>(ws_->reason().code) : 0;
  const bool moved = code == static_cast<int>(protocol::close_code(protocol::CloseReason::kMoved));
  if (token_.empty() || failed_) return fail("read", ec);
  if (moved) {
    run_.moved(room_.note_moved());
  } else {
    run_.error("closed", closed ? "close code " + std::to_string(code) + " " + std::string(ws_->reason().reason.data(), ws_->reason().reason.size())
                                : ec.message());
  }
  run_.reconnecting();
  live_ = false;
  writing_ = false;
  queued_.clear();
  asking_ = false;
  thinking_ = false;
  replaying_ = true;  // from now until the resume's turn
  think_timer_.cancel();
  in_.consume(in_.size());
  connect();
}

void Player::join(const std::string& code) {
  protocol::Join join;
  join.code = code;
  join.name = "Player " + std::to_string(index_);  // names in a room differ
  send(encode(std::move(join)));
}

void Player::handle_event(const protocol::EventMessage& message) {
  if (!tracker_) return run_.error("event", "an event before the seat was known");
  check(tracker_->observe(message.v, message.event));
  const auto* event = std::get_if<engine::Event>(&message.event);
  if (!event) return;
  if (const auto* started = std::get_if<engine::GameStarted>(event)) {
    bot_ = engine::make_bot(run_.options().bot, room_.rules(), started->players, tracker_->seat());
    if (host_) room_.first_game_started();
  }
  if (bot_) bot_->observe(*event);
  const bool mine = opens_decision_of(*event, tracker_->seat(), room_.rules().table_rules);
  if (replaying_) return;  // decisions made before the resume, this seat's or a bot's for it
  if (asking_) {
    asking_ = false;
    if (!mine) return run_.error("event", "the first event after this player's decision is not that decision's");
    run_.action_done(room_.rules_index(), sent_at_, Clock::now());
  } else if (mine && !std::holds_alternative<engine::SetLaid>(*event)) {
    run_.error("event", "a decision this player did not send");
  }
}

// The decision's events are complete: the host starts the next game after
// one that is over, and the seat to act decides.
void Player::handle_turn(const protocol::Turn& turn) {
  if (!tracker_) return run_.error("turn", "a turn before the seat was known");
  check(tracker_->turn(turn));
  const bool after_resume = std::exchange(replaying_, false);
  if (asking_) {
    asking_ = false;
    run_.error("turn", "a turn before any event of this player's decision");
  }
  if (host_ && tracker_->game_over() && tracker_->games_started() > games_counted_) {
    games_counted_ = tracker_->games_started();
    if (run_.measuring()) room_.game_finished();
    run_.game_over(room_.rules_index());
  }
  // After a resume no game in play may mean a start that never arrived
  // (sent as the connection closed, or due while it was down).
  const bool start = after_resume ? !turn.seat && room_.all_joined() && run_.options().mode == Mode::kGame
                                  : tracker_->game_over();
  if (host_ && start && !run_.stopping()) send_start();
  maybe_decide();
}

void Player::handle_error(const protocol::Error& error) {
  const auto code = protocol::error_code_name(error.code);
  if (code.starts_with("action/")) {
    asking_ = false;
    run_.refused(code, error.message);
  } else {
    run_.error(code, error.message);
  }
}

// While a resume is answered the start waits: the turn that ends the answer
// shows whether a game is in play.
void Player::send_start() {
  if (!replaying_) send(encode(protocol::Start{}));
}

void Player::think_then(void (Player::*act)()) {
  if (run_.options().think_ms == 0) return (this->*act)();
  thinking_ = true;
  think_timer_.expires_after(std::chrono::milliseconds(run_.options().think_ms));
  think_timer_.async_wait([this, act](beast::error_code ec) {
    thinking_ = false;
    if (!ec && !run_.stopping()) (this->*act)();
  });
}

void Player::maybe_decide() {
  if (asking_ || thinking_ || replaying_ || run_.stopping() || !tracker_->to_act()) return;
  think_then(&Player::decide);
}

// From the seat's own view, with the legal decisions the server sent.
void Player::decide() {
  if (!tracker_->to_act() || !live_) return;
  if (!bot_) return run_.error("bot", "a turn to act before the deal");
  engine::View view = tracker_->view();
  view.legal = tracker_->legal();
  const engine::Decision decision = bot_->decide(view, rng_);
  if (!view.legal.contains(decision)) return run_.error("bot", "the bot chose " + engine::to_string(decision));
  tracker_->acted();
  asking_ = true;
  sent_at_ = Clock::now();
  send(encode(protocol::request_for(decision)));
}

void Player::echo_turn() {
  if (!run_.stopping()) think_then(&Player::send_echo);
}

void Player::send_echo() {
  asking_ = true;
  sent_at_ = Clock::now();
  send(run_.echo_message());
}

void Player::send(std::string text) {
  if (failed_ || !live_) return;  // a player that reconnects resumes, and then acts on its turn
  if (writing_) {
    queued_.push_back(std::move(text));
    return;
  }
  out_ = std::move(text);
  write_next();
}

void Player::write_next() {
  writing_ = true;
  ws_->async_write(net::buffer(out_), [this, ws = ws_](beast::error_code ec, std::size_t) {
    if (ws != ws_ || !live_) return;  // an earlier connection's
    writing_ = false;
    // A seated player's read reports the end of its connection, with the close code.
    if (ec) return token_.empty() ? fail("write", ec) : void();
    if (queued_.empty()) return;
    out_ = std::move(queued_.front());
    queued_.pop_front();
    write_next();
  });
}

void Player::fail(std::string_view what, beast::error_code ec) {
  if (failed_) return;
  failed_ = true;
  if (!run_.stopping()) run_.error(what, ec.message());
  live_ = false;
  beast::error_code ignored;
  if (ws_) ws_->next_layer().close(ignored);
}

// ------------------------------------------------------------------ LoadRun

LoadRun::LoadRun(LoadOptions options)
    : options_(std::move(options)),
      seeds_(options_.seed != 0 ? options_.seed : engine::os_seed()),
      by_rules_(options_.rules.size()) {
  tcp::resolver resolver(io_);
  const auto results = resolver.resolve(tcp::v4(), options_.target.host, std::to_string(options_.target.port));
  server_ = results.begin()->endpoint();
  host_header_ = options_.target.host + ":" + std::to_string(options_.target.port);
  if (options_.source_addresses > 1 && !server_.address().is_loopback()) {
    throw std::runtime_error("--source-addresses needs a loopback server address");
  }
}

tcp::endpoint LoadRun::source_for(std::size_t connection) const {
  if (!server_.address().is_loopback()) return tcp::endpoint(tcp::v4(), 0);
  const auto last = static_cast<unsigned>(1 + connection % static_cast<std::size_t>(options_.source_addresses));
  return tcp::endpoint(net::ip::address_v4((127U << 24) | last), 0);
}

void LoadRun::request_connect(std::function<void()> connect) {
  if (connections_ == 0 && connect_failures_ == 0 && pending_connects_ == 0) first_connect_ = Clock::now();
  if (pending_connects_ >= options_.max_pending_connects) {
    connect_queue_.push_back(std::move(connect));
    return;
  }
  ++pending_connects_;
  connect();
}

void LoadRun::connect_finished(bool ok) {
  --pending_connects_;
  if (ok) {
    ++connections_;
    last_connected_ = Clock::now();
  } else {
    ++connect_failures_;
  }
  if (!connect_queue_.empty() && !stopping()) {
    auto next = std::move(connect_queue_.front());
    connect_queue_.pop_front();
    ++pending_connects_;
    next();
  }
}

void LoadRun::action_done(std::size_t rules, Clock::time_point sent, Clock::time_point answered) {
  if (!measuring()) return;
  ++actions_;
  ++by_rules_[rules].actions;
  latency_.record(micros_between(sent, answered));
}

void LoadRun::refused(std::string_view code, std::string_view message) {
  if (refused_++ < kErrorsPrinted) std::cerr << "gofish-load: refused: " << code << ": " << message << "\n";
}

void LoadRun::error(std::string_view what, std::string_view detail) {
  if (errors_++ < kErrorsPrinted) std::cerr << "gofish-load: error: " << what << ": " << detail << "\n";
}

int LoadRun::run() {
  if (options_.server_pid) server_before_run_ = sample_process(*options_.server_pid);
  started_ = Clock::now();
  tick();
  io_.run();
  const auto report_json = report();
  if (!options_.quiet) {
    std::cout << "gofish-load " << to_string(options_.mode) << ": " << report_json["actions_per_second"]
              << " actions/s, p99 " << report_json["latency_us"]["p99"] << " us, " << report_json["connections"]
              << " connections, " << report_json["errors"] << " errors, " << report_json["refused"]
              << " refused, " << report_json["rooms_moved"] << " rooms moved, " << report_json["resumes"]
              << " resumes\n";
  }
  std::cout << report_json.dump() << std::endl;
  return errors_ == 0 && refused_ == 0 ? 0 : 1;
}

void LoadRun::open_due_rooms() {
  const double elapsed = seconds_between(started_, Clock::now());
  const auto due = options_.ramp_seconds <= 0
                       ? options_.rooms
                       : std::min(options_.rooms, static_cast<int>(elapsed / options_.ramp_seconds *
                                                                   static_cast<double>(options_.rooms)) +
                                                      1);
  while (static_cast<int>(rooms_.size()) < due) {
    const std::size_t rules = rooms_.size() % options_.rules.size();
    ++by_rules_[rules].rooms;
    rooms_.push_back(std::make_unique<Room>(*this, rules));
    rooms_.back()->open();
  }
}

void LoadRun::tick() {
  const auto now = Clock::now();
  switch (phase_) {
    case Phase::kSettingUp: {
      open_due_rooms();
      const bool ramped = static_cast<int>(rooms_.size()) == options_.rooms &&
                          seconds_between(started_, now) >= options_.ramp_seconds;
      const bool late = now - started_ > std::chrono::duration<double>(options_.ramp_seconds) + kSetupTimeout;
      if (ramped && (rooms_ready_ == options_.rooms || late)) {
        if (rooms_ready_ < options_.rooms) {
          error("setup", std::to_string(options_.rooms - rooms_ready_) + " rooms were not ready in time");
        }
        begin_window();
      }
      break;
    }
    case Phase::kMeasuring:
      if (now >= window_start_ + std::chrono::duration<double>(options_.seconds)) return finish();
      break;
    case Phase::kDone:
      return;
  }
  ticker_.expires_after(kTick);
  ticker_.async_wait([this](beast::error_code ec) {
    if (!ec) tick();
  });
}

void LoadRun::begin_window() {
  phase_ = Phase::kMeasuring;
  window_start_ = Clock::now();
  latency_.clear();
  actions_ = 0;
  games_ = 0;
  for (auto& figures : by_rules_) figures.actions = figures.games = 0;
  if (options_.server_pid) server_at_start_ = sample_process(*options_.server_pid);
  for (const int pid : options_.watch_pids) watched_at_start_.push_back(sample_process(pid));
  self_at_start_ = sample_self();
}

void LoadRun::finish() {
  phase_ = Phase::kDone;
  window_end_ = Clock::now();
  if (options_.server_pid) server_at_end_ = sample_process(*options_.server_pid);
  for (const int pid : options_.watch_pids) watched_at_end_.push_back(sample_process(pid));
  self_at_end_ = sample_self();
  if (!server_at_end_ && options_.server_pid) error("server", "cannot read /proc for the server's process id");
  io_.stop();  // connections are cut when the process ends
}

nlohmann::json LoadRun::report() const {
  const double window = seconds_between(window_start_, window_end_);
  const double actions = static_cast<double>(actions_);
  nlohmann::json out;
  out["mode"] = to_string(options_.mode);
  out["url"] = options_.url;
  out["rooms"] = options_.rooms;
  out["players"] = options_.players;
  out["preset"] = options_.preset;
  out["table_rules"] = options_.table_rules;
  out["think_ms"] = options_.think_ms;
  out["bot"] = engine::to_string(options_.bot);
  out["seconds"] = window;
  out["rooms_ready"] = rooms_ready_;
  out["connections"] = connections_;
  out["connect_failures"] = connect_failures_;
  const double setup = seconds_between(first_connect_, last_connected_);
  out["connections_per_second"] = setup > 0 ? static_cast<double>(connections_) / setup : 0.0;
  out["actions"] = actions_;
  out["actions_per_second"] = window > 0 ? actions / window : 0.0;
  out["games"] = games_;
  out["latency_us"] = {{"p50", latency_.percentile(50)},   {"p90", latency_.percentile(90)},
                       {"p99", latency_.percentile(99)},   {"p999", latency_.percentile(99.9)},
                       {"max", latency_.max()},            {"mean", latency_.mean()}};
  out["errors"] = errors_;
  out["disagreements"] = disagreements_;
  out["refused"] = refused_;
  out["rooms_finishing_games"] =
      std::count_if(rooms_.begin(), rooms_.end(), [](const auto& room) { return room->games() > 0; });
  out["moves"] = moves_;
  out["rooms_moved"] = rooms_moved_;
  out["reconnects"] = reconnects_;
  out["resumes"] = resumes_;
  out["resume_snapshots"] = resume_snapshots_;
  // Per preset (a room's rules): rooms, and the actions and games of the window.
  if (options_.mode != Mode::kEcho) {
    out["presets"] = nlohmann::json::object();
    for (std::size_t i = 0; i < by_rules_.size(); ++i) {
      out["presets"][options_.rules[i].preset] = {
          {"rooms", by_rules_[i].rooms}, {"actions", by_rules_[i].actions}, {"games", by_rules_[i].games}};
    }
  }

  const auto cpu_figures = [&](const std::optional<ProcessSample>& from, const std::optional<ProcessSample>& to) {
    nlohmann::json figures;
    if (!from || !to) return figures;
    const double cpu_micros = static_cast<double>(to->cpu_micros - from->cpu_micros);
    figures["cpu_percent"] = window > 0 ? cpu_micros / 1e4 / window : 0.0;
    figures["cpu_us_per_action"] = actions > 0 ? cpu_micros / actions : 0.0;
    figures["rss_kib"] = to->rss_kib;
    figures["peak_rss_kib"] = to->peak_rss_kib;
    return figures;
  };
  out["server"] = cpu_figures(server_at_start_, server_at_end_);
  out["client"] = cpu_figures(self_at_start_, self_at_end_);
  if (!options_.watch_pids.empty()) {
    out["watched"] = nlohmann::json::object();
    for (std::size_t i = 0; i < watched_at_end_.size() && i < watched_at_start_.size(); ++i) {
      out["watched"][std::to_string(options_.watch_pids[i])] = cpu_figures(watched_at_start_[i], watched_at_end_[i]);
    }
  }
  if (options_.mode == Mode::kIdle && server_before_run_ && server_at_end_) {
    const auto grown = static_cast<double>(server_at_end_->rss_kib) - static_cast<double>(server_before_run_->rss_kib);
    out["idle"] = {{"rss_before_kib", server_before_run_->rss_kib},
                   {"rss_after_kib", server_at_end_->rss_kib},
                   {"kib_per_connection", connections_ > 0 ? grown / static_cast<double>(connections_) : 0.0}};
  }
  return out;
}

// As many open files as the hard limit allows: thousands of sockets.
void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

}  // namespace gofish::load

int main(int argc, char** argv) {
  auto parsed = gofish::load::parse_options(argc, argv);
  if (auto* exit = std::get_if<gofish::load::OptionsExit>(&parsed)) {
    (exit->code == 0 ? std::cout : std::cerr) << exit->output;
    return exit->code;
  }
  gofish::load::raise_open_file_limit();
  try {
    gofish::load::LoadRun run(std::move(std::get<gofish::load::LoadOptions>(parsed)));
    return run.run();
  } catch (const std::exception& error) {
    std::cerr << "gofish-load: " << error.what() << "\n";
    return 2;
  }
}
