// gofish-sim: plays many games between bots, as fast as the engine allows.
//
//   gofish-sim --preset classic --players 4 --games 20000 --bots hard,easy,easy,easy --seed 7 --rotate
//   gofish-sim --preset pairs --set table_rules=true --games 1000 --transcripts games.jsonl
//   gofish-sim --replay games.jsonl
//   gofish-sim --verify game.json        (a served game's deal: docs/FAIRNESS.md)
//   gofish-sim --deal-vectors            (docs/FAIRNESS.md's test vectors)
//
// Each game's seed is derived from the base seed and the game's index, and
// results are gathered in game order, so a seed gives the same numbers and
// the same transcripts whatever --threads says.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/bot.hpp"
#include "engine/match.hpp"
#include "engine/random.hpp"
#include "engine/rules.hpp"
#include "engine/setup.hpp"
#include "engine/transcript.hpp"
#include "fairness/deal_algorithm.hpp"
#include "fairness/deal_check.hpp"
#include "protocol/rules_json.hpp"

namespace {

using namespace gofish;
using nlohmann::json;
using engine::Seat;

constexpr int kExitUsage = 2;
constexpr int kExitReplayDiffers = 1;
constexpr int kExitBug = 70;
constexpr long kBatchGames = 2048;  // games held in memory between transcript writes

struct Options {
  std::string preset = "classic";
  std::string rules_file;
  std::vector<std::string> sets;
  int players = 4;
  long games = 1000;
  std::vector<std::string> bots;
  std::optional<std::uint64_t> seed;
  std::string transcripts;
  int threads = 1;
  bool rotate = false;
  bool all_views = false;
  std::string replay;
  std::string verify;
  bool deal_vectors = false;
  bool json = false;
};

[[noreturn]] void fail(int code, const std::string& message) {
  std::cerr << "gofish-sim: " << message << "\n";
  std::exit(code);
}

// splitmix64's finaliser over the base seed and the game's index: nearby
// indices get unrelated seeds, and the mapping does not depend on threads.
std::uint64_t game_seed(std::uint64_t base, long index) {
  std::uint64_t z = base + 0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

engine::Rules load_rules(const Options& options) {
  engine::Rules rules;
  if (!options.rules_file.empty()) {
    std::ifstream in(options.rules_file);
    if (!in) fail(kExitUsage, "cannot read the rules file " + options.rules_file);
    json parsed;
    try {
      parsed = json::parse(in);
    } catch (const json::exception& e) {
      fail(kExitUsage, options.rules_file + " is not JSON: " + e.what());
    }
    auto decoded = protocol::rules_from_json(parsed);
    if (const auto* error = std::get_if<engine::ConfigError>(&decoded)) {
      fail(kExitUsage, options.rules_file + ": " + error->field + ": " + error->message);
    }
    rules = std::get<engine::Rules>(decoded);
  } else {
    auto found = engine::preset(options.preset);
    if (!found) {
      std::string names;
      for (auto name : engine::preset_names()) names += (names.empty() ? "" : ", ") + std::string(name);
      fail(kExitUsage, "unknown preset \"" + options.preset + "\"; the presets are: " + names);
    }
    rules = *found;
  }
  for (const std::string& assignment : options.sets) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos) fail(kExitUsage, "--set takes field=value, not \"" + assignment + "\"");
    if (auto error = engine::set_rules_field(rules, assignment.substr(0, eq), assignment.substr(eq + 1))) {
      fail(kExitUsage, "--set " + assignment + ": " + error->message);
    }
  }
  if (auto error = engine::validate(rules, options.players)) {
    fail(kExitUsage, "invalid configuration (" + error->field + "): " + error->message);
  }
  return rules;
}

std::vector<engine::BotLevel> load_bots(const Options& options) {
  std::vector<engine::BotLevel> levels;
  if (options.bots.empty()) return std::vector<engine::BotLevel>(static_cast<std::size_t>(options.players),
                                                                 engine::BotLevel::kMedium);
  for (const std::string& name : options.bots) {
    auto level = engine::parse_bot_level(name);
    if (!level) fail(kExitUsage, "unknown bot level \"" + name + "\"; the levels are easy, medium, hard");
    levels.push_back(*level);
  }
  if (static_cast<int>(levels.size()) != options.players) {
    fail(kExitUsage, "--bots names " + std::to_string(levels.size()) + " bots for " + std::to_string(options.players) +
                         " players; give one level per seat, e.g. --bots hard,easy,easy,easy");
  }
  return levels;
}

// ------------------------------------------------------------------ replay

int run_replay(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(kExitUsage, "cannot read " + path);
  std::string line;
  long line_number = 0;
  long checked = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + " line " + std::to_string(line_number) + ": ";
    json parsed;
    try {
      parsed = json::parse(line);
    } catch (const json::exception& e) {
      std::cerr << "gofish-sim: " << where << "not JSON: " << e.what() << "\n";
      return kExitReplayDiffers;
    }
    auto transcript = protocol::transcript_from_json(parsed);
    if (const auto* error = std::get_if<std::string>(&transcript)) {
      std::cerr << "gofish-sim: " << where << "not a transcript: " << *error << "\n";
      return kExitReplayDiffers;
    }
    if (auto difference = engine::replay_check(std::get<engine::Transcript>(transcript))) {
      std::cerr << "gofish-sim: " << where << "the replay differs: " << *difference << "\n";
      return kExitReplayDiffers;
    }
    ++checked;
  }
  std::cout << "checked " << checked << " games from " << path << ": every replay reaches its recorded result\n";
  return 0;
}

// ------------------------------------------------------------------ simulate

struct GameRecord {
  std::uint8_t winners = 0;  // by seat
  int decisions = 0;
  engine::EndReason reason = engine::EndReason::kHandEmpty;
  std::string transcript;  // one JSON line, when transcripts are written
  std::string error;       // a bot or engine bug
};

struct Simulation {
  engine::Rules rules;
  int players = 0;
  std::vector<engine::BotLevel> lineup;
  bool rotate = false;
  bool all_views = false;
  bool transcripts = false;
  std::uint64_t seed = 0;

  // The line-up entry sitting in `seat` in game `index`.
  int entry_at(Seat seat, long index) const {
    return rotate ? static_cast<int>((seat + index) % players) : seat;
  }

  GameRecord play(long index) const {
    GameRecord record;
    const std::uint64_t seed_i = game_seed(seed, index);
    engine::Rng rng(seed_i);
    std::array<std::unique_ptr<engine::Bot>, engine::kMaxSeats> owned;
    std::array<engine::Bot*, engine::kMaxSeats> bots{};
    for (Seat s = 0; s < players; ++s) {
      owned[s] = engine::make_bot(lineup[static_cast<std::size_t>(entry_at(s, index))], rules, players, s);
      bots[s] = owned[s].get();
    }
    try {
      const engine::DealSetup setup = engine::prepare_deal(rules, players, rng);
      engine::MatchOptions match_options;
      match_options.build_all_views = all_views;
      const engine::Game game = engine::play_match(
          rules, players, setup, std::span<engine::Bot* const>(bots.data(), static_cast<std::size_t>(players)), rng,
          match_options);
      record.winners = game.winners();
      record.decisions = static_cast<int>(game.decisions().size());
      record.reason = game.end_reason().value_or(engine::EndReason::kNoOneCanPlay);
      if (transcripts) {
        nlohmann::ordered_json line = protocol::transcript_to_json(engine::make_transcript(game));
        nlohmann::ordered_json names = nlohmann::ordered_json::array();
        for (Seat s = 0; s < players; ++s) {
          names.push_back(std::string(engine::to_string(lineup[static_cast<std::size_t>(entry_at(s, index))])));
        }
        line["bots"] = std::move(names);
        line["game"] = index;
        line["seed"] = std::to_string(seed_i);
        record.transcript = line.dump();
      }
    } catch (const std::exception& e) {
      record.error = "game " + std::to_string(index) + " (game seed " + std::to_string(seed_i) + "): " + e.what();
    }
    return record;
  }
};

struct Tally {
  long games = 0;
  long long decisions = 0;
  std::array<long, engine::kMaxSeats> seat_wins{};
  std::array<long, engine::kMaxSeats> seat_outright{};
  std::array<long, engine::kMaxSeats> entry_wins{};
  std::array<long, engine::kMaxSeats> entry_outright{};
  std::map<std::string, long> end_reasons;

  void add(const Simulation& sim, long index, const GameRecord& record) {
    ++games;
    decisions += record.decisions;
    const bool outright = std::popcount(record.winners) == 1;
    for (Seat s = 0; s < sim.players; ++s) {
      if (!((record.winners >> s) & 1U)) continue;
      const int entry = sim.entry_at(s, index);
      ++seat_wins[s];
      ++entry_wins[entry];
      if (outright) {
        ++seat_outright[s];
        ++entry_outright[entry];
      }
    }
    ++end_reasons[std::string(engine::to_string(record.reason))];
  }
};

double rate(long wins, long games) { return games > 0 ? static_cast<double>(wins) / static_cast<double>(games) : 0.0; }

void print_summary(const Simulation& sim, const Tally& tally, double seconds, bool as_json) {
  const double games_per_s = seconds > 0 ? static_cast<double>(tally.games) / seconds : 0.0;
  const double decisions_per_s = seconds > 0 ? static_cast<double>(tally.decisions) / seconds : 0.0;
  const double mean_decisions = tally.games > 0 ? static_cast<double>(tally.decisions) / static_cast<double>(tally.games) : 0.0;
  // Per level: the mean over the line-up entries of that level.
  struct LevelTally {
    int entries = 0;
    long wins = 0;
    long outright = 0;
  };
  std::map<std::string, LevelTally> levels;
  for (std::size_t b = 0; b < sim.lineup.size(); ++b) {
    LevelTally& level = levels[std::string(engine::to_string(sim.lineup[b]))];
    ++level.entries;
    level.wins += tally.entry_wins[b];
    level.outright += tally.entry_outright[b];
  }
  if (as_json) {
    json out;
    out["preset"] = sim.rules.preset;
    out["rules"] = protocol::rules_to_json(sim.rules);
    out["players"] = sim.players;
    out["seed"] = sim.seed;
    out["rotate"] = sim.rotate;
    out["games"] = tally.games;
    out["decisions"] = tally.decisions;
    out["wall_seconds"] = seconds;
    out["games_per_second"] = games_per_s;
    out["decisions_per_second"] = decisions_per_s;
    out["mean_decisions_per_game"] = mean_decisions;
    out["wins_note"] = "a shared win counts as a win for each winner; outright counts sole winners only";
    json seats = json::array();
    for (Seat s = 0; s < sim.players; ++s) {
      seats.push_back({{"seat", s},
                       {"wins", tally.seat_wins[s]},
                       {"outright_wins", tally.seat_outright[s]},
                       {"win_rate", rate(tally.seat_wins[s], tally.games)},
                       {"outright_rate", rate(tally.seat_outright[s], tally.games)}});
    }
    out["seats"] = std::move(seats);
    json bots = json::array();
    for (std::size_t b = 0; b < sim.lineup.size(); ++b) {
      bots.push_back({{"bot", b},
                      {"level", std::string(engine::to_string(sim.lineup[b]))},
                      {"wins", tally.entry_wins[b]},
                      {"outright_wins", tally.entry_outright[b]},
                      {"win_rate", rate(tally.entry_wins[b], tally.games)},
                      {"outright_rate", rate(tally.entry_outright[b], tally.games)}});
    }
    out["bots"] = std::move(bots);
    json by_level = json::object();
    for (const auto& [name, level] : levels) {
      const long seat_games = tally.games * level.entries;
      by_level[name] = {{"bots", level.entries},
                        {"win_rate", rate(level.wins, seat_games)},
                        {"outright_rate", rate(level.outright, seat_games)}};
    }
    out["levels"] = std::move(by_level);
    out["end_reasons"] = tally.end_reasons;
    std::cout << out.dump() << "\n";
    return;
  }
  std::printf("preset %s, %d players, seed %llu%s\n", sim.rules.preset.c_str(), sim.players,
              static_cast<unsigned long long>(sim.seed), sim.rotate ? ", line-up rotated through the seats" : "");
  std::printf("games:      %ld\n", tally.games);
  std::printf("decisions:  %lld (%.1f per game)\n", tally.decisions, mean_decisions);
  std::printf("wall time:  %.3f s\n", seconds);
  std::printf("games/s:    %.0f\n", games_per_s);
  std::printf("decisions/s: %.0f\n", decisions_per_s);
  std::printf("wins (a shared win counts for each winner) / outright wins:\n");
  for (Seat s = 0; s < sim.players; ++s) {
    std::printf("  seat %d: %6.2f%% / %6.2f%%\n", s, 100 * rate(tally.seat_wins[s], tally.games),
                100 * rate(tally.seat_outright[s], tally.games));
  }
  for (std::size_t b = 0; b < sim.lineup.size(); ++b) {
    std::printf("  bot %zu (%s): %6.2f%% / %6.2f%%\n", b, std::string(engine::to_string(sim.lineup[b])).c_str(),
                100 * rate(tally.entry_wins[b], tally.games), 100 * rate(tally.entry_outright[b], tally.games));
  }
  for (const auto& [name, level] : levels) {
    const long seat_games = tally.games * level.entries;
    std::printf("  level %s (%d bot%s, per bot): %6.2f%% / %6.2f%%\n", name.c_str(), level.entries,
                level.entries == 1 ? "" : "s", 100 * rate(level.wins, seat_games),
                100 * rate(level.outright, seat_games));
  }
  std::printf("how games ended:\n");
  for (const auto& [reason, count] : tally.end_reasons) std::printf("  %s: %ld\n", reason.c_str(), count);
}

int run_simulation(const Options& options) {
  Simulation sim;
  sim.rules = load_rules(options);
  sim.players = options.players;
  sim.lineup = load_bots(options);
  sim.rotate = options.rotate;
  sim.all_views = options.all_views;
  sim.transcripts = !options.transcripts.empty();
  sim.seed = options.seed ? *options.seed : engine::os_seed();
  if (!options.seed && !options.json) std::printf("no --seed given; using seed %llu\n", static_cast<unsigned long long>(sim.seed));

  std::ofstream transcripts;
  if (sim.transcripts) {
    transcripts.open(options.transcripts, std::ios::trunc);
    if (!transcripts) fail(kExitUsage, "cannot write " + options.transcripts);
  }
  int threads = options.threads;
  if (threads == 0) threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));

  Tally tally;
  std::vector<GameRecord> batch;
  const auto started = std::chrono::steady_clock::now();
  for (long first = 0; first < options.games; first += kBatchGames) {
    const long count = std::min(kBatchGames, options.games - first);
    batch.assign(static_cast<std::size_t>(count), GameRecord{});
    std::atomic<long> next{0};
    const auto worker = [&] {
      for (long i = next++; i < count; i = next++) batch[static_cast<std::size_t>(i)] = sim.play(first + i);
    };
    if (threads == 1) {
      worker();
    } else {
      std::vector<std::jthread> pool;
      for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    }
    for (long i = 0; i < count; ++i) {
      const GameRecord& record = batch[static_cast<std::size_t>(i)];
      if (!record.error.empty()) fail(kExitBug, "internal error in " + record.error);
      tally.add(sim, first + i, record);
      if (sim.transcripts) transcripts << record.transcript << '\n';
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (sim.transcripts) {
    transcripts.close();
    if (!transcripts) fail(kExitUsage, "writing " + options.transcripts + " failed");
  }
  print_summary(sim, tally, seconds, options.json);
  return 0;
}

// The same check as gofish-cli verify: every transcript's deal against its
// fairness record, then its replay.
int run_verify(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(kExitUsage, "cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  const fairness::Verdict verdict = fairness::check_transcript_lines(text.str());
  if (verdict.fair || verdict.pending) {  // not revealed yet is no failure (docs/FAIRNESS.md)
    std::cout << path << ": " << verdict.sentence << "\n";
    return 0;
  }
  std::cerr << "gofish-sim: " << path << ": " << verdict.sentence << "\n";
  return kExitReplayDiffers;
}

// docs/FAIRNESS.md's test vectors, one JSON object a line: fixed seeds and
// contributions, and what gofish-deal/1 makes of them.
int run_deal_vectors() {
  struct Case {
    std::string name;
    int players;
    std::string preset;
    fairness::Contributions contributions;
  };
  const auto bytes = [](std::uint8_t start, std::size_t count) {
    fairness::Bytes out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(static_cast<std::uint8_t>(start + i));
    return out;
  };
  const std::vector<Case> cases = {
      {"shared deal, no contributions", 4, "classic", {}},
      {"two seats, seat 0 contributes 16 bytes", 2, "classic", {bytes(0xa0, 16), std::nullopt}},
      {"three seats, seats 1 and 2 contribute 32 bytes", 3, "pairs", {std::nullopt, bytes(0x40, 32), bytes(0x80, 32)}},
  };
  const fairness::Bytes seed = bytes(0x00, fairness::kSeedBytes);
  for (const Case& c : cases) {
    engine::Rules rules;
    if (auto preset = engine::preset(c.preset)) rules = *preset;
    const fairness::FairDeal deal = fairness::deal(seed, c.contributions, rules, c.players);
    nlohmann::ordered_json out;
    out["case"] = c.name;
    out["seed"] = fairness::to_hex(seed);
    out["commitment"] = fairness::to_hex(fairness::commitment_of(seed));
    nlohmann::ordered_json contributions = nlohmann::ordered_json::array();
    for (const auto& value : c.contributions) {
      contributions.push_back(value ? nlohmann::ordered_json(fairness::to_hex(*value)) : nlohmann::ordered_json());
    }
    out["contributions"] = std::move(contributions);
    out["key_message"] = fairness::to_hex(fairness::key_message(c.contributions));
    out["deck_key"] = fairness::to_hex(fairness::deck_key(seed, c.contributions));
    fairness::DealStream stream(fairness::deck_key(seed, c.contributions));
    nlohmann::ordered_json words = nlohmann::ordered_json::array();
    for (int i = 0; i < 3; ++i) words.push_back(stream.next_word());
    out["first_words"] = std::move(words);
    out["preset"] = c.preset;
    out["players"] = c.players;
    nlohmann::ordered_json deck = nlohmann::ordered_json::array();
    for (const engine::Card card : deal.deck) deck.push_back(engine::to_string(card));
    out["deck"] = std::move(deck);
    out["dealer"] = deal.dealer;
    out["first"] = deal.first;
    std::cout << out.dump() << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"gofish-sim: plays Go Fish games between bots and reports win rates and speed"};
  auto* preset = app.add_option("--preset", options.preset, "rules preset (classic, specific-card, keep-playing, "
                                                            "bicycle, authors, pairs)")
                     ->capture_default_str();
  app.add_option("--rules", options.rules_file, "a JSON rules object (as in transcripts) instead of --preset")
      ->excludes(preset);
  app.add_option("--set", options.sets, "change one rules field: field=value (repeatable)")->allow_extra_args(false);
  app.add_option("--players", options.players, "seats at the table")->capture_default_str();
  app.add_option("--games", options.games, "games to play")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--bots", options.bots, "one level per seat, comma-separated: easy, medium, hard "
                                         "(default: medium in every seat)")
      ->delimiter(',');
  app.add_option("--seed", options.seed, "base seed; each game's seed derives from it and the game's index "
                                         "(default: from the operating system, printed)");
  app.add_option("--transcripts", options.transcripts, "write every game as one JSON line to this file");
  app.add_option("--threads", options.threads, "worker threads, 0 = all cores; results do not depend on it")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--rotate", options.rotate, "rotate the line-up through the seats game by game");
  app.add_flag("--all-views", options.all_views,
               "build every seat's view after every decision, as a server does (the server workload)");
  app.add_option("--replay", options.replay,
                 "check every transcript in a JSON Lines file by replaying it; plays no games");
  app.add_option("--verify", options.verify,
                 "check the deal of every transcript in a file against its fairness record "
                 "(docs/FAIRNESS.md), then its replay; plays no games");
  app.add_flag("--deal-vectors", options.deal_vectors, "print docs/FAIRNESS.md's test vectors of gofish-deal/1");
  app.add_flag("--json", options.json, "print the summary as one JSON object");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!options.replay.empty()) return run_replay(options.replay);
  if (!options.verify.empty()) return run_verify(options.verify);
  if (options.deal_vectors) return run_deal_vectors();
  return run_simulation(options);
}
