#include "server/store/sqlite_store.hpp"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <span>
#include <type_traits>
#include <unordered_map>

#include "server/store/sqlite_statement.hpp"
#include "server/store/token.hpp"

// The statement wrapper is server/store/sqlite_statement.hpp; the schema
// (migrations, the checks on opening, the prepared statements) is
// server/store/sqlite_schema.cpp.

namespace gofish::server {

using sqlite_statement::column_blob;
using sqlite_statement::column_text;
using sqlite_statement::Null;

namespace {

// A decision we can use: a JSON object.
bool whole_decision(const std::string& text) {
  if (text.empty() || text.front() != '{') return false;
  return nlohmann::json::accept(text);
}

// A room from a row of (code, settings, created_ms, v) and, when a room is
// loaded to be rebuilt, next_deal, daily_counted and daily_note; with no
// seats or game yet.
StoredRoom room_of(sqlite3_stmt* stmt) {
  StoredRoom room;
  room.room = column_text(stmt, 0);
  room.settings = column_text(stmt, 1);
  room.created_ms = sqlite3_column_int64(stmt, 2);
  room.v = sqlite3_column_int64(stmt, 3);
  if (sqlite3_column_count(stmt) > 4 && sqlite3_column_type(stmt, 4) != SQLITE_NULL) {
    room.next_deal = column_text(stmt, 4);
  }
  if (sqlite3_column_count(stmt) > 6) {
    room.daily_counted = sqlite3_column_int64(stmt, 5);  // 0 when NULL
    if (sqlite3_column_type(stmt, 6) != SQLITE_NULL) room.daily_note = column_text(stmt, 6);
  }
  return room;
}

// A seat from a row of (seat, state, token_hash).
StoredSeat seat_of(sqlite3_stmt* stmt) {
  return StoredSeat{sqlite3_column_int(stmt, 0), column_text(stmt, 1), column_blob(stmt, 2)};
}

// A game's row, its first six columns as in finished_game_, without its
// decisions.
StoredGame game_of(sqlite3_stmt* stmt) {
  StoredGame game;
  game.game_id = column_text(stmt, 0);
  game.game = sqlite3_column_int64(stmt, 1);
  game.setup = column_text(stmt, 2);
  game.started_ms = sqlite3_column_int64(stmt, 3);
  if (sqlite3_column_type(stmt, 4) != SQLITE_NULL) game.transcript = column_text(stmt, 4);
  game.finished = sqlite3_column_type(stmt, 5) != SQLITE_NULL;
  return game;
}

}  // namespace

SqliteStore::SqliteStore(const std::filesystem::path& file, SyncMode sync, MissingTokenKey missing_key)
    : file_(file), missing_key_(missing_key) {
  try {
    open_and_check(file, sync);
    migrate();
    prepare_statements();
  } catch (...) {
    close_statements();
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

SqliteStore::~SqliteStore() {
  // Statements first: sqlite3_close needs them finalized.
  close_statements();
  if (sqlite3_close(db_) != SQLITE_OK) {
    spdlog::error("storage: closing {}: {}", file_.string(), sqlite3_errmsg(db_));
  }
}

void SqliteStore::close_statements() {
  for (auto* statement :
       {&insert_room_, &update_settings_, &upsert_seat_, &delete_seat_, &insert_game_, &insert_decision_,
        &first_decision_, &finish_game_, &update_version_, &close_room_, &finished_game_, &finished_decisions_}) {
    statement->reset();
  }
}

void SqliteStore::exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    if (sqlite_statement::records_fault(db_)) throw RecordsRefused(text);
    throw StoreError(text);
  }
}

void SqliteStore::apply(const Record& record) {
  std::visit(
      [this](const auto& r) {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, record::RoomCreated>) {
          insert_room_->run(r.room, r.settings, r.created_ms);
        } else if constexpr (std::is_same_v<R, record::RoomSettingsChanged>) {
          update_settings_->run(r.settings, r.room);
        } else if constexpr (std::is_same_v<R, record::SeatTaken>) {
          upsert_seat_->run(r.room, r.seat, r.state, r.token_hash);
        } else if constexpr (std::is_same_v<R, record::SeatFreed>) {
          delete_seat_->run(r.room, r.seat);
        } else if constexpr (std::is_same_v<R, record::GameStarted>) {
          insert_game_->run(r.game_id, r.room, r.game, r.setup, r.started_ms);
          // New (its id is the table's key): no decision yet, so its first
          // does not look for earlier ones in the table.
          batch_.started(r.game_id);
        } else if constexpr (std::is_same_v<R, record::DecisionAccepted>) {
          // No index keeps a game's decisions unique: the sequence is checked
          // here, so a decision written twice or out of order fails its batch.
          sequences_.accept(batch_, r.game_id, r.seq, [this](const std::string& game_id) { return next_seq(game_id); });
          if (r.v) {
            insert_decision_->run(r.game_id, r.seq, r.decision, *r.v);
          } else {
            insert_decision_->run(r.game_id, r.seq, r.decision, Null{});
          }
          if (r.seq == 0) first_decision_->run(static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_)), r.game_id);
        } else if constexpr (std::is_same_v<R, record::GameFinished>) {
          finish_game_->run(r.finished_ms, r.game_id);
          batch_.ended(r.game_id);
        } else if constexpr (std::is_same_v<R, record::RoomVersion>) {
          update_version_->run(r.v, r.room);
        } else if constexpr (std::is_same_v<R, record::NextDealSaved>) {
          Statement save(db_, "UPDATE rooms SET next_deal = NULLIF(?, '') WHERE code = ?");
          save.run(r.deal, r.room);
        } else if constexpr (std::is_same_v<R, record::DailyNoteSaved>) {
          Statement save(db_, "UPDATE rooms SET daily_note = NULLIF(?, '') WHERE code = ?");
          save.run(r.note, r.room);
        } else if constexpr (std::is_same_v<R, record::RoomClosed>) {
          Statement open_games(db_, "SELECT game_id FROM games WHERE room = ? AND finished_ms IS NULL");
          open_games.each([&](sqlite3_stmt* stmt) { batch_.ended(column_text(stmt, 0)); }, r.room);
          close_room_->run(r.room);
          Statement games(db_, "DELETE FROM games WHERE room = ? AND finished_ms IS NULL");
          games.run(r.room);
          Statement detach(db_, "UPDATE games SET room = NULL WHERE room = ?");
          detach.run(r.room);
          Statement seats(db_, "DELETE FROM seats WHERE room = ?");
          seats.run(r.room);
          Statement rooms(db_, "DELETE FROM rooms WHERE code = ?");
          rooms.run(r.room);
        } else if constexpr (std::is_same_v<R, record::EventSaved>) {
          Statement save(db_,
                         "INSERT OR REPLACE INTO events(code, name, settings, teacher_hash, phase, round, created_ms) "
                         "VALUES(?, ?, ?, CAST(? AS BLOB), ?, ?, ?)");
          save.run(r.event, r.name, r.settings, r.teacher_hash, r.phase, r.round, r.created_ms);
        } else if constexpr (std::is_same_v<R, record::PupilSaved>) {
          Statement save(db_,
                         "INSERT OR REPLACE INTO event_pupils(event, pupil, name, token_hash) "
                         "VALUES(?, ?, ?, NULLIF(CAST(? AS BLOB), x''))");
          save.run(r.event, r.pupil, r.name, r.token_hash);
        } else if constexpr (std::is_same_v<R, record::EventTableSaved>) {
          Statement save(db_,
                         "INSERT OR REPLACE INTO event_tables(event, round, table_number, room, seats, game_id, "
                         "result) VALUES(?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''))");
          save.run(r.event, r.round, r.table, r.room, r.seats, r.game_id, r.result);
        }
      },
      record);
}

std::vector<StoredEvent> SqliteStore::load_open_events() {
  std::lock_guard lock(mutex_);
  return events_where("phase <> 'closed'", std::nullopt);
}

std::optional<StoredEvent> SqliteStore::load_open_event(const std::string& code) {
  std::lock_guard lock(mutex_);
  auto events = events_where("phase <> 'closed' AND code = ?", code);
  if (events.empty()) return std::nullopt;
  return std::move(events.front());
}

std::optional<StoredEvent> SqliteStore::load_closed_event(const std::string& code) {
  std::lock_guard lock(mutex_);
  auto events = events_where("phase = 'closed' AND code = ?", code);
  if (events.empty()) return std::nullopt;
  return std::move(events.front());
}

std::vector<StoredEvent> SqliteStore::events_where(const char* condition, const std::optional<std::string>& code) {
  std::vector<StoredEvent> events;
  constexpr std::string_view kColumns =
      "SELECT code, name, settings, teacher_hash, phase, round, created_ms FROM events";
  const std::string query = std::string(kColumns) + " WHERE " + condition + " ORDER BY created_ms, code";
  Statement event_rows(db_, query.c_str());
  const auto read_event = [&](sqlite3_stmt* stmt) {
    StoredEvent event;
    event.event = column_text(stmt, 0);
    event.name = column_text(stmt, 1);
    event.settings = column_text(stmt, 2);
    event.teacher_hash = column_blob(stmt, 3);
    event.phase = column_text(stmt, 4);
    event.round = sqlite3_column_int64(stmt, 5);
    event.created_ms = sqlite3_column_int64(stmt, 6);
    events.push_back(std::move(event));
  };
  if (code) {
    event_rows.each(read_event, *code);
  } else {
    event_rows.each(read_event);
  }
  Statement pupil_rows(db_, "SELECT pupil, name, token_hash FROM event_pupils WHERE event = ? ORDER BY pupil");
  Statement table_rows(db_,
                       "SELECT round, table_number, room, seats, IFNULL(game_id, ''), IFNULL(result, '') "
                       "FROM event_tables WHERE event = ? AND round <= ? ORDER BY round, table_number");
  for (StoredEvent& event : events) {
    pupil_rows.each(
        [&](sqlite3_stmt* stmt) {
          event.pupils.push_back(
              StoredPupil{sqlite3_column_int64(stmt, 0), column_text(stmt, 1), column_blob(stmt, 2)});
        },
        event.event);
    table_rows.each(
        [&](sqlite3_stmt* stmt) {
          StoredEventTable table{sqlite3_column_int64(stmt, 1), column_text(stmt, 2), column_text(stmt, 3),
                                 column_text(stmt, 4), column_text(stmt, 5)};
          add_event_table(event, sqlite3_column_int64(stmt, 0), std::move(table));
        },
        event.event, event.round);
  }
  return events;
}

void SqliteStore::commit(const std::vector<Record>& records) {
  if (records.empty()) return;
  commit_with([&] {
    for (const auto& record : records) apply(record);
  });
}

// The writer's batch, applied where it lies (the default commit_rooms would
// copy every record into one list first).
std::vector<std::string> SqliteStore::commit_rooms(const std::vector<RoomRecords>& batch) {
  if (std::all_of(batch.begin(), batch.end(), [](const RoomRecords& room) { return room.records.empty(); })) return {};
  commit_with([&] {
    for (const RoomRecords& room : batch) {
      for (const Record& record : room.records) apply(record);
    }
  });
  return {};
}

void SqliteStore::commit_with(const std::function<void()>& apply_records) {
  std::lock_guard lock(mutex_);
  batch_ = {};
  exec("BEGIN IMMEDIATE");
  try {
    apply_records();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    batch_ = {};
    throw;
  }
  // Committed: what the batch moved is now so.
  sequences_.land(batch_);
}

std::int64_t SqliteStore::next_seq(const std::string& game_id) {
  // A game this process has not written yet: its decisions since its first.
  std::int64_t next = 0;
  Statement last(db_,
                 "SELECT ifnull(max(seq) + 1, 0) FROM decisions WHERE id >= "
                 "ifnull((SELECT first_decision FROM games WHERE game_id = ?1), 1 << 62) AND game_id = ?1");
  last.each([&](sqlite3_stmt* stmt) { next = sqlite3_column_int64(stmt, 0); }, game_id);
  return next;
}

void SqliteStore::truncate_locked(const std::string& game_id, std::int64_t keep) {
  // Clients have seen the versions the cut decisions carried: the room keeps
  // the highest, so it never numbers two events alike.
  Statement keep_version(db_,
                         "UPDATE rooms SET v = max(v, ifnull((SELECT max(v) FROM decisions WHERE id >= "
                         "(SELECT first_decision FROM games WHERE game_id = ?1) AND game_id = ?1 AND seq >= ?2), 0)) "
                         "WHERE code = (SELECT room FROM games WHERE game_id = ?1)");
  keep_version.run(game_id, keep);
  Statement cut(db_,
                "DELETE FROM decisions WHERE id >= (SELECT first_decision FROM games WHERE game_id = ?1) "
                "AND game_id = ?1 AND seq >= ?2");
  cut.run(game_id, keep);
  if (keep == 0) {
    Statement none(db_, "UPDATE games SET first_decision = NULL WHERE game_id = ?");
    none.run(game_id);
  }
}

void SqliteStore::truncate_decisions(const std::string& game_id, std::int64_t keep) {
  std::lock_guard lock(mutex_);
  sequences_.forget(game_id);
  truncate_locked(game_id, keep);
}

std::vector<StoredRoom> SqliteStore::load_open_rooms() {
  std::lock_guard lock(mutex_);
  return load_rooms_locked(std::nullopt);
}

std::optional<StoredRoom> SqliteStore::load_room(const std::string& code) {
  std::lock_guard lock(mutex_);
  auto rooms = load_rooms_locked(code);
  if (rooms.empty()) return std::nullopt;
  return std::move(rooms.front());
}

std::optional<std::string> SqliteStore::room_of_token(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  std::optional<std::string> code;
  Statement find(db_,
                 "SELECT seats.room FROM seats JOIN rooms ON rooms.code = seats.room "
                 "WHERE seats.token_hash = CAST(? AS BLOB) AND rooms.set_aside IS NULL LIMIT 1");
  find.each([&](sqlite3_stmt* stmt) { code = column_text(stmt, 0); }, token_hash);
  return code;
}

std::vector<StoredRoom> SqliteStore::waiting_rooms(std::size_t limit) {
  std::lock_guard lock(mutex_);
  std::vector<StoredRoom> rooms;
  Statement room_rows(db_,
                      "SELECT code, settings, created_ms, v FROM rooms WHERE set_aside IS NULL AND NOT EXISTS "
                      "(SELECT 1 FROM games WHERE games.room = rooms.code) ORDER BY created_ms DESC, code LIMIT ?");
  room_rows.each([&](sqlite3_stmt* stmt) { rooms.push_back(room_of(stmt)); }, static_cast<std::int64_t>(limit));
  Statement seat_rows(db_, "SELECT seat, state, token_hash FROM seats WHERE room = ? ORDER BY seat");
  for (auto& room : rooms) {
    seat_rows.each([&](sqlite3_stmt* stmt) { room.seats.push_back(seat_of(stmt)); }, room.room);
  }
  return rooms;
}

std::vector<StoredRoom> SqliteStore::load_rooms_locked(const std::optional<std::string>& code) {
  std::vector<StoredRoom> rooms;
  const auto take_room = [&](sqlite3_stmt* stmt) { rooms.push_back(room_of(stmt)); };
  if (code) {
    Statement room_row(db_,
                       "SELECT code, settings, created_ms, v, next_deal, daily_counted, daily_note FROM rooms WHERE "
                       "set_aside IS NULL AND code = ?");
    room_row.each(take_room, *code);
  } else {
    Statement room_rows(
        db_,
        "SELECT code, settings, created_ms, v, next_deal, daily_counted, daily_note FROM rooms WHERE set_aside IS NULL "
        "ORDER BY created_ms, code");
    room_rows.each(take_room);
  }
  Statement seat_rows(db_, "SELECT seat, state, token_hash FROM seats WHERE room = ? ORDER BY seat");
  Statement game_rows(db_,
                      "SELECT game_id, game, setup, started_ms, transcript, finished_ms, first_decision FROM games "
                      "WHERE room = ? ORDER BY game DESC LIMIT 1");
  // Each latest game by its id, and where the first of their decisions is.
  std::unordered_map<std::string, StoredRoom*> by_game;
  std::optional<std::int64_t> first;
  for (auto& room : rooms) {
    seat_rows.each([&](sqlite3_stmt* stmt) { room.seats.push_back(seat_of(stmt)); }, room.room);
    game_rows.each(
        [&](sqlite3_stmt* stmt) {
          StoredGame game = game_of(stmt);
          if (sqlite3_column_type(stmt, 6) != SQLITE_NULL) {
            const std::int64_t id = sqlite3_column_int64(stmt, 6);
            first = first ? std::min(*first, id) : id;
          }
          room.game = std::move(game);
        },
        room.room);
    if (room.game) by_game.emplace(room.game->game_id, &room);
  }
  if (!first) return rooms;
  // One pass over the decisions appended since the oldest of these games
  // began; they come in commit order, which is each game's sequence.
  std::unordered_map<std::string, bool> torn;
  Statement decision_rows(db_, "SELECT game_id, seq, decision, v FROM decisions WHERE id >= ? ORDER BY id");
  decision_rows.each(
      [&](sqlite3_stmt* stmt) {
        const auto found = by_game.find(column_text(stmt, 0));
        if (found == by_game.end()) return;
        StoredRoom& room = *found->second;
        if (sqlite3_column_type(stmt, 3) != SQLITE_NULL)
          room.v = std::max<std::int64_t>(room.v, sqlite3_column_int64(stmt, 3));
        StoredGame& game = *room.game;
        bool& cut = torn[game.game_id];
        if (cut) return;
        const auto seq = sqlite3_column_int64(stmt, 1);
        auto text = column_text(stmt, 2);
        if (seq != static_cast<std::int64_t>(game.decisions.size()) || !whole_decision(text)) {
          cut = true;
          return;
        }
        game.decisions.push_back(std::move(text));
      },
      *first);
  for (const auto& [game_id, cut] : torn) {
    if (!cut) continue;
    const StoredRoom& room = *by_game.at(game_id);
    spdlog::warn("storage: room {} game {}: the decision log is torn; cut back to its {} whole decisions", room.room,
                 game_id, room.game->decisions.size());
    truncate_locked(game_id, static_cast<std::int64_t>(room.game->decisions.size()));
    sequences_.forget(game_id);
  }
  return rooms;
}

void SqliteStore::set_aside(const std::string& room, const std::string& reason, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  Statement mark(db_, "UPDATE rooms SET set_aside = ?, set_aside_ms = ? WHERE code = ?");
  mark.run(reason, now_ms, room);
}

std::vector<SetAsideRoom> SqliteStore::set_aside_rooms() {
  std::lock_guard lock(mutex_);
  std::vector<SetAsideRoom> rooms;
  Statement rows(db_,
                 "SELECT code, set_aside_ms, set_aside FROM rooms WHERE set_aside IS NOT NULL "
                 "ORDER BY set_aside_ms, code");
  rows.each([&](sqlite3_stmt* stmt) {
    rooms.push_back(SetAsideRoom{column_text(stmt, 0), sqlite3_column_int64(stmt, 1), column_text(stmt, 2)});
  });
  return rooms;
}

bool SqliteStore::restore_set_aside(const std::string& room) {
  std::lock_guard lock(mutex_);
  Statement clear(db_,
                  "UPDATE rooms SET set_aside = NULL, set_aside_ms = NULL WHERE code = ? AND set_aside IS NOT NULL");
  clear.run(room);
  return sqlite3_changes(db_) > 0;
}

std::optional<std::string> SqliteStore::latest_finished_game(const std::string& room) {
  std::lock_guard lock(mutex_);
  std::optional<std::string> id;
  Statement latest(db_,
                   "SELECT game_id FROM games WHERE room = ? AND finished_ms IS NOT NULL ORDER BY game DESC LIMIT 1");
  latest.each([&](sqlite3_stmt* stmt) { id = column_text(stmt, 0); }, room);
  return id;
}

std::optional<StoredGame> SqliteStore::finished_game(const std::string& game_id) {
  std::lock_guard lock(mutex_);
  std::optional<StoredGame> game;
  std::optional<std::int64_t> first, last;
  finished_game_->each(
      [&](sqlite3_stmt* stmt) {
        game = game_of(stmt);
        if (sqlite3_column_type(stmt, 6) != SQLITE_NULL) first = sqlite3_column_int64(stmt, 6);
        if (sqlite3_column_type(stmt, 7) != SQLITE_NULL) last = sqlite3_column_int64(stmt, 7);
      },
      game_id);
  if (!game || !first) return game;
  const auto take = [&](sqlite3_stmt* stmt) { game->decisions.push_back(column_text(stmt, 0)); };
  if (last) {
    finished_decisions_->each(take, *first, *last, game_id);
  } else {
    finished_decisions_->each(take, *first, Null{}, game_id);
  }
  return game;
}

namespace {

constexpr const char* kDailyTally = "SELECT sets, games FROM daily_tally WHERE day = ? ORDER BY sets";

}  // namespace

std::optional<DailyTally> SqliteStore::count_daily_game(const std::string& day, int sets, const std::string& room,
                                                        std::int64_t game) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    if (!room.empty()) {
      Statement mark(db_,
                     "UPDATE rooms SET daily_counted = ? WHERE code = ? AND "
                     "(daily_counted IS NULL OR daily_counted < ?)");
      mark.run(game, room, game);
      if (sqlite3_changes(db_) == 0) {  // counted already, or no such room
        exec("ROLLBACK");
        return std::nullopt;
      }
    }
    Statement count(db_,
                    "INSERT INTO daily_tally(day, sets, games) VALUES(?, ?, 1) "
                    "ON CONFLICT(day, sets) DO UPDATE SET games = games + 1");
    count.run(day, sets);
    DailyTally tally;
    Statement read(db_, kDailyTally);
    read.each([&](sqlite3_stmt* stmt) { tally[sqlite3_column_int(stmt, 0)] = sqlite3_column_int64(stmt, 1); }, day);
    exec("COMMIT");
    return tally;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

DailyTally SqliteStore::daily_tally(const std::string& day) {
  std::lock_guard lock(mutex_);
  DailyTally tally;
  Statement read(db_, kDailyTally);
  read.each([&](sqlite3_stmt* stmt) { tally[sqlite3_column_int(stmt, 0)] = sqlite3_column_int64(stmt, 1); }, day);
  return tally;
}

std::size_t SqliteStore::prune_finished(std::int64_t before_ms) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    // A set-aside room keeps everything, for whoever looks into it.
    constexpr const char* kOld =
        "finished_ms IS NOT NULL AND finished_ms < ? AND "
        "(room IS NULL OR room NOT IN (SELECT code FROM rooms WHERE set_aside IS NOT NULL))";
    Statement games(db_, (std::string("DELETE FROM games WHERE ") + kOld).c_str());
    games.run(before_ms);
    const auto removed = static_cast<std::size_t>(sqlite3_changes(db_));
    // Decisions have no index by game: every one appended before the first
    // decision of the oldest game still kept belongs to a game gone (pruned,
    // or dropped with its room), so they go by rowid, a page at a time. The
    // decisions of a game gone that sit among those of games still kept wait
    // until the oldest kept game goes.
    Statement decisions(db_,
                        "DELETE FROM decisions WHERE id < (SELECT ifnull(min(first_decision), 1 << 62) FROM games "
                        "WHERE first_decision IS NOT NULL)");
    decisions.run();
    exec("COMMIT");
    return removed;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::array<std::uint64_t, 4> SqliteStore::token_key() {
  std::lock_guard lock(mutex_);
  std::array<std::uint64_t, 4> key{};
  std::string stored;
  Statement read(db_, "SELECT value FROM meta WHERE key = 'token_key'");
  read.each([&](sqlite3_stmt* stmt) { stored = column_blob(stmt, 0); });
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
      throw StoreError(file_.string() + " holds rooms or games, but its seat-token key (meta.token_key) " + what +
                       ", so no stored seat token could resume its seat; refusing to start. Restore the database "
                       "from a backup, or start once with --new-token-key to make a new key (every seat token "
                       "stored before then stops working).");
    }
    spdlog::warn(
        "storage: {}: the seat-token key {}; a new one is made (--new-token-key), so no seat token stored "
        "before resumes its seat",
        file_.string(), what);
  }
  std::array<std::uint8_t, sizeof(key)> bytes{};
  os_random_bytes(bytes);
  std::memcpy(key.data(), bytes.data(), sizeof(key));
  Statement write(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES('token_key', CAST(? AS BLOB))");
  write.run(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return key;
}

bool SqliteStore::holds_rooms_or_games() {
  bool used = false;
  Statement any(db_, "SELECT EXISTS(SELECT 1 FROM rooms) OR EXISTS(SELECT 1 FROM games)");
  any.each([&](sqlite3_stmt* stmt) { used = sqlite3_column_int(stmt, 0) != 0; });
  return used;
}

}  // namespace gofish::server
