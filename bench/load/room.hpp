// The players of one room of a load run: the host creates the room, the
// guests join it, and they share the parsing of the frames they all get.
// In a class run (Mode::kClass) the one Room is the class: its host is the
// teacher (who creates the class event and then keeps its console open on a
// socket that names the class's code), its guests the pupils, who join by
// that code and play at the tables the round seats them at. The room keeps
// when each pupil's decision was sent, by table, until the console shows
// that table changed.
#pragma once

#include <array>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/load/load_run.hpp"
#include "bench/load/player.hpp"
#include "engine/rules.hpp"
#include "protocol/messages.hpp"

namespace gofish::load {

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
    if (++joined_ < players_wanted() - 1) return;
    if (run_.options().mode == Mode::kClass) {
      players_.front()->start_class();
    } else if (run_.options().mode == Mode::kIdle) {
      run_.room_ready();
    } else {
      players_.front()->send_start();
    }
  }
  void game_finished() { ++games_; }
  int games() const { return games_; }  // finished in the measuring window
  bool all_joined() const { return joined_ >= players_wanted() - 1; }
  // A class run: a pupil at the table `room` sent a decision.
  void decision_sent(const std::string& room, Clock::time_point sent) { pending_[room].push_back(sent); }
  // A class run: the teacher's console was sent the class as it is now.
  void console_saw(const protocol::EventState& state, Clock::time_point now);
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
    while (static_cast<int>(players_.size()) < players_wanted()) add_player();
  }
  // A room's seats; a class's teacher and its pupils.
  int players_wanted() const {
    const auto& options = run_.options();
    return options.mode == Mode::kClass ? 1 + options.rooms * options.players : options.players;
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
  // A class run: each table's line as the console last showed it, and the
  // times of decisions at it since.
  std::map<std::string, protocol::EventTable> tables_;
  std::map<std::string, std::deque<Clock::time_point>> pending_;
  bool tables_playing_ = false;
};

}  // namespace gofish::load
