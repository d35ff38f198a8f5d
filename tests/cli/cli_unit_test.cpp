// The terminal client without the network: addresses and invite links,
// command parsing, hands, narration, and the view a remote bot decides from.
#include <doctest/doctest.h>

#include <string>
#include <variant>

#include "clients/cli/address.hpp"
#include "clients/cli/class_console.hpp"
#include "clients/cli/commands.hpp"
#include "clients/cli/narrate.hpp"
#include "clients/cli/pacing.hpp"
#include "clients/cli/remote_bot.hpp"
#include "clients/cli/table.hpp"
#include "engine/game.hpp"
#include "engine/setup.hpp"

namespace gofish::cli {
namespace {

engine::Card card(std::string_view text) { return *engine::parse_card(text); }

engine::CardSet cards(std::initializer_list<std::string_view> texts) {
  engine::CardSet set;
  for (const auto text : texts) set.add(card(text));
  return set;
}

Command command(std::string_view line) {
  auto parsed = parse_command(line);
  REQUIRE(std::holds_alternative<Command>(parsed));
  return std::get<Command>(parsed);
}

// A waiting room of `names.size()` seats as `you` sees it.
Table room(const engine::Rules& rules, std::vector<std::string> names, std::optional<engine::Seat> you) {
  protocol::RoomSnapshot snapshot;
  snapshot.code = "K7QXM";
  snapshot.settings.rules = rules;
  snapshot.settings.seats = static_cast<int>(names.size());
  for (auto& name : names) {
    protocol::SeatInfo seat;
    seat.occupant = protocol::Occupant::kHuman;
    seat.name = name;
    seat.connected = true;
    snapshot.seats.push_back(seat);
  }
  snapshot.you = you;
  Table table;
  table.apply_snapshot(snapshot);
  return table;
}

}  // namespace

TEST_CASE("server addresses and invite links") {
  const auto plain = std::get<ServerAddress>(parse_server_address("ws://127.0.0.1:8080"));
  CHECK(plain == ServerAddress{"127.0.0.1", "8080", std::nullopt, false});
  CHECK(server_url(plain) == "ws://127.0.0.1:8080");
  CHECK(invite_url(plain, "K7QXM") == "http://127.0.0.1:8080/r/K7QXM");
  CHECK(std::get<ServerAddress>(parse_server_address("ws://fish.example.org:9000/ws")).host == "fish.example.org");
  CHECK(std::get<ServerAddress>(parse_server_address("localhost:1234")).port == "1234");
  CHECK(std::get<ServerAddress>(parse_server_address("http://fish.example.org")).port == "8080");
  const auto invite = std::get<ServerAddress>(parse_server_address("http://127.0.0.1:8080/r/k7qxm"));
  CHECK(invite.invite_code == "K7QXM");
  CHECK(invite.port == "8080");
  // TLS: wss:// and https:// invite links, 443 unless a port is given.
  const auto secure = std::get<ServerAddress>(parse_server_address("wss://fish.example.org"));
  CHECK(secure == ServerAddress{"fish.example.org", "443", std::nullopt, true});
  CHECK(server_url(secure) == "wss://fish.example.org:443");
  CHECK(invite_url(secure, "K7QXM") == "https://fish.example.org:443/r/K7QXM");
  const auto secure_invite = std::get<ServerAddress>(parse_server_address("HTTPS://127.0.0.1:8443/r/k7qxm/"));
  CHECK(secure_invite == ServerAddress{"127.0.0.1", "8443", std::string("K7QXM"), true});
  CHECK(std::get<ServerAddress>(parse_server_address("wss://fish.example.org:9443/ws")).port == "9443");
  CHECK(!std::get<ServerAddress>(parse_server_address("ws://fish.example.org")).tls);
  // IPv6 addresses in brackets.
  const auto v6 = std::get<ServerAddress>(parse_server_address("wss://[::1]:8443"));
  CHECK(v6 == ServerAddress{"::1", "8443", std::nullopt, true});
  CHECK(server_url(v6) == "wss://[::1]:8443");
  CHECK(host_and_port(v6) == "[::1]:8443");
  CHECK(std::get<ServerAddress>(parse_server_address("[::1]")).port == "8080");
  CHECK(std::holds_alternative<std::string>(parse_server_address("ws://[::1")));
  CHECK(std::holds_alternative<std::string>(parse_server_address("ws://[::1]x:80")));
  CHECK(std::holds_alternative<std::string>(parse_server_address("http://host:8080/r/K0QXM")));
  CHECK(std::holds_alternative<std::string>(parse_server_address("ws://host:99999")));
  CHECK(std::holds_alternative<std::string>(parse_server_address("ftp://host")));
  CHECK(std::holds_alternative<std::string>(parse_server_address("http://host:8080/elsewhere")));
}

TEST_CASE("commands and their short forms") {
  CHECK(command("ask 2 9") == Command{CommandKind::kAsk, "2", "9"});
  CHECK(command("a hard bot queens") == Command{CommandKind::kAsk, "hard bot", "queens"});
  CHECK(command("  h ").kind == CommandKind::kHand);
  CHECK(command("t").kind == CommandKind::kTable);
  CHECK(command("LOG").kind == CommandKind::kLog);
  CHECK(command("r").kind == CommandKind::kRules);
  CHECK(command("say nice one") == Command{CommandKind::kSay, "", "nice one"});
  CHECK(command("m").kind == CommandKind::kRematch);
  CHECK(command("?").kind == CommandKind::kHelp);
  CHECK(command("q").kind == CommandKind::kQuit);
  CHECK(command("answer GIVE") == Command{CommandKind::kAnswer, "", "give"});
  CHECK(std::get<std::string>(parse_command("fish")).find("help") != std::string::npos);
  CHECK(std::get<std::string>(parse_command("ask bob")).find("ask <player> <rank>") != std::string::npos);
  CHECK(std::holds_alternative<std::string>(parse_command("answer maybe")));
  CHECK(help_lines().size() == 13);
}

TEST_CASE("players are found by seat number, name or the start of a name") {
  const Table table = room(*engine::preset("classic"), {"Ann", "Bob", "Hard bot"}, 0);
  CHECK(std::get<engine::Seat>(resolve_player("2", table)) == 1);
  CHECK(std::get<engine::Seat>(resolve_player("hard bot", table)) == 2);
  CHECK(std::get<engine::Seat>(resolve_player("BO", table)) == 1);
  CHECK(std::get<std::string>(resolve_player("7", table)) == "There is no seat 7. Players: Bob (2), Hard bot (3).");
  CHECK(std::get<std::string>(resolve_player("zed", table)).starts_with("Nobody here is called 'zed'."));
  const auto ask = std::get<protocol::Ask>(resolve_ask(command("ask bob nines"), table));
  CHECK(ask.target == 1);
  CHECK(std::get<engine::Rank>(ask.what) == *engine::parse_rank("9"));
  CHECK(std::get<engine::Rank>(std::get<protocol::Ask>(resolve_ask(command("a 3 q"), table)).what) ==
        *engine::parse_rank("Q"));
  CHECK(std::get<std::string>(resolve_ask(command("ask bob 11"), table)).starts_with("'11' is not a rank."));
  const Table cards_table = room(*engine::preset("specific-card"), {"Ann", "Bob"}, 0);
  CHECK(std::get<engine::Card>(std::get<protocol::Ask>(resolve_ask(command("ask bob qh"), cards_table)).what) ==
        card("QH"));
}

TEST_CASE("a class's teacher types commands, and pupils are found by number or name") {
  const auto parsed = [](std::string_view line) {
    auto result = parse_class_command(line);
    REQUIRE(std::holds_alternative<ClassCommand>(result));
    return std::get<ClassCommand>(result);
  };
  CHECK(parsed("seat") == ClassCommand{ClassCommandKind::kSeat, "", 0});
  CHECK(parsed(" GO ") == ClassCommand{ClassCommandKind::kStart, "", 0});
  CHECK(parsed("move Ann Lee 2") == ClassCommand{ClassCommandKind::kMove, "Ann Lee", 2});
  CHECK(parsed("f 3") == ClassCommand{ClassCommandKind::kFree, "3", 0});
  CHECK(std::get<std::string>(parse_class_command("move ann")).find("move <pupil> <table>") != std::string::npos);
  CHECK(std::get<std::string>(parse_class_command("move ann 0")).find("move <pupil> <table>") != std::string::npos);
  CHECK(std::get<std::string>(parse_class_command("free")).find("free <pupil>") != std::string::npos);
  CHECK(std::get<std::string>(parse_class_command("ask bob 9")).starts_with("'ask' is not a command."));
  CHECK(class_help_lines().size() == 17);
  CHECK(parsed("remove Ann Lee") == ClassCommand{ClassCommandKind::kRemove, "Ann Lee", 0});
  CHECK(parsed("rm 4") == ClassCommand{ClassCommandKind::kRemove, "4", 0});
  CHECK(parsed("bot ann") == ClassCommand{ClassCommandKind::kBot, "ann", 0});
  CHECK(parsed("b 2") == ClassCommand{ClassCommandKind::kBot, "2", 0});
  CHECK(parsed("late OFF") == ClassCommand{ClassCommandKind::kLate, "off", 0});
  CHECK(parsed("l on") == ClassCommand{ClassCommandKind::kLate, "on", 0});
  CHECK(std::get<std::string>(parse_class_command("remove")).find("remove <pupil>") != std::string::npos);
  CHECK(std::get<std::string>(parse_class_command("bot")).find("bot <pupil>") != std::string::npos);
  CHECK(std::get<std::string>(parse_class_command("late")).find("late on") != std::string::npos);
  CHECK(std::get<std::string>(parse_class_command("late maybe")).find("late on") != std::string::npos);
  CHECK(parsed("message Five minutes left") == ClassCommand{ClassCommandKind::kMessage, "Five minutes left", 0});
  CHECK(parsed("chat OFF") == ClassCommand{ClassCommandKind::kChat, "off", 0});
  CHECK(std::get<std::string>(parse_class_command("chat loud")).find("chat off") != std::string::npos);
  CHECK(parsed("r") == ClassCommand{ClassCommandKind::kResults, "", 0});

  protocol::EventState state;
  state.pupils = {{0, "Ann", true, true, std::nullopt, std::nullopt}, {1, "Anna", true, true, std::nullopt, std::nullopt},
                  {2, "Ben", false, false, std::nullopt, std::nullopt}};
  CHECK(std::get<int>(resolve_pupil("2", state)) == 1);
  CHECK(std::get<int>(resolve_pupil("ann", state)) == 0);
  CHECK(std::get<int>(resolve_pupil("b", state)) == 2);
  CHECK(std::get<std::string>(resolve_pupil("an", state)).find("could be several pupils") != std::string::npos);
  CHECK(std::get<std::string>(resolve_pupil("9", state)).starts_with("There is no pupil 9"));
}

TEST_CASE("the teacher's console: the whole class, then what changed") {
  protocol::EventState before;
  before.code = "K7QXM2";
  before.name = "Class 3B";
  before.settings.rounds = 2;
  before.pupils = {{0, "Ann", true, true, std::nullopt, std::nullopt}, {1, "Ben", false, false, std::nullopt, std::nullopt}};
  const auto lines = class_lines(before);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "Class Class 3B (code K7QXM2): waiting for the first round, round 0 of 2.");
  CHECK(lines[1] == "Pupils: 1 joined, 1 connected.");
  CHECK(lines[2] == "  1. Ann not seated; 2. Ben (not joined)");

  protocol::EventState after = before;
  after.state = protocol::EventPhase::kPlaying;
  after.round = 1;
  after.pupils[1].claimed = true;
  after.pupils[1].connected = true;
  after.pupils[0].connected = false;
  protocol::EventTable table;
  table.room = "ABCDE";
  table.state = protocol::RoomState::kPlaying;
  table.turn = 1;
  table.pond = 20;
  protocol::EventTableSeat ann{protocol::Occupant::kHuman, "Ann", 0, std::nullopt, false, true, 5, 1};
  protocol::EventTableSeat bot{protocol::Occupant::kBot, "Easy bot", std::nullopt, engine::BotLevel::kEasy, true,
                               false, 4, 0};
  table.seats = {ann, bot};
  after.tables = {table};
  CHECK(class_changes(before, after) ==
        std::vector<std::string>{"Ann lost the connection.", "Ben joined.", "Round 1 started at 1 table."});
  const auto shown = class_lines(after);
  CHECK(shown[3] == "Table 1  room ABCDE  playing  pond 20  needs help: 1 pupil away");
  CHECK(shown[4] == "    Ann       5 cards  1 set  AWAY: a bot plays for them");
  CHECK(shown[5] == "  > Easy bot  4 cards  0 sets  (bot)");

  protocol::EventState done = after;
  done.tables[0].state = protocol::RoomState::kOver;
  done.state = protocol::EventPhase::kOpen;
  CHECK(class_changes(after, done) ==
        std::vector<std::string>{"Table 1 finished: Ann 1 set, Easy bot 0 sets.",
                                 "Round 1 is over. 'seat' and 'start' begin the next."});
  done.state = protocol::EventPhase::kClosed;
  CHECK(class_changes(after, done).back() == "The class is over: every round has been played.");
}

TEST_CASE("a hand is sorted and grouped by rank, suits named") {
  const auto lines = hand_lines(cards({"KH", "2S", "9H", "9C"}), Style{false});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "  2  x1  2♠ spades");
  CHECK(lines[1] == "  9  x2  9♣ clubs 9♥ hearts");
  CHECK(lines[2] == "  K  x1  K♥ hearts");
  CHECK(hand_lines(cards({"10D"}), Style{true})[0] == "  10 x1  \x1b[31m10♦\x1b[0m diamonds");
  CHECK(hand_lines(engine::CardSet{}, Style{false})[0] == "  (no cards)");
}

TEST_CASE("events in plain words") {
  Table table = room(*engine::preset("classic"), {"Ann", "Bob", "Cy"}, 0);
  const auto say = [&](std::int64_t v, protocol::RoomEvent event) {
    REQUIRE(table.apply(v, event));
    return narrate(event, table);
  };
  CHECK(say(1, protocol::NewGame{1, {}}) == "Game 1 begins!");
  CHECK(say(2, engine::Event{engine::GameStarted{3, 1, 0, 37}}) ==
        "Bob dealt the cards. 37 left in the stock. You go first.");
  CHECK(say(3, engine::Event{engine::HandDealt{0, cards({"7C", "9C", "9D", "KS", "AS"})}}) == "You got five cards.");
  CHECK(say(4, engine::Event{engine::AskedRank{0, 1, *engine::parse_rank("7")}}) == "You asked Bob for sevens.");
  CHECK(say(5, engine::Event{engine::GoFish{1, 0, false}}) == "Go fish! Bob has no sevens.");
  CHECK(say(6, engine::Event{engine::Drew{0, card("4H"), engine::DrawCause::kFish}}) == "You drew the four of hearts.");
  CHECK(say(7, engine::Event{engine::TurnPassed{0, 1}}) == "It's Bob's turn.");
  CHECK(say(8, engine::Event{engine::AskedRank{1, 0, *engine::parse_rank("9")}}) == "Bob asked you for nines.");
  CHECK(say(9, engine::Event{engine::Gave{0, 1, cards({"9C", "9D"})}}) == "You gave Bob two nines.");
  CHECK(say(10, engine::Event{engine::DrewHidden{2, engine::DrawCause::kEmptyHand}}) ==
        "Cy drew a card (an empty hand draws).");
  CHECK(say(11, engine::Event{engine::SetLaid{1, 7, cards({"9C", "9D", "9H", "9S"}), engine::SetOutcome::kScores,
                                              false}}) == "Bob made a book of nines!");
  CHECK(say(12, protocol::ConnectionChanged{2, false}) == "Cy lost the connection.");
  CHECK(say(13, protocol::RematchVote{0, {0}}) == "You want a rematch.");
  CHECK(narrate(protocol::ChatPosted{std::nullopt, "Zoe", "", "good_luck"}, table) == "Zoe: Good luck!");
  CHECK(narrate(protocol::ChatPosted{2, "Cy", "nice one", ""}, table) == "Cy: nice one");
  CHECK(narrate(protocol::ChatModeChanged{protocol::ChatMode::kOff}, table) == "Chat is off now.");
  CHECK(say(14, engine::Event{engine::GameOver{engine::EndReason::kStockOut, 3, {}, {0, 1, 0}, 0b010}}) ==
        "Game over! Bob wins!");
  CHECK(!table.apply(14, protocol::SpectatorsChanged{1}));  // seen already
  CHECK(winners_text(0b011, table) == "A tie: you and Bob share the win.");
  CHECK(table.seats()[2].connected == false);
}

TEST_CASE("the turn line lists what may be asked") {
  Table table = room(*engine::preset("classic"), {"Ann", "Bob", "Cy"}, 1);
  table.apply_game_event(engine::GameStarted{3, 0, 1, 37});
  table.apply_game_event(engine::HandDealt{1, cards({"2S", "9C", "9H", "KD"})});
  REQUIRE(table.your_move());
  CHECK(your_turn_text(table) == "Your turn: ask Ann (seat 1) or Cy (seat 3) for a rank you hold: 2, 9, K.");

  Table card_table = room(*engine::preset("specific-card"), {"Ann", "Bob"}, 0);
  card_table.apply_game_event(engine::GameStarted{2, 1, 0, 38});
  card_table.apply_game_event(engine::HandDealt{0, cards({"9C", "9H"})});
  CHECK(your_turn_text(card_table) ==
        "Your turn: ask Bob (seat 2) for a card you lack of a rank you hold, e.g. 'ask 2 9D'.");
}

TEST_CASE("the summary line names the winners the server announced") {
  GameResult result{2, {"Ann", "Bob", "Cy"}, engine::GameOver{engine::EndReason::kHandEmpty, 3, {}, {2, 5, 5}, 0b110}};
  CHECK(result_line(result) == "Game 2: winners: Bob, Cy (scores: Ann 2, Bob 5, Cy 5); a hand ran empty.");
  result.over.winners = 0b001;
  CHECK(result_line(result).starts_with("Game 2: winner: Ann (scores"));
}

// The view a remote bot decides from is rebuilt from its seat's messages
// alone; it must equal the engine's own view of that seat after every event
// of whole games, under every preset and table size, and the bot's decision
// must be legal.
TEST_CASE("the view rebuilt from a seat's events equals the engine's view of that seat") {
  engine::Rng rng(20261125);
  int games = 0;
  for (const auto preset_name : engine::preset_names()) {
    const engine::Rules rules = *engine::preset(preset_name);
    for (int players = 2; players <= engine::kMaxSeats; ++players) {
      if (engine::validate(rules, players)) continue;
      for (int round = 0; round < 3; ++round) {
        const engine::DealSetup setup = engine::prepare_deal(rules, players, rng);
        auto started = engine::Game::start(rules, players, setup.deck, setup.dealer, setup.first);
        REQUIRE(std::holds_alternative<engine::Game>(started));
        engine::Game game = std::get<engine::Game>(started);
        std::vector<Table> tables;
        std::vector<RemoteBot> bots;
        for (engine::Seat s = 0; s < players; ++s) {
          tables.push_back(room(rules, std::vector<std::string>(static_cast<std::size_t>(players), "P"), s));
          bots.emplace_back(engine::BotLevel::kHard, 7 + static_cast<std::uint64_t>(s));
        }
        tables.push_back(room(rules, std::vector<std::string>(static_cast<std::size_t>(players), "P"), std::nullopt));
        const auto feed = [&] {
          for (const engine::Event& event : game.last_events()) {
            for (engine::Seat s = 0; s <= players; ++s) {
              const auto viewer = s < players ? engine::Viewer::of(s) : engine::Viewer::spectator();
              const engine::Event seen = engine::event_for(event, viewer);
              Table& table = tables[static_cast<std::size_t>(s)];
              table.apply_game_event(seen);
              if (s < players) bots[static_cast<std::size_t>(s)].observe(seen, table);
            }
          }
          for (engine::Seat s = 0; s <= players; ++s) {
            const auto viewer = s < players ? engine::Viewer::of(s) : engine::Viewer::spectator();
            REQUIRE(tables[static_cast<std::size_t>(s)].view() == engine::view_of(game, viewer));
          }
        };
        feed();
        while (!game.over()) {
          const engine::Seat seat = game.to_act();
          const auto decision = bots[static_cast<std::size_t>(seat)].decide(tables[static_cast<std::size_t>(seat)]);
          REQUIRE(decision.has_value());
          REQUIRE(game.legal(seat).contains(*decision));
          REQUIRE(!game.apply(*decision));
          feed();
        }
        CHECK(tables[0].result().has_value());
        ++games;
      }
    }
  }
  CHECK(games > 50);
}

namespace {

// How many messages `bucket` lets out at `at`, at once.
int sendable(TokenBucket& bucket, TokenBucket::Clock::time_point at) {
  int sent = 0;
  while (sent < 1000 && bucket.try_take(at)) ++sent;
  return sent;
}

}  // namespace

TEST_CASE("pacing: the client keeps the rate and burst the welcome asks of it") {
  using namespace std::chrono_literals;
  const auto t0 = TokenBucket::Clock::now();
  protocol::WelcomeLimits limits;
  limits.messages_per_second = 10;
  limits.message_burst = 20;
  limits.pace_messages_per_second = 4;
  limits.pace_message_burst = 3;
  TokenBucket paced = pacing_bucket(limits, t0);
  CHECK(sendable(paced, t0) == 3);  // the pace's burst, not the server's 20
  CHECK(sendable(paced, t0 + 240ms) == 0);
  CHECK(sendable(paced, t0 + 251ms) == 1);  // one every 250 ms: 4 a second, not 10
  CHECK(sendable(paced, t0 + 10s) == 3);

  // A server from before the pace fields: half its rate and burst.
  limits.pace_messages_per_second = 0;
  limits.pace_message_burst = 0;
  TokenBucket older = pacing_bucket(limits, t0);
  CHECK(sendable(older, t0) == 10);
  CHECK(sendable(older, t0 + 190ms) == 0);
  CHECK(sendable(older, t0 + 201ms) == 1);  // 5 a second
  limits.message_burst = 1;
  TokenBucket tiny = pacing_bucket(limits, t0);
  CHECK(sendable(tiny, t0) == 1);
}

}  // namespace gofish::cli
