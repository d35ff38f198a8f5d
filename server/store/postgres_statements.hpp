// The PostgreSQL store's statement catalogue: every statement a connection
// prepares, by name, with its text (PostgresStore prepares them all on each
// connection, postgres_schema.cpp). The rest of the store names a statement
// by its constant here; each record's SQL is chosen in one place,
// steps_for() (postgres_batching.cpp).
#pragma once

#include <cstdint>
#include <span>

namespace gofish::server::postgres_statements {

// The SQLSTATE gofish_node_lost_lease raises.
inline constexpr const char* kLostLease = "GF002";

// A statement prepared by name on every connection. Where a statement is
// keyed by a room or a game, that key is $1.
struct Sql {
  const char* name;
  const char* text;
};

// What records write (steps_for).
inline constexpr Sql kInsertRoom{"insert_room", "INSERT INTO rooms(code, settings, created_ms) VALUES($1, $2, $3)"};
inline constexpr Sql kUpdateSettings{"update_settings", "UPDATE rooms SET settings = $2 WHERE code = $1"};
inline constexpr Sql kUpsertSeat{
    "upsert_seat",
    "INSERT INTO seats(room, seat, state, token_hash) "
    "VALUES($1, $2, $3, NULLIF($4::bytea, ''::bytea)) "
    "ON CONFLICT (room, seat) DO UPDATE SET state = EXCLUDED.state, token_hash = EXCLUDED.token_hash"};
inline constexpr Sql kDeleteSeat{"delete_seat", "DELETE FROM seats WHERE room = $1 AND seat = $2"};
// A game takes the lower bound of its decisions' ids as it is written
// (schema version 8), and the upper bound as it finishes.
inline constexpr Sql kInsertGame{"insert_game",
                                 "INSERT INTO games(game_id, room, game, setup, started_ms, first_decision) "
                                 "VALUES($1, $2, $3, $4, $5, nextval('decision_ids'))"};
inline constexpr Sql kInsertDecision{"insert_decision",
                                     "INSERT INTO decisions(game_id, seq, decision, v) VALUES($1, $2, $3, $4::bigint)"};
inline constexpr Sql kFinishGame{"finish_game",
                                 "UPDATE games SET finished_ms = $2, last_decision = (SELECT max(id) FROM decisions) "
                                 "WHERE game_id = $1"};
inline constexpr Sql kUpdateVersion{"update_version", "UPDATE rooms SET v = $2 WHERE code = $1"};
// A room's next deal (schema version 12), written whole; '' clears it.
inline constexpr Sql kSaveNextDeal{"save_next_deal", "UPDATE rooms SET next_deal = NULLIF($2, '') WHERE code = $1"};
// Today's deal's note of a room (schema version 13), written whole; '' clears it.
inline constexpr Sql kSaveDailyNote{"save_daily_note", "UPDATE rooms SET daily_note = NULLIF($2, '') WHERE code = $1"};
// The four above, many at once (merge_steps): each parameter an array (in
// binary form), one element a record, whatever their rooms.
inline constexpr Sql kInsertGames{"insert_games",
                                  "INSERT INTO games(game_id, room, game, setup, started_ms, first_decision) "
                                  "SELECT *, nextval('decision_ids') "
                                  "FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[])"};
inline constexpr Sql kInsertDecisions{"insert_decisions",
                                      "INSERT INTO decisions(game_id, seq, decision, v) "
                                      "SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[])"};
// An update finds its rows by key (= ANY, the primary key's index) and
// each row's values by the key's place in the array: a join with unnest()
// made the planner scan the whole table.
inline constexpr Sql kFinishGames{"finish_games",
                                  "UPDATE games SET finished_ms = ($2::bigint[])[array_position($1::text[], game_id)], "
                                  "last_decision = (SELECT max(id) FROM decisions) WHERE game_id = ANY($1::text[])"};
inline constexpr Sql kUpdateVersions{"update_versions",
                                     "UPDATE rooms SET v = ($2::bigint[])[array_position($1::text[], code)] "
                                     "WHERE code = ANY($1::text[])"};
// A room closing: its unfinished games go with it; finished ones stay, detached.
inline constexpr Sql kCloseDecisions{
    "close_decisions",
    "DELETE FROM decisions USING games WHERE games.room = $1 AND games.finished_ms IS NULL "
    "AND decisions.game_id = games.game_id "
    "AND decisions.id >= coalesce(games.first_decision, 0)"};
inline constexpr Sql kCloseGames{"close_games", "DELETE FROM games WHERE room = $1 AND finished_ms IS NULL"};
inline constexpr Sql kDetachGames{"detach_games", "UPDATE games SET room = NULL WHERE room = $1"};
inline constexpr Sql kCloseSeats{"close_seats", "DELETE FROM seats WHERE room = $1"};
inline constexpr Sql kCloseRoom{"close_room", "DELETE FROM rooms WHERE code = $1"};
// A closed room's lease goes with it (in the same transaction, fenced): its
// code may be drawn again.
inline constexpr Sql kCloseLease{"close_lease", "DELETE FROM room_lease WHERE code = $1"};

// Class events (schema version 9): each written whole, keyed by the event.
inline constexpr Sql kSaveEvent{
    "save_event",
    "INSERT INTO events(code, name, settings, teacher_hash, phase, round, created_ms) "
    "VALUES($1, $2, $3, $4::bytea, $5, $6, $7) "
    "ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name, settings = EXCLUDED.settings, "
    "teacher_hash = EXCLUDED.teacher_hash, phase = EXCLUDED.phase, round = EXCLUDED.round"};
inline constexpr Sql kSavePupil{
    "save_pupil",
    "INSERT INTO event_pupils(event, pupil, name, token_hash) VALUES($1, $2, $3, NULLIF($4::bytea, ''::bytea)) "
    "ON CONFLICT (event, pupil) DO UPDATE SET name = EXCLUDED.name, token_hash = EXCLUDED.token_hash"};
inline constexpr Sql kSaveEventTable{
    "save_event_table",
    "INSERT INTO event_tables(event, round, table_number, room, seats, game_id, result) "
    "VALUES($1, $2, $3, $4, $5, NULLIF($6, ''), NULLIF($7, '')) "
    "ON CONFLICT (event, round, table_number) DO UPDATE SET room = EXCLUDED.room, seats = EXCLUDED.seats, "
    "game_id = EXCLUDED.game_id, result = EXCLUDED.result"};
inline constexpr Sql kOpenEvents{"open_events",
                                 "SELECT code, name, settings, teacher_hash, phase, round, created_ms FROM events "
                                 "WHERE phase <> 'closed' ORDER BY created_ms, code COLLATE \"C\""};
inline constexpr Sql kOpenEvent{"open_event",
                                "SELECT code, name, settings, teacher_hash, phase, round, created_ms FROM events "
                                "WHERE code = $1 AND phase <> 'closed'"};
inline constexpr Sql kClosedEvent{"closed_event",
                                  "SELECT code, name, settings, teacher_hash, phase, round, created_ms FROM events "
                                  "WHERE code = $1 AND phase = 'closed'"};
inline constexpr Sql kEventPupils{"event_pupils",
                                  "SELECT pupil, name, token_hash FROM event_pupils WHERE event = $1 ORDER BY pupil"};
inline constexpr Sql kEventTables{"event_tables",
                                  "SELECT round, table_number, room, seats, COALESCE(game_id, ''), "
                                  "COALESCE(result, '') FROM event_tables WHERE event = $1 AND round <= $2 "
                                  "ORDER BY round, table_number"};

// Leases. A take succeeds where no live lease of another node holds the
// code; taking over an expired lease (even one's own) raises the epoch.
// Every room of a batch at once: codes and epochs as text[] and bigint[].
// The guard, two statements: the node's lock first (schema version 5),
// then, with what was committed before it was granted, whether the count
// of leases taken from the node is still the one it knows (version 7; 6
// checked every room's epoch). Its count is text, -1 while unknown.
inline constexpr Sql kFenceLock{"fence_lock", "SELECT pg_advisory_xact_lock_shared(1735353964, hashtext($1))"};
inline constexpr Sql kFenceNode{"fence_node",
                                "SELECT gofish_node_lost_lease($1) "
                                "WHERE (SELECT losses FROM node_fence WHERE node = $1) IS DISTINCT FROM $2::bigint"};
// When it is not: the count and the rooms of $1 (epochs $3) no longer held
// by node $2 at those epochs, comma-separated, read in one snapshot.
inline constexpr Sql kFenceRecheck{
    "fence_recheck",
    "SELECT (SELECT losses FROM node_fence WHERE node = $2), "
    "(SELECT string_agg(f.code, ',') FROM unnest($1::text[], $3::bigint[]) AS f(code, epoch) "
    "WHERE NOT EXISTS (SELECT 1 FROM room_lease l "
    "WHERE l.code = f.code AND l.node = $2 AND l.epoch = f.epoch))"};
inline constexpr Sql kAddNodeFence{"add_node_fence",
                                   "INSERT INTO node_fence(node, losses) VALUES($1, 0) ON CONFLICT (node) DO NOTHING"};
inline constexpr Sql kTakeLease{
    "take_lease",
    "INSERT INTO room_lease(code, node, epoch, expires_at) "
    "VALUES($1, $2, 1, clock_timestamp() + $3::bigint * interval '1 millisecond') "
    "ON CONFLICT (code) DO UPDATE SET node = EXCLUDED.node, expires_at = EXCLUDED.expires_at, "
    "epoch = CASE WHEN room_lease.node = EXCLUDED.node AND room_lease.expires_at > clock_timestamp() "
    "THEN room_lease.epoch ELSE room_lease.epoch + 1 END "
    "WHERE room_lease.node = EXCLUDED.node OR room_lease.expires_at <= clock_timestamp() "
    "RETURNING epoch"};
// Every lease the node still holds, expired or not (one nobody has taken
// over is still safe to keep: the epoch fences anyone who took it since),
// except those it released ('-infinity'), which are another node's to take.
inline constexpr Sql kRenewLeases{"renew_leases",
                                  "UPDATE room_lease SET expires_at = clock_timestamp() + $2::bigint * interval "
                                  "'1 millisecond' WHERE node = $1 AND expires_at > '-infinity' RETURNING code"};
inline constexpr Sql kReleaseLeases{
    "release_leases", "UPDATE room_lease SET expires_at = '-infinity' WHERE node = $1 AND code = ANY($2::text[])"};
inline constexpr Sql kReleaseAllLeases{"release_all_leases",
                                       "UPDATE room_lease SET expires_at = '-infinity' WHERE node = $1"};
// Never the asker itself: two lookups of one room on one node, the first
// of which has taken the lease by the time the second asks, would have the
// node hand over (close) the room it has just loaded. Nor a node the
// lookup has asked before ($4): it is only told again which node holds it.
inline constexpr Sql kAskHandover{"ask_handover",
                                  "SELECT node, (SELECT pg_notify($2 || node, code) WHERE node <> $4) FROM room_lease "
                                  "WHERE code = $1 AND node <> $3 AND expires_at > clock_timestamp()"};

// Reads and upkeep. Codes sort byte by byte, as in SQLite, whatever the
// database's collation.
inline constexpr Sql kOpenRooms{
    "open_rooms",
    "SELECT code, settings, created_ms, v, next_deal, daily_counted, daily_note FROM rooms WHERE set_aside IS NULL "
    "ORDER BY created_ms, code COLLATE \"C\""};
inline constexpr Sql kOpenRoom{"open_room",
                               "SELECT code, settings, created_ms, v, next_deal, daily_counted, daily_note FROM rooms "
                               "WHERE code = $1 AND set_aside IS NULL"};
inline constexpr Sql kRoomOfToken{"room_of_token",
                                  "SELECT seats.room FROM seats JOIN rooms ON rooms.code = seats.room "
                                  "WHERE seats.token_hash = $1::bytea AND rooms.set_aside IS NULL LIMIT 1"};
// The open class event whose latest round has `room` among its tables. A
// scan of event_tables: classes are few, and it is read only when a node
// is asked for a room it does not hold.
inline constexpr Sql kEventOfTable{
    "event_of_table",
    "SELECT events.code FROM event_tables JOIN events ON events.code = event_tables.event "
    "WHERE event_tables.room = $1 AND event_tables.round = events.round "
    "AND events.phase <> 'closed' LIMIT 1"};
inline constexpr Sql kWaitingRooms{
    "waiting_rooms",
    "SELECT code, settings, created_ms, v FROM rooms WHERE set_aside IS NULL AND NOT EXISTS "
    "(SELECT 1 FROM games WHERE games.room = rooms.code) "
    "ORDER BY created_ms DESC, code COLLATE \"C\" LIMIT $1"};
inline constexpr Sql kRoomSeats{"room_seats",
                                "SELECT seat, state, token_hash FROM seats WHERE room = $1 ORDER BY seat"};
inline constexpr Sql kLatestGame{"latest_game",
                                 "SELECT game_id, game, setup, started_ms, transcript, finished_ms FROM games "
                                 "WHERE room = $1 ORDER BY game DESC LIMIT 1"};
// A game's decisions: those of its id between its bounds (the primary
// key's range; a bound of a game from before schema version 8 is open).
#define GOFISH_GAME_RANGE                                                                      \
  "game_id = $1 AND id >= coalesce((SELECT first_decision FROM games WHERE game_id = $1), 0) " \
  "AND id <= coalesce((SELECT last_decision FROM games WHERE game_id = $1), 9223372036854775807)"
inline constexpr Sql kGameDecisions{"game_decisions",
                                    "SELECT seq, decision, v FROM decisions WHERE " GOFISH_GAME_RANGE " ORDER BY seq"};
// Clients have seen the versions the cut decisions carried: the room keeps
// the highest, so it never numbers two events alike.
inline constexpr Sql kTruncateDecisions{"truncate_decisions",
                                        "WITH cut AS (DELETE FROM decisions WHERE " GOFISH_GAME_RANGE
                                        " AND seq >= $2 RETURNING v) "
                                        "UPDATE rooms SET v = GREATEST(v, (SELECT max(v) FROM cut)) "
                                        "WHERE code = (SELECT room FROM games WHERE game_id = $1)"};
// The number a game's next decision must have (DecisionSequences).
inline constexpr Sql kNextDecision{"next_decision",
                                   "SELECT coalesce(max(seq) + 1, 0) FROM decisions WHERE " GOFISH_GAME_RANGE};
#undef GOFISH_GAME_RANGE
inline constexpr Sql kSetAside{"set_aside", "UPDATE rooms SET set_aside = $2, set_aside_ms = $3 WHERE code = $1"};
inline constexpr Sql kSetAsideRooms{"set_aside_rooms",
                                    "SELECT code, set_aside_ms, set_aside FROM rooms WHERE set_aside IS NOT NULL "
                                    "ORDER BY set_aside_ms, code COLLATE \"C\""};
inline constexpr Sql kRestoreSetAside{"restore_set_aside",
                                      "UPDATE rooms SET set_aside = NULL, set_aside_ms = NULL "
                                      "WHERE code = $1 AND set_aside IS NOT NULL"};
inline constexpr Sql kFinishedGame{"finished_game",
                                   "SELECT game_id, game, setup, started_ms, transcript, finished_ms FROM games "
                                   "WHERE game_id = $1 AND finished_ms IS NOT NULL"};
inline constexpr Sql kLatestFinishedGame{"latest_finished_game",
                                         "SELECT game_id FROM games WHERE room = $1 AND finished_ms IS NOT NULL "
                                         "ORDER BY game DESC LIMIT 1"};
// Finished before $1, except in a room set aside: that keeps everything.
inline constexpr Sql kPruneDecisions{"prune_decisions",
                                     "DELETE FROM decisions USING games WHERE games.finished_ms IS NOT NULL AND "
                                     "games.finished_ms < $1 AND (games.room IS NULL OR games.room NOT IN "
                                     "(SELECT code FROM rooms WHERE set_aside IS NOT NULL)) "
                                     "AND decisions.game_id = games.game_id "
                                     "AND decisions.id >= coalesce(games.first_decision, 0) "
                                     "AND decisions.id <= coalesce(games.last_decision, 9223372036854775807)"};
inline constexpr Sql kPruneGames{"prune_games",
                                 "DELETE FROM games WHERE finished_ms IS NOT NULL AND finished_ms < $1 AND "
                                 "(room IS NULL OR room NOT IN (SELECT code FROM rooms WHERE set_aside IS NOT NULL))"};
// Today's deal: one game more of day $1 with $2 sets, and the day's tally.
inline constexpr Sql kCountDailyGame{"count_daily_game",
                                     "INSERT INTO daily_tally(day, sets, games) VALUES($1, $2, 1) "
                                     "ON CONFLICT (day, sets) DO UPDATE SET games = daily_tally.games + 1"};
inline constexpr Sql kDailyTally{"daily_tally", "SELECT sets, games FROM daily_tally WHERE day = $1 ORDER BY sets"};
// Marks game $2 of room $1 counted in the day's tally, in the count's
// transaction; changes no row if it is counted already (or the room is gone).
inline constexpr Sql kMarkDailyCounted{"mark_daily_counted",
                                       "UPDATE rooms SET daily_counted = $2 WHERE code = $1 AND "
                                       "(daily_counted IS NULL OR daily_counted < $2)"};
inline constexpr Sql kTokenKey{"token_key", "SELECT value FROM meta WHERE key = 'token_key'"};
inline constexpr Sql kAddTokenKey{
    "add_token_key", "INSERT INTO meta(key, value) VALUES('token_key', $1::bytea) ON CONFLICT (key) DO NOTHING"};
inline constexpr Sql kReplaceTokenKey{"replace_token_key",
                                      "INSERT INTO meta(key, value) VALUES('token_key', $1::bytea) "
                                      "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"};
// The writer's batch begins with its transaction's id, read back before the
// rest runs: when the connection is lost after the commit was sent, the id
// says (on a new connection) whether it committed.
inline constexpr Sql kTxid{"txid", "SELECT txid_current()"};
inline constexpr Sql kTxidStatus{"txid_status", "SELECT txid_status($1)"};
inline constexpr Sql kHoldsRoomsOrGames{"holds_rooms_or_games",
                                        "SELECT EXISTS(SELECT 1 FROM rooms) OR EXISTS(SELECT 1 FROM games)"};

// Every statement above, in the order connections prepare them.
std::span<const Sql* const> all();

// The channel a node listens on for handover requests: one per node, in the
// whole database (channels are not per schema).
inline constexpr const char* kHandoverChannel = "gofish_handover_";

}  // namespace gofish::server::postgres_statements
