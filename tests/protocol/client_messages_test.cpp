// Client frames: every message parses from a valid frame, round-trips
// through encode_client_message, and every kind of hostile input is refused
// with the code a client can act on.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "engine/random.hpp"
#include "protocol/messages.hpp"
#include "protocol/text.hpp"

using namespace gofish;
using namespace gofish::protocol;

namespace {

ClientMessage parse_ok(std::string_view frame, const ParseLimits& limits = {}) {
  auto result = parse_client_message(frame, limits);
  if (const auto* error = std::get_if<Error>(&result)) {
    FAIL_CHECK("refused: " << frame << " -> " << error_code_name(error->code) << ": " << error->message);
    return {};
  }
  return std::get<ClientMessage>(std::move(result));
}

Error parse_error(std::string_view frame, const ParseLimits& limits = {}) {
  auto result = parse_client_message(frame, limits);
  if (std::holds_alternative<ClientMessage>(result)) {
    FAIL_CHECK("accepted: " << frame);
    return {};
  }
  return std::get<Error>(std::move(result));
}

std::string code_of(std::string_view frame, const ParseLimits& limits = {}) {
  return std::string(error_code_name(parse_error(frame, limits).code));
}

}  // namespace

TEST_CASE("every client message type parses from a minimal valid frame") {
  const std::pair<const char*, const char*> frames[] = {
      {"hello", R"({"type":"hello","protocol":1,"client":"web/0.1"})"},
      {"create_room", R"({"type":"create_room","name":"Ann","seats":3})"},
      {"join", R"({"type":"join","code":"K7QXM","name":"Bob"})"},
      {"resume", R"({"type":"resume","token":"HiEkJyotMDM2OTw_QkVIS05RVFdaXWBj","last_v":12})"},
      {"leave", R"({"type":"leave"})"},
      {"lobby", R"({"type":"lobby"})"},
      {"add_bot", R"({"type":"add_bot","level":"easy"})"},
      {"remove_bot", R"({"type":"remove_bot","seat":2})"},
      {"kick", R"({"type":"kick","seat":1})"},
      {"start", R"({"type":"start"})"},
      {"rematch", R"({"type":"rematch"})"},
      {"ask", R"({"type":"ask","target":1,"rank":"Q"})"},
      {"answer", R"({"type":"answer","give":false})"},
      {"declare", R"({"type":"declare","rank":"7"})"},
      {"chat", R"({"type":"chat","text":"hi"})"},
      {"transcript", R"({"type":"transcript"})"},
      {"ping", R"({"type":"ping"})"},
      {"create_event", R"({"type":"create_event","name":"Class 3B","table_size":4})"},
      {"join_event", R"({"type":"join_event","code":"K7QXM2","name":"Ann"})"},
      {"resume_event", R"({"type":"resume_event","code":"K7QXM2","token":"HiEkJyotMDM2OTw_QkVIS05RVFdaXWBj"})"},
      {"seat_pupils", R"({"type":"seat_pupils"})"},
      {"move_pupil", R"({"type":"move_pupil","pupil":0,"table":1})"},
      {"free_name", R"({"type":"free_name","pupil":0})"},
      {"start_round", R"({"type":"start_round"})"},
      {"end_round", R"({"type":"end_round"})"},
      {"read_roster", R"({"type":"read_roster","code":"K7QXM2"})"},
      {"pause_tables", R"({"type":"pause_tables"})"},
      {"resume_tables", R"({"type":"resume_tables"})"},
      {"message_tables", R"({"type":"message_tables","text":"Tidy up"})"},
      {"set_chat", R"({"type":"set_chat","chat":"off"})"},
      {"read_results", R"({"type":"read_results"})"},
      {"remove_pupil", R"({"type":"remove_pupil","pupil":0})"},
      {"seat_to_bot", R"({"type":"seat_to_bot","pupil":0})"},
      {"allow_late", R"({"type":"allow_late","allow":true})"},
      {"watch_table", R"({"type":"watch_table","table":null})"},
      {"play_daily", R"({"type":"play_daily","name":"Ann"})"},
      {"read_daily", R"({"type":"read_daily"})"},
      {"contribute", R"({"type":"contribute","value":"00112233445566778899aabbccddeeff"})"},
  };
  std::set<std::string> seen;
  for (const auto& [type, frame] : frames) {
    CAPTURE(frame);
    const ClientMessage m = parse_ok(frame);
    CHECK(message_type(m.body) == type);
    seen.insert(type);
  }
  CHECK(seen.size() == client_message_types().size());
}

TEST_CASE("fields are read, defaulted and normalised") {
  SUBCASE("create_room with everything") {
    const ClientMessage m = parse_ok(
        R"({"type":"create_room","id":1,"name":"  Ann   Lee ","rules":{"preset":"specific-card","may_ask_held_card":true},)"
        R"("seats":4,"bots":[{"seat":2,"level":"hard"},{"seat":3}],"turn_timer_seconds":30,"spectators":false,)"
        R"("listed":true,"chat":"phrases","colour":"ignored"})");
    const auto& c = std::get<CreateRoom>(m.body);
    CHECK(c.name == "Ann Lee");
    CHECK(c.settings.rules.preset == "specific-card");
    CHECK(c.settings.rules.may_ask_held_card);
    CHECK(c.settings.rules.ask_for == engine::AskFor::kCard);
    CHECK(c.settings.seats == 4);
    REQUIRE(c.bots.size() == 2);
    CHECK(c.bots[0] == BotSpec{2, BotLevel::kHard});
    CHECK(c.bots[1] == BotSpec{3, BotLevel::kMedium});
    CHECK(c.settings.turn_timer_seconds == 30);
    CHECK_FALSE(c.settings.spectators);
    CHECK(c.settings.listed);
    CHECK(c.settings.chat == ChatMode::kPhrases);
    CHECK(m.id == RequestId{std::int64_t{1}});
  }
  SUBCASE("create_room defaults") {
    const auto c = std::get<CreateRoom>(parse_ok(R"({"type":"create_room","name":"Ann","seats":2})").body);
    CHECK(c.settings.rules == *engine::preset("classic"));
    CHECK(c.settings.turn_timer_seconds == 0);
    CHECK(c.settings.spectators);
    CHECK_FALSE(c.settings.listed);
    CHECK(c.settings.chat == ChatMode::kFree);
    CHECK(c.bots.empty());
  }
  SUBCASE("join normalises the code and the name") {
    const auto j = std::get<Join>(parse_ok(R"({"type":"join","code":" k7qxm ","name":"\tBob ","as":"spectator"})").body);
    CHECK(j.code == "K7QXM");
    CHECK(j.name == "Bob");
    CHECK(j.as == JoinAs::kSpectator);
  }
  SUBCASE("ask by rank and by card") {
    const auto rank = std::get<Ask>(parse_ok(R"({"type":"ask","target":2,"rank":"10"})").body);
    CHECK(rank.target == 2);
    CHECK(std::get<engine::Rank>(rank.what) == *engine::parse_rank("10"));
    const auto card = std::get<Ask>(parse_ok(R"({"type":"ask","target":0,"card":"QH"})").body);
    CHECK(std::get<engine::Card>(card.what) == *engine::parse_card("QH"));
    const auto decision = decision_of(Ask{1, *engine::parse_card("QH")}, 3);
    REQUIRE(decision);
    CHECK(*decision == engine::Decision{3, engine::AskCard{1, *engine::parse_card("QH")}});
    CHECK_FALSE(decision_of(Ping{}, 0));
  }
  SUBCASE("chat phrase and string ids") {
    const ClientMessage m = parse_ok(R"({"type":"chat","id":"c-1","phrase":"nice_catch"})");
    CHECK(std::get<Chat>(m.body).phrase == "nice_catch");
    CHECK(std::get<Chat>(m.body).text.empty());
    CHECK(m.id == RequestId{std::string("c-1")});
  }
  SUBCASE("a null id or seat counts as absent") {
    const ClientMessage m = parse_ok(R"({"type":"add_bot","id":null,"seat":null,"level":"hard"})");
    CHECK_FALSE(m.id);
    CHECK_FALSE(std::get<AddBot>(m.body).seat);
  }
}

TEST_CASE("hostile frames are refused with the right code") {
  const std::pair<const char*, const char*> cases[] = {
      // not JSON at all, or cut short
      {"protocol/bad_json", R"({"type":"hello",)"},
      {"protocol/bad_json", "hello"},
      {"protocol/bad_json", ""},
      {"protocol/bad_json", R"({"type":"ping"} trailing)"},
      {"protocol/bad_json", "{\"type\":\"chat\",\"text\":\"\xff\xfe\"}"},
      {"protocol/bad_json", R"({"type":"kick","seat":1e999})"},
      // JSON, but not a message
      {"protocol/bad_message", "[1,2,3]"},
      {"protocol/bad_message", "\"hello\""},
      {"protocol/bad_message", "null"},
      {"protocol/bad_message", "42"},
      {"protocol/bad_message", R"({"protocol":1})"},
      {"protocol/bad_message", R"({"type":7})"},
      {"protocol/unknown_type", R"({"type":"shuffle_deck"})"},
      {"protocol/unknown_type", R"({"type":""})"},
      {"protocol/unknown_type", R"({"type":"Hello","protocol":1})"},
      // ids
      {"protocol/bad_message", R"({"type":"ping","id":1.5})"},
      {"protocol/bad_message", R"({"type":"ping","id":""})"},
      {"protocol/bad_message", R"({"type":"ping","id":{"a":1}})"},
      {"protocol/bad_message", R"({"type":"ping","id":9007199254740992})"},
      {"protocol/bad_message", R"({"type":"ping","id":"tab\there"})"},
      // hello
      {"protocol/bad_message", R"({"type":"hello"})"},
      {"protocol/bad_message", R"({"type":"hello","protocol":"1"})"},
      {"protocol/bad_message", R"({"type":"hello","protocol":1.0})"},
      {"protocol/bad_message", R"({"type":"hello","protocol":1,"client":5})"},
      {"protocol/version_mismatch", R"({"type":"hello","protocol":2})"},
      {"protocol/version_mismatch", R"({"type":"hello","protocol":0})"},
      {"protocol/version_mismatch", R"({"type":"hello","protocol":-1})"},
      {"protocol/version_mismatch", R"({"type":"hello","protocol":18446744073709551615})"},
      // wrong types and ranges
      {"protocol/bad_message", R"({"type":"kick"})"},
      {"protocol/bad_message", R"({"type":"kick","seat":"1"})"},
      {"protocol/bad_message", R"({"type":"kick","seat":6})"},
      {"protocol/bad_message", R"({"type":"kick","seat":-1})"},
      {"protocol/bad_message", R"({"type":"kick","seat":1.0})"},
      {"protocol/bad_message", R"({"type":"kick","seat":99999999999999999999})"},
      {"protocol/bad_message", R"({"type":"kick","seat":true})"},
      {"protocol/bad_message", R"({"type":"answer","give":"yes"})"},
      {"protocol/bad_message", R"({"type":"answer"})"},
      {"protocol/bad_message", R"({"type":"declare","rank":"1"})"},
      {"protocol/bad_message", R"({"type":"declare","rank":12})"},
      {"protocol/bad_message", R"({"type":"ask","target":1})"},
      {"protocol/bad_message", R"({"type":"ask","target":1,"rank":"Q","card":"QH"})"},
      {"protocol/bad_message", R"({"type":"ask","target":1,"card":"QX"})"},
      {"protocol/bad_message", R"({"type":"ask","rank":"Q"})"},
      {"protocol/bad_message", R"({"type":"add_bot","level":"genius"})"},
      {"protocol/bad_message", R"({"type":"add_bot"})"},
      {"protocol/bad_message", R"({"type":"resume","token":"HiEkJyotMDM2OTw_QkVIS05RVFdaXWBj","last_v":-1})"},
      {"protocol/bad_message", R"({"type":"join","code":"K7QXM","name":"Bob","as":"referee"})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann"})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":7})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":1})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"turn_timer_seconds":5})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"turn_timer_seconds":301})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"chat":"loud"})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"listed":"yes"})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"bots":{"seat":1}})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"bots":[{"seat":0}]})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"bots":[{"seat":3}]})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"bots":[{"seat":1},{"seat":1}]})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"bots":[7]})"},
      {"protocol/bad_message", R"({"type":"create_room","name":"Ann","seats":3,"bots":[{"seat":1,"level":"god"}]})"},
      {"protocol/bad_message", R"({"type":"chat"})"},
      {"protocol/bad_message", R"({"type":"chat","text":"a","phrase":"hello"})"},
      {"protocol/bad_message", R"({"type":"chat","text":"   "})"},
      {"protocol/bad_message", R"({"type":"chat","text":"line\nbreak"})"},
      {"protocol/bad_message", R"({"type":"chat","text":"evil \u202e txt"})"},
      // rooms: names, codes, tokens, rules
      {"room/bad_name", R"({"type":"join","code":"K7QXM","name":"   "})"},
      {"room/bad_name", R"({"type":"join","code":"K7QXM","name":"Bob\u0000"})"},
      {"room/bad_name", R"({"type":"join","code":"K7QXM","name":"Bo\u200bb"})"},
      {"room/bad_name", R"({"type":"join","code":"K7QXM","name":"Bo\nb"})"},
      {"room/bad_name", R"({"type":"join","code":"K7QXM","name":"abcdefghijklmnopqrstuvwxy"})"},
      {"room/bad_name", R"({"type":"create_room","name":"","seats":2})"},
      {"room/bad_name", R"({"type":"play_daily","name":"  "})"},
      {"protocol/bad_message", R"({"type":"play_daily"})"},
      {"protocol/bad_message", R"({"type":"play_daily","name":7})"},
      {"protocol/bad_message", R"({"type":"join","code":"K7QXM","name":7})"},
      {"protocol/bad_message", R"({"type":"join","code":"K7QXM"})"},
      {"room/bad_code", R"({"type":"join","code":"K7QX0","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"KOQXM","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"K1QXM","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"KIQXM","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"KLQXM","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"K7QX","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"K7QXMM","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"K7-QX","name":"Bob"})"},
      {"room/bad_code", R"({"type":"join","code":"","name":"Bob"})"},
      {"protocol/bad_message", R"({"type":"join","code":12345,"name":"Bob"})"},
      {"room/bad_token", R"({"type":"resume","token":"short"})"},
      {"room/bad_token", R"({"type":"resume","token":"HiEkJyotMDM2OTw_QkVIS05RVFdaXWB!"})"},
      {"room/bad_token", R"({"type":"resume","token":12})"},
      {"protocol/bad_message", R"({"type":"resume"})"},
      {"room/bad_rules", R"({"type":"create_room","name":"Ann","seats":3,"rules":"classic"})"},
      {"room/bad_rules", R"({"type":"create_room","name":"Ann","seats":3,"rules":{"preset":"poker"}})"},
      {"room/bad_rules", R"({"type":"create_room","name":"Ann","seats":3,"rules":{"set_size":"four"}})"},
      {"room/bad_rules", R"({"type":"create_room","name":"Ann","seats":3,"rules":{"colour":"blue"}})"},
      {"room/bad_rules", R"({"type":"create_room","name":"Ann","seats":3,"rules":{"set_size":99999999999}})"},
      {"room/bad_rules", R"({"type":"create_room","name":"Ann","seats":6,"rules":{"preset":"bicycle"}})"},
      {"room/bad_rules", R"({"type":"create_room","name":"Ann","seats":2,"rules":{"preset":"authors"}})"},
      // chat
      {"chat/not_a_phrase", R"({"type":"chat","phrase":"you_lose"})"},
      {"chat/not_a_phrase", R"({"type":"chat","phrase":7})"},
  };
  for (const auto& [code, frame] : cases) {
    CAPTURE(frame);
    CHECK(code_of(frame) == code);
  }
}

TEST_CASE("size, depth and length limits") {
  const ParseLimits limits;
  SUBCASE("a frame over max_frame_bytes is refused unread") {
    const std::string big = R"({"type":"chat","text":")" + std::string(limits.max_frame_bytes, 'a') + "\"}";
    CHECK(code_of(big) == "protocol/too_large");
    ParseLimits small;
    small.max_frame_bytes = 10;
    CHECK(code_of(R"({"type":"ping"})", small) == "protocol/too_large");
  }
  SUBCASE("deep nesting is refused before the JSON parser recurses") {
    std::string deep(limits.max_frame_bytes / 2, '[');
    deep += std::string(limits.max_frame_bytes / 2, ']');
    CHECK(code_of(deep) == "protocol/bad_message");
    CHECK(code_of(R"({"type":"ping","x":{"a":{"b":{"c":[1]}}}})") == "protocol/bad_message");
    // brackets inside strings do not count
    parse_ok(R"({"type":"chat","text":"[[[[[[[[{{{{{{"})");
    // the deepest legitimate frame
    parse_ok(R"({"type":"create_room","name":"A","seats":3,"bots":[{"seat":1,"level":"easy"}],"rules":{"preset":"pairs"}})");
  }
  SUBCASE("names and chat are counted in code points after trimming") {
    const std::string n24 = std::string(24, 'x');
    CHECK(std::get<Join>(parse_ok(R"({"type":"join","code":"K7QXM","name":"  )" + n24 + R"(  "})").body).name == n24);
    // 24 two-byte letters are 48 bytes but 24 characters
    std::string accented;
    for (int i = 0; i < 24; ++i) accented += "\xc3\xa9";
    CHECK(std::get<Join>(parse_ok(R"({"type":"join","code":"K7QXM","name":")" + accented + "\"}").body).name == accented);
    const std::string t200(200, 'y');
    CHECK(std::get<Chat>(parse_ok(R"({"type":"chat","text":")" + t200 + "\"}").body).text == t200);
    CHECK(code_of(R"({"type":"chat","text":")" + t200 + "z\"}") == "chat/too_long");
    // emoji with a zero-width joiner are fine
    parse_ok("{\"type\":\"chat\",\"text\":\"\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb\"}");
  }
  SUBCASE("a long id and a long client description") {
    CHECK(code_of(R"({"type":"ping","id":")" + std::string(65, 'i') + "\"}") == "protocol/bad_message");
    parse_ok(R"({"type":"ping","id":")" + std::string(64, 'i') + "\"}");
    CHECK(code_of(R"({"type":"hello","protocol":1,"client":")" + std::string(65, 'c') + "\"}") ==
          "protocol/bad_message");
  }
  SUBCASE("ids at the edge of what JavaScript holds exactly") {
    CHECK(parse_ok(R"({"type":"ping","id":9007199254740991})").id == RequestId{std::int64_t{9007199254740991}});
    CHECK(parse_ok(R"({"type":"ping","id":-9007199254740991})").id == RequestId{std::int64_t{-9007199254740991}});
  }
}

TEST_CASE("errors echo the request id when it could be read, and name the field") {
  const Error e = parse_error(R"({"type":"kick","id":"k1","seat":9})");
  CHECK(e.code == ErrorCode::kBadMessage);
  CHECK(e.id == RequestId{std::string("k1")});
  CHECK(e.field == "seat");
  CHECK_FALSE(e.message.empty());
  const Error unknown = parse_error(R"({"type":"dance","id":42})");
  CHECK(unknown.code == ErrorCode::kUnknownType);
  CHECK(unknown.id == RequestId{std::int64_t{42}});
  CHECK(unknown.message.find("dance") != std::string::npos);
  const Error bot = parse_error(R"({"type":"create_room","name":"A","seats":3,"bots":[{"seat":1},{"seat":9}]})");
  CHECK(bot.field == "bots[1].seat");
  const Error bad_id = parse_error(R"({"type":"ping","id":[1]})");
  CHECK_FALSE(bad_id.id);
  CHECK(bad_id.field == "id");
  const Error rules = parse_error(R"({"type":"create_room","name":"A","seats":3,"rules":{"set_size":3}})");
  CHECK(rules.code == ErrorCode::kRoomBadRules);
  CHECK(rules.field == "set_size");
  // untrusted text is never echoed raw
  const Error quoted = parse_error(R"({"type":"<script>\"\u0007)" + std::string(100, 'x') + "\"}");
  CHECK(quoted.message.find('\x07') == std::string::npos);
  CHECK(quoted.message.size() < 100);
}

TEST_CASE("client messages round-trip through encode_client_message") {
  engine::Rules card_rules = *engine::preset("specific-card");
  card_rules.may_ask_held_card = true;
  std::vector<ClientMessage> messages = {
      {std::nullopt, Hello{1, "web/0.1"}},
      {std::nullopt, Hello{1, ""}},
      {RequestId{std::int64_t{1}}, CreateRoom{"Ann",
                                              RoomSettings{card_rules, 4, 30, false, true, ChatMode::kPhrases},
                                              {BotSpec{1, BotLevel::kEasy}, BotSpec{3, BotLevel::kHard}}}},
      {RequestId{std::string("x")},
       CreateRoom{"Ann", RoomSettings{*engine::preset("pairs"), 2, 0, true, false, ChatMode::kOff}, {}}},
      {std::nullopt, Join{"K7QXM", "Bob", JoinAs::kSpectator}},
      {std::nullopt, Resume{std::string(32, 'A'), 12}},
      {std::nullopt, Resume{std::string(32, '_'), std::nullopt}},
      {std::nullopt, Leave{}},
      {std::nullopt, Lobby{}},
      {std::nullopt, AddBot{std::nullopt, BotLevel::kMedium}},
      {std::nullopt, AddBot{4, BotLevel::kHard}},
      {std::nullopt, RemoveBot{2}},
      {std::nullopt, Kick{5}},
      {std::nullopt, Start{}},
      {std::nullopt, Rematch{}},
      {std::nullopt, Ask{1, engine::Rank{12}}},
      {std::nullopt, Ask{1, *engine::parse_card("10D")}},
      {std::nullopt, Answer{true}},
      {std::nullopt, Answer{false}},
      {std::nullopt, Declare{0}},
      {std::nullopt, Chat{"hello there", ""}},
      {std::nullopt, Chat{"", "good_luck"}},
      {RequestId{std::int64_t{-3}}, GetTranscript{}},
      {RequestId{std::int64_t{7}}, Ping{}},
      {RequestId{std::int64_t{8}},
       CreateEvent{"Class 3B",
                   EventSettings{*engine::preset("pairs"), 3, BotLevel::kHard, ChatMode::kOff, 30, 2, true, false},
                   {"Ann", "Ben"}}},
      {std::nullopt, JoinEvent{"K7QXM2", "Ann", ""}},
      {std::nullopt, JoinEvent{"K7QXM2", "", std::string(32, 'A')}},
      {std::nullopt, ResumeEvent{"K7QXM2", std::string(32, 'B')}},
      {std::nullopt, SeatPupils{}},
      {std::nullopt, MovePupil{4, 2}},
      {std::nullopt, FreeName{3}},
      {std::nullopt, StartRound{}},
      {std::nullopt, EndRound{}},
      {std::nullopt, ReadRoster{"K7QXM2"}},
      {std::nullopt, PauseTables{}},
      {std::nullopt, ResumeTables{}},
      {std::nullopt, MessageTables{"Tidy up"}},
      {std::nullopt, SetChat{ChatMode::kFree}},
      {std::nullopt, ReadResults{}},
      {std::nullopt, RemovePupil{5}},
      {std::nullopt, SeatToBot{6}},
      {std::nullopt, AllowLate{false}},
      {std::nullopt, WatchTable{1}},
      {RequestId{std::int64_t{9}}, PlayDaily{"Ann"}},
      {RequestId{std::string("d")}, ReadDaily{}},
      {RequestId{std::int64_t{10}}, Contribute{"00112233445566778899aabbccddeeff"}},
  };
  std::set<std::size_t> kinds;
  for (const ClientMessage& m : messages) {
    const std::string frame = encode_client_message(m);
    CAPTURE(frame);
    CHECK(parse_ok(frame) == m);
    kinds.insert(m.body.index());
  }
  CHECK(kinds.size() == std::variant_size_v<ClientBody>);
  // create_room sends only the fields changed from the preset
  const std::string frame = encode_client_message(messages[2]);
  CHECK(frame.find(R"("rules":{"preset":"specific-card","may_ask_held_card":true})") != std::string::npos);
}

TEST_CASE("room codes, tokens, names") {
  CHECK(kRoomCodeAlphabet.size() == 31);
  for (char bad : std::string_view("01OIL")) CHECK(kRoomCodeAlphabet.find(bad) == std::string_view::npos);
  CHECK(is_room_code("K7QXM"));
  CHECK_FALSE(is_room_code("k7qxm"));
  CHECK(normalize_room_code(" k7qxm\n") == "K7QXM");
  CHECK_FALSE(normalize_room_code("K7 QXM"));
  CHECK(room_code_count() == 31ULL * 31 * 31 * 31 * 31);
  CHECK(room_code_from_index(0) == "22222");
  CHECK(room_code_from_index(room_code_count() - 1) == "ZZZZZ");
  std::set<std::string> codes;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const std::string code = room_code_from_index(i * 14327);
    CHECK(is_room_code(code));
    codes.insert(code);
  }
  CHECK(codes.size() == 2000);
  CHECK(invite_path("K7QXM") == "/r/K7QXM");

  std::array<std::uint8_t, kTokenBytes> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 11 + 200);
  const std::string token = token_from_bytes(bytes);
  CHECK(token.size() == kTokenLength);
  CHECK(is_token(token));
  bytes[5] ^= 1;
  CHECK(token_from_bytes(bytes) != token);

  CHECK(same_name("Ann", "aNN"));
  CHECK_FALSE(same_name("Ann", "Anne"));
  CHECK(std::get<std::string>(normalize_name("  a \xc2\xa0  b ")) == "a b");
  CHECK(std::holds_alternative<Error>(normalize_name("\xc3")));                  // cut UTF-8
  CHECK(std::holds_alternative<Error>(normalize_name("\xc0\xaf")));              // overlong
  CHECK(std::holds_alternative<Error>(normalize_name("\xed\xa0\x80")));          // a surrogate
  CHECK(std::holds_alternative<Error>(normalize_name("a\xc2\x85")));             // C1 control
  CHECK(std::holds_alternative<Error>(normalize_name("a\xe2\x80\xae" "b")));     // right-to-left override
  CHECK(utf8_length("\xf0\x9f\x90\x9f fish") == 6);
}

TEST_CASE("mangled frames never throw and always get an answer") {
  // A cheap in-suite cousin of fuzz/parse_client_message_fuzz.cpp: flip,
  // drop and duplicate bytes of valid frames.
  const std::string seeds[] = {
      R"({"type":"create_room","id":1,"name":"Ann","rules":{"preset":"classic","set_size":4},"seats":3,"bots":[{"seat":2,"level":"hard"}],"turn_timer_seconds":30,"spectators":true,"listed":false,"chat":"free"})",
      R"({"type":"join","id":"j1","code":"K7QXM","name":"Bob","as":"player"})",
      R"({"type":"ask","id":3,"target":1,"card":"10H"})",
      R"({"type":"chat","text":"caf\u00e9 \ud83d\udc1f"})",
      R"({"type":"resume","token":"HiEkJyotMDM2OTw_QkVIS05RVFdaXWBj","last_v":12})",
  };
  engine::Rng rng(20240601);
  int accepted = 0;
  int refused = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string frame = seeds[rng.below(5)];
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits && !frame.empty(); ++e) {
      const std::size_t at = rng.below(static_cast<std::uint32_t>(frame.size()));
      switch (rng.below(4)) {
        case 0: frame[at] = static_cast<char>(rng.below(256)); break;
        case 1: frame.erase(at, 1); break;
        case 2: frame.insert(at, 1, frame[at]); break;
        default: {
          const char* snippets[] = {"{", "[", "\"", "\\u0000", "\\ud800", "1e999", "-0", "null"};
          frame.insert(at, snippets[rng.below(8)]);
          break;
        }
      }
    }
    const auto result = parse_client_message(frame);
    if (std::holds_alternative<ClientMessage>(result)) {
      ++accepted;
      // whatever was accepted encodes to a frame that parses to the same message
      const auto again = parse_client_message(encode_client_message(std::get<ClientMessage>(result)));
      REQUIRE(std::holds_alternative<ClientMessage>(again));
      CHECK(std::get<ClientMessage>(again) == std::get<ClientMessage>(result));
    } else {
      ++refused;
      CHECK_FALSE(std::get<Error>(result).message.empty());
    }
  }
  CHECK(accepted > 0);
  CHECK(refused > 0);
}
