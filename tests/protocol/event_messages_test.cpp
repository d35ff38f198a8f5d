// The class-event messages (protocol/event_json.cpp): what a client may
// send, what is refused, and that every message and the store's records
// read back to what was written.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "protocol/event_json.hpp"
#include "protocol/messages.hpp"
#include "protocol/text.hpp"

using namespace gofish;
using namespace gofish::protocol;

namespace {

ClientMessage parsed(const std::string& frame) {
  auto result = parse_client_message(frame);
  if (const auto* error = std::get_if<Error>(&result)) FAIL(error_code_name(error->code) << ": " << error->message);
  return std::get<ClientMessage>(std::move(result));
}

std::string refusal(const std::string& frame) {
  auto result = parse_client_message(frame);
  REQUIRE(std::holds_alternative<Error>(result));
  return std::string(error_code_name(std::get<Error>(result).code));
}

}  // namespace

TEST_CASE("events: create_event reads every setting, with defaults") {
  const auto m = parsed(R"({"type":"create_event","id":1,"name":" Class 3B ","table_size":4,
                            "roster":["Ann","Ben"]})");
  const auto& create = std::get<CreateEvent>(m.body);
  CHECK(create.name == "Class 3B");
  CHECK(create.settings.table_size == 4);
  CHECK(create.settings.rules.preset == "classic");
  CHECK(create.settings.bots == BotLevel::kMedium);
  CHECK(create.settings.chat == ChatMode::kPhrases);
  CHECK(create.settings.rounds == 1);
  CHECK_FALSE(create.settings.same_deal);
  CHECK_FALSE(create.settings.coaching);
  CHECK(create.roster == std::vector<std::string>{"Ann", "Ben"});

  const auto full = parsed(R"({"type":"create_event","name":"Maths","table_size":3,"rules":{"preset":"pairs"},
                               "bots":"hard","chat":"off","turn_timer_seconds":30,"rounds":3,"same_deal":true,
                               "coaching":true})");
  const auto& settings = std::get<CreateEvent>(full.body).settings;
  CHECK(settings.rules.preset == "pairs");
  CHECK(settings.bots == BotLevel::kHard);
  CHECK(settings.chat == ChatMode::kOff);
  CHECK(settings.turn_timer_seconds == 30);
  CHECK(settings.rounds == 3);
  CHECK(settings.same_deal);
  CHECK(settings.coaching);
}

TEST_CASE("events: bad requests are refused with the code for each") {
  CHECK(refusal(R"({"type":"create_event","name":"C","table_size":7})") == "protocol/bad_message");
  CHECK(refusal(R"({"type":"create_event","name":"C","table_size":4,"rounds":0})") == "protocol/bad_message");
  CHECK(refusal(R"({"type":"create_event","name":"C","table_size":4,"roster":["Ann","ann"]})") ==
        "protocol/bad_message");
  CHECK(refusal(R"({"type":"create_event","name":"C","table_size":4,"roster":[""]})") == "room/bad_name");
  CHECK(refusal(R"({"type":"create_event","name":"C","table_size":4,"turn_timer_seconds":3})") ==
        "protocol/bad_message");
  std::string roster = R"({"type":"create_event","name":"C","table_size":4,"roster":[)";
  for (std::size_t i = 0; i <= kMaxRosterNames; ++i) roster += (i ? ",\"P" : "\"P") + std::to_string(i) + "\"";
  CHECK(refusal(roster + "]}") == "protocol/bad_message");
  CHECK(refusal(R"({"type":"join_event","code":"K7QXM","name":"Ann"})") == "event/bad_code");
  CHECK(refusal(R"({"type":"join_event","code":"K7QXM2"})") == "protocol/bad_message");
  CHECK(refusal(R"({"type":"join_event","code":"K7QXM2","name":"Ann","token":"x"})") == "protocol/bad_message");
  CHECK(refusal(R"({"type":"join_event","code":"K7QXM2","token":"short"})") == "event/bad_token");
  CHECK(refusal(R"({"type":"resume_event","code":"K7QXM2"})") == "protocol/bad_message");
  CHECK(refusal(R"({"type":"move_pupil","pupil":-1,"table":0})") == "protocol/bad_message");
  CHECK(refusal(R"({"type":"free_name"})") == "protocol/bad_message");
}

TEST_CASE("events: codes are six characters, never a room code") {
  CHECK(is_event_code("K7QXM2"));
  CHECK_FALSE(is_event_code("K7QXM"));
  CHECK_FALSE(is_room_code("K7QXM2"));
  CHECK(normalize_event_code(" k7qxm2 ") == "K7QXM2");
  CHECK_FALSE(normalize_event_code("K7QXM0"));
  CHECK(is_event_code(event_code_from_index(0)));
  CHECK(is_event_code(event_code_from_index(event_code_count() - 1)));
  CHECK(event_code_from_index(1) != event_code_from_index(2));
}

TEST_CASE("events: every client message encodes and parses back to itself") {
  CreateEvent create;
  create.name = "Class 3B";
  create.settings.rules = *engine::preset("pairs");
  create.settings.table_size = 3;
  create.settings.same_deal = true;
  create.roster = {"Ann", "Ben"};
  const std::string token = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  REQUIRE(is_token(token));
  for (const ClientBody& body :
       std::vector<ClientBody>{create, JoinEvent{"K7QXM2", "Ann", ""}, JoinEvent{"K7QXM2", "", token},
                               ResumeEvent{"K7QXM2", token}, SeatPupils{}, MovePupil{3, 1}, FreeName{2},
                               StartRound{}, EndRound{}, ReadRoster{"K7QXM2"}, PauseTables{}, ResumeTables{},
                               MessageTables{"Five minutes left."}, SetChat{ChatMode::kOff}, ReadResults{},
                               RemovePupil{4}, SeatToBot{5}, AllowLate{false}, AllowLate{true}, WatchTable{2},
                               WatchTable{std::nullopt}}) {
    const ClientMessage message{RequestId(std::int64_t{7}), body};
    const std::string text = encode_client_message(message);
    CAPTURE(text);
    CHECK(parsed(text) == message);
  }
  CHECK(is_teacher_command(StartRound{}));
  CHECK(is_teacher_command(FreeName{}));
  CHECK(is_teacher_command(ReadResults{}));
  CHECK_FALSE(is_teacher_command(JoinEvent{}));
  CHECK_FALSE(is_teacher_command(Start{}));
  CHECK(is_teacher_command(PauseTables{}));
  CHECK(is_teacher_command(MessageTables{}));
  CHECK_FALSE(is_teacher_command(ReadRoster{}));
  CHECK(is_teacher_command(RemovePupil{}));
  CHECK(is_teacher_command(SeatToBot{}));
  CHECK(is_teacher_command(AllowLate{}));
  CHECK(is_teacher_command(WatchTable{}));
  CHECK(parsed(R"({"type":"watch_table","table":null})").body == ClientBody(WatchTable{std::nullopt}));
  // create_event without late_pupils allows them; the other commands'
  // fields are required and bounded.
  const auto plain = parsed(R"({"type":"create_event","name":"Maths","table_size":4})");
  REQUIRE(std::holds_alternative<CreateEvent>(plain.body));
  CHECK(std::get<CreateEvent>(plain.body).settings.late_pupils);
  for (const char* bad : {R"({"type":"remove_pupil"})", R"({"type":"remove_pupil","pupil":-1})",
                          R"({"type":"seat_to_bot","pupil":120})", R"({"type":"seat_to_bot","pupil":"1"})",
                          R"({"type":"allow_late"})", R"({"type":"allow_late","allow":1})",
                          R"({"type":"watch_table","table":-1})",
                          R"({"type":"watch_table","table":"0"})"}) {
    CAPTURE(bad);
    CHECK(std::holds_alternative<Error>(parse_client_message(bad)));
  }
}

EventResults results_example() {
  EventResults m;
  m.id = RequestId(std::int64_t{4});
  m.code = "K7QXM2";
  m.name = "Class 3B";
  m.same_deal = true;
  RoundResults round;
  round.round = 1;
  ResultTable over{0, "K7QXM", std::string("game-id"), true, {}};
  over.seats = {ResultSeat{0, "Ann", 0, 2, {12, 0}, 1, 0.5}, ResultSeat{1, "Bot Bea", std::nullopt, 1, {5}, 2, -0.5}};
  ResultTable playing{1, "QXM7K", std::nullopt, false, {}};
  playing.seats = {ResultSeat{0, "Ben", 1, 0, {}, std::nullopt, std::nullopt},
                   ResultSeat{1, "Bot Cy", std::nullopt, 1, {9}, std::nullopt, std::nullopt}};
  round.tables = {over, playing};
  round.seat_positions = {SeatPosition{0, {SeatPositionTable{0, 2}}, 2.0},
                          SeatPosition{1, {SeatPositionTable{0, 1}}, 1.0}};
  m.rounds = {round};
  m.pupils = {PupilResults{0, "Ann", 1, 2, 1, 0.5}, PupilResults{1, "Ben", 0, 0, 0, std::nullopt}};
  return m;
}

TEST_CASE("events: every server message encodes and parses back to itself") {
  EventState state;
  state.code = "K7QXM2";
  state.name = "Class 3B";
  state.settings.rules = *engine::preset("classic");
  state.state = EventPhase::kPlaying;
  state.round = 1;
  state.paused = true;
  state.settings.late_pupils = false;
  state.pupils = {EventPupil{0, "Ann", true, true, 0, 1},
                  EventPupil{1, "Ben", false, false, std::nullopt, std::nullopt},
                  EventPupil{2, "Cleo", true, true, std::nullopt, std::nullopt, true}};
  EventTable table;
  table.table = 0;
  table.room = "K7QXM";
  table.state = RoomState::kPlaying;
  table.turn = 1;
  table.pond = 20;
  table.seats = {EventTableSeat{Occupant::kBot, "Bot Bea", std::nullopt, BotLevel::kEasy, false, false, 5, 1, {12}},
                 EventTableSeat{Occupant::kHuman, "Ann", 0, std::nullopt, true, false, 6, 0}};
  state.tables = {table};
  engine::CardSet ann_hand;
  for (const char* card : {"QH", "2C", "10S"}) ann_hand.add(*engine::parse_card(card));
  // A same-deal event's commitments (docs/FAIRNESS.md, "Shared deals").
  DealFairness next_deal;
  next_deal.commitment = std::string(64, 'a');
  next_deal.shared = true;
  DealFairness revealed = next_deal;
  revealed.seed = std::string(64, 'b');
  EventState dealt = state;
  dealt.next_deal = next_deal;
  dealt.deal = revealed;
  const std::vector<EventServerMessage> messages = {
      EventCreated{RequestId(std::int64_t{1}), "K7QXM2", "tok", state},
      EventJoined{RequestId(std::string("j")), "K7QXM2", "Class 3B", "tok", false, state.pupils[0], 1, false,
                  std::nullopt},
      EventJoined{std::nullopt, "K7QXM2", "Class 3B", "", true, state.pupils[1], 0, true, std::nullopt},
      EventJoined{std::nullopt, "K7QXM2", "Class 3B", "", true, state.pupils[1], 0, true, next_deal},
      EventStateMessage{std::nullopt, state},
      EventStateMessage{std::nullopt, dealt},
      EventSeat{"K7QXM2", 1, 0, "K7QXM", 1, "tok", false, std::nullopt},
      EventSeat{"K7QXM2", 1, 0, "K7QXM", 1, "tok", true, std::nullopt},
      EventSeat{"K7QXM2", 1, 0, "K7QXM", 1, "tok", true, next_deal},
      EventRoster{RequestId(std::string("r")),
                  "K7QXM2",
                  "Class 3B",
                  true,
                  {EventRosterName{"Ann", true}, EventRosterName{"Ben", false}},
                  true,
                  EventPhase::kPlaying},
      EventRoster{std::nullopt, "K7QXM2", "Class 3B", false, {}, false, EventPhase::kClosed},
      EventTeacherMessage{"Five minutes left."},
      EventLeft{"removed"},
      EventUnseated{"teacher"},
      TableView{0,
                "K7QXM",
                RoomState::kPlaying,
                1,
                20,
                {TableViewSeat{0, "Ann", 0, 3, {12}, ann_hand},
                 TableViewSeat{1, "Bot Bea", std::nullopt, 3, {}, std::nullopt}}},
      TableView{1, "QXM7K", RoomState::kOver, std::nullopt, 0, {}},
      results_example(),
      EventResults{std::nullopt, "K7QXM2", "Class 3B", false, {}, {}},
  };
  for (const EventServerMessage& message : messages) {
    const std::string text = encode(message);
    CAPTURE(text);
    CHECK(text.find("\"type\":\"" + std::string(message_type(message)) + "\"") != std::string::npos);
    // A client of rooms alone is told what the frame is, not handed it.
    CHECK(std::holds_alternative<std::string>(parse_server_message(text)));
    auto back = parse_event_server_message(text);
    REQUIRE(std::holds_alternative<EventServerMessage>(back));
    const EventServerMessage& read = std::get<EventServerMessage>(back);
    REQUIRE(read.index() == message.index());
    std::visit(
        [&](const auto& written) {
          using M = std::decay_t<decltype(written)>;
          CHECK(std::get<M>(read) == written);
        },
        message);
  }
  CHECK(std::holds_alternative<std::string>(parse_event_server_message(R"({"type":"event_seat","event":"K7QXM2"})")));
  CHECK(std::holds_alternative<std::string>(parse_event_server_message(R"({"type":"ok"})")));
  CHECK(std::holds_alternative<std::string>(parse_event_server_message("[")));
}

TEST_CASE("events: the store's records read back") {
  EventSettings settings;
  settings.rules = *engine::preset("authors");
  settings.table_size = 5;
  settings.rounds = 4;
  settings.coaching = true;
  const auto back = event_settings_from_record(event_settings_record(settings, {"Ann", "Ben"}));
  REQUIRE(back);
  CHECK(back->settings == settings);
  CHECK(back->roster == std::vector<std::string>{"Ann", "Ben"});
  CHECK_FALSE(back->paused);
  const auto paused = event_settings_from_record(event_settings_record(settings, {}, true));
  REQUIRE(paused);
  CHECK(paused->paused);
  CHECK(paused->settings == settings);
  CHECK_FALSE(back->watching);
  // The table the teacher watches (watch_table), kept with the event.
  const auto watching = event_settings_from_record(event_settings_record(settings, {}, false, 2));
  REQUIRE(watching);
  CHECK(watching->watching == 2);
  CHECK_FALSE(watching->paused);
  auto negative = nlohmann::json::parse(event_settings_record(settings, {}));
  negative["watching"] = -1;
  CHECK_FALSE(event_settings_from_record(negative.dump()));
  CHECK_FALSE(event_settings_from_record("{}"));
  CHECK_FALSE(event_settings_from_record("not json"));
  CHECK(back->next_seed.empty());
  CHECK(back->round_seed.empty());
  // A same-deal event's seeds, kept for a restart: 64 lowercase hex digits.
  const std::string next(64, 'a');
  const std::string round = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  const auto seeded = event_settings_from_record(event_settings_record({settings, {"Ann"}, true, 1, next, round}));
  REQUIRE(seeded);
  CHECK(seeded->next_seed == next);
  CHECK(seeded->round_seed == round);
  CHECK(seeded->paused);
  CHECK(seeded->watching == 1);
  CHECK(seeded->roster == std::vector<std::string>{"Ann"});
  for (const std::string& bad :
       std::vector<std::string>{"ab", "not hex", std::string(64, 'A'), std::string(64, 'g'), std::string(66, 'a')}) {
    auto wrong = nlohmann::json::parse(event_settings_record({settings, {}, false, std::nullopt, next, round}));
    wrong["round_seed"] = bad;
    CHECK_FALSE(event_settings_from_record(wrong.dump()));
  }
  auto not_text = nlohmann::json::parse(event_settings_record({settings, {}, false, std::nullopt, next, {}}));
  not_text["next_seed"] = 7;
  CHECK_FALSE(event_settings_from_record(not_text.dump()));
  settings.late_pupils = false;
  const auto no_late = event_settings_from_record(event_settings_record(settings, {}));
  REQUIRE(no_late);
  CHECK_FALSE(no_late->settings.late_pupils);
  // A record from before allow_late: late pupils are allowed.
  auto old_record = nlohmann::json::parse(event_settings_record(settings, {}));
  old_record.erase("late_pupils");
  const auto before_late = event_settings_from_record(old_record.dump());
  REQUIRE(before_late);
  CHECK(before_late->settings.late_pupils);
  // Seats: a pupil, a bot, a seat let go by an unseated pupil, one let go
  // by a removed pupil.
  const TableSeatsRecord seats{{0, std::nullopt, std::nullopt, std::nullopt},
                               {false, false, true, true},
                               {std::nullopt, std::nullopt, 7, std::nullopt}};
  CHECK(table_seats_record(seats) == R"([0,null,{"let_go":true,"unseated":7},{"let_go":true}])");
  CHECK(table_seats_from_record(table_seats_record(seats)) == seats);
  // A record from before seats could be let go.
  const auto plain = table_seats_from_record("[0,null,7]");
  REQUIRE(plain);
  CHECK(plain->pupils == std::vector<std::optional<int>>{0, std::nullopt, 7});
  CHECK(plain->let_go == std::vector<bool>{false, false, false});
  CHECK_FALSE(table_seats_from_record(R"(["a"])"));
  CHECK_FALSE(table_seats_from_record(R"([{"let_go":true,"unseated":"x"}])"));
  const TableResultRecord result{{"Ann", "Bot Bea"}, {{12, 0}, {}}};
  CHECK(table_result_from_record(table_result_record(result)) == result);
  CHECK(table_result_record(result) == R"([{"name":"Ann","ranks":["A","2"]},{"name":"Bot Bea","ranks":[]}])");
  CHECK_FALSE(table_result_from_record(R"([{"name":"Ann","ranks":["1"]}])"));
  CHECK_FALSE(table_result_from_record("{}"));
}
