// gofish-deal/1 in a room (docs/FAIRNESS.md): the commitment before the
// deal, the seats' contributions and their refusals, the seed revealed in
// the transcript only once the game is over, and a fresh commitment for the
// rematch. On the fake clock of room_harness.hpp.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fairness/deal_algorithm.hpp"
#include "fairness/deal_check.hpp"
#include "room_harness.hpp"
#include "rooms_support.hpp"

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

}  // namespace
}  // namespace gofish::server::testing
