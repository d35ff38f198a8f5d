#include "engine/event.hpp"

#include "engine/overloaded.hpp"

namespace gofish::engine {
namespace {
std::string seat(Seat s) { return "seat " + std::to_string(s); }
}  // namespace

std::string_view to_string(EndReason reason) {
  switch (reason) {
    case EndReason::kHandEmpty: return "hand_empty";
    case EndReason::kStockOut: return "stock_out";
    case EndReason::kAllSetsDown: return "all_sets_down";
    case EndReason::kNoOneCanPlay: return "no_one_can_play";
  }
  return "unknown";
}

std::string_view to_string(SetOutcome outcome) {
  switch (outcome) {
    case SetOutcome::kScores: return "scores";
    case SetOutcome::kBarred: return "barred";
    case SetOutcome::kNotShown: return "not_shown";
  }
  return "unknown";
}

std::string_view to_string(PenaltyKind kind) {
  switch (kind) {
    case PenaltyKind::kAskedOutOfTurn: return "asked_out_of_turn";
    case PenaltyKind::kIllegalCall: return "illegal_call";
    case PenaltyKind::kFalseGoFish: return "false_go_fish";
  }
  return "unknown";
}

std::string_view to_string(DrawCause cause) { return cause == DrawCause::kFish ? "fish" : "empty_hand"; }

std::string to_string(const Event& event) {
  return std::visit(
      Overloaded{
          [](const GameStarted& e) {
            return "start: " + std::to_string(e.players) + " players, dealer " + seat(e.dealer) + ", first " +
                   seat(e.first) + ", stock " + std::to_string(e.stock);
          },
          [](const HandDealt& e) { return seat(e.seat) + " is dealt " + to_string(e.cards); },
          [](const HandDealtCount& e) { return seat(e.seat) + " is dealt " + std::to_string(e.count) + " cards"; },
          [](const AskedRank& e) {
            return seat(e.seat) + " asks " + seat(e.target) + " for " + std::string(rank_plural(e.rank));
          },
          [](const AskedCard& e) { return seat(e.seat) + " asks " + seat(e.target) + " for " + to_string(e.card); },
          [](const Answered& e) { return seat(e.seat) + (e.give ? " answers give" : " answers go fish"); },
          [](const Gave& e) { return seat(e.from) + " gives " + seat(e.to) + " " + to_string(e.cards); },
          [](const GoFish& e) {
            return seat(e.seat) + (e.stock_empty ? " has none (no stock)" : " says go fish");
          },
          [](const Drew& e) { return seat(e.seat) + " draws " + to_string(e.card) + " (" + std::string(to_string(e.cause)) + ")"; },
          [](const DrewHidden& e) { return seat(e.seat) + " draws a card (" + std::string(to_string(e.cause)) + ")"; },
          [](const LuckyDraw& e) { return seat(e.seat) + " shows the lucky draw " + to_string(e.card); },
          [](const SetLaid& e) {
            return seat(e.seat) + " lays down " + std::string(rank_plural(e.rank)) + " " + to_string(e.cards) +
                   (e.from_deal ? " from the deal" : "") +
                   (e.outcome == SetOutcome::kScores ? "" : " (" + std::string(to_string(e.outcome)) + ")");
          },
          [](const Penalty& e) {
            return seat(e.seat) + " penalty " + std::string(to_string(e.kind)) + " on " + std::string(rank_plural(e.rank));
          },
          [](const TurnPassed& e) { return "turn passes from " + seat(e.from) + " to " + seat(e.to); },
          [](const SatOut& e) { return seat(e.seat) + " sits out"; },
          [](const WentOut& e) { return seat(e.seat) + " is out"; },
          [](const MissedTurn& e) { return seat(e.seat) + " misses a turn"; },
          [](const GameOver& e) {
            std::string out = "game over (" + std::string(to_string(e.reason)) + "): scores";
            // Appended piecewise: GCC 12 at -O3 reports a false -Wrestrict on
            // `" " + std::string` here (GCC bug 105329), which breaks Release builds.
            for (int s = 0; s < e.players; ++s) {
              out += ' ';
              out += std::to_string(e.scores[static_cast<std::size_t>(s)]);
            }
            out += ", winners";
            for (int s = 0; s < e.players; ++s) {
              if ((e.winners >> s) & 1U) {
                out += ' ';
                out += seat(s);
              }
            }
            return out;
          },
      },
      event);
}

}  // namespace gofish::engine
