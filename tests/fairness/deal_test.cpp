// gofish-deal/1 against its specification (docs/FAIRNESS.md): the standard
// SHA-256 and HMAC vectors, the published test vectors (which the document
// quotes and gofish-sim --deal-vectors prints), and the checker's verdicts on
// an honest game, a swapped card and a seed that does not match.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engine/game.hpp"
#include "engine/rules.hpp"
#include "engine/transcript.hpp"
#include "fairness/deal_algorithm.hpp"
#include "fairness/deal_check.hpp"
#include "protocol/fairness_json.hpp"
#include "protocol/rules_json.hpp"

namespace {

using namespace gofish;
using fairness::Bytes;

Bytes text_bytes(const std::string& text) { return Bytes(text.begin(), text.end()); }

std::string read(const std::string& path) {
  std::ifstream in(std::string(GOFISH_SOURCE_DIR) + "/" + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A finished game dealt by gofish-deal/1, every seat taking its first legal
// decision, with its fairness record.
nlohmann::json fair_game(const Bytes& seed, const fairness::Contributions& contributions, int shared_players = 0) {
  const engine::Rules rules = *engine::preset("classic");
  const int players = shared_players > 0 ? shared_players : static_cast<int>(contributions.size());
  const fairness::FairDeal deal = fairness::deal(seed, contributions, rules, players);
  auto started = engine::Game::start(rules, players, deal.deck, deal.dealer, deal.first);
  REQUIRE(std::holds_alternative<engine::Game>(started));
  auto& game = std::get<engine::Game>(started);
  while (!game.over()) {
    const engine::LegalDecisions legal = game.legal(game.to_act());
    REQUIRE(legal.count() > 0);
    REQUIRE_FALSE(game.apply(legal.nth(0)));
  }
  nlohmann::json json = protocol::transcript_to_json(engine::make_transcript(game));
  protocol::DealFairness record;
  record.commitment = fairness::to_hex(fairness::commitment_of(seed));
  record.seed = fairness::to_hex(seed);
  for (const auto& value : contributions) {
    record.contributions.push_back(value ? std::optional(fairness::to_hex(*value)) : std::nullopt);
  }
  record.shared = shared_players > 0;
  json["fairness"] = protocol::fairness_to_json(record);
  return json;
}

}  // namespace

TEST_CASE("fairness: SHA-256 and HMAC-SHA256 give the standard vectors") {
  CHECK(fairness::to_hex(fairness::sha256(text_bytes("abc"))) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // RFC 4231, test case 2.
  CHECK(fairness::to_hex(fairness::hmac_sha256(text_bytes("Jefe"), text_bytes("what do ya want for nothing?"))) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("fairness: hex reads either case and refuses odd lengths and other characters") {
  CHECK(fairness::from_hex("00aB") == Bytes{0x00, 0xab});
  CHECK_FALSE(fairness::from_hex("abc"));
  CHECK_FALSE(fairness::from_hex("zz"));
  CHECK(fairness::to_hex(Bytes{0x0f, 0xf0}) == "0ff0");
}

TEST_CASE("fairness: contributions are 16 to 32 bytes") {
  CHECK_FALSE(fairness::valid_contribution(Bytes(15)));
  CHECK(fairness::valid_contribution(Bytes(16)));
  CHECK(fairness::valid_contribution(Bytes(32)));
  CHECK_FALSE(fairness::valid_contribution(Bytes(33)));
}

TEST_CASE("fairness: the published test vectors are what the code computes, and the document quotes them") {
  const std::string vectors = read("tests/golden/fairness/vectors.jsonl");
  const std::string document = read("docs/FAIRNESS.md");
  std::istringstream lines(vectors);
  std::string line;
  int cases = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    ++cases;
    CAPTURE(line);
    CHECK(document.find(line) != std::string::npos);
    const nlohmann::json v = nlohmann::json::parse(line);
    const Bytes seed = *fairness::from_hex(v["seed"].get<std::string>());
    fairness::Contributions contributions;
    for (const auto& c : v["contributions"]) {
      contributions.push_back(c.is_null() ? std::nullopt : fairness::from_hex(c.get<std::string>()));
    }
    CHECK(fairness::to_hex(fairness::commitment_of(seed)) == v["commitment"]);
    CHECK(fairness::to_hex(fairness::key_message(contributions)) == v["key_message"]);
    CHECK(fairness::to_hex(fairness::deck_key(seed, contributions)) == v["deck_key"]);
    fairness::DealStream stream(fairness::deck_key(seed, contributions));
    for (const auto& word : v["first_words"]) CHECK(stream.next_word() == word.get<std::uint32_t>());
    const engine::Rules rules = *engine::preset(v["preset"].get<std::string>());
    const fairness::FairDeal deal = fairness::deal(seed, contributions, rules, v["players"].get<int>());
    for (std::size_t i = 0; i < deal.deck.size(); ++i) CHECK(engine::to_string(deal.deck[i]) == v["deck"][i]);
    CHECK(deal.dealer == v["dealer"].get<int>());
    CHECK(deal.first == v["first"].get<int>());
  }
  CHECK(cases == 3);
}

TEST_CASE("fairness: a contribution changes the deck, and the seat it comes from matters") {
  const Bytes seed(32, 7);
  const engine::Rules rules = *engine::preset("classic");
  const Bytes value(16, 1);
  const auto none = fairness::deal(seed, {std::nullopt, std::nullopt}, rules, 2).deck;
  const auto seat0 = fairness::deal(seed, {value, std::nullopt}, rules, 2).deck;
  const auto seat1 = fairness::deal(seed, {std::nullopt, value}, rules, 2).deck;
  CHECK(none != seat0);
  CHECK(seat0 != seat1);
  CHECK(engine::is_complete_deck(seat0));
}

TEST_CASE("fairness: an honest game is checked fair") {
  const nlohmann::json game = fair_game(Bytes(32, 3), {Bytes(16, 9), std::nullopt, Bytes(32, 4)});
  const fairness::Verdict verdict = fairness::check_transcript(game);
  CHECK(verdict.fair);
  CHECK(verdict.sentence == "This deal was fair: checked.");
  CHECK(fairness::check_transcript_lines(game.dump() + "\n\n" + game.dump() + "\n").sentence ==
        "All 2 deals were fair: checked.");
}

TEST_CASE("fairness: a transcript with two cards swapped fails, naming the first wrong card") {
  nlohmann::json game = fair_game(Bytes(32, 3), {Bytes(16, 9), std::nullopt});
  std::swap(game["deck"][40], game["deck"][41]);
  const fairness::Verdict verdict = fairness::check_transcript(game);
  CHECK_FALSE(verdict.fair);
  CHECK(verdict.sentence.rfind("The deck is not the one the seed and the contributions give: card 41 is ", 0) == 0);
}

TEST_CASE("fairness: a seed that does not match the commitment fails") {
  nlohmann::json game = fair_game(Bytes(32, 3), {Bytes(16, 9), std::nullopt});
  game["fairness"]["seed"] = fairness::to_hex(Bytes(32, 5));
  const fairness::Verdict verdict = fairness::check_transcript(game);
  CHECK_FALSE(verdict.fair);
  CHECK(verdict.sentence ==
        "The seed does not match the commitment: this is not the seed the server committed to before the deal.");
}

TEST_CASE("fairness: a changed contribution, a hidden seed or no record at all fail") {
  nlohmann::json game = fair_game(Bytes(32, 3), {Bytes(16, 9), std::nullopt});
  nlohmann::json changed = game;
  changed["fairness"]["contributions"][1] = fairness::to_hex(Bytes(16, 2));
  CHECK(fairness::check_transcript(changed).sentence.rfind("The deck is not the one", 0) == 0);
  nlohmann::json hidden = game;
  hidden["fairness"].erase("seed");
  CHECK(fairness::check_transcript(hidden).sentence == "The seed was not revealed, so the deal cannot be checked.");
  nlohmann::json none = game;
  none.erase("fairness");
  CHECK_FALSE(fairness::check_transcript(none).fair);
}

TEST_CASE("fairness: a shared deal takes no contributions and says it is every table's") {
  nlohmann::json game = fair_game(Bytes(32, 8), {}, 4);
  const fairness::Verdict verdict = fairness::check_transcript(game);
  CHECK(verdict.fair);
  CHECK(verdict.sentence ==
        "This deal was fair: checked. It is the same deal as every table's, dealt from the seed revealed here.");
  game["fairness"]["contributions"] = nlohmann::json::array({nullptr, nullptr, nullptr, nullptr});
  CHECK(fairness::check_transcript(game).sentence ==
        "The fairness record says the deal was shared, yet it lists contributions.");
}
