// The game a room is playing, or has just finished: the engine's game, who
// plays it (names and bot levels, kept with the game whoever holds the
// seats later), a bot per seat fed that seat's events (the player of a bot
// seat, the stand-in of a human one), and the id the store keeps it under.
//
// Hiding stays in the engine: a bot only ever sees engine::event_for of its
// own seat and view_of its seat.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/bot.hpp"
#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/transcript.hpp"
#include "protocol/messages.hpp"

namespace gofish::server {

// A finished game as its room serves its transcript (the `transcript`
// message): the most recent one, kept while the next is played.
struct FinishedGame {
  int number = 0;
  std::string id;  // empty when nothing is stored
  engine::Transcript transcript;
  std::vector<protocol::Player> players;
  std::optional<protocol::DealFairness> fairness;  // with the seed: the game is over
};

class RoomGame {
 public:
  // A game dealt from `deck` (already shuffled and cut). `levels` are the
  // bots' levels by seat. The start's events are in game().last_events(),
  // already shown to the bots.
  static std::variant<RoomGame, std::string> start(const engine::Rules& rules, const engine::Deck& deck,
                                                   engine::Seat dealer, engine::Seat first, int number,
                                                   std::string id, std::vector<protocol::Player> players,
                                                   const std::vector<protocol::BotLevel>& levels);

  engine::Game& game() { return game_; }
  const engine::Game& game() const { return game_; }
  int number() const { return number_; }
  const std::string& id() const { return id_; }
  const std::vector<protocol::Player>& players() const { return players_; }
  // How many decisions have been applied (the next stored decision's number).
  std::int64_t decisions() const { return static_cast<std::int64_t>(game_.decisions().size()); }
  const std::optional<engine::GameOver>& result() const { return result_; }

  // Applies a judged decision (the second form judges it first); on success
  // its events (in game().last_events()) are
  // shown to the bots. The engine's refusal otherwise, the game unchanged.
  std::optional<engine::Refusal> apply(const engine::Judgement& judgement);
  std::optional<engine::Refusal> apply(const engine::Decision& decision) { return apply(game_.judge(decision)); }
  // What the seat's bot would decide now: always a legal decision of the
  // seat (the first legal one if the bot fails), or nullopt when the seat
  // has none. The second member says why the bot's own choice was not used.
  std::pair<std::optional<engine::Decision>, std::string> bot_decision(engine::Seat seat, engine::Rng& rng);
  // A finished game needs no bots.
  void drop_bots() { bots_.clear(); }
  // The game as a transcript serves it (once it is over).
  FinishedGame finished() const { return {number_, id_, engine::make_transcript(game_), players_, fairness_}; }
  // How the deck was dealt (docs/FAIRNESS.md), the seed included: kept for
  // the transcript, never sent while the game is played.
  void set_fairness(std::optional<protocol::DealFairness> fairness) { fairness_ = std::move(fairness); }
  const std::optional<protocol::DealFairness>& fairness() const { return fairness_; }

 private:
  RoomGame(engine::Game game, int number, std::string id, std::vector<protocol::Player> players)
      : game_(std::move(game)), number_(number), id_(std::move(id)), players_(std::move(players)) {}
  void observe_last_events();

  std::optional<protocol::DealFairness> fairness_;
  engine::Game game_;
  int number_ = 0;
  std::string id_;
  std::vector<protocol::Player> players_;
  std::vector<std::unique_ptr<engine::Bot>> bots_;
  std::optional<engine::GameOver> result_;
};

}  // namespace gofish::server
