// One connection of a load run: a seated player (game and idle runs) or an
// echo peer.
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
//
// In a class run the host is the teacher: it creates the class event, then
// connects again at /ws?room=CLASS as the console (resume_event), which seats
// the pupils and starts the round once all have joined, and tells the room
// each event_state. Every other player is a pupil: it joins the class by its
// code, takes the seat event_seat names with `resume` (its game is under way:
// the snapshot starts its view and its bot), and decides after a person's
// think time, from 0.5 to 1.5 times --think-ms.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bench/load/load_run.hpp"
#include "bench/load/network.hpp"
#include "bench/load/seat_tracker.hpp"
#include "engine/bot.hpp"
#include "engine/random.hpp"
#include "protocol/messages.hpp"
#include "server/edge/edge_stream.hpp"

namespace gofish::load {

class Room;

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
  // The class's teacher: every pupil has joined; seat them and start the round.
  void start_class();

 private:
  // Plain or TLS, as the URL says (the server's own stream class).
  using Stream = websocket::stream<server::EdgeStream>;
  void on_connected(const std::shared_ptr<Stream>& ws, beast::error_code ec);
  void on_tls_handshake(const std::shared_ptr<Stream>& ws, beast::error_code ec);
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
  void handle_class(const protocol::EventServerMessage& message);
  // The welcome of a class run's player not seated yet.
  void enter_class();
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
  // A class run.
  std::string class_token_;     // the teacher's token, once the class is made
  std::string table_;           // a pupil's table (its room code), once seated
  bool first_seat_ = false;     // a pupil taking its seat: that resume is no reconnection
  bool console_ready_ = false;  // the teacher's console has its first event_state
  bool start_due_ = false;      // every pupil joined before that: the round starts then
};

}  // namespace gofish::load
