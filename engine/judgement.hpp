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
  // Set exactly when the verdict is kRefused: the typed reason, with its
  // sentence (written only when asked for: the judge itself keeps the code).
  std::optional<Refusal> refusal() const;

 private:
  friend Judgement judge(const Rules& rules, const LegalityFacts& facts, CardSet hand, Decision decision);
  friend class Game;

  explicit Judgement(Decision decision) : decision_(decision) {}
  static Judgement proper(Decision decision) { return Judgement(decision); }
  static Judgement penalised(Decision decision, PenaltyKind penalty) {
    Judgement j(decision);
    j.verdict_ = Verdict::kPenalised;
    j.penalty_ = penalty;
    return j;
  }
  // `about_target`: kUnknownSeat names the seat asked, not the one asking.
  // `card_asked`: kNothingToGive answers an ask for a card, not a rank.
  static Judgement refused(Decision decision, RefusalCode code, bool about_target = false,
                           bool card_asked = false) {
    Judgement j(decision);
    j.verdict_ = Verdict::kRefused;
    j.code_ = code;
    j.about_target_ = about_target;
    j.card_asked_ = card_asked;
    return j;
  }

  Decision decision_;
  Verdict verdict_ = Verdict::kProper;
  bool about_target_ = false;
  bool card_asked_ = false;
  PenaltyKind penalty_ = PenaltyKind::kAskedOutOfTurn;
  RefusalCode code_ = RefusalCode::kGameOver;
  // Set by Game::judge: the game and the number of decisions it had taken.
  const Game* game_ = nullptr;
  std::size_t state_ = 0;
};

}  // namespace gofish::engine
