// Checks a finished game's transcript against its fairness record
// (docs/FAIRNESS.md, "Checking a game"): the seed matches the commitment,
// the deck, dealer and first player are what gofish-deal/1 gives, and the
// decisions replay to the recorded result. gofish-cli verify and
// gofish-sim --verify print its sentence.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace gofish::fairness {

struct Verdict {
  bool fair = false;
  std::string sentence;  // "This deal was fair: checked." or what failed, in plain words
  // A shared deal whose seed is committed to but not revealed yet (today's
  // deal before the day is over, a same-deal round before every table is
  // over): not a failure, but nothing is checked; `fair` is false.
  bool pending = false;
};

// `transcript` is one transcript object with its "fairness" field.
Verdict check_transcript(const nlohmann::json& transcript);

// One transcript object, or every transcript of a JSON Lines text (blank lines skipped): fair only when
// each one is; the sentence of the first that is not, numbered by line (one not revealed yet makes the
// whole pending, unless another fails).
Verdict check_transcript_lines(const std::string& text);

}  // namespace gofish::fairness
