#include "server/store/postgres_batching.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <variant>

#include "server/store/postgres_binary_array.hpp"
#include "server/store/postgres_step.hpp"

namespace gofish::server::postgres_batching {

using namespace postgres_statements;
using postgres_step::step;

namespace {

template <class>
inline constexpr bool kAlwaysFalse = false;

}  // namespace

// The statements one record runs, in order: the one place a record meets SQL.
std::vector<PostgresStore::Step> steps_for(const Record& record) {
  return std::visit(
      [](const auto& r) -> std::vector<PostgresStore::Step> {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, record::RoomCreated>) {
          return {step(kInsertRoom, r.room, r.settings, r.created_ms)};
        } else if constexpr (std::is_same_v<R, record::RoomSettingsChanged>) {
          return {step(kUpdateSettings, r.room, r.settings)};
        } else if constexpr (std::is_same_v<R, record::SeatTaken>) {
          return {step(kUpsertSeat, r.room, r.seat, r.state, r.token_hash)};
        } else if constexpr (std::is_same_v<R, record::SeatFreed>) {
          return {step(kDeleteSeat, r.room, r.seat)};
        } else if constexpr (std::is_same_v<R, record::GameStarted>) {
          return {step(kInsertGame, r.game_id, r.room, r.game, r.setup, r.started_ms)};
        } else if constexpr (std::is_same_v<R, record::DecisionAccepted>) {
          return {step(kInsertDecision, r.game_id, r.seq, r.decision, r.v)};
        } else if constexpr (std::is_same_v<R, record::GameFinished>) {
          return {step(kFinishGame, r.game_id, r.finished_ms)};
        } else if constexpr (std::is_same_v<R, record::RoomVersion>) {
          return {step(kUpdateVersion, r.room, r.v)};
        } else if constexpr (std::is_same_v<R, record::NextDealSaved>) {
          return {step(kSaveNextDeal, r.room, r.deal)};
        } else if constexpr (std::is_same_v<R, record::DailyNoteSaved>) {
          return {step(kSaveDailyNote, r.room, r.note)};
        } else if constexpr (std::is_same_v<R, record::RoomClosed>) {
          return {step(kCloseDecisions, r.room), step(kCloseGames, r.room), step(kDetachGames, r.room),
                  step(kCloseSeats, r.room),     step(kCloseRoom, r.room),  step(kCloseLease, r.room)};
        } else if constexpr (std::is_same_v<R, record::EventSaved>) {
          return {step(kSaveEvent, r.event, r.name, r.settings, r.teacher_hash, r.phase, r.round, r.created_ms)};
        } else if constexpr (std::is_same_v<R, record::PupilSaved>) {
          return {step(kSavePupil, r.event, r.pupil, r.name, r.token_hash)};
        } else if constexpr (std::is_same_v<R, record::EventTableSaved>) {
          return {step(kSaveEventTable, r.event, r.round, r.table, r.room, r.seats, r.game_id, r.result)};
        } else {
          static_assert(kAlwaysFalse<R>, "a record with no SQL");
        }
      },
      record);
}

// An array literal for a text[] parameter: every element quoted, with its
// backslashes and double quotes escaped.
std::string text_array(const std::vector<std::string>& elements) {
  std::string out = "{";
  for (const std::string& element : elements) {
    if (out.size() > 1) out.push_back(',');
    out.push_back('"');
    for (char c : element) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('}');
  return out;
}

namespace {

// The statements a batch runs most (an action, a game dealt or finished, a
// room's version) and, for each, the statement that runs many at once: the
// same columns in the same order, each parameter an array (binary form).
struct Merged {
  const Sql* one;
  const Sql* all;
};
constexpr Merged kMerged[] = {
    {&kInsertGame, &kInsertGames},
    {&kInsertDecision, &kInsertDecisions},
    {&kFinishGame, &kFinishGames},
    {&kUpdateVersion, &kUpdateVersions},
};

// Many steps of one statement as one step of its merged statement: each
// parameter becomes an array in binary form, text parameters (sent as
// bytes) text[], integers (sent in decimal) bigint[].
PostgresStore::Step merged_step(const Sql& all, const std::vector<PostgresStore::Step>& steps) {
  PostgresStore::Step merged;
  merged.name = all.name;
  const std::size_t columns = steps.front().values.size();
  for (std::size_t column = 0; column < columns; ++column) {
    const bool text = steps.front().formats[column] == 1;
    const bool nulls = std::any_of(steps.begin(), steps.end(), [&](const auto& one) { return one.nulls[column]; });
    PostgresBinaryArray array(text ? PostgresBinaryArray::kText : PostgresBinaryArray::kBigint, steps.size(), nulls);
    for (const auto& one : steps) {
      const std::string& value = one.values[column];
      if (one.nulls[column]) {
        array.add_null();
      } else if (text) {
        array.add_bytes(value);
      } else {
        std::int64_t number = 0;
        std::from_chars(value.data(), value.data() + value.size(), number);
        array.add_bigint(number);
      }
    }
    merged.values.push_back(array.take());
    merged.formats.push_back(1);
    merged.nulls.push_back(0);
  }
  return merged;
}

}  // namespace

// Gathers each kind of kMerged between two other statements (postgres_batching.hpp).
void merge_steps(std::vector<PostgresStore::Step>& steps) {
  std::vector<PostgresStore::Step> out;
  std::vector<std::vector<PostgresStore::Step>> runs(std::size(kMerged));
  const auto flush = [&] {
    for (std::size_t kind = 0; kind < runs.size(); ++kind) {
      auto& run = runs[kind];
      if (kMerged[kind].one == &kUpdateVersion) {
        std::vector<PostgresStore::Step> last;
        for (auto it = run.rbegin(); it != run.rend(); ++it) {
          const bool seen = std::any_of(last.begin(), last.end(), [&](const PostgresStore::Step& kept) {
            return kept.values[0] == it->values[0];
          });
          if (!seen) last.push_back(std::move(*it));
        }
        run.assign(std::make_move_iterator(last.rbegin()), std::make_move_iterator(last.rend()));
      }
      if (run.size() == 1) out.push_back(std::move(run.front()));
      if (run.size() > 1) out.push_back(merged_step(*kMerged[kind].all, run));
      run.clear();
    }
  };
  for (auto& step : steps) {
    const auto kind = std::find_if(std::begin(kMerged), std::end(kMerged),
                                   [&](const Merged& merged) { return step.name == merged.one->name; });
    if (kind != std::end(kMerged)) {
      runs[static_cast<std::size_t>(kind - std::begin(kMerged))].push_back(std::move(step));
    } else {
      flush();
      out.push_back(std::move(step));
    }
  }
  flush();
  steps = std::move(out);
}

}  // namespace gofish::server::postgres_batching
