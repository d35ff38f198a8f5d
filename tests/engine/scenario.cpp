#include "scenario.hpp"

#include <charconv>
#include <map>
#include <optional>
#include <variant>

#include "engine/decision.hpp"
#include "engine/game.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"
#include "engine/testing.hpp"
#include "support.hpp"

namespace gofish::engine::test {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<int> to_int(std::string_view s) {
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// "keyword rest": splits off the first word.
std::pair<std::string, std::string_view> head(std::string_view line) {
  line = trim(line);
  std::size_t i = 0;
  while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != ':') ++i;
  return {std::string(line.substr(0, i)), trim(line.substr(i))};
}

// "hand 0: 9C 9H" -> ("0", "9C 9H"). Returns nullopt without a colon.
std::optional<std::pair<std::string, std::string_view>> before_colon(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return std::pair{std::string(trim(text.substr(0, colon))), trim(text.substr(colon + 1))};
}

// A rank token: "Q", "10", or "#13" for a raw number (to test invalid ranks).
std::optional<Rank> rank_token(std::string_view s) {
  if (!s.empty() && s[0] == '#') return to_int(s.substr(1));
  return parse_rank(s);
}

// A card token: "QH", or "card#60" for a raw id (to test invalid cards).
std::optional<Card> card_token(std::string_view s) {
  if (s.starts_with("card#")) {
    const auto id = to_int(s.substr(5));
    if (!id || *id < 0 || *id > 255) return std::nullopt;
    return Card::from_id(*id);
  }
  return parse_card(s);
}

std::optional<std::vector<Card>> card_list(std::string_view text, std::string& error) {
  std::vector<Card> out;
  if (trim(text) == "-") return out;
  for (const std::string& w : words(text)) {
    const auto card = parse_card(w);
    if (!card) {
      error = "\"" + w + "\" is not a card";
      return std::nullopt;
    }
    out.push_back(*card);
  }
  return out;
}

std::optional<Decision> parse_decision(std::string_view text, std::string& error) {
  const std::vector<std::string> w = words(text);
  const auto seat = w.size() >= 2 ? to_int(w[1]) : std::nullopt;
  if (w.empty() || !seat) {
    error = "a decision is \"ask S T R\", \"ask S T CARD\", \"answer S give|gofish\" or \"declare S R\"";
    return std::nullopt;
  }
  if (w[0] == "ask" && w.size() == 4) {
    const auto target = to_int(w[2]);
    if (!target) {
      error = "\"" + w[2] + "\" is not a seat";
      return std::nullopt;
    }
    if (const auto card = card_token(w[3])) return Decision{*seat, AskCard{*target, *card}};
    if (const auto rank = rank_token(w[3])) return Decision{*seat, AskRank{*target, *rank}};
    error = "\"" + w[3] + "\" is neither a rank nor a card";
    return std::nullopt;
  }
  if (w[0] == "answer" && w.size() == 3 && (w[2] == "give" || w[2] == "gofish")) {
    return Decision{*seat, Answer{w[2] == "give"}};
  }
  if (w[0] == "declare" && w.size() == 3) {
    if (const auto rank = rank_token(w[2])) return Decision{*seat, Declare{*rank}};
  }
  error = "cannot read the decision \"" + std::string(text) + "\"";
  return std::nullopt;
}

std::optional<Phase> phase_token(std::string_view s) {
  if (s == "ask") return Phase::kAsk;
  if (s == "answer") return Phase::kAnswer;
  if (s == "over") return Phase::kOver;
  return std::nullopt;
}

std::string_view status_name(SeatStatus status) {
  switch (status) {
    case SeatStatus::kIn: return "in";
    case SeatStatus::kSittingOut: return "sitting_out";
    case SeatStatus::kOut: return "out";
  }
  return "?";
}

std::string ranks_text(std::uint16_t ranks) {
  std::string out;
  for (Rank r = 0; r < kRanks; ++r) {
    if ((ranks >> r) & 1U) out += (out.empty() ? "" : " ") + std::string(rank_name(r));
  }
  return out.empty() ? "-" : out;
}

class Runner {
 public:
  ScenarioResult run(std::string_view text) {
    int number = 0;
    std::size_t pos = 0;
    while (pos <= text.size() && !stopped_) {
      const std::size_t end = std::min(text.find('\n', pos), text.size());
      ++number;
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      if (const std::size_t hash = line.find(" # "); hash != std::string_view::npos) line = line.substr(0, hash);
      line = trim(line);
      if (line.empty() || line[0] == '#') continue;
      handle(number, line);
    }
    if (!stopped_ && !game_ && !start_attempted_) start(number);
    if (!stopped_ && expectations_ == 0) fail(0, "the fixture checks nothing: add an expect or refuse line");
    return std::move(result_);
  }

 private:
  void fail(int line, std::string message) { result_.failures.push_back({line, std::move(message)}); }
  void stop(int line, std::string message) {
    fail(line, std::move(message));
    stopped_ = true;
  }

  void handle(int line, std::string_view text) {
    auto [key, rest] = head(text);
    if (key == "preset" || key == "set" || key == "players" || key == "dealer" || key == "first" || key == "hand" ||
        key == "stock" || key == "deck") {
      if (game_ || start_attempted_) return stop(line, "set-up lines must come before the first decision");
      return setup(line, key, rest);
    }
    if (key == "start") {
      const auto w = words(rest);
      if (w.size() != 2 || w[0] != "refused") return stop(line, "write \"start refused FIELD\"");
      if (game_ || start_attempted_) return stop(line, "the game has already started");
      start_attempted_ = true;
      ++expectations_;
      auto started = make_game(line);
      if (!started) return;  // make_game reported the fixture error
      if (auto* error = std::get_if<ConfigError>(&*started)) {
        if (error->field != w[1]) fail(line, "start refused on field " + error->field + ", expected " + w[1]);
        if (error->message.empty()) fail(line, "the refusal has no sentence for a person");
      } else {
        fail(line, "the game started, expected a refusal on " + w[1]);
      }
      stopped_ = true;  // nothing can follow a refused start
      return;
    }
    if (!game_ && !start(line)) return;
    if (key == "ask" || key == "answer" || key == "declare") return act(line, text, std::nullopt);
    if (key == "refuse") {
      const auto split = before_colon(rest);
      if (!split) return stop(line, "write \"refuse CODE: DECISION\"");
      ++expectations_;
      return act(line, split->second, split->first);
    }
    if (key == "expect") {
      ++expectations_;
      return expect(line, rest);
    }
    stop(line, "unknown line \"" + std::string(text) + "\"");
  }

  void setup(int line, const std::string& key, std::string_view rest) {
    std::string error;
    if (key == "preset") {
      const auto rules = preset(rest);
      if (!rules) return stop(line, "no preset \"" + std::string(rest) + "\"");
      if (preset_given_) return stop(line, "the preset must be named once, before any field is set");
      rules_ = *rules;
      preset_given_ = true;
      return;
    }
    if (!preset_given_) return stop(line, "name the preset first");
    if (key == "set") {
      const auto w = words(rest);
      if (w.size() != 2) return stop(line, "write \"set FIELD VALUE\"");
      if (auto e = set_rules_field(rules_, w[0], w[1])) return stop(line, e->message);
      return;
    }
    if (key == "players" || key == "dealer" || key == "first") {
      const auto n = to_int(rest);
      if (!n) return stop(line, key + " needs a number");
      if (key == "players") players_ = *n;
      if (key == "dealer") dealer_ = *n;
      if (key == "first") first_ = *n;
      return;
    }
    if (key == "hand") {
      const auto split = before_colon(rest);
      const auto seat = split ? to_int(split->first) : std::nullopt;
      if (!seat) return stop(line, "write \"hand SEAT: CARDS\"");
      const auto cards = card_list(split->second, error);
      if (!cards) return stop(line, error);
      if (hands_.contains(*seat)) return stop(line, "seat " + std::to_string(*seat) + "'s hand is given twice");
      hands_[*seat] = *cards;
      return;
    }
    if (!rest.starts_with(":")) return stop(line, "write \"" + key + ": CARDS\"");
    const auto cards = card_list(rest.substr(1), error);
    if (!cards) return stop(line, error);
    if (key == "stock") stock_ = *cards;
    if (key == "deck") deck_ = *cards;
  }

  // The deck that deals the given hands: the deal goes one card at a time
  // clockwise from the dealer's left, so the i-th card of the deck goes to
  // seat (dealer + 1 + i) % players; then the listed stock, top first; then
  // every other card in id order (2C, 2D, ... AS).
  std::optional<Deck> build_deck(int line) {
    std::vector<Card> order;
    if (deck_) {
      if (!hands_.empty() || !stock_.empty()) return stop(line, "give either a deck or hands and a stock"), std::nullopt;
      order = *deck_;
    } else {
      if (!hands_.empty() && static_cast<int>(hands_.size()) != players_) {
        return stop(line, "give a hand for each of the " + std::to_string(players_) + " seats"), std::nullopt;
      }
      for (const auto& [seat, cards] : hands_) {
        if (seat < 0 || seat >= players_) return stop(line, "hand for a seat not at the table"), std::nullopt;
      }
      std::size_t total = 0;
      for (const auto& [seat, cards] : hands_) total += cards.size();
      std::vector<std::size_t> taken(static_cast<std::size_t>(players_), 0);
      for (std::size_t i = 0; i < total; ++i) {
        const Seat seat = static_cast<Seat>((static_cast<std::size_t>(*dealer_) + 1 + i) % static_cast<std::size_t>(players_));
        const std::vector<Card>& hand = hands_[seat];
        std::size_t& next = taken[static_cast<std::size_t>(seat)];
        if (next == hand.size()) {
          return stop(line, "these hand sizes cannot come from a deal one card at a time from the dealer's left "
                            "(seat " + std::to_string(seat) + " runs out first)"),
                 std::nullopt;
        }
        order.push_back(hand[next++]);
      }
      order.insert(order.end(), stock_.begin(), stock_.end());
      CardSet used;
      for (Card c : order) used.add(c);
      for (int id = 0; id < kDeckSize; ++id) {
        if (!used.contains(Card::from_id(id))) order.push_back(Card::from_id(id));
      }
    }
    CardSet seen;
    for (Card c : order) {
      if (seen.contains(c)) return stop(line, "the card " + to_string(c) + " is given twice"), std::nullopt;
      seen.add(c);
    }
    if (order.size() != kDeckSize) return stop(line, "the deck does not hold 52 cards"), std::nullopt;
    Deck deck{};
    for (std::size_t i = 0; i < order.size(); ++i) deck[i] = order[i];
    return deck;
  }

  // Game::start's answer, or nullopt after a fixture error.
  std::optional<std::variant<Game, ConfigError>> make_game(int line) {
    if (!preset_given_) return stop(line, "name the preset first"), std::nullopt;
    // Seat counts the engine refuses are left for Game::start to refuse.
    if (players_ < 1) return stop(line, "give players"), std::nullopt;
    if (players_ > kMaxSeats && !hands_.empty()) return stop(line, "at most 6 hands"), std::nullopt;
    if (!dealer_) return stop(line, "give the dealer"), std::nullopt;
    // A dealer outside the table is left for Game::start to refuse, when no
    // hands are listed (the deck cannot be built from hands without a dealer).
    if ((*dealer_ < 0 || *dealer_ >= players_) && !hands_.empty()) {
      return stop(line, "the dealer is not at the table"), std::nullopt;
    }
    const auto deck = build_deck(line);
    if (!deck) return std::nullopt;
    result_.preset = rules_.preset;
    result_.table_rules = rules_.table_rules;
    return Game::start(rules_, players_, *deck, *dealer_, first_.value_or(left_of(*dealer_, players_)));
  }

  bool start(int line) {
    start_attempted_ = true;
    auto started = make_game(line);
    if (!started) return false;
    if (auto* error = std::get_if<ConfigError>(&*started)) {
      stop(line, "the game did not start: " + error->field + ": " + error->message);
      return false;
    }
    game_ = std::get<Game>(std::move(*started));
    took_events(line);
    // The engine's own deal must hand out exactly the hands the fixture lists.
    for (const Event& e : batch_) {
      const auto* dealt = std::get_if<HandDealt>(&e);
      if (dealt == nullptr || deck_ || hands_.empty()) continue;
      CardSet listed;
      for (Card c : hands_[dealt->seat]) listed.add(c);
      if (listed != dealt->cards) {
        fail(line, "seat " + std::to_string(dealt->seat) + " was dealt " + to_string(dealt->cards) +
                       ", the fixture lists " + to_string(listed));
      }
    }
    return true;
  }

  void took_events(int line) {
    batch_ = game_->last_events();
    cursor_ = 0;
    ledger_.observe(batch_);
    for (const Event& e : batch_) {
      if (const auto* p = std::get_if<Penalty>(&e)) result_.penalties.insert(std::string(to_string(p->kind)));
    }
    if (auto broken = ledger_.check(*game_)) fail(line, "invariant broken: " + *broken);
  }

  void act(int line, std::string_view text, std::optional<std::string> refusal) {
    std::string error;
    const auto decision = parse_decision(text, error);
    if (!decision) return stop(line, error);
    ++result_.actions;
    const Game before = *game_;
    const auto refused = game_->apply(*decision);
    if (!refusal) {
      if (refused) {
        return stop(line, to_string(*decision) + " was refused: " + std::string(refusal_code_name(refused->code)) +
                              " (" + refused->message + ")");
      }
      return took_events(line);
    }
    if (!refused) return stop(line, to_string(*decision) + " was accepted, expected the refusal " + *refusal);
    const std::string code(refusal_code_name(refused->code));
    if (code != *refusal) fail(line, "refused with " + code + " (" + refused->message + "), expected " + *refusal);
    if (refused->message.empty()) fail(line, "the refusal has no sentence for a person");
    if (!GameInspector::same_state(before, *game_)) {
      return stop(line, "the refusal changed the game:\nbefore:\n" + GameInspector::describe(before) +
                            "\nafter:\n" + GameInspector::describe(*game_));
    }
    if (code == *refusal) result_.refusals.insert(code);
  }

  std::string batch_text() const {
    std::string out = "; the events were:";
    for (const Event& e : batch_) out += "\n    " + to_string(e);
    return out;
  }

  std::optional<Seat> seat_arg(int line, const std::string& s) {
    const auto seat = to_int(s);
    if (!seat || *seat < 0 || *seat >= game_->players()) {
      stop(line, "\"" + s + "\" is not a seat at the table");
      return std::nullopt;
    }
    return seat;
  }

  void expect(int line, std::string_view rest) {
    const Game& g = *game_;
    if (rest.starts_with(":")) {  // an event of the last decision, in order
      const std::string wanted(trim(rest.substr(1)));
      for (std::size_t i = cursor_; i < batch_.size(); ++i) {
        if (to_string(batch_[i]) == wanted) {
          cursor_ = i + 1;
          return;
        }
      }
      return fail(line, "no event \"" + wanted + "\" (after the ones already matched)" + batch_text());
    }
    if (rest.starts_with("no:")) {
      const std::string unwanted(trim(rest.substr(3)));
      for (const Event& e : batch_) {
        if (to_string(e).find(unwanted) != std::string::npos) {
          return fail(line, "an event contains \"" + unwanted + "\": " + to_string(e));
        }
      }
      return;
    }
    auto [key, args] = head(rest);
    std::vector<std::string> w = words(args);
    if (key == "hand" || key == "sets" || key == "barred" || key == "legal") {
      const auto split = before_colon(args);
      if (!split) return stop(line, "write \"expect " + key + " SEAT: ...\"");
      w = words(split->first);
      const std::optional<Seat> seat = w.empty() ? std::nullopt : seat_arg(line, w[0]);
      if (!seat) return stop(line, "expect " + key + " needs a seat");
      std::string error;
      if (key == "hand") {
        const auto cards = card_list(split->second, error);
        if (!cards) return stop(line, error);
        CardSet wanted;
        for (Card c : *cards) wanted.add(c);
        const CardSet actual = GameInspector::hand(g, *seat);
        if (actual != wanted) {
          fail(line, "seat " + std::to_string(*seat) + " holds [" + to_string(actual) + "], expected [" +
                         to_string(wanted) + "]");
        }
        return;
      }
      if (key == "sets") {
        std::string actual;
        for (const auto& set : g.sets(*seat)) {
          actual += (actual.empty() ? "" : " ") + std::string(rank_name(set.rank));
          if (set.outcome != SetOutcome::kScores) actual += "/" + std::string(to_string(set.outcome));
        }
        if (actual.empty()) actual = "-";
        std::string wanted;
        for (const std::string& s : words(split->second)) wanted += (wanted.empty() ? "" : " ") + s;
        if (actual != wanted) fail(line, "seat " + std::to_string(*seat) + "'s sets are " + actual + ", expected " + wanted);
        return;
      }
      if (key == "barred") {
        std::uint16_t wanted = 0;
        if (trim(split->second) != "-") {
          for (const std::string& s : words(split->second)) {
            const auto rank = parse_rank(s);
            if (!rank) return stop(line, "\"" + s + "\" is not a rank");
            wanted = static_cast<std::uint16_t>(wanted | (1U << *rank));
          }
        }
        if (g.barred_ranks(*seat) != wanted) {
          fail(line, "seat " + std::to_string(*seat) + " is barred from " + ranks_text(g.barred_ranks(*seat)) +
                         ", expected " + ranks_text(wanted));
        }
        return;
      }
      // legal SEAT has|lacks: DECISION
      if (w.size() != 2 || (w[1] != "has" && w[1] != "lacks")) return stop(line, "write \"expect legal SEAT has|lacks: DECISION\"");
      const auto decision = parse_decision(split->second, error);
      if (!decision) return stop(line, error);
      const bool has = g.legal(*seat).contains(*decision);
      if (has != (w[1] == "has")) {
        fail(line, "the legal decisions of seat " + std::to_string(*seat) + (has ? " include " : " lack ") +
                       to_string(*decision));
      }
      // contains() must agree with the list, and with the judge.
      bool listed = false;
      for (const Decision& d : g.legal(*seat).list()) listed = listed || d == *decision;
      if (listed != has) fail(line, "legal().contains and legal().list disagree on " + to_string(*decision));
      if (has != g.judge(*decision).proper()) {
        fail(line, "the judge " + std::string(has ? "does not call" : "calls") + " proper " + to_string(*decision) +
                       (has ? ", which is listed" : ", which is not listed"));
      }
      return;
    }
    const auto want_int = [&](std::size_t i) -> std::optional<int> {
      if (i >= w.size()) return std::nullopt;
      return to_int(w[i]);
    };
    if (key == "turn" || key == "to_act") {
      const auto seat = want_int(0);
      if (!seat || w.size() != 1) return stop(line, "write \"expect " + key + " SEAT\"");
      const Seat actual = key == "turn" ? g.turn() : g.to_act();
      if (g.over()) return fail(line, "the game is over");
      if (actual != *seat) fail(line, key + " is seat " + std::to_string(actual) + ", expected seat " + w[0]);
      return;
    }
    if (key == "phase") {
      const auto phase = w.size() == 1 ? phase_token(w[0]) : std::nullopt;
      if (!phase) return stop(line, "write \"expect phase ask|answer|over\"");
      if (g.phase() != *phase) fail(line, "the phase is " + std::to_string(static_cast<int>(g.phase())) + ", expected " + w[0]);
      return;
    }
    if (key == "hand_size" || key == "score" || key == "legal_count") {
      const auto seat = w.size() == 2 ? seat_arg(line, w[0]) : std::nullopt;
      const auto n = want_int(1);
      if (!seat || !n) return stop(line, "write \"expect " + key + " SEAT N\"");
      const int actual = key == "hand_size" ? g.hand_size(*seat)
                         : key == "score"   ? g.score(*seat)
                                            : g.legal(*seat).count();
      if (actual != *n) fail(line, key + " of seat " + w[0] + " is " + std::to_string(actual) + ", expected " + w[1]);
      return;
    }
    if (key == "stock") {
      const auto n = want_int(0);
      if (!n || w.size() != 1) return stop(line, "write \"expect stock N\"");
      if (g.stock_size() != *n) fail(line, "the stock holds " + std::to_string(g.stock_size()) + ", expected " + w[0]);
      return;
    }
    if (key == "status") {
      const auto seat = w.size() == 2 ? seat_arg(line, w[0]) : std::nullopt;
      if (!seat) return stop(line, "write \"expect status SEAT in|sitting_out|out\"");
      if (status_name(g.status(*seat)) != w[1]) {
        fail(line, "seat " + w[0] + " is " + std::string(status_name(g.status(*seat))) + ", expected " + w[1]);
      }
      return;
    }
    if (key == "misses") {
      const auto seat = w.size() == 2 ? seat_arg(line, w[0]) : std::nullopt;
      if (!seat || (w[1] != "yes" && w[1] != "no")) return stop(line, "write \"expect misses SEAT yes|no\"");
      if (g.misses_next_turn(*seat) != (w[1] == "yes")) {
        fail(line, "seat " + w[0] + (g.misses_next_turn(*seat) ? " misses" : " does not miss") + " its next turn");
      }
      return;
    }
    if (key == "pending") {
      const auto pending = g.pending_ask();
      if (w.size() == 1 && w[0] == "none") {
        if (pending) fail(line, "an ask is pending");
        return;
      }
      std::string error;
      const auto decision = parse_decision("ask " + std::string(args), error);
      if (!decision) return stop(line, "write \"expect pending SEAT TARGET RANK|CARD\" or \"expect pending none\"");
      if (!pending) return fail(line, "no ask is pending");
      const Decision actual = pending->card ? Decision{pending->seat, AskCard{pending->target, *pending->card}}
                                            : Decision{pending->seat, AskRank{pending->target, pending->rank}};
      if (actual != *decision) fail(line, "the pending ask is: " + to_string(actual));
      return;
    }
    if (key == "not") {
      if (w.size() != 1 || w[0] != "over") return stop(line, "write \"expect not over\"");
      if (g.over()) fail(line, "the game is over (" + std::string(to_string(*g.end_reason())) + ")");
      return;
    }
    if (key == "over") {
      // over REASON winners SEAT...
      if (w.size() < 3 || w[1] != "winners") return stop(line, "write \"expect over REASON winners SEAT...\"");
      if (!g.over()) return fail(line, "the game is not over");
      const std::string reason(to_string(*g.end_reason()));
      if (reason != w[0]) fail(line, "the game ended with " + reason + ", expected " + w[0]);
      std::uint8_t wanted = 0;
      for (std::size_t i = 2; i < w.size(); ++i) {
        const auto seat = seat_arg(line, w[i]);
        if (!seat) return;
        wanted = static_cast<std::uint8_t>(wanted | (1U << *seat));
      }
      if (g.winners() != wanted) {
        std::string actual;
        for (Seat s = 0; s < g.players(); ++s) {
          if ((g.winners() >> s) & 1U) actual += " " + std::to_string(s);
        }
        fail(line, "the winners are" + actual);
      }
      if (reason == w[0]) result_.end_reasons.insert(reason);
      return;
    }
    stop(line, "unknown expectation \"" + key + "\"");
  }

  ScenarioResult result_;
  bool stopped_ = false;
  int expectations_ = 0;
  Rules rules_;
  bool preset_given_ = false;
  int players_ = 0;
  std::optional<Seat> dealer_;
  std::optional<Seat> first_;
  std::map<Seat, std::vector<Card>> hands_;
  std::vector<Card> stock_;
  std::optional<std::vector<Card>> deck_;
  bool start_attempted_ = false;
  std::optional<Game> game_;
  std::vector<Event> batch_;
  std::size_t cursor_ = 0;
  Ledger ledger_;
};

}  // namespace

ScenarioResult run_scenario(std::string_view text) { return Runner().run(text); }

}  // namespace gofish::engine::test
