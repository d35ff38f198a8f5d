// The PostgreSQL store's reads (rooms, games, transcripts) and upkeep
// (set-aside rooms, pruning, the seat-token key).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/store/postgres_store.hpp"
#include "server/store/postgres_result.hpp"
#include "server/store/postgres_step.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

using namespace postgres_statements;
using postgres_step::step;

namespace {

// A decision we can use: a JSON object.
bool whole_decision(const std::string& text) {
  if (text.empty() || text.front() != '{') return false;
  return nlohmann::json::accept(text);
}

// The first row's first column, if there is a row.
std::optional<std::string> first_bytes(const PostgresStore::Result& rows) {
  if (rows.rows() == 0) return std::nullopt;
  return rows.bytes(0, 0);
}

// The rooms of a kOpenRooms, kOpenRoom or kWaitingRooms result (code,
// settings, created_ms, v, and next_deal, daily_counted and daily_note for
// the first two), with no seats or game yet.
std::vector<StoredRoom> rooms_of(const PostgresStore::Result& rows) {
  std::vector<StoredRoom> rooms;
  for (int i = 0; i < rows.rows(); ++i) {
    StoredRoom room;
    room.room = rows.bytes(i, 0);
    room.settings = rows.bytes(i, 1);
    room.created_ms = rows.integer(i, 2);
    room.v = rows.integer(i, 3);
    if (rows.columns() > 4 && !rows.null(i, 4)) room.next_deal = rows.bytes(i, 4);
    if (rows.columns() > 6) {
      if (!rows.null(i, 5)) room.daily_counted = rows.integer(i, 5);
      if (!rows.null(i, 6)) room.daily_note = rows.bytes(i, 6);
    }
    rooms.push_back(std::move(room));
  }
  return rooms;
}

// The seats of a kRoomSeats result (seat, state, token_hash).
std::vector<StoredSeat> seats_of(const PostgresStore::Result& rows) {
  std::vector<StoredSeat> seats;
  for (int i = 0; i < rows.rows(); ++i) {
    seats.push_back(StoredSeat{static_cast<int>(rows.integer(i, 0)), rows.bytes(i, 1),
                               rows.null(i, 2) ? std::string() : rows.bytes(i, 2)});
  }
  return seats;
}

}  // namespace

void PostgresStore::truncate_locked(const std::string& game_id, std::int64_t keep) {
  run(step(kTruncateDecisions, game_id, keep));
}

void PostgresStore::truncate_decisions(const std::string& game_id, std::int64_t keep) {
  std::lock_guard lock(mutex_);
  sequences_->forget(game_id);
  with_retry([&] { truncate_locked(game_id, keep); });
}

std::vector<StoredEvent> PostgresStore::events_of(const Result& rows) {
  std::vector<StoredEvent> events;
  for (int i = 0; i < rows.rows(); ++i) {
    StoredEvent event;
    event.event = rows.bytes(i, 0);
    event.name = rows.bytes(i, 1);
    event.settings = rows.bytes(i, 2);
    event.teacher_hash = rows.bytes(i, 3);
    event.phase = rows.bytes(i, 4);
    event.round = rows.integer(i, 5);
    event.created_ms = rows.integer(i, 6);
    events.push_back(std::move(event));
  }
  for (StoredEvent& event : events) {
    const auto pupils = run(step(kEventPupils, event.event));
    for (int i = 0; i < pupils.rows(); ++i) {
      event.pupils.push_back(StoredPupil{pupils.integer(i, 0), pupils.bytes(i, 1),
                                         pupils.null(i, 2) ? std::string() : pupils.bytes(i, 2)});
    }
    const auto tables = run(step(kEventTables, event.event, event.round));
    for (int i = 0; i < tables.rows(); ++i) {
      add_event_table(event, tables.integer(i, 0),
                      StoredEventTable{tables.integer(i, 1), tables.bytes(i, 2), tables.bytes(i, 3), tables.bytes(i, 4),
                                       tables.bytes(i, 5)});
    }
  }
  return events;
}

std::vector<StoredEvent> PostgresStore::load_open_events() {
  std::lock_guard lock(mutex_);
  return with_retry([&] { return events_of(run(step(kOpenEvents))); });
}

std::optional<StoredEvent> PostgresStore::load_open_event(const std::string& code) {
  return event_by_code(kOpenEvent, code);
}

std::optional<StoredEvent> PostgresStore::load_closed_event(const std::string& code) {
  return event_by_code(kClosedEvent, code);
}

std::optional<StoredEvent> PostgresStore::event_by_code(const Sql& statement, const std::string& code) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<StoredEvent> {
    auto events = events_of(run(step(statement, code)));
    if (events.empty()) return std::nullopt;
    return std::move(events.front());
  });
}

std::vector<StoredRoom> PostgresStore::load_open_rooms() {
  std::lock_guard lock(mutex_);
  return with_retry([&] {
    std::vector<StoredRoom> rooms = rooms_of(run(step(kOpenRooms)));
    for (auto& room : rooms) fill_locked(room);
    return rooms;
  });
}

std::optional<StoredRoom> PostgresStore::load_room(const std::string& code) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<StoredRoom> {
    std::vector<StoredRoom> rooms = rooms_of(run(step(kOpenRoom, code)));
    if (rooms.empty()) return std::nullopt;
    fill_locked(rooms.front());
    return std::move(rooms.front());
  });
}

std::optional<std::string> PostgresStore::room_of_token(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  return with_retry([&] { return first_bytes(run(step(kRoomOfToken, token_hash))); });
}

std::optional<std::string> PostgresStore::event_of_table(const std::string& room) {
  std::lock_guard lock(mutex_);
  return with_retry([&] { return first_bytes(run(step(kEventOfTable, room))); });
}

// A game's row (kLatestGame, kFinishedGame), without its decisions.
StoredGame PostgresStore::game_of(const Result& games) {
  StoredGame game;
  game.game_id = games.bytes(0, 0);
  game.game = games.integer(0, 1);
  game.setup = games.bytes(0, 2);
  game.started_ms = games.integer(0, 3);
  if (!games.null(0, 4)) game.transcript = games.bytes(0, 4);
  game.finished = !games.null(0, 5);
  return game;
}

// A room's seats and latest game with its decisions; a torn tail is cut.
void PostgresStore::fill_locked(StoredRoom& room) {
  room.seats = seats_of(run(step(kRoomSeats, room.room)));
  const Result games = run(step(kLatestGame, room.room));
  if (games.rows() == 0) return;
  StoredGame game = game_of(games);
  const Result decisions = run(step(kGameDecisions, game.game_id));
  for (int i = 0; i < decisions.rows(); ++i) {
    if (!decisions.null(i, 2)) room.v = std::max(room.v, decisions.integer(i, 2));
  }
  for (int i = 0; i < decisions.rows(); ++i) {
    auto text = decisions.bytes(i, 1);
    if (decisions.integer(i, 0) != static_cast<std::int64_t>(game.decisions.size()) || !whole_decision(text)) {
      spdlog::warn("storage: room {} game {}: the decision log is torn; cut back to its {} whole decisions", room.room,
                   game.game_id, game.decisions.size());
      truncate_locked(game.game_id, static_cast<std::int64_t>(game.decisions.size()));
      break;
    }
    game.decisions.push_back(std::move(text));
  }
  if (!game.finished) sequences_->known(game.game_id, static_cast<std::int64_t>(game.decisions.size()));
  room.game = std::move(game);
}

std::vector<StoredRoom> PostgresStore::waiting_rooms(std::size_t limit) {
  std::lock_guard lock(mutex_);
  return with_retry([&] {
    std::vector<StoredRoom> rooms = rooms_of(run(step(kWaitingRooms, static_cast<std::int64_t>(limit))));
    for (auto& room : rooms) room.seats = seats_of(run(step(kRoomSeats, room.room)));
    return rooms;
  });
}

void PostgresStore::set_aside(const std::string& room, const std::string& reason, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  with_retry([&] { run(step(kSetAside, room, reason, now_ms)); });
}

std::vector<SetAsideRoom> PostgresStore::set_aside_rooms() {
  std::lock_guard lock(mutex_);
  return with_retry([&] {
    std::vector<SetAsideRoom> rooms;
    const Result rows = run(step(kSetAsideRooms));
    for (int i = 0; i < rows.rows(); ++i) {
      rooms.push_back(SetAsideRoom{rows.bytes(i, 0), rows.integer(i, 1), rows.bytes(i, 2)});
    }
    return rooms;
  });
}

bool PostgresStore::restore_set_aside(const std::string& room) {
  std::lock_guard lock(mutex_);
  return with_retry([&] { return run(step(kRestoreSetAside, room)).changed() > 0; });
}

DailyTally PostgresStore::daily_tally_of(const Result& rows) {
  DailyTally tally;
  for (int i = 0; i < rows.rows(); ++i) tally[static_cast<int>(rows.integer(i, 0))] = rows.integer(i, 1);
  return tally;
}

// Not tried again once sent: without a room to mark, a count whose COMMIT
// was lost might count twice (with one, the retry would find the mark and
// count nothing). A game left out of a tally harms nobody; the caller logs it.
std::optional<DailyTally> PostgresStore::count_daily_game(const std::string& day, int sets, const std::string& room,
                                                          std::int64_t game) {
  std::lock_guard lock(mutex_);
  reconnect_if_lost();
  exec("BEGIN");
  try {
    if (!room.empty() && run(step(kMarkDailyCounted, room, game)).changed() == 0) {
      rollback();  // counted already, or no such room
      return std::nullopt;
    }
    run(step(kCountDailyGame, day, sets));
    DailyTally tally = daily_tally_of(run(step(kDailyTally, day)));
    exec("COMMIT");
    return tally;
  } catch (...) {
    rollback();
    throw;
  }
}

DailyTally PostgresStore::daily_tally(const std::string& day) {
  std::lock_guard lock(mutex_);
  return with_retry([&] { return daily_tally_of(run(step(kDailyTally, day))); });
}

std::optional<std::string> PostgresStore::latest_finished_game(const std::string& room) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<std::string> { return first_bytes(run(step(kLatestFinishedGame, room))); });
}

std::optional<StoredGame> PostgresStore::finished_game(const std::string& game_id) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<StoredGame> {
    const Result games = run(step(kFinishedGame, game_id));
    if (games.rows() == 0) return std::nullopt;
    StoredGame game = game_of(games);
    const Result decisions = run(step(kGameDecisions, game_id));
    for (int i = 0; i < decisions.rows(); ++i) game.decisions.push_back(decisions.bytes(i, 1));
    return game;
  });
}

std::size_t PostgresStore::prune_finished(std::int64_t before_ms) {
  std::lock_guard lock(mutex_);
  // Deleting what is past its time again is harmless, so a retry may
  // follow even a lost COMMIT.
  return with_retry([&] {
    exec("BEGIN");
    try {
      run(step(kPruneDecisions, before_ms));
      const auto removed = run(step(kPruneGames, before_ms)).changed();
      exec("COMMIT");
      return removed;
    } catch (...) {
      rollback();
      throw;
    }
  });
}

std::array<std::uint64_t, 4> PostgresStore::token_key() {
  std::lock_guard lock(mutex_);
  return with_retry([&] {
    std::array<std::uint64_t, 4> key{};
    const auto read = [&] {
      const Result rows = run(step(kTokenKey));
      return rows.rows() > 0 ? rows.bytes(0, 0) : std::string();
    };
    std::string stored = read();
    if (stored.size() == sizeof(key)) {
      std::memcpy(key.data(), stored.data(), sizeof(key));
      return key;
    }
    if (holds_rooms_or_games()) {
      // Stored seat tokens are hashed with the lost key: a new key would stop
      // every one of them without a word.
      const std::string what =
          stored.empty() ? "is missing"
                         : "has " + std::to_string(stored.size()) + " bytes instead of " + std::to_string(sizeof(key));
      if (missing_key_ == MissingTokenKey::kRefuse) {
        throw StoreError("the PostgreSQL " + describe() +
                         " holds rooms or games, but its seat-token key (meta.token_key) " + what +
                         ", so no stored seat token could resume its seat; refusing to start. Restore the database "
                         "from a backup, or start once with --new-token-key to make a new key (every seat token "
                         "stored before then stops working).");
      }
      spdlog::warn(
          "storage: PostgreSQL {}: the seat-token key {}; a new one is made (--new-token-key), so no seat token "
          "stored before resumes its seat",
          describe(), what);
    }
    std::array<std::uint8_t, sizeof(key)> bytes{};
    os_random_bytes(bytes);
    const std::string made(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    // A key another server has just made wins over ours: read back what is kept.
    run(step(stored.empty() ? kAddTokenKey : kReplaceTokenKey, made));
    stored = read();
    if (stored.size() != sizeof(key)) throw StoreError("the seat-token key just written did not read back");
    std::memcpy(key.data(), stored.data(), sizeof(key));
    return key;
  });
}

bool PostgresStore::holds_rooms_or_games() { return run(step(kHoldsRoomsOrGames)).integer(0, 0) != 0; }

}  // namespace gofish::server
