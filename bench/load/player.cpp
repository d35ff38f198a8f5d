#include "bench/load/player.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <utility>

#include "bench/load/room.hpp"
#include "protocol/errors.hpp"

namespace gofish::load {

namespace {

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

}  // namespace

void Player::connect() {
  run_.request_connect([this] {
    connect_started_ = Clock::now();
    beast::tcp_stream transport(run_.io());
    ws_ = run_.tls_context() ? std::make_shared<Stream>(server::EdgeStream(std::move(transport), run_.tls_context()))
                             : std::make_shared<Stream>(server::EdgeStream(std::move(transport)));
    auto& socket = ws_->next_layer().next_layer().socket();
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
  ws->next_layer().next_layer().socket().set_option(tcp::no_delay(true), ec);
  if (auto* tls = ws->next_layer().tls()) {
    const auto& host = run_.options().target.host;
    // SNI, and the certificate must name the host (name or address).
    if (SSL_set_tlsext_host_name(tls->native_handle(), host.c_str()) != 1) {
      run_.connect_finished(false);
      return fail("tls", beast::error_code(static_cast<int>(::ERR_get_error()), net::error::get_ssl_category()));
    }
    tls->set_verify_callback(ssl::host_name_verification(host));
    tls->async_handshake(ssl::stream_base::client,
                         [this, ws](beast::error_code tls_ec) { on_tls_handshake(ws, tls_ec); });
    return;
  }
  on_tls_handshake(ws, {});
}

// After TLS (or at once, without it): the WebSocket upgrade.
void Player::on_tls_handshake(const std::shared_ptr<Stream>& ws, beast::error_code ec) {
  if (ec) {
    run_.connect_finished(false);
    return fail("tls", ec);
  }
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
  } else if (run_.options().mode == Mode::kClass && frame.starts_with(R"({"type":"event_)")) {
    auto parsed = protocol::parse_event_server_message(frame);
    if (auto* message = std::get_if<protocol::EventServerMessage>(&parsed)) {
      handle_class(*message);
    } else {
      run_.error("parse", std::get<std::string>(parsed));
    }
  } else {
    if (const auto* message = room_.parse(frame)) handle(*message);
  }
  in_.consume(in_.size());
  // A class's teacher leaves its first socket for the console's while
  // handling a frame: that socket is read no more.
  if (ws == ws_) read();
}

void Player::handle(const protocol::ServerMessage& message) {
  if (std::holds_alternative<protocol::Welcome>(message)) {
    if (!token_.empty()) {
      send(encode(protocol::Resume{token_, tracker_->last_v()}));
    } else if (run_.options().mode == Mode::kClass) {
      enter_class();
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
    if (!first_seat_) run_.resumed_from_snapshot();
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
  if (!first_seat_) run_.resumed();
}

void Player::enter_class() {
  if (!host_) {
    protocol::JoinEvent join;
    join.code = room_.code();
    join.name = "Pupil " + std::to_string(index_);
    return send(encode(std::move(join)));
  }
  if (!class_token_.empty()) return send(encode(protocol::ResumeEvent{room_.code(), class_token_}));
  protocol::CreateEvent create;
  create.name = "Load class";
  create.settings.rules = room_.rules();
  create.settings.table_size = run_.options().players;
  create.settings.bots = engine::BotLevel::kEasy;
  create.settings.rounds = 1;
  send(encode(std::move(create)));
}

void Player::handle_class(const protocol::EventServerMessage& message) {
  if (const auto* created = std::get_if<protocol::EventCreated>(&message)) {
    if (!host_) return run_.error("class", "event_created to a pupil");
    class_token_ = created->token;
    room_.created(created->code);
    // The console on a socket that names the class, as the browser's is: a
    // proxy sends it to the class's server. The first socket is closed.
    if (auto first = std::exchange(ws_, nullptr)) {
      live_ = false;
      writing_ = false;
      queued_.clear();
      first->async_close(websocket::close_code::normal, [first](beast::error_code) {});
    }
    return connect();
  }
  if (std::holds_alternative<protocol::EventJoined>(message)) {
    if (host_) return run_.error("class", "event_joined to the teacher");
    return room_.joined();
  }
  if (const auto* state = std::get_if<protocol::EventStateMessage>(&message)) {
    if (!host_) return;
    room_.console_saw(state->event, Clock::now());
    if (!std::exchange(console_ready_, true) && start_due_) start_class();
    return;
  }
  if (const auto* seat = std::get_if<protocol::EventSeat>(&message)) {
    if (host_) return run_.error("class", "event_seat to the teacher");
    table_ = seat->room;
    token_ = seat->token;
    tracker_.emplace(seat->seat, room_.rules(), run_.options().players);
    // Taken as after a reconnection: the snapshot that answers starts the
    // seat's view and its bot, the turn after it ends the taking.
    first_seat_ = true;
    replaying_ = true;
    return send(encode(protocol::Resume{token_, std::nullopt}));
  }
}

// On the console's socket: until resume_event is answered, the start waits.
void Player::start_class() {
  start_due_ = !console_ready_;
  if (start_due_) return;
  send(encode(protocol::SeatPupils{}));
  send(encode(protocol::StartRound{}));
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
  first_seat_ = false;
  if (asking_) {
    asking_ = false;
    run_.error("turn", "a turn before any event of this player's decision");
  }
  if (host_ && tracker_->game_over() && tracker_->games_started() > games_counted_) {
    games_counted_ = tracker_->games_started();
    if (run_.measuring()) room_.game_finished();
    run_.game_over(room_.rules_index());
  }
  // A class's table plays one game of the round; seat 0 counts it.
  if (!table_.empty() && tracker_->seat() == 0 && tracker_->game_over() && tracker_->games_started() > games_counted_) {
    games_counted_ = tracker_->games_started();
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
  auto think = std::chrono::milliseconds(run_.options().think_ms);
  // A person's pace: from half to one and a half times as long.
  if (run_.options().mode == Mode::kClass) {
    think = think / 2 + std::chrono::milliseconds(rng_.below(static_cast<std::uint32_t>(think.count()) + 1));
  }
  think_timer_.expires_after(think);
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
  if (!table_.empty()) room_.decision_sent(table_, sent_at_);
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
  if (ws_) ws_->next_layer().next_layer().socket().close(ignored);
}

}  // namespace gofish::load
