// The legality judge's answer about one decision in one state: proper,
// allowed with a table-rules penalty, or refused with a typed reason.
//
// Only the judge makes one (engine/legality.hpp `judge`, and Game::judge,
// which also notes the game state it judged), so Game::apply(const
// Judgement&) never meets a decision nobody judged. A judgement of another
// state (another game, or this game after a later decision) is judged again
// by apply rather than trusted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "engine/decision.hpp"
#include "engine/event.hpp"
#include "engine/rules.hpp"

namespace gofish::engine {

class Game;
struct LegalityFacts;

enum class Verdict : std::uint8_t {
  kProper,     // legal, and among the decisions the legal set lists
  kPenalised,  // table rules: accepted, and its penalty applies (001)
  kRefused,    // not accepted: the game does not change
};

class Judgement {
 public:
  Verdict verdict() const { return verdict_; }
  bool accepted() const { return verdict_ != Verdict::kRefused; }
  bool proper() const { return verdict_ == Verdict::kProper; }
  const Decision& decision() const { return decision_; }
  // Set exactly when the verdict is kPenalised.
  std::optional<PenaltyKind> penalty() const {
    return verdict_ == Verdict::kPenalised ? std::optional<PenaltyKind>(penalty_) : std::nullopt;
  }
  // Set exactly when the verdict is kRefused.
  const std::optional<Refusal>& refusal() const { return refusal_; }

 private:
  friend Judgement judge(const Rules& rules, const LegalityFacts& facts, CardSet hand, const Decision& decision);
  friend class Game;

  explicit Judgement(const Decision& decision) : decision_(decision) {}
  static Judgement proper(const Decision& decision) { return Judgement(decision); }
  static Judgement penalised(const Decision& decision, PenaltyKind penalty) {
    Judgement j(decision);
    j.verdict_ = Verdict::kPenalised;
    j.penalty_ = penalty;
    return j;
  }
  static Judgement refused(const Decision& decision, RefusalCode code, std::string message) {
    Judgement j(decision);
    j.verdict_ = Verdict::kRefused;
    j.refusal_ = Refusal{code, std::move(message)};
    return j;
  }

  Decision decision_;
  Verdict verdict_ = Verdict::kProper;
  PenaltyKind penalty_ = PenaltyKind::kAskedOutOfTurn;
  std::optional<Refusal> refusal_;
  // Set by Game::judge: the game and the number of decisions it had taken.
  const Game* game_ = nullptr;
  std::size_t state_ = 0;
};

}  // namespace gofish::engine
