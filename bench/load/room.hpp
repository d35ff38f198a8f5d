// The players of one room of a load run: the host creates the room, the
// guests join it, and they share the parsing of the frames they all get.
#pragma once

#include <array>
#include <cstddef>
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

}  // namespace gofish::load
