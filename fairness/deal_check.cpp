#include "fairness/deal_check.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/transcript.hpp"
#include "fairness/deal_algorithm.hpp"
#include "protocol/fairness_json.hpp"
#include "protocol/rules_json.hpp"

namespace gofish::fairness {

namespace {

Verdict unfair(std::string sentence) { return {false, std::move(sentence)}; }

// A shared deal's seed is withheld while it could still help someone
// (docs/FAIRNESS.md, "Shared deals"): said plainly, not as a failure.
Verdict not_revealed_yet(const protocol::DealFairness& fairness) {
  std::string when = "once every game dealt from it is over";
  if (fairness.day) {
    when = "once the day of today's deal (" + *fairness.day + ", UTC) is over";
  } else if (fairness.round) {
    when = "once every table of round " + std::to_string(*fairness.round) +
           (fairness.event ? " of event " + *fairness.event : std::string()) + " is over";
  }
  return {false,
          "Not checked yet: the seed of this shared deal is not revealed yet. The server committed to it "
          "(commitment " +
              fairness.commitment + ") and reveals it " + when + "; fetch the transcript again then and check it.",
          true};
}

}  // namespace

Verdict check_transcript(const nlohmann::json& transcript) {
  if (!transcript.is_object()) return unfair("This is not a transcript: a JSON object was expected.");
  const auto field = transcript.find("fairness");
  if (field == transcript.end()) {
    return unfair("This transcript has no fairness record, so its deal cannot be checked.");
  }
  auto parsed_fairness = protocol::fairness_from_json(*field);
  if (const auto* error = std::get_if<std::string>(&parsed_fairness)) {
    return unfair("The fairness record cannot be read (" + *error + ").");
  }
  const auto& fairness = std::get<protocol::DealFairness>(parsed_fairness);
  if (fairness.algorithm != protocol::kDealAlgorithm) {
    return unfair("The deal used the algorithm \"" + fairness.algorithm + "\", which this checker does not know.");
  }
  if (!fairness.seed && fairness.shared) return not_revealed_yet(fairness);
  if (!fairness.seed) return unfair("The seed was not revealed, so the deal cannot be checked.");
  const auto seed = from_hex(*fairness.seed);
  if (!seed || seed->size() != kSeedBytes) return unfair("The revealed seed is not 32 bytes in hex.");
  const auto commitment = from_hex(fairness.commitment);
  if (!commitment || *commitment != commitment_of(*seed)) {
    return unfair(
        "The seed does not match the commitment: this is not the seed the server committed to before the deal.");
  }
  auto parsed = protocol::transcript_from_json(transcript);
  if (const auto* error = std::get_if<std::string>(&parsed))
    return unfair("The transcript cannot be read: " + *error + ".");
  const auto& game = std::get<engine::Transcript>(parsed);
  if (fairness.shared && !fairness.contributions.empty()) {
    return unfair("The fairness record says the deal was shared, yet it lists contributions.");
  }
  if (!fairness.shared && fairness.contributions.size() != static_cast<std::size_t>(game.players)) {
    return unfair("The fairness record lists contributions for " + std::to_string(fairness.contributions.size()) +
                  " seats, but the game had " + std::to_string(game.players) + ".");
  }
  Contributions contributions;
  for (std::size_t seat = 0; seat < fairness.contributions.size(); ++seat) {
    const auto& hex = fairness.contributions[seat];
    if (!hex) {
      contributions.emplace_back();
      continue;
    }
    auto value = from_hex(*hex);
    if (!value || !valid_contribution(*value)) {
      return unfair("Seat " + std::to_string(seat) + "'s contribution is not 16 to 32 bytes in hex.");
    }
    contributions.emplace_back(std::move(*value));
  }
  const FairDeal expected = deal(*seed, contributions, game.rules, game.players);
  for (std::size_t i = 0; i < expected.deck.size(); ++i) {
    if (game.deck[i] != expected.deck[i]) {
      return unfair("The deck is not the one the seed and the contributions give: card " + std::to_string(i + 1) +
                    " is " + engine::to_string(game.deck[i]) + ", where it should be " +
                    engine::to_string(expected.deck[i]) + ".");
    }
  }
  if (game.dealer != expected.dealer) {
    return unfair("The dealer is seat " + std::to_string(game.dealer) + ", where the seed gives seat " +
                  std::to_string(expected.dealer) + ".");
  }
  if (game.first != expected.first) {
    return unfair("The first player is seat " + std::to_string(game.first) + ", where the seed gives seat " +
                  std::to_string(expected.first) + ".");
  }
  if (const auto difference = engine::replay_check(game)) {
    return unfair("The deal is right, but the game does not replay as recorded: " + *difference);
  }
  if (fairness.shared) {
    return {true,
            "This deal was fair: checked. It is the same deal as every table's, dealt from the seed revealed here."};
  }
  return {true, "This deal was fair: checked."};
}

Verdict check_transcript_lines(const std::string& text) {
  // One object, however it is laid out (a saved transcript message, say).
  if (const nlohmann::json whole = nlohmann::json::parse(text, nullptr, false); whole.is_object()) {
    return check_transcript(whole);
  }
  std::istringstream in(text);
  std::string line;
  int number = 0;
  int checked = 0;
  Verdict last{false, "The file holds no transcript."};
  std::optional<Verdict> pending;
  int transcripts = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded()) return unfair("Line " + std::to_string(number) + " is not JSON.");
    Verdict verdict = check_transcript(json);
    if (verdict.pending) {
      if (!pending) pending = Verdict{false, "Line " + std::to_string(number) + ": " + verdict.sentence, true};
      if (transcripts++ == 0) last = std::move(verdict);
      continue;
    }
    ++transcripts;
    if (!verdict.fair) return unfair("Line " + std::to_string(number) + ": " + verdict.sentence);
    last = std::move(verdict);
    ++checked;
  }
  if (pending) return transcripts == 1 ? last : *pending;
  if (checked > 1) last.sentence = "All " + std::to_string(checked) + " deals were fair: checked.";
  return last;
}

}  // namespace gofish::fairness
