// The store's spelling of a room's settings and seats (protocol/room_records):
// what is written reads back the same, older spellings still read, and a
// damaged record is named, never guessed at.
#include "protocol/room_records.hpp"

#include <doctest/doctest.h>

#include <string>
#include <variant>

#include "protocol/rules_json.hpp"

namespace gofish::protocol {
namespace {

RoomSettings classic(int seats) {
  RoomSettings settings;
  settings.rules = std::get<engine::Rules>(rules_from_json(nlohmann::json{{"preset", "classic"}}));
  settings.seats = seats;
  return settings;
}

StoredSettings read(const std::string& text) {
  auto read = settings_from_record(text);
  if (const auto* error = std::get_if<std::string>(&read)) FAIL(*error);
  return std::get<StoredSettings>(std::move(read));
}

TEST_CASE("settings record: the removed players read back, their hashes byte for byte") {
  const std::string hash("\x00\x01\xfe\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0", 16);
  const std::vector<RemovedPlayer> removed{{"Bob", 1, hash}, {"Zoë", 2, ""}};
  const std::string text = settings_record(classic(3), removed);
  CHECK(text.find("\"token\":\"0001feff102030405060708090a0b0c0\"") != std::string::npos);
  const StoredSettings back = read(text);
  CHECK(back.removed == removed);
  CHECK(back.settings.seats == 3);
  CHECK(back.settings.rules == classic(3).rules);
}

TEST_CASE("settings record: no kick writes no \"removed\", and a record without one reads as nobody removed") {
  const std::string text = settings_record(classic(4));
  CHECK(text.find("removed") == std::string::npos);
  CHECK(read(text).removed.empty());
}

TEST_CASE("settings record: a damaged removed list is named, not guessed at") {
  const std::string settings = settings_record(classic(2));
  const auto with = [&](const std::string& removed) {
    return settings.substr(0, settings.size() - 1) + ",\"removed\":" + removed + "}";
  };
  for (const std::string bad : {R"("Bob")", R"([{"name":"Bob","seat":1,"token":"0g"}])",
                                R"([{"name":"Bob","seat":1,"token":"abc"}])", R"([{"name":"Bob","token":""}])",
                                R"([{"seat":1,"token":""}])", R"([7])"}) {
    CAPTURE(bad);
    const auto result = settings_from_record(with(bad));
    REQUIRE(std::holds_alternative<std::string>(result));
    CHECK(std::get<std::string>(result).find("removed") != std::string::npos);
  }
}

TEST_CASE("seat record: every field reads back") {
  SeatRecord seat{Occupant::kHuman, "Ann", engine::BotLevel::kHard, true, TakeoverReason::kKicked, true, true};
  auto back = seat_from_record(seat_record(seat));
  REQUIRE(std::holds_alternative<SeatRecord>(back));
  CHECK(std::get<SeatRecord>(back) == seat);
}

TEST_CASE("daily note record: every field reads back, the token hash byte for byte, and a damaged one is named") {
  const DailyNoteRecord note{0, std::string("\x00\x01\xfe\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0", 16), 1,
                             DailyResult{"2026-11-30", 5, 37, 62, 8}};
  auto back = daily_note_from_record(daily_note_record(note));
  REQUIRE(std::holds_alternative<DailyNoteRecord>(back));
  CHECK(std::get<DailyNoteRecord>(back) == note);
  for (const std::string bad : {"", "[]", R"({"seat":0,"token":"0g","game":1,"result":{}})",
                                R"({"seat":0,"token":"00","game":1,"result":{"date":"2026-11-30","sets":5}})"}) {
    const auto result = daily_note_from_record(bad);
    REQUIRE(std::holds_alternative<std::string>(result));
    CHECK(std::get<std::string>(result).find("daily note") != std::string::npos);
  }
}

}  // namespace
}  // namespace gofish::protocol
