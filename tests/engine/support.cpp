#include "support.hpp"

#include <bit>
#include <cassert>
#include <stdexcept>
#include <variant>

#include "engine/setup.hpp"
#include "engine/testing.hpp"

namespace gofish::engine::test {
namespace {

std::string cards_text(CardSet cards) { return "[" + to_string(cards) + "]"; }

}  // namespace

void Ledger::observe(const std::vector<Event>& events) {
  for (const Event& event : events) {
    const auto* laid = std::get_if<SetLaid>(&event);
    if (laid == nullptr) continue;
    if (!error_.empty()) continue;
    for (Card c : laid->cards) {
      if (c.rank() != laid->rank) error_ = "a laid set holds a card of another rank: " + full_text(event);
    }
    if ((laid_.mask() & laid->cards.mask()) != 0) error_ = "a card was laid down twice: " + full_text(event);
    if (laid->seat < 0 || laid->seat >= kMaxSeats) {
      error_ = "a set was laid by a seat that does not exist: " + full_text(event);
      continue;
    }
    laid_.add(laid->cards);
    ++laid_sets_;
    ++laid_by_seat_[static_cast<std::size_t>(laid->seat)];
    if (laid->cards.size() == 0) error_ = "an empty set was laid: " + full_text(event);
  }
}

std::optional<std::string> Ledger::check(const Game& game) const {
  if (!error_.empty()) return error_;
  const int players = game.players();
  const Rules& rules = game.rules();

  // Every card in exactly one place: a hand, the stock or a laid set.
  CardSet seen = laid_;
  for (Seat s = 0; s < kMaxSeats; ++s) {
    const CardSet hand = GameInspector::hand(game, s);
    if (s >= players && !hand.empty()) return "seat " + std::to_string(s) + " is not at the table but holds cards";
    if ((seen.mask() & hand.mask()) != 0) {
      return "seat " + std::to_string(s) + " holds a card that is also elsewhere: " +
             cards_text(CardSet::from_mask(seen.mask() & hand.mask()));
    }
    seen.add(hand);
    if (s < players && game.hand_size(s) != hand.size()) return "hand_size disagrees with the hand";
  }
  const CardSet stock = GameInspector::stock(game);
  if ((seen.mask() & stock.mask()) != 0) {
    return "a stock card is also in a hand or a set: " + cards_text(CardSet::from_mask(seen.mask() & stock.mask()));
  }
  seen.add(stock);
  if (seen != CardSet::full_deck()) {
    return "cards are missing: " + cards_text(CardSet::from_mask(CardSet::full_deck().mask() & ~seen.mask()));
  }
  if (stock.size() != game.stock_size()) return "stock_size disagrees with the stock";
  for (Rank r = 0; r < kRanks; ++r) {
    if (laid_.count(r) % rules.set_size != 0) return "a partial set of " + std::string(rank_plural(r)) + " is down";
  }

  // Sets: the game's record agrees with its events.
  int total = 0;
  for (Seat s = 0; s < players; ++s) {
    const auto sets = game.sets(s);
    if (static_cast<int>(sets.size()) != laid_by_seat_[static_cast<std::size_t>(s)]) {
      return "seat " + std::to_string(s) + " has " + std::to_string(sets.size()) + " sets but " +
             std::to_string(laid_by_seat_[static_cast<std::size_t>(s)]) + " were laid";
    }
    int scoring = 0;
    for (const auto& set : sets) scoring += set.outcome == SetOutcome::kScores ? 1 : 0;
    if (scoring != game.score(s)) return "seat " + std::to_string(s) + "'s score does not count its scoring sets";
    total += static_cast<int>(sets.size());
  }
  if (total != game.sets_down() || total != laid_sets_) return "sets_down disagrees with the sets laid";

  // Who acts, and what they may do.
  if (game.over()) {
    if (!game.end_reason()) return "the game is over without a reason";
    for (Seat s = -1; s <= players; ++s) {
      if (!game.legal(s).empty()) return "seat " + std::to_string(s) + " has legal decisions after the game is over";
    }
    const std::uint8_t all = static_cast<std::uint8_t>((1U << players) - 1U);
    if (game.winners() == 0 || (game.winners() & ~all) != 0) return "the winners are not a set of seats";
    if (game.winners() != expected_winners(game)) {
      return "winners " + std::to_string(game.winners()) + ", expected " + std::to_string(expected_winners(game));
    }
    switch (*game.end_reason()) {
      case EndReason::kAllSetsDown:
        if (game.sets_down() != total_sets(rules)) return "all_sets_down with sets still in play";
        break;
      case EndReason::kStockOut:
        if (!rules.stock_out_ends_game || game.stock_size() != 0) return "stock_out with a stock, or not a rule";
        break;
      case EndReason::kHandEmpty: {
        bool empty = false;
        for (Seat s = 0; s < players; ++s) empty = empty || game.hand_size(s) == 0;
        if (!empty || rules.empty_hand != EmptyHand::kEndsGame) return "hand_empty without an empty hand, or not a rule";
        break;
      }
      case EndReason::kNoOneCanPlay: break;
    }
    return std::nullopt;
  }
  if (game.sets_down() == total_sets(rules)) return "every set is down but the game goes on";
  if (rules.stock_out_ends_game && game.stock_size() == 0) return "the stock is out but the game goes on";
  if (rules.empty_hand == EmptyHand::kEndsGame) {
    for (Seat s = 0; s < players; ++s) {
      if (game.hand_size(s) == 0) return "seat " + std::to_string(s) + "'s hand is empty but the game goes on";
    }
  }
  if (rules.empty_hand == EmptyHand::kOut) {
    for (Seat s = 0; s < players; ++s) {
      if (game.hand_size(s) == 0 && game.status(s) != SeatStatus::kOut) {
        return "seat " + std::to_string(s) + " has no cards but is still in";
      }
    }
  }
  const Seat actor = game.to_act();
  if (actor < 0 || actor >= players) return "the seat to act is not at the table";
  if (game.status(actor) == SeatStatus::kOut) return "the seat to act is out of the game";
  const Seat turn = game.turn();
  if (turn < 0 || turn >= players || game.status(turn) != SeatStatus::kIn) return "the turn is with a seat not in play";
  if (game.hand_size(turn) == 0) return "the seat whose turn it is has no cards";
  if (game.phase() == Phase::kAnswer) {
    const auto pending = game.pending_ask();
    if (!rules.table_rules || !pending || pending->seat != turn || pending->target != actor) {
      return "an answer is awaited without a matching pending ask";
    }
  } else if (game.pending_ask()) {
    return "a pending ask outside the answer phase";
  }
  for (Seat s = -1; s <= players; ++s) {
    const bool empty = game.legal(s).empty();
    if (s == actor && empty) return "the seat to act has no legal decision";
    if (s != actor && !empty) return "seat " + std::to_string(s) + " has legal decisions but is not to act";
  }
  return std::nullopt;
}

std::uint8_t expected_winners(const Game& game) {
  std::array<int, kMaxSeats> score{};
  int best = 0;
  for (Seat s = 0; s < game.players(); ++s) {
    for (const auto& set : game.sets(s)) score[static_cast<std::size_t>(s)] += set.outcome == SetOutcome::kScores;
    best = std::max(best, score[static_cast<std::size_t>(s)]);
  }
  int fewest = kDeckSize;
  for (Seat s = 0; s < game.players(); ++s) {
    if (score[static_cast<std::size_t>(s)] == best) fewest = std::min(fewest, game.hand_size(s));
  }
  std::uint8_t winners = 0;
  for (Seat s = 0; s < game.players(); ++s) {
    if (score[static_cast<std::size_t>(s)] != best) continue;
    if (game.rules().tie_break == TieBreak::kFewestCardsInHand && game.hand_size(s) != fewest) continue;
    winners = static_cast<std::uint8_t>(winners | (1U << s));
  }
  return winners;
}

std::string public_fact(const Event& event) {
  struct Visitor {
    std::string operator()(const GameStarted& e) const { return full_text(e); }
    // A dealt hand: everyone sees how many cards, only the owner which.
    std::string operator()(const HandDealt& e) const {
      return "dealt seat=" + std::to_string(e.seat) + " count=" + std::to_string(e.cards.size());
    }
    std::string operator()(const HandDealtCount& e) const {
      return "dealt seat=" + std::to_string(e.seat) + " count=" + std::to_string(e.count);
    }
    std::string operator()(const AskedRank& e) const { return full_text(e); }
    std::string operator()(const AskedCard& e) const { return full_text(e); }
    std::string operator()(const Answered& e) const { return full_text(e); }
    std::string operator()(const Gave& e) const { return full_text(e); }  // shown to verify the catch
    std::string operator()(const GoFish& e) const { return full_text(e); }
    // A draw: everyone sees that a card was drawn and why, only the drawer which.
    std::string operator()(const Drew& e) const {
      return "drew seat=" + std::to_string(e.seat) + " cause=" + std::string(to_string(e.cause));
    }
    std::string operator()(const DrewHidden& e) const {
      return "drew seat=" + std::to_string(e.seat) + " cause=" + std::string(to_string(e.cause));
    }
    std::string operator()(const LuckyDraw& e) const { return full_text(e); }  // shown
    std::string operator()(const SetLaid& e) const { return full_text(e); }    // laid on the table
    std::string operator()(const Penalty& e) const { return full_text(e); }
    std::string operator()(const TurnPassed& e) const { return full_text(e); }
    std::string operator()(const SatOut& e) const { return full_text(e); }
    std::string operator()(const WentOut& e) const { return full_text(e); }
    std::string operator()(const MissedTurn& e) const { return full_text(e); }
    std::string operator()(const GameOver& e) const { return full_text(e); }  // every hand is shown at the end
  };
  return std::visit(Visitor{}, event);
}

std::string public_state(const Game& game) {
  std::string out;
  for (Seat s = 0; s < game.players(); ++s) {
    out += "seat" + std::to_string(s) + " size=" + std::to_string(game.hand_size(s)) +
           " status=" + std::to_string(static_cast<int>(game.status(s))) +
           " misses=" + std::to_string(game.misses_next_turn(s)) + " barred=" + std::to_string(game.barred_ranks(s)) +
           " score=" + std::to_string(game.score(s)) + " sets=";
    for (const auto& set : game.sets(s)) out += std::string(rank_name(set.rank)) + "/" + std::string(to_string(set.outcome)) + ",";
    out += "; ";
  }
  out += "stock=" + std::to_string(game.stock_size()) + " phase=" + std::to_string(static_cast<int>(game.phase())) +
         " turn=" + std::to_string(game.turn()) + " to_act=" + std::to_string(game.to_act()) +
         " sets_down=" + std::to_string(game.sets_down());
  if (const auto pending = game.pending_ask()) {
    out += " pending=" + std::to_string(pending->seat) + ">" + std::to_string(pending->target) + ":" +
           std::to_string(pending->rank) + (pending->card ? to_string(*pending->card) : std::string("-"));
  }
  if (game.end_reason()) out += " end=" + std::string(to_string(*game.end_reason()));
  out += " winners=" + std::to_string(game.winners());
  return out;
}

Decision random_legal(const Game& game, Rng& rng) {
  const LegalDecisions legal = game.legal(game.to_act());
  assert(!legal.empty());
  return legal.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(legal.count()))));
}

Game start_random(const Rules& rules, int players, Rng& rng) {
  const DealSetup setup = prepare_deal(rules, players, rng);
  auto started = Game::start(rules, players, setup.deck, setup.dealer, setup.first);
  if (auto* error = std::get_if<ConfigError>(&started)) throw std::runtime_error("start refused: " + error->message);
  return std::get<Game>(std::move(started));
}

Rules rules_for(std::string_view preset_name, bool table_rules) {
  std::optional<Rules> rules = preset(preset_name);
  if (!rules) throw std::runtime_error("no preset " + std::string(preset_name));
  rules->table_rules = table_rules;
  return *rules;
}

LegalityFacts random_facts(const Rules& rules, Rng& rng) {
  const int players = 2 + static_cast<int>(rng.below(5));
  LegalityFacts facts;
  facts.players = players;
  facts.turn = static_cast<Seat>(rng.below(static_cast<std::uint32_t>(players)));
  facts.in_play = static_cast<std::uint8_t>(rng.below(1U << players) | (1U << facts.turn));
  const std::uint32_t phase = rng.below(rules.table_rules ? 3 : 2);
  facts.phase = phase == 0 ? Phase::kAsk : phase == 1 ? Phase::kOver : Phase::kAnswer;
  if (facts.phase == Phase::kAnswer) {
    const Seat target = (facts.turn + 1 + static_cast<Seat>(rng.below(static_cast<std::uint32_t>(players - 1)))) %
                        players;
    facts.in_play = static_cast<std::uint8_t>(facts.in_play | (1U << target));
    const Rank rank = static_cast<Rank>(rng.below(kRanks));
    std::optional<Card> card;
    if (rules.ask_for == AskFor::kCard) card = Card(rank, static_cast<Suit>(rng.below(4)));
    facts.pending = PendingAsk{facts.turn, target, rank, card};
  }
  return facts;
}

}  // namespace gofish::engine::test
