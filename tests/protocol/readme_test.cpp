// protocol/README.md is the reference clients are written from, so its
// examples are checked against the library: they cannot drift apart.
//
// ```json client   each message parses as a client message
// ```json server   each message parses as a server message and re-encodes to
//                  the same JSON value (nothing shown is missing or extra)
// ```hostile       "<code> <frame>" per line: the frame is refused with code
// ```session       the example session, checked message by message, and its
//                  deal rebuilt from the commitment, seed and contributions
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/game.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"
#include "fairness/deal_algorithm.hpp"
#include "protocol/messages.hpp"

using namespace gofish;
using namespace gofish::protocol;
using nlohmann::json;

namespace {

struct Block {
  std::string info;
  std::string text;
  int line = 0;  // where it starts in the file, for failure messages
};

std::string read_readme() {
  std::ifstream in(std::string(GOFISH_SOURCE_DIR) + "/protocol/README.md");
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<Block> fenced_blocks(const std::string& markdown) {
  std::vector<Block> out;
  std::istringstream in(markdown);
  std::string line;
  int number = 0;
  Block* open = nullptr;
  while (std::getline(in, line)) {
    ++number;
    if (line.starts_with("```")) {
      if (open != nullptr) {
        open = nullptr;
      } else {
        out.push_back(Block{line.substr(3), "", number + 1});
        open = &out.back();
      }
      continue;
    }
    if (open != nullptr) open->text += line + "\n";
  }
  CHECK(open == nullptr);
  return out;
}

// A block holding one JSON value is one message; otherwise one per line.
std::vector<std::string> messages_of(const Block& block) {
  if (!json::parse(block.text, nullptr, false).is_discarded()) return {block.text};
  std::vector<std::string> out;
  std::istringstream in(block.text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::optional<ClientMessage> client_message(const std::string& frame) {
  auto parsed = parse_client_message(frame);
  if (const auto* error = std::get_if<Error>(&parsed)) {
    FAIL_CHECK("not a valid client message (" << error_code_name(error->code) << ": " << error->message
                                              << "): " << frame);
    return std::nullopt;
  }
  return std::get<ClientMessage>(std::move(parsed));
}

// Parses and checks that the server would send exactly this JSON.
std::optional<ServerMessage> server_message(const std::string& frame) {
  auto parsed = parse_server_message(frame);
  if (const auto* error = std::get_if<std::string>(&parsed)) {
    FAIL_CHECK("not a valid server message (" << *error << "): " << frame);
    return std::nullopt;
  }
  const ServerMessage& message = std::get<ServerMessage>(parsed);
  CHECK_MESSAGE(json::parse(encode(message)) == json::parse(frame),
                "the server would send " << encode(message) << "\n  where the README shows " << frame);
  return std::get<ServerMessage>(std::move(parsed));
}

std::optional<RequestId> id_of(const ServerMessage& message) {
  return std::visit(
      [](const auto& m) -> std::optional<RequestId> {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, EventMessage> || std::is_same_v<M, Closing> || std::is_same_v<M, Turn> ||
                      std::is_same_v<M, RoomClosed> || std::is_same_v<M, RoomPaused> ||
                      std::is_same_v<M, RoomResumed> || std::is_same_v<M, DailyResult>) {
          return std::nullopt;
        } else {
          return m.id;
        }
      },
      message);
}

std::string id_text(const RequestId& id) {
  return std::visit([](const auto& v) { return json(v).dump(); }, id);
}

}  // namespace

TEST_CASE("README: every client example parses, and every client message has one") {
  std::set<std::string_view> types;
  int count = 0;
  for (const Block& block : fenced_blocks(read_readme())) {
    if (block.info != "json client") continue;
    for (const std::string& frame : messages_of(block)) {
      CAPTURE(block.line);
      if (auto m = client_message(frame)) {
        types.insert(message_type(m->body));
        ++count;
      }
    }
  }
  CHECK(count >= static_cast<int>(client_message_types().size()));
  for (std::string_view type : client_message_types()) {
    CAPTURE(type);
    CHECK(types.count(type) == 1);
  }
}

TEST_CASE("README: every server example is exactly what the server sends, and every message and event has one") {
  std::set<std::size_t> kinds;
  std::set<std::size_t> room_events;
  std::set<std::size_t> engine_events;
  std::set<std::size_t> class_kinds;
  for (const Block& block : fenced_blocks(read_readme())) {
    if (block.info != "json server") continue;
    for (const std::string& frame : messages_of(block)) {
      CAPTURE(block.line);
      // Class-event messages have a variant (and a parser) of their own.
      auto class_message = parse_event_server_message(frame);
      if (const auto* c = std::get_if<EventServerMessage>(&class_message)) {
        class_kinds.insert(c->index());
        CHECK_MESSAGE(json::parse(encode(*c)) == json::parse(frame),
                      "the server would send " << encode(*c) << "\n  where the README shows " << frame);
        continue;
      }
      const auto m = server_message(frame);
      if (!m) continue;
      kinds.insert(m->index());
      if (const auto* e = std::get_if<EventMessage>(&*m)) {
        room_events.insert(e->event.index());
        if (const auto* g = std::get_if<engine::Event>(&e->event)) engine_events.insert(g->index());
      }
      if (const auto* w = std::get_if<Welcome>(&*m)) {
        // The README documents the default limits: here those the parser
        // enforces; tests/server/welcome_limits_test.cpp checks the whole
        // welcome against the server's defaults.
        const ParseLimits defaults;
        CHECK(w->limits.max_frame_bytes == static_cast<std::int64_t>(defaults.max_frame_bytes));
        CHECK(w->limits.max_name_chars == defaults.max_name_chars);
        CHECK(w->limits.max_chat_chars == defaults.max_chat_chars);
        CHECK(w->limits.max_id_bytes == static_cast<std::int64_t>(defaults.max_id_bytes));
        CHECK(w->limits.min_turn_timer_seconds == defaults.min_turn_timer_seconds);
        CHECK(w->limits.max_turn_timer_seconds == defaults.max_turn_timer_seconds);
      }
    }
  }
  CHECK(kinds.size() == std::variant_size_v<ServerMessage>);
  CHECK(class_kinds.size() == std::variant_size_v<EventServerMessage>);
  CHECK(room_events.size() == std::variant_size_v<RoomEvent>);
  CHECK(engine_events.size() == std::variant_size_v<engine::Event>);
}

TEST_CASE("README: every hostile example is refused with the code it names") {
  int count = 0;
  for (const Block& block : fenced_blocks(read_readme())) {
    if (block.info != "hostile") continue;
    std::istringstream in(block.text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const auto space = line.find(' ');
      REQUIRE(space != std::string::npos);
      const std::string code = line.substr(0, space);
      const std::string frame = line.substr(line.find_first_not_of(' ', space));
      CAPTURE(frame);
      REQUIRE(parse_error_code(code));
      const auto parsed = parse_client_message(frame);
      REQUIRE(std::holds_alternative<Error>(parsed));
      CHECK(error_code_name(std::get<Error>(parsed).code) == code);
      ++count;
    }
  }
  CHECK(count >= 20);
}

TEST_CASE("README: the example session is consistent") {
  struct Client {
    std::optional<std::int64_t> last_v;  // the last room version it saw
    std::optional<engine::Seat> seat;
    std::set<std::string> open_requests;    // ids sent and not yet answered
    std::optional<std::string> commitment;  // the last deal commitment it saw (next_deal, deal_committed)
    std::map<std::string, std::pair<std::string, engine::Seat>> contributing;  // request id -> (commitment, seat)
    bool saw_game_over = false;
    std::vector<std::string> game_events;  // each engine event it was sent, encoded
  };
  std::map<std::string, Client> clients;
  // The deal is fair, and shown so: the commitment the clients saw when the
  // game started, each seat's contribution to a commitment as its client
  // sent it, and the commitments announced after a game over.
  std::optional<std::string> game_commitment;
  std::map<std::pair<std::string, engine::Seat>, fairness::Bytes> contributed;  // (commitment, seat) -> value
  std::vector<std::string> committed_after_game_over;
  std::optional<TranscriptMessage> transcript;
  int messages = 0;
  int events = 0;
  // Every turn a client got, with how many decisions (asks: the game shown
  // is classic) had been made before it.
  struct SeenTurn {
    std::string client;
    Turn turn;
    std::size_t decisions = 0;
  };
  std::vector<SeenTurn> turns_seen;
  int turns = 0;
  std::size_t asks = 0;
  std::int64_t last_ask_v = 0;
  for (const Block& block : fenced_blocks(read_readme())) {
    if (block.info != "session") continue;
    std::istringstream in(block.text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line.starts_with("#")) continue;
      CAPTURE(line);
      const auto space = line.find(' ');
      REQUIRE(space != std::string::npos);
      const std::string marker = line.substr(0, space);
      const std::string frame = line.substr(space + 1);
      ++messages;
      if (marker.ends_with(">")) {
        Client& c = clients[marker.substr(0, marker.size() - 1)];
        const auto m = client_message(frame);
        if (!m) continue;
        if (m->id) CHECK(c.open_requests.insert(id_text(*m->id)).second);
        if (const auto* resume = std::get_if<Resume>(&m->body)) {
          // a client resumes from exactly what it last saw
          CHECK(resume->last_v == c.last_v);
        }
        if (const auto* contribute = std::get_if<Contribute>(&m->body)) {
          // a seated client contributes to the commitment it was shown, once
          REQUIRE(c.seat);
          REQUIRE(c.commitment);
          const auto value = fairness::from_hex(contribute->value);
          REQUIRE(value);
          CHECK(fairness::valid_contribution(*value));
          REQUIRE(m->id);
          CHECK(contributed.emplace(std::pair(*c.commitment, *c.seat), *value).second);
          c.contributing.emplace(id_text(*m->id), std::pair(*c.commitment, *c.seat));
        }
        continue;
      }
      REQUIRE(marker.starts_with("<"));
      const auto m = server_message(frame);
      if (!m) continue;
      std::istringstream recipients(marker.substr(1));
      std::string name;
      while (std::getline(recipients, name, ',')) {
        CAPTURE(name);
        Client& c = clients[name];
        if (const auto id = id_of(*m)) {
          CHECK(c.open_requests.erase(id_text(*id)) == 1);
          // a contribution counts once the room took it (`ok`)
          if (const auto it = c.contributing.find(id_text(*id)); it != c.contributing.end()) {
            if (!std::holds_alternative<Ok>(*m)) contributed.erase(it->second);
            c.contributing.erase(it);
          }
        }
        if (const auto* created = std::get_if<Created>(&*m)) c.seat = created->seat;
        if (const auto* joined = std::get_if<Joined>(&*m)) c.seat = joined->seat;
        if (const auto* snapshot = std::get_if<RoomSnapshot>(&*m)) {
          c.last_v = snapshot->v;
          CHECK(snapshot->you == c.seat);
          if (snapshot->next_deal) c.commitment = snapshot->next_deal->commitment;
        }
        if (const auto* event = std::get_if<EventMessage>(&*m)) {
          ++events;
          REQUIRE(c.last_v);
          CHECK(event->v == *c.last_v + 1);  // gapless, per client
          c.last_v = event->v;
          // private events reach their owner only
          if (const auto* g = std::get_if<engine::Event>(&event->event)) {
            if (const auto* drew = std::get_if<engine::Drew>(g)) CHECK(c.seat == drew->seat);
            if (const auto* dealt = std::get_if<engine::HandDealt>(g)) CHECK(c.seat == dealt->seat);
            if (std::holds_alternative<engine::GameOver>(*g)) c.saw_game_over = true;
            c.game_events.push_back(encode(EventMessage{0, *g}));
          }
          if (std::holds_alternative<NewGame>(event->event)) {
            // every client was shown the commitment the game is dealt from
            REQUIRE(c.commitment);
            if (game_commitment) CHECK(*game_commitment == *c.commitment);
            game_commitment = c.commitment;
          }
          if (const auto* committed = std::get_if<DealCommitted>(&event->event)) {
            c.commitment = committed->commitment;
            if (c.saw_game_over) committed_after_game_over.push_back(committed->commitment);
          }
        }
        if (const auto* t = std::get_if<TranscriptMessage>(&*m)) transcript = *t;
        if (const auto* turn = std::get_if<Turn>(&*m)) {
          ++turns;
          // a turn closes what the client has seen, and only the seat to
          // act is told what it may do
          REQUIRE(c.last_v);
          CHECK(turn->v == *c.last_v);
          if (turn->legal) CHECK(turn->seat == c.seat);
          turns_seen.push_back(SeenTurn{name, *turn, asks});
        }
        if (const auto* event = std::get_if<EventMessage>(&*m)) {
          if (const auto* g = std::get_if<engine::Event>(&event->event)) {
            if (std::holds_alternative<engine::AskedRank>(*g) && event->v > last_ask_v) {
              last_ask_v = event->v;
              ++asks;
            }
          }
        }
      }
    }
  }
  CHECK(messages > 50);
  CHECK(events > 30);
  for (const auto& [name, c] : clients) {
    CAPTURE(name);
    CHECK(c.open_requests.empty());  // every request was answered
  }
  // The game shown is a real one: its transcript replays to its result.
  REQUIRE(transcript);
  CHECK_FALSE(engine::replay_check(transcript->transcript));
  CHECK(transcript->transcript.actions.size() >= 5);
  // Its deal is the one gofish-deal/1 makes from the seed committed to
  // before the game and the values the clients contributed to it.
  REQUIRE(transcript->fairness);
  const DealFairness& fair = *transcript->fairness;
  CHECK(fair.algorithm == kDealAlgorithm);
  CHECK_FALSE(fair.shared);
  REQUIRE(game_commitment);
  CHECK(fair.commitment == *game_commitment);
  REQUIRE(fair.seed);
  const auto seed = fairness::from_hex(*fair.seed);
  REQUIRE(seed);
  CHECK(fairness::to_hex(fairness::commitment_of(*seed)) == fair.commitment);
  REQUIRE(fair.contributions.size() == static_cast<std::size_t>(transcript->transcript.players));
  fairness::Contributions contributions;
  for (engine::Seat seat = 0; seat < transcript->transcript.players; ++seat) {
    CAPTURE(seat);
    const auto& shown = fair.contributions[static_cast<std::size_t>(seat)];
    const auto sent = contributed.find(std::pair(fair.commitment, seat));
    REQUIRE(shown.has_value() == (sent != contributed.end()));
    if (!shown) {
      contributions.emplace_back();
      continue;
    }
    const auto value = fairness::from_hex(*shown);
    REQUIRE(value);
    CHECK(*value == sent->second);
    contributions.emplace_back(*value);
  }
  CHECK(contributed.size() >= 2);  // both humans contributed to something
  const fairness::FairDeal deal =
      fairness::deal(*seed, contributions, transcript->transcript.rules, transcript->transcript.players);
  CHECK(deal.deck == transcript->transcript.deck);
  CHECK(deal.dealer == transcript->transcript.dealer);
  CHECK(deal.first == transcript->transcript.first);
  // Each seat was sent every event the engine emitted on that deal, as its
  // own view shows it: its own cards, and the others' as counts.
  {
    const engine::Transcript& played = transcript->transcript;
    auto started = engine::Game::start(played.rules, played.players, played.deck, played.dealer, played.first);
    REQUIRE(std::holds_alternative<engine::Game>(started));
    auto& game = std::get<engine::Game>(started);
    std::vector<engine::Event> emitted = game.last_events();
    for (const engine::Decision& decision : played.actions) {
      REQUIRE_FALSE(game.apply(decision));
      emitted.insert(emitted.end(), game.last_events().begin(), game.last_events().end());
    }
    for (const auto& [name, c] : clients) {
      CAPTURE(name);
      REQUIRE(c.seat);
      std::vector<std::string> expected;
      for (const engine::Event& e : emitted) {
        expected.push_back(encode(EventMessage{0, engine::event_for(e, engine::Viewer::of(*c.seat))}));
      }
      CHECK(c.game_events == expected);
    }
  }
  // After the game, the room committed to the next deal's seed: a new one.
  REQUIRE_FALSE(committed_after_game_over.empty());
  for (const std::string& next : committed_after_game_over) CHECK(next != fair.commitment);
  // Every turn names the seat the engine waits for at that point, and the
  // legal decisions it shows are the engine's own.
  CHECK(turns >= 10);
  const engine::Transcript& t = transcript->transcript;
  for (const SeenTurn& seen : turns_seen) {
    CAPTURE(seen.client);
    CAPTURE(seen.turn.v);
    auto started = engine::Game::start(t.rules, t.players, t.deck, t.dealer, t.first);
    REQUIRE(std::holds_alternative<engine::Game>(started));
    auto& game = std::get<engine::Game>(started);
    REQUIRE(seen.decisions <= t.actions.size());
    for (std::size_t i = 0; i < seen.decisions; ++i) REQUIRE_FALSE(game.apply(t.actions[i]));
    if (game.over()) {
      CHECK_FALSE(seen.turn.seat);
      CHECK_FALSE(seen.turn.legal);
      continue;
    }
    REQUIRE(seen.turn.seat);
    CHECK(*seen.turn.seat == game.to_act());
    if (seen.turn.legal) CHECK(*seen.turn.legal == game.legal(game.to_act()));
  }
}

TEST_CASE("README: names every error code, close reason and message type") {
  const std::string readme = read_readme();
  for (ErrorCode code : all_error_codes()) {
    CAPTURE(error_code_name(code));
    CHECK(readme.find("`" + std::string(error_code_name(code)) + "`") != std::string::npos);
  }
  for (CloseReason reason : all_close_reasons()) {
    CAPTURE(close_reason_name(reason));
    CHECK(readme.find("| " + std::to_string(close_code(reason)) + " | `" + std::string(close_reason_name(reason)) +
                      "` |") != std::string::npos);
  }
  for (std::string_view type : client_message_types()) {
    CAPTURE(type);
    CHECK(readme.find("### " + std::string(type) + "\n") != std::string::npos);
  }
}
