// gofish-deal/1 in a room (docs/FAIRNESS.md): the commitment before the
// deal, the seats' contributions and their refusals, the seed revealed in
// the transcript only once the game is over, and a fresh commitment for the
// rematch; with a store, the next deal and each contribution stored before
// the commitment or the contribution's ok goes out, and held while the
// store fails. On the fake clock of room_harness.hpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fairness/deal_algorithm.hpp"
#include "fairness/deal_check.hpp"
#include "protocol/fairness_json.hpp"
#include "protocol/room_records.hpp"
#include "room_harness.hpp"
#include "rooms_support.hpp"
#include "server/rooms/daily_seed.hpp"
#include "server/rooms/next_deal.hpp"

namespace gofish::server::testing {
namespace {

using protocol::BotLevel;

bool game_over(const FakeClient& client) { return !client.events<engine::GameOver>().empty(); }

// Every frame the client was sent so far, as text.
std::string frames(FakeClient& client) {
  std::string all;
  for (const std::string& frame : client.connection().sent) all += frame + "\n";
  return all;
}

TEST_CASE("room fairness: committed before the deal, contributions taken once, the seed revealed only after the game") {
  RoomBench bench;
  FakeClient& ann = bench.create(create_request("Ann", "classic", 3, {{2, BotLevel::kEasy}}));
  FakeClient& bob = bench.join("Bob");
  FakeClient& zoe = bench.join("Zoe", protocol::JoinAs::kSpectator);
  const auto before = ann.last<protocol::RoomSnapshot>();
  REQUIRE(before);
  REQUIRE(before->next_deal);
  CHECK(before->next_deal->algorithm == "gofish-deal/1");
  CHECK(before->next_deal->commitment.size() == 64);
  CHECK_FALSE(before->next_deal->seed);
  const std::string commitment = before->next_deal->commitment;
  // A spectator sees the same commitment and may not contribute.
  REQUIRE(zoe.last<protocol::RoomSnapshot>()->next_deal);
  CHECK(zoe.last<protocol::RoomSnapshot>()->next_deal->commitment == commitment);
  zoe.send(protocol::Contribute{std::string(32, 'a')});
  CHECK(zoe.reply() == "deal/not_seated");

  ann.send(protocol::Contribute{"not hex at all, not hex at all!!"});
  CHECK(ann.reply() == "deal/bad_contribution");
  ann.send(protocol::Contribute{std::string(30, 'a')});  // 15 bytes
  CHECK(ann.reply() == "deal/bad_contribution");
  const std::string ann_value = "00112233445566778899aabbccddeeff";
  ann.send(protocol::Contribute{ann_value});
  CHECK(ann.reply() == "ok");
  ann.send(protocol::Contribute{std::string(64, 'b')});
  CHECK(ann.reply() == "deal/already_contributed");

  ann.send(protocol::Start{});
  bob.send(protocol::Contribute{std::string(32, 'c')});  // too late: the game has started
  CHECK(bob.reply() == "deal/not_seated");
  bench.play_until([&] { return game_over(ann); });
  REQUIRE(game_over(ann));

  // Everything sent up to the end of the game, to players and spectator alike.
  const std::string sent_before = frames(ann) + frames(bob) + frames(zoe);
  ann.send(protocol::GetTranscript{});
  const auto transcript = ann.last<protocol::TranscriptMessage>();
  REQUIRE(transcript);
  REQUIRE(transcript->fairness);
  const protocol::DealFairness& fairness = *transcript->fairness;
  CHECK(fairness.commitment == commitment);
  REQUIRE(fairness.seed);
  REQUIRE(fairness.contributions.size() == 3);
  CHECK(fairness.contributions[0] == ann_value);
  CHECK_FALSE(fairness.contributions[1]);  // Bob's came after the start
  CHECK_FALSE(fairness.contributions[2]);  // a bot
  CHECK(sent_before.find(*fairness.seed) == std::string::npos);
  CHECK(sent_before.find("\"seed\"") == std::string::npos);
  // The deck went out to nobody in order before the game was over: the
  // deck key is derived from the seed, so its absence stands for the seed's.

  // The transcript as served checks fair.
  const std::string served = ann.connection().sent.back();
  const nlohmann::json message = nlohmann::json::parse(served);
  const fairness::Verdict verdict = fairness::check_transcript(message["transcript"]);
  CHECK(verdict.fair);
  CHECK(verdict.sentence == "This deal was fair: checked.");

  // The rematch has a commitment of its own, announced after the game.
  const auto committed = ann.events<protocol::DealCommitted>();
  REQUIRE(committed.size() == 1);
  CHECK(committed[0].commitment != commitment);
  CHECK(committed[0].commitment.size() == 64);
  bob.send(protocol::Contribute{std::string(32, 'd')});
  CHECK(bob.reply() == "ok");
}

// The transcript as the room serves it now.
nlohmann::json served_transcript(FakeClient& client) {
  client.send(protocol::GetTranscript{});
  REQUIRE(client.last<protocol::TranscriptMessage>());
  return nlohmann::json::parse(client.connection().sent.back())["transcript"];
}

// The refusal of a held transcript: room/transcript_held, and its sentence.
std::string held_transcript(FakeClient& client) {
  client.send(protocol::GetTranscript{});
  CHECK(client.reply() == "room/transcript_held");
  const auto error = client.last<protocol::Error>();
  REQUIRE(error);
  CHECK(error->code == protocol::ErrorCode::kRoomTranscriptHeld);
  return error->message;
}

TEST_CASE("room fairness: today's deal is committed to before it is dealt, its transcript held until the day is over") {
  RoomBench bench;
  const std::string day = utc_date(bench.timers().wall_ms());
  const fairness::Bytes seed = NextDeal::shared_seed(0x5eed);
  const std::string commitment = fairness::to_hex(fairness::commitment_of(seed));
  Room::TableSetup setup;
  setup.humans = {"Ann"};
  setup.bots = BotLevel::kEasy;
  setup.shared_deal = Room::SharedDeal{seed, day, std::nullopt, std::nullopt};
  FakeClient& ann = bench.open_table(create_request("Ann", "classic", 4, {}).settings, setup);
  // The snapshot before the deal announces the shared seed's commitment,
  // not one of a seed the room drew for itself.
  std::optional<protocol::RoomSnapshot> first;
  for (const auto& m : ann.received()) {
    if (const auto* snapshot = std::get_if<protocol::RoomSnapshot>(&m); snapshot && !first) first = *snapshot;
  }
  REQUIRE(first);
  CHECK(first->game_number == 0);
  REQUIRE(first->next_deal);
  CHECK(first->next_deal->commitment == commitment);
  bench.play_until([&] { return game_over(ann); });
  REQUIRE(game_over(ann));

  // During the day the transcript is held: it would show today's deck to
  // whoever plays it next. The refusal says until when; no deck, no seed.
  const std::string sent_before = frames(ann);
  CHECK(held_transcript(ann).find("after today's deal closes at 00:00 UTC") != std::string::npos);
  CHECK(frames(ann).find(fairness::to_hex(seed)) == std::string::npos);
  CHECK(frames(ann).substr(sent_before.size()).find("\"deck\"") == std::string::npos);

  // The last millisecond of the day still holds it; the next day serves it
  // whole, with its seed.
  const auto to_midnight = std::chrono::milliseconds(86'400'000 - bench.timers().wall_ms() % 86'400'000);
  bench.timers().advance(to_midnight - std::chrono::milliseconds(1));
  CHECK(held_transcript(ann).find("00:00 UTC") != std::string::npos);
  bench.timers().advance(std::chrono::milliseconds(1));
  const nlohmann::json after = served_transcript(ann);
  CHECK(after["fairness"]["commitment"] == commitment);
  CHECK(after["fairness"]["day"] == day);
  REQUIRE(after["fairness"].contains("seed"));
  CHECK(after["fairness"]["seed"] == fairness::to_hex(seed));
  const fairness::Verdict checked = fairness::check_transcript(after);
  CHECK(checked.fair);
  CHECK_FALSE(checked.pending);
}

TEST_CASE("room fairness: a same-deal round's table holds its transcript until the event says the round is over") {
  RoomBench bench;
  const fairness::Bytes seed = fairness::new_seed();
  Room::TableSetup setup;
  setup.humans = {"Ann"};
  setup.bots = BotLevel::kEasy;
  setup.shared_deal = Room::SharedDeal{seed, std::nullopt, "K7QXM2", 1};
  FakeClient& ann = bench.open_table(create_request("Ann", "classic", 3, {}).settings, setup);
  bench.play_until([&] { return game_over(ann); });
  REQUIRE(game_over(ann));
  CHECK(held_transcript(ann).find("after the round ends at every table") != std::string::npos);
  // A day passing changes nothing for a round.
  bench.timers().advance(std::chrono::hours(48));
  CHECK(held_transcript(ann).find("after the round ends at every table") != std::string::npos);
  CHECK(frames(ann).find(fairness::to_hex(seed)) == std::string::npos);
  bench.room().reveal_deal();
  bench.settle();
  const nlohmann::json after = served_transcript(ann);
  CHECK(after["fairness"]["event"] == "K7QXM2");
  CHECK(after["fairness"]["round"] == 1);
  CHECK(after["fairness"]["seed"] == fairness::to_hex(seed));
  CHECK(fairness::check_transcript(after).fair);
}

TEST_CASE("room fairness: what a shared deal's record may show, and when") {
  protocol::DealFairness daily;
  daily.commitment = std::string(64, 'a');
  daily.seed = std::string(64, 'b');
  daily.shared = true;
  daily.day = "2026-01-01";
  const std::int64_t noon = 1'767'225'600'000 + 12 * 3'600'000;  // 2026-01-01T12:00Z
  CHECK_FALSE(served_fairness(daily, noon, true)->seed);
  CHECK(served_fairness(daily, noon + 12 * 3'600'000, false)->seed);
  protocol::DealFairness round = daily;
  round.day.reset();
  round.event = "K7QXM2";
  round.round = 2;
  CHECK_FALSE(served_fairness(round, noon, false)->seed);
  CHECK(served_fairness(round, noon, true)->seed);
  // An ordinary room's record is served whole once the game is over.
  protocol::DealFairness own = daily;
  own.shared = false;
  own.day.reset();
  CHECK(served_fairness(own, noon, false)->seed);
  // Whose transcript is held, and until when: the same readings.
  CHECK(transcript_hold(daily, noon, true) == TranscriptHold::kUntilDayOver);
  CHECK(transcript_hold(daily, noon + 12 * 3'600'000 - 1, true) == TranscriptHold::kUntilDayOver);
  CHECK(transcript_hold(daily, noon + 12 * 3'600'000, false) == TranscriptHold::kNone);
  CHECK(transcript_hold(round, noon, false) == TranscriptHold::kUntilRoundOver);
  CHECK(transcript_hold(round, noon, true) == TranscriptHold::kNone);
  CHECK(transcript_hold(own, noon, false) == TranscriptHold::kNone);
  CHECK(transcript_hold(std::nullopt, noon, false) == TranscriptHold::kNone);
  // The fields survive the JSON.
  const auto back = protocol::fairness_from_json(nlohmann::json::parse(protocol::fairness_to_json(round).dump()));
  REQUIRE(std::holds_alternative<protocol::DealFairness>(back));
  CHECK(std::get<protocol::DealFairness>(back) == round);
}

// The room's latest next-deal record among the submissions made so far,
// committed or waiting; none if it wrote none.
std::optional<protocol::DealFairness> stored_next_deal(const ManualSink& sink) {
  std::optional<protocol::DealFairness> found;
  const auto scan = [&](const std::vector<Record>& records) {
    for (const Record& record : records) {
      const auto* saved = std::get_if<record::NextDealSaved>(&record);
      if (!saved) continue;
      found.reset();
      if (saved->deal.empty()) continue;
      auto read = protocol::next_deal_from_record(saved->deal);
      REQUIRE_MESSAGE(std::holds_alternative<protocol::DealFairness>(read), saved->deal);
      found = std::get<protocol::DealFairness>(std::move(read));
    }
  };
  for (const auto& records : sink.committed) scan(records);
  for (const auto& [records, done] : sink.waiting) scan(records);
  return found;
}

TEST_CASE(
    "room fairness: the next deal is stored before its commitment goes out, a contribution before its ok, "
    "and a failing store holds the ok") {
  RoomBench bench(RoomBench::bench_limits(), /*durable=*/true);
  FakeClient& ann = bench.create(create_request("Ann", "classic", 3, {{2, BotLevel::kEasy}}));
  // The seed is in the room's first submission, the one whose commit let
  // the snapshot go (a durable room's bench commits it as it creates it).
  REQUIRE(bench.sink().committed.size() == 1);
  const auto& first = bench.sink().committed[0];
  CHECK(std::any_of(first.begin(), first.end(),
                    [](const Record& r) { return std::holds_alternative<record::NextDealSaved>(r); }));
  const auto drawn = stored_next_deal(bench.sink());
  REQUIRE(drawn);
  REQUIRE(drawn->seed);
  CHECK(fairness::to_hex(fairness::commitment_of(*fairness::from_hex(*drawn->seed))) == drawn->commitment);
  REQUIRE(ann.last<protocol::RoomSnapshot>());
  REQUIRE(ann.last<protocol::RoomSnapshot>()->next_deal);
  CHECK(ann.last<protocol::RoomSnapshot>()->next_deal->commitment == drawn->commitment);
  FakeClient& bob = bench.join("Bob");
  bench.sink().commit_all();
  bench.settle();

  // Ann's contribution waits for its record; the write fails and the room pauses.
  const std::string ann_value = "00112233445566778899aabbccddeeff";
  ann.send(protocol::Contribute{ann_value});
  CHECK(ann.reply() == "(no reply)");
  const auto with_ann = stored_next_deal(bench.sink());
  REQUIRE(with_ann);
  CHECK(with_ann->commitment == drawn->commitment);
  CHECK(with_ann->seed == drawn->seed);
  REQUIRE(with_ann->contributions.size() == 3);
  CHECK(with_ann->contributions[0] == ann_value);
  bench.sink().fail_all();
  bench.settle();
  REQUIRE(ann.last<protocol::RoomPaused>());
  CHECK(ann.reply() == "(no reply)");
  // Paused, the room takes no other contribution: room/paused, as a decision hears.
  bob.send(protocol::Contribute{std::string(32, 'c')});
  CHECK(bob.reply() == "room/paused");
  bench.pass(std::chrono::minutes(1));
  bench.settle();
  CHECK(ann.reply() == "(no reply)");

  // Written at last: the ok goes out, and the deal uses the value.
  bench.sink().commit_all();
  bench.settle();
  CHECK(ann.reply() == "ok");
  ann.send(protocol::Start{});
  // Played, every write committed, until the game's end is waiting to be
  // written: with it, the rematch's seed.
  const auto rematch_seed_waiting = [&] {
    for (const auto& [records, done] : bench.sink().waiting) {
      for (const Record& record : records) {
        if (const auto* saved = std::get_if<record::NextDealSaved>(&record); saved && !saved->deal.empty()) return true;
      }
    }
    return false;
  };
  for (int i = 0; i < 5000 && !rematch_seed_waiting(); ++i) {
    bench.sink().commit_all();
    bench.settle();
    bench.play_until([&] { return game_over(ann); }, 1);
    bench.settle();
  }
  REQUIRE(rematch_seed_waiting());
  const auto next = stored_next_deal(bench.sink());
  REQUIRE(next);
  CHECK(next->commitment != drawn->commitment);
  CHECK(ann.events<protocol::DealCommitted>().empty());  // held for the seed's record
  bench.sink().commit_all();
  bench.settle();
  REQUIRE(game_over(ann));
  const auto committed = ann.events<protocol::DealCommitted>();
  REQUIRE(committed.size() == 1);
  CHECK(committed[0].commitment == next->commitment);

  // Stored, the seed still went to nobody before the game was over.
  const std::string sent_before = frames(ann) + frames(bob);
  CHECK(sent_before.find(*drawn->seed) == std::string::npos);
  CHECK(sent_before.find(*next->seed) == std::string::npos);
  ann.send(protocol::GetTranscript{});
  bench.sink().commit_all();
  bench.settle();
  const auto transcript = ann.last<protocol::TranscriptMessage>();
  REQUIRE(transcript);
  REQUIRE(transcript->fairness);
  CHECK(transcript->fairness->commitment == drawn->commitment);
  CHECK(transcript->fairness->seed == drawn->seed);
  CHECK(transcript->fairness->contributions[0] == ann_value);
}

}  // namespace
}  // namespace gofish::server::testing
