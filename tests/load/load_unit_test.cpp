// gofish-load's parts that need no network: the latency histogram, the
// command line, and the seat tracker: whole games of every preset played on
// turns alone through the wire's encoding, and every kind of disagreement
// between a turn and a seat's events caught.
#include <doctest/doctest.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/load/latency_histogram.hpp"
#include "bench/load/load_options.hpp"
#include "bench/load/seat_tracker.hpp"
#include "engine/bot.hpp"
#include "engine/game.hpp"
#include "engine/random.hpp"
#include "engine/setup.hpp"
#include "engine/view.hpp"
#include "protocol/messages.hpp"

namespace gofish::load {

namespace {

std::variant<LoadOptions, OptionsExit> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gofish-load");
  return parse_options(static_cast<int>(args.size()), args.data());
}

}  // namespace

TEST_CASE("histogram: exact below 64 us, then within 1/64 of the value") {
  for (std::uint64_t v = 0; v < 64; ++v) CHECK(LatencyHistogram::bucket_upper_bound(LatencyHistogram::bucket_of(v)) == v);
  for (std::uint64_t v : {64ULL, 65ULL, 127ULL, 128ULL, 1000ULL, 4095ULL, 123456ULL, 98765432ULL}) {
    const auto bucket = LatencyHistogram::bucket_of(v);
    const auto upper = LatencyHistogram::bucket_upper_bound(bucket);
    CHECK(upper >= v);
    CHECK(static_cast<double>(upper - v) <= static_cast<double>(v) / 64.0);
    CHECK(LatencyHistogram::bucket_of(upper) == bucket);
    CHECK(LatencyHistogram::bucket_of(upper + 1) == bucket + 1);
  }
}

TEST_CASE("histogram: percentiles of 1..10000 us are ordered and close") {
  LatencyHistogram histogram;
  CHECK(histogram.percentile(99) == 0);
  for (std::uint64_t v = 1; v <= 10000; ++v) histogram.record(v);
  CHECK(histogram.count() == 10000);
  CHECK(histogram.max() == 10000);
  CHECK(histogram.mean() == doctest::Approx(5000.5));
  const std::array<double, 5> percents{50, 90, 99, 99.9, 100};
  std::uint64_t previous = 0;
  for (double percent : percents) {
    const auto value = histogram.percentile(percent);
    const double exact = percent * 100;
    CHECK(static_cast<double>(value) >= exact);
    CHECK(static_cast<double>(value) <= exact * (1 + 1.0 / 64));
    CHECK(value >= previous);
    previous = value;
  }
  CHECK(histogram.percentile(100) == 10000);

  LatencyHistogram other;
  other.record(50'000);
  histogram.merge(other);
  CHECK(histogram.count() == 10001);
  CHECK(histogram.max() == 50'000);
  histogram.clear();
  CHECK(histogram.count() == 0);
  CHECK(histogram.percentile(50) == 0);
}

TEST_CASE("options: defaults, a full command line and refusals") {
  const auto defaults = parse({});
  REQUIRE(std::holds_alternative<LoadOptions>(defaults));
  CHECK(std::get<LoadOptions>(defaults).target.port == 8080);
  CHECK(std::get<LoadOptions>(defaults).mode == Mode::kGame);

  const auto full = parse({"--url", "ws://127.0.0.1:9001/ws", "--rooms", "500", "--players", "4", "--think-ms", "250",
                           "--seconds", "20", "--server-pid", "42", "--source-addresses", "8", "--mode", "idle",
                           "--bot", "medium"});
  REQUIRE(std::holds_alternative<LoadOptions>(full));
  const auto& options = std::get<LoadOptions>(full);
  CHECK(options.target.host == "127.0.0.1");
  CHECK(options.target.port == 9001);
  CHECK(options.target.path == "/ws");
  CHECK(options.rooms == 500);
  CHECK(options.think_ms == 250);
  CHECK(options.seconds == 20);
  CHECK(options.server_pid == 42);
  CHECK(options.source_addresses == 8);
  CHECK(options.mode == Mode::kIdle);
  CHECK(options.bot == engine::BotLevel::kMedium);

  for (const auto& bad : std::vector<std::vector<const char*>>{
           {"--players", "1"}, {"--rooms", "0"}, {"--mode", "fast"}, {"--url", "http://x/ws"}, {"--url", "ws://h:0/"}}) {
    const auto refused = parse(bad);
    REQUIRE(std::holds_alternative<OptionsExit>(refused));
    CHECK(std::get<OptionsExit>(refused).code != 0);
  }
  CHECK(parse_ws_url("ws://localhost")->port == 80);
  CHECK(parse_ws_url("ws://localhost")->path == "/");
  CHECK(!parse_ws_url("ws://:8080/ws"));
  CHECK(!parse_ws_url("ws://host:80x/"));
  CHECK(!parse_ws_url("ws://localhost")->tls);
  CHECK(parse_ws_url("wss://localhost/ws")->tls);
  CHECK(parse_ws_url("wss://localhost/ws")->port == 443);
  CHECK(parse_ws_url("wss://localhost:8443/ws")->port == 8443);
  CHECK(parse_ws_url("wss://localhost:8443/ws")->path == "/ws");
}

TEST_CASE("a guest upgrades at the path with its room's code as the parameter room") {
  CHECK(room_path(*parse_ws_url("ws://127.0.0.1:8080/ws"), "K7QXM") == "/ws?room=K7QXM");
  CHECK(room_path(*parse_ws_url("ws://127.0.0.1:8080/ws?v=1"), "K7QXM") == "/ws?v=1&room=K7QXM");
}

namespace {

// The server's side of one room, played by the engine: every event goes to
// every seat's tracker as that seat sees it, and every decision's (and
// deal's) events end with each seat's turn, as the server builds it; both are
// encoded and parsed again, as on the wire. The seat to act decides with an
// engine bot from its tracker, as gofish-load does.
class WireTable {
 public:
  WireTable(const engine::Rules& rules, int players, std::uint64_t seed)
      : rules_(rules), players_(players), rng_(seed) {
    for (engine::Seat s = 0; s < players; ++s) {
      trackers_.emplace_back(s, rules, players);
      note(trackers_.back().snapshot(v_));
    }
  }

  // A new game (a rematch after the first), up to the turn after the deal.
  void deal() {
    const engine::DealSetup setup = engine::prepare_deal(rules_, players_, rng_);
    auto started = engine::Game::start(rules_, players_, setup.deck, setup.dealer, setup.first);
    REQUIRE(std::holds_alternative<engine::Game>(started));
    game_.emplace(std::move(std::get<engine::Game>(started)));
    bots_.clear();
    for (engine::Seat s = 0; s < players_; ++s) {
      const auto level = s % 2 == 0 ? engine::BotLevel::kEasy : engine::BotLevel::kMedium;
      bots_.push_back(engine::make_bot(level, rules_, players_, s));
    }
    send_room_event(protocol::NewGame{++games_, {}});
    send_events();
    send_turns();
  }

  // The seat to act decides from its tracker, and everyone gets the events
  // and the turn. Returns false once the game is over.
  bool play_one() {
    if (game_->over()) return false;
    const engine::Seat s = game_->to_act();
    for (const SeatTracker& tracker : trackers_) CHECK(tracker.to_act() == (tracker.seat() == s));
    SeatTracker& tracker = trackers_[static_cast<std::size_t>(s)];
    engine::View view = tracker.view();
    view.legal = tracker.legal();
    const engine::Decision decision = bots_[static_cast<std::size_t>(s)]->decide(view, rng_);
    tracker.acted();
    const auto refused = game_->apply(decision);
    REQUIRE_MESSAGE(!refused, engine::to_string(decision));
    ++decisions_;
    send_events();
    send_turns();
    return true;
  }

  // What the server sends `viewer` after a decision (server/rooms/room.cpp, turn_for).
  protocol::Turn turn_for(engine::Seat viewer) const {
    protocol::Turn turn{v_, std::nullopt, std::nullopt};
    if (game_->over()) return turn;
    turn.seat = game_->to_act();
    if (viewer == turn.seat) {
      const engine::LegalDecisions legal = game_->legal(viewer);
      if (!legal.empty()) turn.legal = legal;
    }
    return turn;
  }

  template <typename Message>
  static Message wire(const Message& message) {
    auto parsed = protocol::parse_server_message(protocol::encode(message));
    REQUIRE(std::holds_alternative<protocol::ServerMessage>(parsed));
    auto& server_message = std::get<protocol::ServerMessage>(parsed);
    REQUIRE(std::holds_alternative<Message>(server_message));
    return std::get<Message>(server_message);
  }

  const engine::Game& game() const { return *game_; }
  std::vector<SeatTracker>& trackers() { return trackers_; }
  std::int64_t v() const { return v_; }
  int decisions() const { return decisions_; }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  void note(const std::optional<std::string>& problem) {
    if (problem) problems_.push_back(*problem);
  }

  void send_room_event(const protocol::RoomEvent& event) {
    ++v_;
    const auto received = wire(protocol::EventMessage{v_, event});
    for (SeatTracker& tracker : trackers_) note(tracker.observe(v_, received.event));
  }

  void send_events() {
    for (const engine::Event& event : game_->last_events()) {
      ++v_;
      for (SeatTracker& tracker : trackers_) {
        const engine::Event seen = engine::event_for(event, engine::Viewer::of(tracker.seat()));
        const auto received = wire(protocol::EventMessage{v_, seen});
        note(tracker.observe(v_, received.event));
        bots_[static_cast<std::size_t>(tracker.seat())]->observe(std::get<engine::Event>(received.event));
      }
    }
  }

  void send_turns() {
    for (SeatTracker& tracker : trackers_) note(tracker.turn(wire(turn_for(tracker.seat()))));
  }

  engine::Rules rules_;
  int players_;
  engine::Rng rng_;
  std::optional<engine::Game> game_;
  std::int64_t v_ = 0;
  int games_ = 0;
  int decisions_ = 0;
  std::vector<SeatTracker> trackers_;
  std::vector<std::unique_ptr<engine::Bot>> bots_;
  std::vector<std::string> problems_;
};

}  // namespace

// Seats that act on turns alone, with bots deciding from the tracker's view
// and the server's legal decisions, play every preset, strict and with table
// rules, at every table size, to the end and into a rematch; and the tracker
// never disagrees with a server that is right.
TEST_CASE("seat tracker: every preset plays to the end and rematches on turns alone, with no disagreement") {
  std::uint64_t seed = 20261125;
  int decisions = 0;
  for (const auto name : engine::preset_names()) {
    for (const bool table_rules : {false, true}) {
      engine::Rules rules = *engine::preset(name);
      rules.table_rules = table_rules;
      for (int players = rules.min_players; players <= rules.max_players; ++players) {
        if (engine::validate(rules, players)) continue;
        CAPTURE(name);
        CAPTURE(table_rules);
        CAPTURE(players);
        WireTable table(rules, players, ++seed);
        for (int game = 0; game < 2; ++game) {
          table.deal();
          while (table.play_one()) {
            REQUIRE(table.decisions() < 100000);
          }
          for (const SeatTracker& tracker : table.trackers()) {
            CHECK(tracker.game_over());
            CHECK(!tracker.to_act());
            CHECK(tracker.view() == engine::view_of(table.game(), engine::Viewer::of(tracker.seat())));
          }
        }
        CHECK(table.problems().empty());
        if (!table.problems().empty()) MESSAGE(table.problems().front());
        decisions += table.decisions();
      }
    }
  }
  CHECK(decisions > 5000);
}

// A turn or an event the seat's own events contradict is reported, each kind
// on its own; a faithful turn is not.
TEST_CASE("seat tracker: a turn that disagrees with the seat's events is reported") {
  for (const bool table_rules : {false, true}) {
    CAPTURE(table_rules);
    engine::Rules rules = *engine::preset("classic");
    rules.table_rules = table_rules;
    WireTable table(rules, 3, table_rules ? 7 : 8);
    table.deal();
    for (int i = 0; i < 3 && table.play_one(); ++i) {
    }
    REQUIRE(!table.game().over());
    REQUIRE(table.problems().empty());
    const engine::Seat actor = table.game().to_act();
    const engine::Seat other = static_cast<engine::Seat>((actor + 1) % 3);
    const SeatTracker& acting = table.trackers()[static_cast<std::size_t>(actor)];
    const SeatTracker& waiting = table.trackers()[static_cast<std::size_t>(other)];

    // The faithful turn, sent a second time, agrees.
    SeatTracker again = acting;
    CHECK(!again.turn(table.turn_for(actor)));
    CHECK(again.to_act());

    protocol::Turn stale = table.turn_for(actor);
    stale.v -= 1;
    again = acting;
    CHECK(again.turn(stale));

    protocol::Turn wrong_seat = table.turn_for(other);
    wrong_seat.seat = other;
    again = waiting;
    CHECK(again.turn(wrong_seat));

    protocol::Turn none = table.turn_for(other);
    none.seat.reset();
    again = waiting;
    CHECK(again.turn(none));

    protocol::Turn leaked = table.turn_for(other);
    leaked.legal = table.game().legal(actor);
    again = waiting;
    CHECK(again.turn(leaked));

    protocol::Turn withheld = table.turn_for(actor);
    withheld.legal.reset();
    again = acting;
    CHECK(again.turn(withheld));
    CHECK(!again.to_act());

    protocol::Turn fewer = table.turn_for(actor);
    REQUIRE(fewer.legal);
    if (fewer.legal->ranks != 0) {
      fewer.legal->ranks &= static_cast<std::uint16_t>(fewer.legal->ranks - 1);  // one rank fewer, or none
    } else {
      fewer.legal->give = !fewer.legal->give;
      fewer.legal->go_fish = !fewer.legal->go_fish;
    }
    again = acting;
    CHECK(again.turn(WireTable::wire(fewer)));

    // A missing event: versions jump.
    again = waiting;
    CHECK(again.observe(table.v() + 2, protocol::ChatPosted{}));
    again = waiting;
    CHECK(!again.observe(table.v() + 1, protocol::ChatPosted{}));
  }
}

// The snapshot that answers a resume (gofish-load after a room moved, when
// the new server has no history to replay): the seat starts again from it in
// the middle of a game, acts on the turn that follows, and plays to the end
// with no disagreement; a snapshot for another seat or behind what the seat
// has seen is reported.
TEST_CASE("seat tracker: a resume answered by a snapshot mid-game resets the seat, which plays on") {
  for (const bool table_rules : {false, true}) {
    CAPTURE(table_rules);
    engine::Rules rules = *engine::preset("classic");
    rules.table_rules = table_rules;
    constexpr int kPlayers = 3;
    WireTable table(rules, kPlayers, table_rules ? 11 : 12);
    table.deal();
    for (int i = 0; i < 5 && table.play_one(); ++i) {
    }
    REQUIRE(!table.game().over());
    const engine::Seat seat = 1;
    const auto snapshot_for = [&](engine::Seat you, std::int64_t v) {
      protocol::RoomSnapshot snapshot;
      snapshot.v = v;
      snapshot.code = "K7QXM";
      snapshot.settings.rules = rules;
      snapshot.settings.seats = kPlayers;
      snapshot.seats.resize(kPlayers);
      snapshot.state = protocol::RoomState::kPlaying;
      snapshot.you = you;
      snapshot.game_number = 1;
      snapshot.game = engine::view_of(table.game(), engine::Viewer::of(you));
      return WireTable::wire(snapshot);
    };

    // A seat that missed the last decisions: a fresh tracker, as after a gap.
    SeatTracker behind(seat, rules, kPlayers);
    CHECK(!behind.snapshot(0));
    SeatTracker& tracker = table.trackers()[seat];
    tracker = behind;
    CHECK(!tracker.resync(snapshot_for(seat, table.v())));
    CHECK(tracker.last_v() == table.v());
    CHECK(tracker.games_started() == 1);
    CHECK(tracker.view() == engine::view_of(table.game(), engine::Viewer::of(seat)));
    CHECK(!tracker.turn(WireTable::wire(table.turn_for(seat))));
    CHECK(tracker.to_act() == (table.game().to_act() == seat));
    while (table.play_one()) {
      REQUIRE(table.decisions() < 100000);
    }
    CHECK(tracker.game_over());
    CHECK(tracker.view() == engine::view_of(table.game(), engine::Viewer::of(seat)));
    CHECK(table.problems().empty());
    if (!table.problems().empty()) MESSAGE(table.problems().front());

    SeatTracker other = tracker;
    CHECK(other.resync(snapshot_for(2, table.v())));
    other = tracker;
    CHECK(other.resync(snapshot_for(seat, table.v() - 1)));
  }
}

TEST_CASE("seat tracker: same_decisions reads the wire's compact form") {
  engine::LegalDecisions engine_side;
  engine_side.seat = 2;
  engine_side.ask_for = engine::AskFor::kCard;
  engine_side.targets = 0b011;  // targets, but no card to ask for: the wire spells no ask
  engine_side.declarable = 1U << 5;
  engine::LegalDecisions wire_side = engine_side;
  wire_side.targets = 0;
  wire_side.ask_for = engine::AskFor::kRank;
  CHECK(same_decisions(engine_side, wire_side));
  wire_side.declarable = 1U << 6;
  CHECK(!same_decisions(engine_side, wire_side));

  engine::LegalDecisions asks;
  asks.seat = 1;
  asks.targets = 0b101;
  asks.ranks = 0b1100;
  engine::LegalDecisions other_target = asks;
  other_target.targets = 0b001;
  CHECK(same_decisions(asks, asks));
  CHECK(!same_decisions(asks, other_target));
  engine::LegalDecisions other_seat = asks;
  other_seat.seat = 0;
  CHECK(!same_decisions(asks, other_seat));
}

TEST_CASE("options: --preset and --table-rules") {
  const auto classic = parse({});
  REQUIRE(std::holds_alternative<LoadOptions>(classic));
  REQUIRE(std::get<LoadOptions>(classic).rules.size() == 1);
  CHECK(std::get<LoadOptions>(classic).rules[0] == *engine::preset("classic"));

  const auto authors = parse({"--preset", "authors", "--table-rules", "--players", "3"});
  REQUIRE(std::holds_alternative<LoadOptions>(authors));
  REQUIRE(std::get<LoadOptions>(authors).rules.size() == 1);
  CHECK(std::get<LoadOptions>(authors).rules[0].preset == "authors");
  CHECK(std::get<LoadOptions>(authors).rules[0].table_rules);

  const auto all = parse({"--preset", "all", "--rooms", "12"});
  REQUIRE(std::holds_alternative<LoadOptions>(all));
  const auto& rules = std::get<LoadOptions>(all).rules;
  REQUIRE(rules.size() == engine::preset_names().size());
  for (std::size_t i = 0; i < rules.size(); ++i) CHECK(rules[i].preset == engine::preset_names()[i]);

  for (const auto& bad : std::vector<std::vector<const char*>>{{"--preset", "snap"},
                                                               {"--preset", "authors", "--players", "2"},
                                                               {"--preset", "bicycle", "--players", "6"},
                                                               {"--preset", "all", "--rooms", "5"},
                                                               {"--preset", "all", "--rooms", "6", "--players", "2"}}) {
    const auto refused = parse(bad);
    REQUIRE(std::holds_alternative<OptionsExit>(refused));
    CHECK(std::get<OptionsExit>(refused).code != 0);
    CHECK(std::get<OptionsExit>(refused).output.find("--preset") != std::string::npos);
  }
}

}  // namespace gofish::load
