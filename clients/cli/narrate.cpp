#include "clients/cli/narrate.hpp"

#include <array>
#include <bit>
#include <variant>

#include "engine/overloaded.hpp"
#include "protocol/text.hpp"

namespace gofish::cli {
namespace {

constexpr std::array<std::string_view, engine::kSuits> kSuitSymbols = {"♣", "♦", "♥", "♠"};
constexpr std::array<std::string_view, 14> kNumberWords = {"no",   "one",    "two",    "three",   "four",
                                                           "five", "six",    "seven",  "eight",   "nine",
                                                           "ten",  "eleven", "twelve", "thirteen"};

std::string number_word(int n) {
  return n >= 0 && n < static_cast<int>(kNumberWords.size()) ? std::string(kNumberWords[static_cast<std::size_t>(n)])
                                                             : std::to_string(n);
}

std::string capital(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 'a' + 'A');
  return text;
}

std::string join(const std::vector<std::string>& items, std::string_view last_joiner = " and ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? std::string(last_joiner) : std::string(", ");
    out += items[i];
  }
  return out;
}

// "two nines", "one nine"
std::string count_of_rank(int n, engine::Rank rank) {
  return number_word(n) + " " + std::string(n == 1 ? engine::rank_word(rank) : engine::rank_plural(rank));
}

std::string set_word(const engine::Rules& rules) { return rules.set_size == 2 ? "pair" : "book"; }

std::string ranks_text(std::uint16_t ranks) {
  std::vector<std::string> names;
  for (engine::Rank r = 0; r < engine::kRanks; ++r) {
    if (ranks & (1U << r)) names.emplace_back(engine::rank_name(r));
  }
  return join(names, ", ");
}

std::string_view end_reason_words(engine::EndReason reason) {
  switch (reason) {
    case engine::EndReason::kHandEmpty: return "a hand ran empty";
    case engine::EndReason::kStockOut: return "the stock ran out";
    case engine::EndReason::kAllSetsDown: return "every set is down";
    case engine::EndReason::kNoOneCanPlay: return "no one could play";
  }
  return "it ended";
}

}  // namespace

std::string card_text(engine::Card card, Style style) {
  const auto suit = static_cast<std::size_t>(card.suit());
  const bool red = card.suit() == engine::Suit::Hearts || card.suit() == engine::Suit::Diamonds;
  std::string face = std::string(engine::rank_name(card.rank())) + std::string(kSuitSymbols[suit]);
  if (style.color && red) face = "\x1b[31m" + face + "\x1b[0m";
  return face + " " + std::string(engine::suit_word(card.suit()));
}

std::string card_name(engine::Card card) {
  return "the " + std::string(engine::rank_word(card.rank())) + " of " + std::string(engine::suit_word(card.suit()));
}

std::vector<std::string> hand_lines(engine::CardSet hand, Style style) {
  std::vector<std::string> lines;
  for (engine::Rank r = 0; r < engine::kRanks; ++r) {
    const engine::CardSet cards = hand.cards_of(r);
    if (cards.empty()) continue;
    std::string line = "  " + std::string(engine::rank_name(r));
    line.resize(5, ' ');
    line += "x" + std::to_string(cards.size()) + " ";
    for (const engine::Card card : cards) line += " " + card_text(card, style);
    lines.push_back(line);
  }
  if (lines.empty()) lines.emplace_back("  (no cards)");
  return lines;
}

std::vector<std::string> table_lines(const Table& table, Style) {
  std::vector<std::string> lines;
  std::string head =
      "Room " + table.code() + " · " + table.rules().preset + " · " + std::to_string(table.settings().seats) + " seats";
  if (table.spectators() > 0) head += " · " + std::to_string(table.spectators()) + " watching";
  lines.push_back(head);
  const bool playing = table.has_game();
  for (std::size_t i = 0; i < table.seats().size(); ++i) {
    const auto seat = static_cast<engine::Seat>(i);
    const protocol::SeatInfo& info = table.seats()[i];
    std::string line = "  Seat " + std::to_string(seat + 1) + "  " + table.name_of(seat);
    if (table.is_you(seat)) line += " (you)";
    if (info.occupant == protocol::Occupant::kEmpty) line = "  Seat " + std::to_string(seat + 1) + "  (empty)";
    if (info.occupant == protocol::Occupant::kHuman && !info.connected) line += " (away)";
    if (seat == table.host()) line += " [host]";
    if (playing && seat < table.view().players) {
      const engine::SeatView& sv = table.view().seats[i];
      line += ": " + std::to_string(sv.hand_size) + (sv.hand_size == 1 ? " card" : " cards");
      std::vector<std::string> sets;
      for (int s = 0; s < sv.set_count; ++s)
        sets.emplace_back(engine::rank_name(sv.set_ranks[static_cast<std::size_t>(s)]));
      line += ", " + set_word(table.rules()) + "s: " + (sets.empty() ? std::string("none") : join(sets, ", "));
      line += " (score " + std::to_string(sv.score) + ")";
      if (sv.status == engine::SeatStatus::kOut) line += ", out";
      if (sv.status == engine::SeatStatus::kSittingOut) line += ", sitting out";
      if (table.view().phase != engine::Phase::kOver && table.view().to_act == seat) line += "  <- to play";
    }
    lines.push_back(line);
  }
  if (playing) {
    const engine::View& view = table.view();
    if (view.phase == engine::Phase::kOver) {
      lines.push_back("Game " + std::to_string(table.game_number()) + " is over. " + winners_text(view.winners, table));
    } else {
      lines.push_back("Stock: " + std::to_string(view.stock_size) + " cards. " +
                      (table.is_you(view.to_act) ? std::string("It is your turn.")
                                                 : "It is " + table.name_of(view.to_act) + "'s turn."));
    }
  } else {
    lines.emplace_back(table.is_you(table.host()) ? "You are the host: type 'start' once every seat is filled."
                                                  : "Waiting for the host to start the game.");
  }
  return lines;
}

std::vector<std::string> rules_lines(const Table& table) {
  std::vector<std::string> lines;
  lines.push_back("Rules (" + table.rules().preset + "): " + std::string(engine::preset_summary(table.rules().preset)));
  for (const auto& [name, value] : engine::rules_fields(table.rules())) lines.push_back("  " + name + " = " + value);
  if (table.settings().turn_timer_seconds > 0) {
    lines.push_back("  turn timer: " + std::to_string(table.settings().turn_timer_seconds) + " seconds");
  }
  return lines;
}

std::string winners_text(std::uint8_t winners, const Table& table) {
  std::vector<std::string> names;
  bool you_won = false;
  for (engine::Seat s = 0; s < engine::kMaxSeats; ++s) {
    if (!(winners & (1U << s))) continue;
    if (table.is_you(s)) you_won = true;
    names.push_back(table.is_you(s) ? "you" : table.name_of(s));
  }
  if (names.empty()) return "Nobody wins.";
  if (names.size() == 1) return you_won ? "You win!" : names[0] + " wins!";
  return "A tie: " + join(names) + " share the win.";
}

std::string narrate(const protocol::RoomEvent& event, const Table& table) {
  const auto who = [&](engine::Seat seat) { return table.is_you(seat) ? std::string("you") : table.name_of(seat); };
  const auto Who = [&](engine::Seat seat) { return capital(who(seat)); };
  // Verb agreement for "you": verb(seat, "are", "is").
  const auto verb = [&](engine::Seat seat, std::string_view you_form, std::string_view other) {
    return std::string(table.is_you(seat) ? you_form : other);
  };
  const engine::Rules& rules = table.rules();
  const auto game_line = [&](const engine::Event& e) -> std::string {
    return std::visit(
        Overloaded{
            [&](const engine::GameStarted& g) {
              return Who(g.dealer) + " dealt the cards. " + std::to_string(g.stock) + " left in the stock. " +
                     (table.is_you(g.first) ? std::string("You go first.") : Who(g.first) + " goes first.");
            },
            [&](const engine::HandDealt& h) {
              return table.is_you(h.seat) ? "You got " + number_word(h.cards.size()) + " cards." : std::string();
            },
            [&](const engine::HandDealtCount&) { return std::string(); },
            [&](const engine::AskedRank& a) {
              return Who(a.seat) + " asked " + who(a.target) + " for " + std::string(engine::rank_plural(a.rank)) + ".";
            },
            [&](const engine::AskedCard& a) {
              return Who(a.seat) + " asked " + who(a.target) + " for " + card_name(a.card) + ".";
            },
            [&](const engine::Answered& a) {
              return Who(a.seat) + " said " + (a.give ? "\"Here you go\"." : "\"Go fish!\".");
            },
            [&](const engine::Gave& g) {
              const engine::Card first = g.cards.lowest();
              const std::string what = g.cards.size() == 1 && rules.ask_for == engine::AskFor::kCard
                                           ? card_name(first)
                                           : count_of_rank(g.cards.size(), first.rank());
              return Who(g.from) + " gave " + who(g.to) + " " + what + ".";
            },
            [&](const engine::GoFish& g) {
              std::string line = "Go fish!";
              if (const auto& ask = table.last_ask()) {
                if (const auto* r = std::get_if<engine::AskedRank>(&*ask)) {
                  line += " " + Who(g.seat) + " " + verb(g.seat, "have", "has") + " no " +
                          std::string(engine::rank_plural(r->rank)) + ".";
                } else if (const auto* c = std::get_if<engine::AskedCard>(&*ask)) {
                  line +=
                      " " + Who(g.seat) + " " + verb(g.seat, "don't", "doesn't") + " have " + card_name(c->card) + ".";
                }
              }
              if (g.stock_empty) line += " The stock is empty, so nobody draws.";
              return line;
            },
            [&](const engine::Drew& d) {
              const std::string because = d.cause == engine::DrawCause::kEmptyHand ? " (an empty hand draws)" : "";
              return Who(d.seat) + " drew " + card_name(d.card) + because + ".";
            },
            [&](const engine::DrewHidden& d) {
              const std::string because = d.cause == engine::DrawCause::kEmptyHand ? " (an empty hand draws)" : "";
              return Who(d.seat) + " drew a card" + because + ".";
            },
            [&](const engine::LuckyDraw& l) {
              const bool again = rules.lucky_draw == engine::LuckyDrawRule::kAskAgain;
              return table.is_you(l.seat)
                         ? "You drew " + card_name(l.card) + ", the one you asked for" + (again ? ", go again!" : "!")
                         : Who(l.seat) + " drew " + card_name(l.card) + ", what they asked for" +
                               (again ? ", and asks again." : ".");
            },
            [&](const engine::SetLaid& s) {
              std::string line = Who(s.seat) + " made a " + set_word(rules) + " of " +
                                 std::string(engine::rank_plural(s.rank)) +
                                 (s.from_deal ? " straight from the deal!" : "!");
              if (s.outcome == engine::SetOutcome::kBarred) line += " It does not score.";
              if (s.outcome == engine::SetOutcome::kNotShown) line += " It was laid face down.";
              return line;
            },
            [&](const engine::Penalty& p) {
              std::string kind(engine::to_string(p.kind));
              for (char& c : kind) c = c == '_' ? ' ' : c;
              return Who(p.seat) + " got a penalty (" + kind + ").";
            },
            [&](const engine::TurnPassed& t) {
              return table.is_you(t.to) ? std::string("It's your turn.") : "It's " + table.name_of(t.to) + "'s turn.";
            },
            [&](const engine::SatOut& s) {
              return Who(s.seat) + " " + verb(s.seat, "have", "has") + " no cards and no stock to draw from, and " +
                     verb(s.seat, "sit", "sits") + " out.";
            },
            [&](const engine::WentOut& w) {
              return Who(w.seat) + " " + verb(w.seat, "are", "is") + " out of the game (the " + set_word(rules) +
                     "s still count).";
            },
            [&](const engine::MissedTurn& m) {
              return Who(m.seat) + " " + verb(m.seat, "miss", "misses") + " a turn.";
            },
            [&](const engine::GameOver& o) { return "Game over! " + winners_text(o.winners, table); },
        },
        e);
  };
  return std::visit(
      Overloaded{
          game_line,
          [&](const protocol::SeatJoined& e) {
            return e.name + " sat down in seat " + std::to_string(e.seat + 1) + ".";
          },
          [&](const protocol::SeatLeft& e) { return e.name + " left the table."; },
          [&](const protocol::BotAdded& e) { return e.name + " joined the table."; },
          [&](const protocol::BotRemoved& e) {
            return "The bot in seat " + std::to_string(e.seat + 1) + " was removed.";
          },
          [&](const protocol::Kicked& e) {
            return table.is_you(e.seat) ? std::string("The host removed you from the room.")
                                        : "The host removed " + e.name + ".";
          },
          [&](const protocol::ConnectionChanged& e) {
            return e.connected ? Who(e.seat) + " " + verb(e.seat, "are", "is") + " back online."
                               : Who(e.seat) + " lost the connection.";
          },
          [&](const protocol::SpectatorsChanged& e) {
            return e.count == 0
                       ? std::string("Nobody is watching now.")
                       : capital(number_word(e.count)) + (e.count == 1 ? " person is" : " people are") + " watching.";
          },
          [&](const protocol::HostChanged& e) {
            return Who(e.seat) + " " + verb(e.seat, "are", "is") + " the host now.";
          },
          [&](const protocol::NewGame& e) { return "Game " + std::to_string(e.game) + " begins!"; },
          [&](const protocol::BotTakeover& e) {
            std::string why;
            switch (e.reason) {
              case protocol::TakeoverReason::kDisconnected:
                why = table.is_you(e.seat) ? "while you are away" : "while they are away";
                break;
              case protocol::TakeoverReason::kTimeout: why = "for this move: time ran out"; break;
              case protocol::TakeoverReason::kLeft:
              case protocol::TakeoverReason::kKicked: why = "for the rest of the game"; break;
            }
            return "A bot plays for " + who(e.seat) + " " + why + ".";
          },
          [&](const protocol::TurnTimer& e) {
            return table.is_you(e.seat) ? "You have " + std::to_string(e.seconds) + " seconds to ask." : std::string();
          },
          [&](const protocol::RematchVote& e) {
            return Who(e.seat) + " " + verb(e.seat, "want", "wants") + " a rematch.";
          },
          [&](const protocol::ChatPosted& e) {
            const protocol::Phrase* phrase = e.phrase.empty() ? nullptr : protocol::find_phrase(e.phrase);
            return e.name + ": " + (phrase ? std::string(phrase->text) : e.text);
          },
          [&](const protocol::DealCommitted&) { return std::string(); },  // the client contributes by itself
          [&](const protocol::ChatModeChanged& e) {
            switch (e.chat) {
              case protocol::ChatMode::kOff: return std::string("Chat is off now.");
              case protocol::ChatMode::kPhrases: return std::string("Chat is friendly phrases only now.");
              case protocol::ChatMode::kFree: return std::string("Chat is open now.");
            }
            return std::string();
          },
      },
      event);
}

std::string result_line(const GameResult& result) {
  std::vector<std::string> winners;
  std::string scores;
  for (engine::Seat s = 0; s < result.over.players; ++s) {
    const auto index = static_cast<std::size_t>(s);
    const std::string name = index < result.names.size() ? result.names[index] : "Seat " + std::to_string(s + 1);
    if (result.over.winners & (1U << s)) winners.push_back(name);
    scores += (scores.empty() ? "" : ", ") + name + " " + std::to_string(result.over.scores[index]);
  }
  std::string who;
  for (const auto& name : winners) who += (who.empty() ? "" : ", ") + name;
  return "Game " + std::to_string(result.game) + ": " + (winners.size() == 1 ? "winner: " : "winners: ") +
         (who.empty() ? std::string("nobody") : who) + " (scores: " + scores + "); " +
         std::string(end_reason_words(result.over.reason)) + ".";
}

std::string your_turn_text(const Table& table) {
  const engine::LegalDecisions legal = table.legal();
  if (legal.give || legal.go_fish) {
    return std::string("You were asked: answer with 'answer ") + (legal.give ? "give'." : "fish'.");
  }
  std::vector<std::string> targets;
  for (engine::Seat s = 0; s < engine::kMaxSeats; ++s) {
    if (legal.targets & (1U << s)) targets.push_back(table.name_of(s) + " (seat " + std::to_string(s + 1) + ")");
  }
  std::string line = "Your turn: ask " + join(targets, " or ");
  if (legal.ask_for == engine::AskFor::kRank) {
    line += " for a rank you hold: " + ranks_text(legal.ranks) + ".";
  } else {
    // An example the player could type as it stands: the first target, the first card.
    const int first_target = std::countr_zero(static_cast<unsigned>(legal.targets));
    line += " for a card you lack of a rank you hold, e.g. 'ask " + std::to_string(first_target + 1) + " " +
            (legal.cards.empty() ? std::string("QH") : engine::to_string(legal.cards.lowest())) + "'.";
  }
  if (legal.declarable != 0) line += " You can lay down: " + ranks_text(legal.declarable) + " ('declare <rank>').";
  return line;
}

}  // namespace gofish::cli
