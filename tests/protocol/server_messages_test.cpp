// Server messages: the spelling of every engine event and its twin, hiding
// as a property of the encoded stream, error codes, and encode -> parse ->
// encode round trips over random games of every preset.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <functional>
#include <set>
#include <string>

#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/setup.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"
#include "protocol/game_json.hpp"
#include "protocol/messages.hpp"
#include "protocol/text.hpp"

using namespace gofish;
using namespace gofish::protocol;
using nlohmann::json;

namespace {

engine::Card card(std::string_view text) { return *engine::parse_card(text); }
engine::Rank rank(std::string_view text) { return *engine::parse_rank(text); }
engine::CardSet cards(std::initializer_list<std::string_view> texts) {
  engine::CardSet out;
  for (auto t : texts) out.add(card(t));
  return out;
}

std::string encoded(const engine::Event& e) { return event_to_json(e).dump(); }

// A seat's legal decisions with every part: asks, answers and declarations.
// Table rules: seat 1 was asked and holds what was asked for, so its "Go
// fish" is false; it may also ask out of turn.
engine::ImproperDecisions improper_sample() {
  engine::ImproperDecisions improper;
  improper.decisions.seat = 1;
  improper.decisions.targets = 0b101;
  improper.decisions.ranks = static_cast<std::uint16_t>(0x1FFF);
  improper.decisions.go_fish = true;
  improper.ask_penalty = engine::PenaltyKind::kAskedOutOfTurn;
  return improper;
}

engine::LegalDecisions legal_sample() {
  engine::LegalDecisions legal;
  legal.seat = 2;
  legal.targets = 0b011;
  legal.ranks = static_cast<std::uint16_t>(0b101);
  legal.declarable = static_cast<std::uint16_t>(0b100);
  return legal;
}

// encode(parse(text)) == text, and parse succeeds.
void check_round_trip(const std::string& text) {
  CAPTURE(text);
  const auto parsed = parse_server_message(text);
  if (const auto* error = std::get_if<std::string>(&parsed)) {
    FAIL_CHECK("does not parse: " << *error);
    return;
  }
  CHECK(encode(std::get<ServerMessage>(parsed)) == text);
}

bool has_card_field(const json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "card" || it.key() == "cards" || has_card_field(*it)) return true;
    }
  } else if (j.is_array()) {
    for (const auto& item : j) {
      if (has_card_field(item)) return true;
    }
  }
  return false;
}

struct RandomGame {
  engine::Game game;
  std::vector<engine::Event> events;  // every event, unfiltered, in order
};

// Plays one game with uniformly random legal decisions, recording every event.
RandomGame play_random(const engine::Rules& rules, int players, std::uint64_t seed,
                       const std::function<void(const engine::Game&, const engine::Event&)>& on_event = {}) {
  engine::Rng rng(seed);
  const auto setup = engine::prepare_deal(rules, players, rng);
  auto started = engine::Game::start(rules, players, setup.deck, setup.dealer, setup.first);
  REQUIRE(std::holds_alternative<engine::Game>(started));
  RandomGame out{std::get<engine::Game>(std::move(started)), {}};
  const auto record = [&] {
    for (const auto& e : out.game.last_events()) {
      out.events.push_back(e);
      if (on_event) on_event(out.game, e);
    }
  };
  record();
  for (int step = 0; !out.game.over() && step < 2000; ++step) {
    const auto legal = out.game.legal(out.game.to_act());
    REQUIRE_FALSE(legal.empty());
    const auto decision = legal.nth(static_cast<int>(rng.below(static_cast<std::uint32_t>(legal.count()))));
    REQUIRE_FALSE(out.game.apply(decision));
    record();
  }
  CHECK(out.game.over());
  return out;
}

std::vector<engine::Rules> all_rule_sets() {
  std::vector<engine::Rules> out;
  for (auto name : engine::preset_names()) {
    out.push_back(*engine::preset(name));
    engine::Rules table = *engine::preset(name);
    table.table_rules = true;
    out.push_back(table);
  }
  return out;
}

}  // namespace

TEST_CASE("every engine event alternative has its spelling") {
  engine::GameOver over{};
  over.reason = engine::EndReason::kStockOut;
  over.players = 3;
  over.hands[0] = cards({"2C", "QH"});
  over.hands[2] = cards({"AS"});
  over.scores = {2, 1, 2, 0, 0, 0};
  over.winners = 0b101;
  const std::pair<engine::Event, const char*> cases[] = {
      {engine::GameStarted{3, 2, 0, 37}, R"({"type":"deal","players":3,"dealer":2,"first":0,"stock":37})"},
      {engine::HandDealt{1, cards({"9C", "9H", "QS"})},
       R"({"type":"hand_dealt","seat":1,"count":3,"cards":["9C","9H","QS"]})"},
      {engine::HandDealtCount{1, 3}, R"({"type":"hand_dealt","seat":1,"count":3})"},
      {engine::AskedRank{0, 2, rank("Q")}, R"({"type":"asked","seat":0,"target":2,"rank":"Q"})"},
      {engine::AskedCard{0, 2, card("10H")}, R"({"type":"asked","seat":0,"target":2,"card":"10H"})"},
      {engine::Answered{2, false}, R"({"type":"answered","seat":2,"give":false})"},
      {engine::Gave{2, 0, cards({"QC", "QD"})}, R"({"type":"gave","from":2,"to":0,"cards":["QC","QD"]})"},
      {engine::GoFish{2, 0, true}, R"({"type":"go_fish","seat":2,"asker":0,"stock_empty":true})"},
      {engine::Drew{1, card("9H"), engine::DrawCause::kFish}, R"({"type":"drew","seat":1,"cause":"fish","card":"9H"})"},
      {engine::DrewHidden{1, engine::DrawCause::kEmptyHand}, R"({"type":"drew","seat":1,"cause":"empty_hand"})"},
      {engine::LuckyDraw{0, card("QS")}, R"({"type":"lucky_draw","seat":0,"card":"QS"})"},
      {engine::SetLaid{0, rank("7"), cards({"7C", "7D", "7H", "7S"}), engine::SetOutcome::kBarred, true},
       R"({"type":"set_laid","seat":0,"rank":"7","cards":["7C","7D","7H","7S"],"outcome":"barred","from_deal":true})"},
      {engine::Penalty{1, engine::PenaltyKind::kFalseGoFish, rank("A")},
       R"({"type":"penalty","seat":1,"kind":"false_go_fish","rank":"A"})"},
      {engine::TurnPassed{0, 1}, R"({"type":"turn_passed","from":0,"to":1})"},
      {engine::SatOut{2}, R"({"type":"sat_out","seat":2})"},
      {engine::WentOut{2}, R"({"type":"went_out","seat":2})"},
      {engine::MissedTurn{1}, R"({"type":"missed_turn","seat":1})"},
      {over,
       R"({"type":"game_over","reason":"stock_out","hands":[["2C","QH"],[],["AS"]],"scores":[2,1,2],"winners":[0,2]})"},
  };
  std::set<std::size_t> covered;
  for (const auto& [event, expected] : cases) {
    CHECK(encoded(event) == expected);
    std::string appended = "[";
    append_event_json(appended, event);
    CHECK(appended == "[" + std::string(expected));
    covered.insert(event.index());
    // and back: the parse gives the same alternative, which encodes the same
    const auto back = event_from_json(json::parse(expected));
    REQUIRE(back);
    REQUIRE(std::holds_alternative<engine::Event>(*back));
    CHECK(std::get<engine::Event>(*back).index() == event.index());
    CHECK(encoded(std::get<engine::Event>(*back)) == expected);
    check_round_trip(encode(EventMessage{41, event}));
  }
  CHECK(covered.size() == std::variant_size_v<engine::Event>);
}

TEST_CASE("twins share a wire type, the public twin carries no card") {
  const engine::Event drew = engine::Drew{1, card("9H"), engine::DrawCause::kFish};
  const engine::Event dealt = engine::HandDealt{1, cards({"9C", "9H"})};
  for (const engine::Event& e : {drew, dealt}) {
    const auto owner = engine::event_for(e, engine::Viewer::of(1));
    const auto other = engine::event_for(e, engine::Viewer::of(0));
    const auto watcher = engine::event_for(e, engine::Viewer::spectator());
    CHECK(event_type(owner) == event_type(other));
    CHECK(has_card_field(event_to_json(owner)));
    CHECK_FALSE(has_card_field(event_to_json(other)));
    CHECK_FALSE(has_card_field(event_to_json(watcher)));
  }
}

TEST_CASE("property: what a viewer is sent never holds another seat's private cards") {
  // For every event of random games under every preset, the encoded copy a
  // non-owner gets of a private event has no card field, and no viewer's
  // snapshot holds a hand other than its own.
  int private_events = 0;
  int events_seen = 0;
  for (const engine::Rules& rules : all_rule_sets()) {
    // The smallest and the largest table: private events to the fewest and
    // the most other viewers.
    for (int players : {rules.min_players, rules.max_players}) {
      if (engine::validate(rules, players)) continue;
      for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        CAPTURE(rules.preset);
        CAPTURE(players);
        CAPTURE(seed);
        auto on_event = [&](const engine::Game& game, const engine::Event& e) {
          std::optional<engine::Seat> owner;
          if (const auto* d = std::get_if<engine::Drew>(&e)) owner = d->seat;
          if (const auto* h = std::get_if<engine::HandDealt>(&e)) owner = h->seat;
          std::vector<engine::Viewer> viewers{engine::Viewer::spectator()};
          for (engine::Seat s = 0; s < players; ++s) viewers.push_back(engine::Viewer::of(s));
          for (const engine::Viewer& viewer : viewers) {
            const std::string text = encode(EventMessage{1, engine::event_for(e, viewer)});
            if (owner && viewer.seat != owner) {
              ++private_events;
              CHECK_FALSE(has_card_field(json::parse(text)));
            }
          }
          // Snapshots are dearer; every seventh event is plenty.
          if (game.over() || ++events_seen % 7 != 0) return;
          for (const engine::Viewer& viewer : viewers) {
            RoomSnapshot snap;
            snap.settings.rules = rules;
            snap.settings.seats = players;
            snap.seats.resize(static_cast<std::size_t>(players));
            snap.you = viewer.seat;
            snap.state = RoomState::kPlaying;
            snap.game = engine::view_of(game, viewer);
            const json j = json::parse(encode(snap));
            const json& hand = j["game"]["hand"];
            if (viewer.seat) {
              CHECK(hand.size() == static_cast<std::size_t>(game.hand_size(*viewer.seat)));
            } else {
              CHECK(hand.empty());
            }
            CHECK(j["result"].is_null());
          }
        };
        play_random(rules, players, seed, on_event);
      }
    }
  }
  CHECK(private_events > 500);
}

TEST_CASE("room snapshots and events round-trip for every viewer of random games") {
  int snapshots = 0;
  int improper_turns = 0;
  int improper_snapshots = 0;
  for (const engine::Rules& rules : all_rule_sets()) {
    const int players = std::max(rules.min_players, 3);
    CAPTURE(rules.preset);
    std::int64_t v = 0;
    auto on_event = [&](const engine::Game& game, const engine::Event& e) {
      ++v;
      for (engine::Seat s = -1; s < players; ++s) {
        const engine::Viewer viewer = s < 0 ? engine::Viewer::spectator() : engine::Viewer::of(s);
        check_round_trip(encode(EventMessage{v, engine::event_for(e, viewer)}));
        // The turn after it: the seat to act reads back exactly the engine's
        // legal decisions; anyone else's copy has none.
        if (!game.over()) {
          const engine::Seat to_act = game.to_act();
          Turn turn{v, to_act, std::nullopt};
          if (viewer.seat == to_act && !game.legal(to_act).empty()) turn.legal = game.legal(to_act);
          // Table rules: any seat's copy may carry its own improper decisions.
          if (viewer.seat && !game.improper(*viewer.seat).empty()) turn.improper = game.improper(*viewer.seat);
          if (turn.improper) ++improper_turns;
          const std::string text = encode(turn);
          check_round_trip(text);
          CHECK((json::parse(text).contains("legal")) == turn.legal.has_value());
          CHECK((json::parse(text).contains("improper")) == turn.improper.has_value());
          const auto back = parse_server_message(text);
          REQUIRE(std::holds_alternative<ServerMessage>(back));
          const Turn& read = std::get<Turn>(std::get<ServerMessage>(back));
          CHECK(read.v == turn.v);
          CHECK(read.seat == turn.seat);
          REQUIRE(read.legal.has_value() == turn.legal.has_value());
          // The same decisions (the spelling leaves out what has no decision
          // behind it, such as targets when no rank may be asked).
          if (turn.legal) CHECK(read.legal->list() == turn.legal->list());
          // The improper decisions read back whole, penalties included.
          CHECK(read.improper == turn.improper);
        }
        if (v % 5 != 0 && !game.over()) continue;
        RoomSnapshot snap;
        snap.id = RequestId{v};
        snap.v = v;
        snap.code = "K7QXM";
        snap.settings = RoomSettings{rules, players, 30, true, false, ChatMode::kPhrases};
        snap.host = 0;
        for (engine::Seat t = 0; t < players; ++t) {
          snap.seats.push_back(t == 1 ? SeatInfo{Occupant::kBot, "Hard bot", BotLevel::kHard, false, false, false}
                                      : SeatInfo{Occupant::kHuman, "P" + std::to_string(t), std::nullopt, t != 2,
                                                 t == 2, false});
        }
        snap.spectators = 2;
        snap.state = game.over() ? RoomState::kOver : RoomState::kPlaying;
        snap.you = viewer.seat;
        snap.game_number = 1;
        for (engine::Seat t = 0; t < players; ++t) snap.players.push_back(Player{"P" + std::to_string(t), std::nullopt});
        snap.game = engine::view_of(game, viewer);
        if (const auto* over = std::get_if<engine::GameOver>(&e)) snap.result = *over;
        if (!game.over()) snap.timer = TurnTimer{game.to_act(), 30, 1700000000000 + v};
        const std::string text = encode(snap);
        check_round_trip(text);
        // The parsed view is the engine's view, field for field.
        const auto parsed = parse_server_message(text);
        REQUIRE(std::holds_alternative<ServerMessage>(parsed));
        const auto& back = std::get<RoomSnapshot>(std::get<ServerMessage>(parsed));
        REQUIRE(back.game);
        if (!snap.game->legal.empty() || !viewer.seat || *viewer.seat != game.to_act()) {
          CHECK(*back.game == *snap.game);
        }
        CHECK(back.game->improper == snap.game->improper);
        CHECK(json::parse(text)["game"].contains("improper") == !snap.game->improper.empty());
        if (!snap.game->improper.empty()) ++improper_snapshots;
        CHECK(back.settings == snap.settings);
        CHECK(back.seats == snap.seats);
        CHECK(back.players == snap.players);
        ++snapshots;
      }
    };
    const RandomGame played = play_random(rules, players, 11, on_event);
    // and the finished game's transcript
    TranscriptMessage t{RequestId{std::string("t")},
                        "K7QXM",
                        1,
                        engine::make_transcript(played.game),
                        {Player{"Ann", std::nullopt}, Player{"Hard bot", BotLevel::kHard}, Player{"Cy", std::nullopt}},
                        std::nullopt,
                        DealFairness{"gofish-deal/1",
                                     std::string(64, 'a'),
                                     std::string(64, 'b'),
                                     {std::string(32, 'c'), std::nullopt, std::nullopt},
                                     false,
                                     std::nullopt,
                                     std::nullopt,
                                     std::nullopt}};
    check_round_trip(encode(t));
    const auto parsed = parse_server_message(encode(t));
    REQUIRE(std::holds_alternative<ServerMessage>(parsed));
    CHECK(std::get<TranscriptMessage>(std::get<ServerMessage>(parsed)) == t);
    // A server that keeps finished games names the game's id.
    t.game_id = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    check_round_trip(encode(t));
    const auto with_id = parse_server_message(encode(t));
    REQUIRE(std::holds_alternative<ServerMessage>(with_id));
    CHECK(std::get<TranscriptMessage>(std::get<ServerMessage>(with_id)) == t);
    // A shared deal's seed held back, with when it comes: a day, or an event's round.
    t.fairness = DealFairness{"gofish-deal/1", std::string(64, 'a'), std::nullopt, {}, true,
                              "2026-11-30",    std::nullopt,         std::nullopt};
    check_round_trip(encode(t));
    CHECK(std::get<TranscriptMessage>(std::get<ServerMessage>(parse_server_message(encode(t)))) == t);
    t.fairness = DealFairness{"gofish-deal/1", std::string(64, 'a'), std::nullopt, {}, true, std::nullopt, "K7QXM2", 2};
    check_round_trip(encode(t));
    CHECK(std::get<TranscriptMessage>(std::get<ServerMessage>(parse_server_message(encode(t)))) == t);
  }
  CHECK(snapshots > 100);
  CHECK(improper_turns > 100);
  CHECK(improper_snapshots > 20);
}

TEST_CASE("a turn's improper decisions are spelled exactly, and a wrong spelling is refused") {
  Turn turn{10, 2, std::nullopt, improper_sample()};
  const std::string text = encode(turn);
  const json spelled = json::parse(text);
  CHECK(spelled["improper"] == json::parse(R"({"seat":1,"count":27,"ask":{"targets":[0,2],
      "ranks":["2","3","4","5","6","7","8","9","10","J","Q","K","A"]},"answers":["go_fish"],
      "penalty":{"ask":"asked_out_of_turn","go_fish":"false_go_fish"}})"));
  const auto refused = [&](const std::string& field, const json& value) {
    json wrong = spelled;
    wrong["improper"][field] = value;
    CAPTURE(wrong.dump());
    return std::holds_alternative<std::string>(parse_server_message(wrong.dump()));
  };
  CHECK(refused("count", 26));
  CHECK(refused("answers", json::array({"give", "go_fish"})));
  CHECK(refused("declare", json::array({"7"})));
  CHECK(refused("penalty", json::parse(R"({"ask":"false_go_fish","go_fish":"false_go_fish"})")));
  CHECK(refused("penalty", json::parse(R"({"ask":"asked_out_of_turn"})")));
  CHECK(refused("penalty", json::parse(R"({"ask":"asked_out_of_turn","go_fish":"illegal_call"})")));
  CHECK(refused("seat", 6));
  CHECK_FALSE(refused("seat", 1));  // the control: the spelling as encoded is read
  // A card game's list, with its illegal calls.
  engine::ImproperDecisions cards;
  cards.decisions.seat = 0;
  cards.decisions.ask_for = engine::AskFor::kCard;
  cards.decisions.targets = 0b110;
  cards.decisions.cards.add(engine::Card::from_id(3));
  cards.ask_penalty = engine::PenaltyKind::kIllegalCall;
  check_round_trip(encode(Turn{11, 0, std::nullopt, cards}));
  const auto back = parse_server_message(encode(Turn{11, 0, std::nullopt, cards}));
  REQUIRE(std::holds_alternative<ServerMessage>(back));
  CHECK(std::get<Turn>(std::get<ServerMessage>(back)).improper == cards);
}

TEST_CASE("every other server message round-trips") {
  Welcome welcome;
  welcome.version = "0.1.0";
  welcome.id = RequestId{std::int64_t{0}};
  // every field different, so a field read into another's place shows
  welcome.limits = WelcomeLimits{4001, 2.5, 21, 0.75, 6, 25, 201, 65, 11, 301, 17, 60'001, 120'001, 2.25, 19};
  RoomSnapshot waiting;
  waiting.code = "ABCDE";
  waiting.settings.rules = *engine::preset("authors");
  waiting.settings.seats = 4;
  waiting.seats = {SeatInfo{Occupant::kHuman, "Ann", std::nullopt, true, false, false}, SeatInfo{},
                   SeatInfo{Occupant::kBot, "Easy bot", BotLevel::kEasy, false, false, false}, SeatInfo{}};
  waiting.you = std::nullopt;
  const std::vector<ServerMessage> messages = {
      welcome,
      Ok{},
      Ok{RequestId{std::string("a")}},
      Created{RequestId{std::int64_t{1}}, "K7QXM", 0, std::string(32, 'T')},
      Joined{std::nullopt, "K7QXM", JoinAs::kPlayer, 1, std::string(32, 'B'), true},
      Joined{RequestId{std::int64_t{2}}, "K7QXM", JoinAs::kSpectator, std::nullopt, "", false},
      waiting,
      LobbyList{RequestId{std::int64_t{4}},
                {LobbyRoom{"K7QXM", "Ann", "classic", 4, 2, 1, true, 0, ChatMode::kFree},
                 LobbyRoom{"ZZZZZ", "Bo", "pairs", 2, 1, 0, false, 60, ChatMode::kOff}}},
      LobbyList{},
      Pong{RequestId{std::int64_t{9}}},
      default_error(ErrorCode::kRoomNotFound, RequestId{std::string("j")}),
      make_error(ErrorCode::kChatOff, "Chat is off in this room."),
      rules_error(engine::ConfigError{"set_size", "set_size must divide 4."}),
      Closing{CloseReason::kShuttingDown, std::string(close_message(CloseReason::kShuttingDown))},
      Turn{7, std::nullopt, std::nullopt},
      Turn{8, 1, std::nullopt},
      Turn{9, 2, legal_sample()},
      Turn{10, 2, std::nullopt, improper_sample()},
      RoomClosed{"K7QXM", RoomClosedReason::kPlayersLeft, "Every player has left, so the room has closed."},
      RoomClosed{"K7QXM", RoomClosedReason::kIdle, "Nobody was connected for a while, so the room has closed."},
      RoomPaused{"K7QXM", PauseReason::kSavingFailed, "Saving the game failed."},
      RoomPaused{"K7QXM", PauseReason::kStoreUnreachable, "The store cannot be reached."},
      RoomResumed{"K7QXM", "Play goes on."},
      DailyResult{"2026-11-30", 5, 37, 62, 8},
      DailySummary{RequestId{std::string("d1")}, "2026-11-30", 37, 8, std::nullopt},
      DailySummary{
          std::nullopt, "2026-12-01", 0, 0,
          DealFairness{
              "gofish-deal/1", std::string(64, 'a'), std::nullopt, {}, true, std::nullopt, std::nullopt, std::nullopt}},
      EventMessage{1, SeatJoined{1, "Bob"}},
      EventMessage{2, SeatLeft{1, "Bob"}},
      EventMessage{3, BotAdded{3, BotLevel::kEasy, "Easy bot"}},
      EventMessage{4, BotRemoved{3}},
      EventMessage{5, Kicked{1, "Bob"}},
      EventMessage{6, ConnectionChanged{1, false}},
      EventMessage{7, SpectatorsChanged{3}},
      EventMessage{8, HostChanged{1}},
      EventMessage{9, NewGame{2, {Player{"Ann", std::nullopt}, Player{"Hard bot", BotLevel::kHard}}}},
      EventMessage{10, BotTakeover{1, TakeoverReason::kTimeout, BotLevel::kMedium}},
      EventMessage{11, TurnTimer{1, 30, 1700000000000}},
      EventMessage{12, RematchVote{1, {0, 1}}},
      EventMessage{13, ChatPosted{1, "Bob", "hi \xf0\x9f\x90\x9f", ""}},
      EventMessage{14, ChatPosted{std::nullopt, "Watcher", "", "nice_catch"}},
      EventMessage{15, ChatModeChanged{ChatMode::kOff}},
      EventMessage{16, DealCommitted{"gofish-deal/1", std::string(64, 'e')}},
      EventMessage{15, engine::Event{engine::TurnPassed{0, 1}}},
  };
  std::set<std::size_t> kinds;
  std::set<std::size_t> event_kinds;
  for (const ServerMessage& m : messages) {
    const std::string text = encode(m);
    check_round_trip(text);
    kinds.insert(m.index());
    if (const auto* e = std::get_if<EventMessage>(&m)) event_kinds.insert(e->event.index());
    const json j = json::parse(text);
    CHECK(j["type"] == message_type(m));
  }
  CHECK(kinds.size() + 1 == std::variant_size_v<ServerMessage>);  // transcript: the test above
  CHECK(event_kinds.size() == std::variant_size_v<RoomEvent>);

  const json w = json::parse(encode(welcome));
  CHECK(w["room_code"]["alphabet"] == kRoomCodeAlphabet);
  CHECK(w["presets"].size() == engine::preset_names().size());
  CHECK(w["phrases"].size() == chat_phrases().size());
  const json phrase = json::parse(encode(EventMessage{14, ChatPosted{std::nullopt, "W", "", "nice_catch"}}));
  CHECK(phrase["event"]["text"] == "Nice catch!");
  CHECK(phrase["event"]["seat"].is_null());
  const json closing = json::parse(encode(Closing{CloseReason::kShuttingDown, "bye"}));
  CHECK(closing["code"] == 1001);
}

TEST_CASE("a welcome without the pace fields (a server from before them) reads them as 0") {
  Welcome welcome;
  welcome.version = "0.1.0";
  welcome.limits = WelcomeLimits{4001, 2.5, 21, 0.75, 6, 25, 201, 65, 11, 301, 17, 60'001, 120'001, 2.25, 19};
  json older = json::parse(encode(welcome));
  CHECK(older["limits"]["pace_messages_per_second"] == 2.25);
  CHECK(older["limits"]["pace_message_burst"] == 19);
  older["limits"].erase("pace_messages_per_second");
  older["limits"].erase("pace_message_burst");
  const auto parsed = parse_server_message(older.dump());
  REQUIRE(std::holds_alternative<ServerMessage>(parsed));
  const WelcomeLimits& limits = std::get<Welcome>(std::get<ServerMessage>(parsed)).limits;
  CHECK(limits.pace_messages_per_second == 0);
  CHECK(limits.pace_message_burst == 0);
  CHECK(limits.messages_per_second == 2.5);
  CHECK(limits.message_burst == 21);
  // Present, they must be numbers in range.
  older["limits"]["pace_message_burst"] = -1;
  CHECK(std::holds_alternative<std::string>(parse_server_message(older.dump())));
}

TEST_CASE("parse_server_message refuses what it cannot use, without throwing") {
  const char* bad[] = {
      "", "{", "[]", "{}", R"({"type":5})", R"({"type":"nope"})", R"({"type":"event","v":1})",
      R"({"type":"event","v":-1,"event":{"type":"went_out","seat":1}})",
      R"({"type":"event","v":1,"event":{"type":"went_out","seat":9}})",
      R"({"type":"event","v":1,"event":{"type":"drew","seat":1,"cause":"magic"}})",
      R"({"type":"event","v":1,"event":{"type":"gave","from":1,"to":0,"cards":["ZZ"]}})",
      R"({"type":"error","code":"room/bogus","message":"x"})",
      R"({"type":"closing","reason":"bored","message":"x"})",
      R"({"type":"room","v":1})",
      R"({"type":"transcript","code":"K7QXM","game":1,"transcript":{"format":7}})",
      R"({"type":"welcome","server":"g","version":"1","protocol":1,"limits":[]})",
  };
  for (const char* text : bad) {
    CAPTURE(text);
    CHECK(std::holds_alternative<std::string>(parse_server_message(text)));
  }
}

TEST_CASE("error codes: stable spellings, sentences, one per engine refusal") {
  std::set<std::string_view> names;
  for (ErrorCode code : all_error_codes()) {
    const auto name = error_code_name(code);
    CHECK(names.insert(name).second);
    CHECK(parse_error_code(name) == code);
    CHECK_FALSE(default_message(code).empty());
    CHECK(default_message(code).back() == '.');
    const auto slash = name.find('/');
    REQUIRE(slash != std::string_view::npos);
    const auto space = name.substr(0, slash);
    CHECK((space == "protocol" || space == "room" || space == "event" || space == "chat" || space == "server" ||
           space == "action" || space == "api" || space == "deal"));
  }
  CHECK_FALSE(parse_error_code("room/nope"));
  using engine::RefusalCode;
  const RefusalCode refusals[] = {
      RefusalCode::kGameOver,          RefusalCode::kNotYourTurn,       RefusalCode::kOutOfGame,
      RefusalCode::kUnknownSeat,       RefusalCode::kAskedSelf,         RefusalCode::kTargetOut,
      RefusalCode::kRankNotHeld,       RefusalCode::kCardAskInRankGame, RefusalCode::kRankAskInCardGame,
      RefusalCode::kCardHeld,          RefusalCode::kInvalidRank,       RefusalCode::kAwaitingAnswer,
      RefusalCode::kNotAsked,          RefusalCode::kNothingToGive,     RefusalCode::kNoSuchSet,
      RefusalCode::kTableRulesOnly,
  };
  std::set<ErrorCode> action_codes;
  for (RefusalCode r : refusals) {
    const ErrorCode code = error_code_for(r);
    CHECK(error_code_name(code) == "action/" + std::string(engine::refusal_code_name(r)));
    action_codes.insert(code);
    const Error e = refusal_error(engine::Refusal{r, "The engine's sentence."}, RequestId{std::int64_t{5}});
    CHECK(e.code == code);
    CHECK(e.message == "The engine's sentence.");
  }
  std::size_t actions_in_list = 0;
  for (ErrorCode code : all_error_codes()) actions_in_list += error_code_name(code).starts_with("action/") ? 1 : 0;
  CHECK(action_codes.size() == actions_in_list);

  std::set<std::string_view> reasons;
  for (CloseReason r : all_close_reasons()) {
    CHECK(reasons.insert(close_reason_name(r)).second);
    CHECK(parse_close_reason(close_reason_name(r)) == r);
    CHECK((close_code(r) >= 1000 && close_code(r) < 5000));
    CHECK(close_reason_name(r).size() <= 123);  // a WebSocket close reason's limit
  }
}

// encode() writes events and ok replies straight into a string
// (json_writer.hpp's StringWriter); what it writes must be exactly what the
// json value's dump gives (its ValueWriter, or a value built by hand).
TEST_CASE("events and ok replies are written byte for byte as the json value's dump") {
  using nlohmann::ordered_json;
  const auto reference = [](std::int64_t v, const engine::Event& e) {
    ordered_json out = ordered_json::object();
    out["type"] = "event";
    out["v"] = v;
    out["event"] = event_to_json(e);
    return out.dump();
  };
  int checked = 0;
  std::set<std::string> types;
  for (const engine::Rules& rules : all_rule_sets()) {
    CAPTURE(rules.preset);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const int players = std::min(rules.max_players, rules.min_players + static_cast<int>(seed % 3));
      std::int64_t v = 1000 * static_cast<std::int64_t>(seed);
      play_random(rules, players, seed, [&](const engine::Game&, const engine::Event& e) {
        ++v;
        for (engine::Seat s = -1; s < players; ++s) {
          const engine::Event seen = engine::event_for(e, s < 0 ? engine::Viewer::spectator() : engine::Viewer::of(s));
          const std::string text = encode(EventMessage{v, seen});
          CHECK(text == reference(v, seen));
          CHECK(encode(ServerMessage{EventMessage{v, seen}}) == text);
          types.insert(std::string(event_type(seen)));
          ++checked;
        }
      });
    }
  }
  CHECK(checked > 5000);
  // Every kind of game event was met (penalties and missed turns come only
  // from table rules' mistakes, which random legal play never makes).
  for (const engine::Event& e : {engine::Event{engine::Penalty{1, engine::PenaltyKind::kFalseGoFish, 11}},
                                 engine::Event{engine::MissedTurn{2}}}) {
    CHECK(encode(EventMessage{7, e}) == reference(7, e));
    types.insert(std::string(event_type(e)));
  }
  CHECK(types.size() == 15);

  const auto ok_reference = [](const Ok& m) {
    ordered_json out = ordered_json::object();
    out["type"] = "ok";
    if (m.id) std::visit([&](const auto& id) { out["id"] = id; }, *m.id);
    return out.dump();
  };
  for (const Ok& ok : {Ok{}, Ok{RequestId{std::int64_t{0}}}, Ok{RequestId{std::int64_t{-42}}},
                       Ok{RequestId{std::int64_t{9007199254740993}}}, Ok{RequestId{std::string("b7")}},
                       Ok{RequestId{std::string("")}}, Ok{RequestId{std::string("say \"hi\"")}},
                       Ok{RequestId{std::string("back\\slash")}}, Ok{RequestId{std::string("tab\there\x01")}},
                       Ok{RequestId{std::string("caf\xc3\xa9 \x7f")}}}) {
    CHECK(encode(ok) == ok_reference(ok));
    CHECK(encode(ServerMessage{ok}) == ok_reference(ok));
  }
}
