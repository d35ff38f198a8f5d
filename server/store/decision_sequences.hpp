// The number each game's next decision must have. Both stores append a
// game's decisions to one log with no index that keeps its numbers unique
// (an index by game and number cost every action a descent to its own
// page), so this is what fails a batch holding a decision written twice or
// out of order. What a batch moves counts once the batch has committed.
//
// A game this process has neither written nor read is looked up in the
// store, once. The numbers stay right on a cluster because a node writes a
// room only under its lease, and rebuilds the room (a load, which sets its
// game's number here) whenever it takes the lease again.
//
// Thread-safe: PostgresStore's writer connections share one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gofish::server {

class DecisionSequences {
 public:
  // The numbers one batch moves, kept apart until it commits.
  class Batch {
   public:
    // A new game: its first decision is number 0.
    void started(const std::string& game_id) { next_[game_id] = 0; }
    // Finished, or closed with its room: no decision follows, and the game
    // is forgotten once the batch has committed.
    void ended(const std::string& game_id) { next_[game_id] = kEnded; }
    // The games the batch moves.
    std::vector<std::string> games() const {
      std::vector<std::string> out;
      for (const auto& [game, next] : next_) out.push_back(game);
      return out;
    }

   private:
    friend class DecisionSequences;
    static constexpr std::int64_t kEnded = -1;
    std::unordered_map<std::string, std::int64_t> next_;
  };

  // The next number of a game not known here, read from the store.
  using Lookup = std::function<std::int64_t(const std::string& game_id)>;

  // Keeps at most about `most` games. A game is forgotten once it finishes,
  // but not when its room closes mid-game on PostgreSQL, or moves to
  // another node: past `most`, every game not in the batch that lands is
  // forgotten and looked up again when next written.
  explicit DecisionSequences(std::size_t most = 100'000) : most_(most) {}

  // Counts decision `seq` of the game in `batch`; throws StoreError unless
  // it is the game's next.
  void accept(Batch& batch, const std::string& game_id, std::int64_t seq, const Lookup& lookup);
  // The batch committed: its numbers are now the games'.
  void land(Batch& batch);
  // A load read the game's decisions up to `next`.
  void known(const std::string& game_id, std::int64_t next);
  // Decisions were cut: the game is looked up again when next written.
  void forget(const std::string& game_id);

 private:
  const std::size_t most_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::int64_t> next_;
};

}  // namespace gofish::server
