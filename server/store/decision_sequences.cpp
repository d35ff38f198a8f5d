#include "server/store/decision_sequences.hpp"

#include <optional>

#include "server/store/store.hpp"

namespace gofish::server {

void DecisionSequences::accept(Batch& batch, const std::string& game_id, std::int64_t seq, const Lookup& lookup) {
  std::optional<std::int64_t> expected;
  if (const auto in_batch = batch.next_.find(game_id); in_batch != batch.next_.end() && in_batch->second >= 0) {
    expected = in_batch->second;
  } else {
    std::lock_guard lock(mutex_);
    if (const auto known = next_.find(game_id); known != next_.end()) expected = known->second;
  }
  // Looked up without the lock: it waits for the store.
  if (!expected) expected = lookup(game_id);
  if (seq != *expected) {
    throw RecordsRefused("game " + game_id + ": decision " + std::to_string(seq) + " is out of sequence (the next is " +
                     std::to_string(*expected) + ")");
  }
  batch.next_[game_id] = seq + 1;
}

void DecisionSequences::land(Batch& batch) {
  std::lock_guard lock(mutex_);
  if (next_.size() + batch.next_.size() > most_) next_.clear();
  for (const auto& [game_id, next] : batch.next_) {
    if (next == Batch::kEnded) {
      next_.erase(game_id);
    } else {
      next_[game_id] = next;
    }
  }
  batch.next_.clear();
}

void DecisionSequences::known(const std::string& game_id, std::int64_t next) {
  std::lock_guard lock(mutex_);
  next_[game_id] = next;
}

void DecisionSequences::forget(const std::string& game_id) {
  std::lock_guard lock(mutex_);
  next_.erase(game_id);
}

}  // namespace gofish::server
