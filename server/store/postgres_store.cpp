#include "server/store/postgres_store.hpp"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/socket.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <span>
#include <type_traits>
#include <utility>

#include "server/store/token.hpp"

namespace gofish::server {

namespace {

// Each step takes the schema from version i to i + 1; a step is never edited
// once released, only new ones appended.
constexpr const char* kMigrations[] = {
    // 0 -> 1: SqliteStore's tables (its schema version 3), column for column.
    R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value BYTEA NOT NULL);
CREATE TABLE rooms(
  code TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  created_ms BIGINT NOT NULL,
  v BIGINT NOT NULL DEFAULT 0,
  set_aside TEXT,
  set_aside_ms BIGINT);
CREATE TABLE seats(
  room TEXT NOT NULL,
  seat INTEGER NOT NULL,
  state TEXT NOT NULL,
  token_hash BYTEA,
  PRIMARY KEY(room, seat));
CREATE TABLE games(
  game_id TEXT PRIMARY KEY,
  room TEXT,
  game BIGINT NOT NULL,
  setup TEXT NOT NULL,
  started_ms BIGINT NOT NULL,
  transcript TEXT,
  finished_ms BIGINT);
CREATE INDEX games_by_room ON games(room, game);
CREATE INDEX games_by_finish ON games(finished_ms) WHERE finished_ms IS NOT NULL;
CREATE TABLE decisions(
  game_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  decision TEXT NOT NULL,
  PRIMARY KEY(game_id, seq));
)sql",
    // 1 -> 2: room leases (one owner per room when several servers share
    // the database) and the guard that fences a room's writes by its lease.
    // The guard locks the lease row (FOR SHARE), so a node taking the room
    // over waits for a commit in flight, then fences out the ones after it.
    R"sql(
CREATE TABLE room_lease(
  code TEXT PRIMARY KEY,
  node TEXT NOT NULL,
  epoch BIGINT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL);
CREATE INDEX room_lease_by_node ON room_lease(node);
CREATE FUNCTION gofish_fence(room TEXT, holder TEXT, held_epoch BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM room_lease WHERE code = room AND node = holder AND epoch = held_epoch FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'room % is no longer leased to node % at epoch %', room, holder, held_epoch
      USING ERRCODE = 'GF001';
  END IF;
END $$;
)sql",
    // 2 -> 3: a decision may carry its room's event version, so an action
    // writes one row instead of also updating its room's row (SqliteStore's
    // schema version 4 does the same).
    R"sql(
ALTER TABLE decisions ADD COLUMN v BIGINT;
)sql",
    // 3 -> 4: one guard for every room of a batch, not a call per room. It
    // locks the leases still held (FOR SHARE, as gofish_fence does), then
    // names the first room whose lease is not, in the error's DETAIL.
    R"sql(
CREATE OR REPLACE FUNCTION gofish_fence_rooms(rooms TEXT[], holder TEXT, held_epochs BIGINT[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  lost TEXT;
BEGIN
  PERFORM 1 FROM room_lease l JOIN unnest(rooms, held_epochs) AS f(code, epoch)
    ON l.code = f.code AND l.node = holder AND l.epoch = f.epoch FOR SHARE OF l;
  SELECT f.code INTO lost FROM unnest(rooms, held_epochs) AS f(code, epoch)
    WHERE NOT EXISTS (SELECT 1 FROM room_lease l WHERE l.code = f.code AND l.node = holder AND l.epoch = f.epoch)
    LIMIT 1;
  IF lost IS NOT NULL THEN
    RAISE EXCEPTION 'room % is no longer leased to node %', lost, holder USING ERRCODE = 'GF001', DETAIL = lost;
  END IF;
END $$;
)sql",
    // 4 -> 5: the guard locks no rows. Locking every lease of a batch FOR
    // SHARE wrote each lease row's header and a WAL record per room, and
    // was half of what a batch cost PostgreSQL (pg_stat_statements under
    // bench/run's load). Instead a batch holds its node's advisory lock
    // (shared, until it commits), and a lease taken from a node (its epoch
    // raised, by any statement, hence a trigger) takes that node's lock
    // exclusively: the takeover waits for the node's batches in flight,
    // and a batch that starts after it waits for it to commit, then sees
    // the new epoch, since each statement of a function reads what was
    // committed before it started. The lock's key is (1735353964, "gofl"
    // in ASCII, and the node name's hashtext). gofish_fence, unused since
    // 4, goes.
    R"sql(
CREATE OR REPLACE FUNCTION gofish_fence_rooms(rooms TEXT[], holder TEXT, held_epochs BIGINT[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  lost TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1735353964, hashtext(holder));
  SELECT f.code INTO lost FROM unnest(rooms, held_epochs) AS f(code, epoch)
    WHERE NOT EXISTS (SELECT 1 FROM room_lease l WHERE l.code = f.code AND l.node = holder AND l.epoch = f.epoch)
    LIMIT 1;
  IF lost IS NOT NULL THEN
    RAISE EXCEPTION 'room % is no longer leased to node %', lost, holder USING ERRCODE = 'GF001', DETAIL = lost;
  END IF;
END $$;
CREATE FUNCTION gofish_lease_taken() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.epoch <> OLD.epoch THEN
    PERFORM pg_advisory_xact_lock(1735353964, hashtext(OLD.node));
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER room_lease_taken BEFORE UPDATE ON room_lease FOR EACH ROW EXECUTE FUNCTION gofish_lease_taken();
DROP FUNCTION IF EXISTS gofish_fence(TEXT, TEXT, BIGINT);
)sql",
    // 5 -> 6: the guard is two plain statements, no longer a plpgsql
    // function called on every batch (its call cost PostgreSQL about 75 us
    // a batch, as much as half its check; pg_stat_statements under
    // bench/run's load): the node's advisory lock, shared, then the check
    // of the rooms' epochs, a statement of its own so that it reads what a
    // takeover the lock waited for committed. Only when a room is lost does
    // the check call gofish_fenced_out, which raises.
    R"sql(
CREATE OR REPLACE FUNCTION gofish_fenced_out(lost TEXT, holder TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'room % is no longer leased to node %', lost, holder USING ERRCODE = 'GF001', DETAIL = lost;
END $$;
DROP FUNCTION IF EXISTS gofish_fence_rooms(TEXT[], TEXT, BIGINT[]);
)sql",
    // 6 -> 7: the guard reads one row per batch, not every room's lease
    // (the check of each room's epoch cost PostgreSQL 57 to 116 us a batch,
    // about 3% of bench/run's actions/s). node_fence counts the leases
    // taken from each node; the takeover's trigger adds to it in the same
    // transaction as the new epoch. A batch checks that its node's count is
    // still the one it knows; if not, the node reads the count and which of
    // its rooms it lost, in one statement, drops those and sends the batch
    // again. gofish_fenced_out stays for nodes still on version 6 during a
    // rolling upgrade.
    R"sql(
CREATE TABLE node_fence(node TEXT PRIMARY KEY, losses BIGINT NOT NULL);
CREATE OR REPLACE FUNCTION gofish_lease_taken() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.epoch <> OLD.epoch THEN
    PERFORM pg_advisory_xact_lock(1735353964, hashtext(OLD.node));
    INSERT INTO node_fence(node, losses) VALUES(OLD.node, 1)
      ON CONFLICT (node) DO UPDATE SET losses = node_fence.losses + 1;
  END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION gofish_node_lost_lease(holder TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'node % lost a lease since its last check', holder USING ERRCODE = 'GF002';
END $$;
)sql",
    // 7 -> 8: decisions are appended in the order they are written (id,
    // from the sequence decision_ids) with no other index, as SqliteStore's
    // version 4 does: a batch of actions from many rooms adds to the
    // index's last page instead of descending to a page per game (the
    // primary key by game and number cost each row about 2.7 us more than
    // no index at all; pgbench, 52 rows a statement). A game finds its
    // decisions between games.first_decision, a value of decision_ids drawn
    // when the game is written (before any of its decisions: the sequence
    // caches no values, so it rises across connections and nodes), and
    // games.last_decision, the highest id when it finished. Both are bounds,
    // not exact ids, and a game of a server before this version has NULL:
    // read as the whole table. Servers still on version 7 during a rolling
    // upgrade keep working (the id has a default); only their reads scan.
    R"sql(
CREATE SEQUENCE decision_ids AS BIGINT;
CREATE TABLE decisions_appended(
  id BIGINT PRIMARY KEY DEFAULT nextval('decision_ids'),
  game_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  decision TEXT NOT NULL,
  v BIGINT);
ALTER SEQUENCE decision_ids OWNED BY decisions_appended.id;
INSERT INTO decisions_appended(game_id, seq, decision, v)
  SELECT game_id, seq, decision, v FROM decisions ORDER BY game_id, seq;
DROP TABLE decisions;
ALTER TABLE decisions_appended RENAME TO decisions;
ALTER INDEX decisions_appended_pkey RENAME TO decisions_pkey;
ALTER TABLE games ADD COLUMN first_decision BIGINT, ADD COLUMN last_decision BIGINT;
UPDATE games SET first_decision = d.first, last_decision = CASE WHEN games.finished_ms IS NOT NULL THEN d.last END
  FROM (SELECT game_id, min(id) AS first, max(id) AS last FROM decisions GROUP BY game_id) AS d
  WHERE d.game_id = games.game_id;
UPDATE games SET first_decision = nextval('decision_ids') WHERE first_decision IS NULL;
UPDATE games SET last_decision = first_decision WHERE finished_ms IS NOT NULL AND last_decision IS NULL;
)sql",
};

// The SQLSTATE gofish_node_lost_lease raises.
constexpr const char* kLostLease = "GF002";
static_assert(std::size(kMigrations) == kPostgresSchemaVersion);

// The advisory lock servers take while they check and migrate the schema.
constexpr std::int64_t kSchemaLock = 0x676f66697368;  // "gofish"

// A statement prepared by name on every connection. Where a statement is
// keyed by a room or a game, that key is $1.
struct Sql {
  const char* name;
  const char* text;
};

// What records write (steps_for).
constexpr Sql kInsertRoom{"insert_room", "INSERT INTO rooms(code, settings, created_ms) VALUES($1, $2, $3)"};
constexpr Sql kUpdateSettings{"update_settings", "UPDATE rooms SET settings = $2 WHERE code = $1"};
constexpr Sql kUpsertSeat{
    "upsert_seat",
    "INSERT INTO seats(room, seat, state, token_hash) "
    "VALUES($1, $2, $3, NULLIF($4::bytea, ''::bytea)) "
    "ON CONFLICT (room, seat) DO UPDATE SET state = EXCLUDED.state, token_hash = EXCLUDED.token_hash"};
constexpr Sql kDeleteSeat{"delete_seat", "DELETE FROM seats WHERE room = $1 AND seat = $2"};
// A game takes the lower bound of its decisions' ids as it is written
// (schema version 8), and the upper bound as it finishes.
constexpr Sql kInsertGame{"insert_game",
                          "INSERT INTO games(game_id, room, game, setup, started_ms, first_decision) "
                          "VALUES($1, $2, $3, $4, $5, nextval('decision_ids'))"};
constexpr Sql kInsertDecision{"insert_decision",
                              "INSERT INTO decisions(game_id, seq, decision, v) VALUES($1, $2, $3, $4::bigint)"};
constexpr Sql kFinishGame{"finish_game",
                          "UPDATE games SET finished_ms = $2, last_decision = (SELECT max(id) FROM decisions) "
                          "WHERE game_id = $1"};
constexpr Sql kUpdateVersion{"update_version", "UPDATE rooms SET v = $2 WHERE code = $1"};
// The four above, many at once (merge_steps): each parameter an array (in
// binary form), one element a record, whatever their rooms.
constexpr Sql kInsertGames{"insert_games",
                           "INSERT INTO games(game_id, room, game, setup, started_ms, first_decision) "
                           "SELECT *, nextval('decision_ids') "
                           "FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[])"};
constexpr Sql kInsertDecisions{"insert_decisions",
                               "INSERT INTO decisions(game_id, seq, decision, v) "
                               "SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[])"};
// An update finds its rows by key (= ANY, the primary key's index) and
// each row's values by the key's place in the array: a join with unnest()
// made the planner scan the whole table.
constexpr Sql kFinishGames{"finish_games",
                           "UPDATE games SET finished_ms = ($2::bigint[])[array_position($1::text[], game_id)], "
                           "last_decision = (SELECT max(id) FROM decisions) WHERE game_id = ANY($1::text[])"};
constexpr Sql kUpdateVersions{"update_versions",
                              "UPDATE rooms SET v = ($2::bigint[])[array_position($1::text[], code)] "
                              "WHERE code = ANY($1::text[])"};
// A room closing: its unfinished games go with it; finished ones stay, detached.
constexpr Sql kCloseDecisions{"close_decisions",
                              "DELETE FROM decisions USING games WHERE games.room = $1 AND games.finished_ms IS NULL "
                              "AND decisions.game_id = games.game_id "
                              "AND decisions.id >= coalesce(games.first_decision, 0)"};
constexpr Sql kCloseGames{"close_games", "DELETE FROM games WHERE room = $1 AND finished_ms IS NULL"};
constexpr Sql kDetachGames{"detach_games", "UPDATE games SET room = NULL WHERE room = $1"};
constexpr Sql kCloseSeats{"close_seats", "DELETE FROM seats WHERE room = $1"};
constexpr Sql kCloseRoom{"close_room", "DELETE FROM rooms WHERE code = $1"};
// A closed room's lease goes with it (in the same transaction, fenced): its
// code may be drawn again.
constexpr Sql kCloseLease{"close_lease", "DELETE FROM room_lease WHERE code = $1"};

// Leases. A take succeeds where no live lease of another node holds the
// code; taking over an expired lease (even one's own) raises the epoch.
// Every room of a batch at once: codes and epochs as text[] and bigint[].
// The guard, two statements: the node's lock first (schema version 5),
// then, with what was committed before it was granted, whether the count
// of leases taken from the node is still the one it knows (version 7; 6
// checked every room's epoch). Its count is text, -1 while unknown.
constexpr Sql kFenceLock{"fence_lock", "SELECT pg_advisory_xact_lock_shared(1735353964, hashtext($1))"};
constexpr Sql kFenceNode{"fence_node",
                         "SELECT gofish_node_lost_lease($1) "
                         "WHERE (SELECT losses FROM node_fence WHERE node = $1) IS DISTINCT FROM $2::bigint"};
// When it is not: the count and the rooms of $1 (epochs $3) no longer held
// by node $2 at those epochs, comma-separated, read in one snapshot.
constexpr Sql kFenceRecheck{"fence_recheck",
                            "SELECT (SELECT losses FROM node_fence WHERE node = $2), "
                            "(SELECT string_agg(f.code, ',') FROM unnest($1::text[], $3::bigint[]) AS f(code, epoch) "
                            "WHERE NOT EXISTS (SELECT 1 FROM room_lease l "
                            "WHERE l.code = f.code AND l.node = $2 AND l.epoch = f.epoch))"};
constexpr Sql kAddNodeFence{"add_node_fence",
                            "INSERT INTO node_fence(node, losses) VALUES($1, 0) ON CONFLICT (node) DO NOTHING"};
constexpr Sql kTakeLease{
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
constexpr Sql kRenewLeases{"renew_leases",
                           "UPDATE room_lease SET expires_at = clock_timestamp() + $2::bigint * interval "
                           "'1 millisecond' WHERE node = $1 AND expires_at > '-infinity' RETURNING code"};
constexpr Sql kReleaseLeases{"release_leases",
                             "UPDATE room_lease SET expires_at = '-infinity' WHERE node = $1 AND code = ANY($2::text[])"};
constexpr Sql kReleaseAllLeases{"release_all_leases", "UPDATE room_lease SET expires_at = '-infinity' WHERE node = $1"};
// Never the asker itself: two lookups of one room on one node, the first
// of which has taken the lease by the time the second asks, would have the
// node hand over (close) the room it has just loaded. Nor a node the
// lookup has asked before ($4): it is only told again which node holds it.
constexpr Sql kAskHandover{"ask_handover",
                           "SELECT node, (SELECT pg_notify($2 || node, code) WHERE node <> $4) FROM room_lease "
                           "WHERE code = $1 AND node <> $3 AND expires_at > clock_timestamp()"};

// Reads and upkeep. Codes sort byte by byte, as in SQLite, whatever the
// database's collation.
constexpr Sql kOpenRooms{"open_rooms",
                         "SELECT code, settings, created_ms, v FROM rooms WHERE set_aside IS NULL "
                         "ORDER BY created_ms, code COLLATE \"C\""};
constexpr Sql kOpenRoom{"open_room",
                        "SELECT code, settings, created_ms, v FROM rooms WHERE code = $1 AND set_aside IS NULL"};
constexpr Sql kRoomOfToken{"room_of_token",
                           "SELECT seats.room FROM seats JOIN rooms ON rooms.code = seats.room "
                           "WHERE seats.token_hash = $1::bytea AND rooms.set_aside IS NULL LIMIT 1"};
constexpr Sql kWaitingRooms{"waiting_rooms",
                            "SELECT code, settings, created_ms, v FROM rooms WHERE set_aside IS NULL AND NOT EXISTS "
                            "(SELECT 1 FROM games WHERE games.room = rooms.code) "
                            "ORDER BY created_ms DESC, code COLLATE \"C\" LIMIT $1"};
constexpr Sql kRoomSeats{"room_seats", "SELECT seat, state, token_hash FROM seats WHERE room = $1 ORDER BY seat"};
constexpr Sql kLatestGame{"latest_game",
                          "SELECT game_id, game, setup, started_ms, transcript, finished_ms FROM games "
                          "WHERE room = $1 ORDER BY game DESC LIMIT 1"};
// A game's decisions: those of its id between its bounds (the primary
// key's range; a bound of a game from before schema version 8 is open).
#define GOFISH_GAME_RANGE                                                                     \
  "game_id = $1 AND id >= coalesce((SELECT first_decision FROM games WHERE game_id = $1), 0) " \
  "AND id <= coalesce((SELECT last_decision FROM games WHERE game_id = $1), 9223372036854775807)"
constexpr Sql kGameDecisions{"game_decisions",
                             "SELECT seq, decision, v FROM decisions WHERE " GOFISH_GAME_RANGE " ORDER BY seq"};
// Clients have seen the versions the cut decisions carried: the room keeps
// the highest, so it never numbers two events alike.
constexpr Sql kTruncateDecisions{"truncate_decisions",
                                 "WITH cut AS (DELETE FROM decisions WHERE " GOFISH_GAME_RANGE " AND seq >= $2 RETURNING v) "
                                 "UPDATE rooms SET v = GREATEST(v, (SELECT max(v) FROM cut)) "
                                 "WHERE code = (SELECT room FROM games WHERE game_id = $1)"};
// The number a game's next decision must have (DecisionSequences).
constexpr Sql kNextDecision{"next_decision",
                            "SELECT coalesce(max(seq) + 1, 0) FROM decisions WHERE " GOFISH_GAME_RANGE};
#undef GOFISH_GAME_RANGE
constexpr Sql kSetAside{"set_aside", "UPDATE rooms SET set_aside = $2, set_aside_ms = $3 WHERE code = $1"};
constexpr Sql kSetAsideRooms{"set_aside_rooms",
                             "SELECT code, set_aside_ms, set_aside FROM rooms WHERE set_aside IS NOT NULL "
                             "ORDER BY set_aside_ms, code COLLATE \"C\""};
constexpr Sql kRestoreSetAside{"restore_set_aside",
                               "UPDATE rooms SET set_aside = NULL, set_aside_ms = NULL "
                               "WHERE code = $1 AND set_aside IS NOT NULL"};
constexpr Sql kFinishedGame{"finished_game",
                            "SELECT game_id, game, setup, started_ms, transcript, finished_ms FROM games "
                            "WHERE game_id = $1 AND finished_ms IS NOT NULL"};
constexpr Sql kLatestFinishedGame{"latest_finished_game",
                                  "SELECT game_id FROM games WHERE room = $1 AND finished_ms IS NOT NULL "
                                  "ORDER BY game DESC LIMIT 1"};
// Finished before $1, except in a room set aside: that keeps everything.
constexpr Sql kPruneDecisions{"prune_decisions",
                              "DELETE FROM decisions USING games WHERE games.finished_ms IS NOT NULL AND "
                              "games.finished_ms < $1 AND (games.room IS NULL OR games.room NOT IN "
                              "(SELECT code FROM rooms WHERE set_aside IS NOT NULL)) "
                              "AND decisions.game_id = games.game_id "
                              "AND decisions.id >= coalesce(games.first_decision, 0) "
                              "AND decisions.id <= coalesce(games.last_decision, 9223372036854775807)"};
constexpr Sql kPruneGames{"prune_games",
                          "DELETE FROM games WHERE finished_ms IS NOT NULL AND finished_ms < $1 AND "
                          "(room IS NULL OR room NOT IN (SELECT code FROM rooms WHERE set_aside IS NOT NULL))"};
constexpr Sql kTokenKey{"token_key", "SELECT value FROM meta WHERE key = 'token_key'"};
constexpr Sql kAddTokenKey{"add_token_key",
                           "INSERT INTO meta(key, value) VALUES('token_key', $1::bytea) ON CONFLICT (key) DO NOTHING"};
constexpr Sql kReplaceTokenKey{"replace_token_key",
                               "INSERT INTO meta(key, value) VALUES('token_key', $1::bytea) "
                               "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"};
// The writer's batch begins with its transaction's id, read back before the
// rest runs: when the connection is lost after the commit was sent, the id
// says (on a new connection) whether it committed.
constexpr Sql kTxid{"txid", "SELECT txid_current()"};
constexpr Sql kTxidStatus{"txid_status", "SELECT txid_status($1)"};
constexpr Sql kHoldsRoomsOrGames{"holds_rooms_or_games",
                                 "SELECT EXISTS(SELECT 1 FROM rooms) OR EXISTS(SELECT 1 FROM games)"};

constexpr const Sql* kStatements[] = {
    &kInsertRoom, &kUpdateSettings, &kUpsertSeat,      &kDeleteSeat,        &kInsertGame,     &kInsertDecision,
    &kFinishGame, &kUpdateVersion,  &kCloseDecisions,  &kCloseGames,        &kDetachGames,    &kCloseSeats,
    &kCloseRoom,  &kOpenRooms,      &kRoomSeats,       &kLatestGame,        &kGameDecisions,  &kTruncateDecisions,
    &kSetAside,   &kSetAsideRooms,  &kRestoreSetAside, &kFinishedGame,      &kPruneDecisions, &kPruneGames,
    &kTokenKey,   &kAddTokenKey,    &kReplaceTokenKey, &kHoldsRoomsOrGames, &kCloseLease,     &kFenceNode,
    &kFenceLock,  &kFenceRecheck, &kAddNodeFence,
    &kTakeLease,  &kRenewLeases,    &kReleaseLeases,   &kReleaseAllLeases,  &kAskHandover,    &kInsertDecisions, &kNextDecision,
    &kWaitingRooms, &kOpenRoom,     &kRoomOfToken,  &kInsertGames,  &kFinishGames,   &kUpdateVersions,
    &kTxid,         &kTxidStatus,   &kLatestFinishedGame,
};

// The channel a node listens on for handover requests: one per node, in the
// whole database (channels are not per schema).
constexpr const char* kHandoverChannel = "gofish_handover_";

// libpq's messages end in a newline and may span lines; a log line is one.
std::string one_line(const char* message) {
  std::string out;
  bool space = false;
  for (const char* c = message ? message : ""; *c != '\0'; ++c) {
    if (*c == '\n' || *c == '\r' || *c == '\t' || *c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(*c);
  }
  return out;
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

// The sentence for a connection that failed: libpq's own words (they name
// the host and port, never the password) and what to check.
std::string connect_failure(const std::string& message) {
  if (contains(message, "authentication") || contains(message, "password") || contains(message, "pg_hba.conf") ||
      contains(message, "role \"")) {
    return "PostgreSQL refused the login (" + message +
           "); refusing to start. Check the user and password in --postgres-url (GOFISH_POSTGRES_URL) or the "
           "password file (~/.pgpass, PGPASSFILE).";
  }
  if (contains(message, "database \"") && contains(message, "does not exist")) {
    return "the PostgreSQL database does not exist (" + message +
           "); refusing to start. Create it first (createdb, or CREATE DATABASE), owned by the user "
           "gofish-server connects as.";
  }
  return "cannot connect to PostgreSQL (" + message +
         "); refusing to start rather than run without its rooms. Check --postgres-url (GOFISH_POSTGRES_URL) and "
         "that the database server is running and reachable.";
}

// A decision we can use: a JSON object.
bool whole_decision(const std::string& text) {
  if (text.empty() || text.front() != '{') return false;
  return nlohmann::json::accept(text);
}

template <class>
inline constexpr bool kAlwaysFalse = false;

}  // namespace

std::optional<std::string> PostgresStore::statement_text(std::string_view name) {
  for (const Sql* sql : kStatements) {
    if (name == sql->name) return std::string(sql->text);
  }
  return std::nullopt;
}

struct PostgresStore::Step {
  const char* name = nullptr;       // the prepared statement
  std::vector<std::string> values;  // each parameter's bytes
  std::vector<int> formats;         // 1: binary (text and bytea as bytes), 0: text (integers in decimal)
  std::vector<char> nulls;          // 1: the parameter is NULL
  // libpq's parameter arrays, pointing into `values`.
  std::vector<const char*> pointers() const {
    std::vector<const char*> out;
    for (std::size_t i = 0; i < values.size(); ++i) out.push_back(nulls[i] ? nullptr : values[i].c_str());
    return out;
  }
  std::vector<int> lengths() const {
    std::vector<int> out;
    for (const auto& value : values) out.push_back(static_cast<int>(value.size()));
    return out;
  }
};

namespace {

void add(PostgresStore::Step& step, const std::string& bytes) {
  step.values.push_back(bytes);
  step.formats.push_back(1);
  step.nulls.push_back(0);
}
void add(PostgresStore::Step& step, std::int64_t value) {
  step.values.push_back(std::to_string(value));
  step.formats.push_back(0);
  step.nulls.push_back(0);
}
void add(PostgresStore::Step& step, const std::optional<std::int64_t>& value) {
  add(step, value.value_or(0));
  step.nulls.back() = value ? 0 : 1;
}
void add(PostgresStore::Step& step, int value) { add(step, static_cast<std::int64_t>(value)); }

template <class... Args>
PostgresStore::Step step(const Sql& sql, const Args&... args) {
  PostgresStore::Step out;
  out.name = sql.name;
  (add(out, args), ...);
  return out;
}

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
        } else if constexpr (std::is_same_v<R, record::RoomClosed>) {
          return {step(kCloseDecisions, r.room), step(kCloseGames, r.room), step(kDetachGames, r.room),
                  step(kCloseSeats, r.room), step(kCloseRoom, r.room), step(kCloseLease, r.room)};
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

// A parameter array in PostgreSQL's binary form (what array_recv reads):
// one dimension, then each element as its length and bytes, big-endian.
// The server reads it with no parsing or unescaping, where a text array
// literal is read a character at a time (array_in), and decisions are
// JSON, full of quotes to escape.
class BinaryArray {
 public:
  static constexpr std::uint32_t kText = 25;  // the element types' OIDs (pg_type)
  static constexpr std::uint32_t kBigint = 20;

  BinaryArray(std::uint32_t element, std::size_t count, bool nulls) {
    put(1);  // dimensions
    put(nulls ? 1 : 0);
    put(element);
    put(static_cast<std::uint32_t>(count));
    put(1);  // the first index
  }
  void add_bytes(const std::string& bytes) {
    put(static_cast<std::uint32_t>(bytes.size()));
    out_ += bytes;
  }
  void add_bigint(std::int64_t value) {
    put(8);
    put(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value) >> 32));
    put(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value)));
  }
  void add_null() { put(0xffffffffu); }  // length -1
  std::string take() { return std::move(out_); }

 private:
  void put(std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  std::string out_;
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
    BinaryArray array(text ? BinaryArray::kText : BinaryArray::kBigint, steps.size(), nulls);
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

// Runs the statements of kMerged as one statement each: a batch of actions
// from many rooms costs PostgreSQL a statement per kind, not one per
// record. Every other statement keeps its place, and those of kMerged
// between two others run together there, games dealt first, then
// decisions, games finished and versions: within a room that is the order
// they were written in, and rooms do not depend on each other. A room
// written twice in a batch keeps its last version.
void merge_steps(std::vector<PostgresStore::Step>& steps) {
  std::vector<PostgresStore::Step> out;
  std::vector<std::vector<PostgresStore::Step>> runs(std::size(kMerged));
  const auto flush = [&] {
    for (std::size_t kind = 0; kind < runs.size(); ++kind) {
      auto& run = runs[kind];
      if (kMerged[kind].one == &kUpdateVersion) {
        std::vector<PostgresStore::Step> last;
        for (auto it = run.rbegin(); it != run.rend(); ++it) {
          const bool seen = std::any_of(last.begin(), last.end(),
                                        [&](const PostgresStore::Step& kept) { return kept.values[0] == it->values[0]; });
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

}  // namespace

// Owns a PGresult. Values of results asked for in binary are raw bytes
// (text, bytea) or big-endian integers.
class PostgresStore::Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}
  ~Result() { PQclear(result_); }
  Result(Result&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  int rows() const { return PQntuples(result_); }
  bool null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
  std::string bytes(int row, int column) const {
    return {PQgetvalue(result_, row, column), static_cast<std::size_t>(PQgetlength(result_, row, column))};
  }
  // A binary boolean, smallint, integer or bigint.
  std::int64_t integer(int row, int column) const {
    const auto* data = reinterpret_cast<const unsigned char*>(PQgetvalue(result_, row, column));
    const int length = PQgetlength(result_, row, column);
    std::uint64_t value = 0;
    for (int i = 0; i < length; ++i) value = (value << 8) | data[i];
    switch (length) {
      case 2: return static_cast<std::int16_t>(value);
      case 4: return static_cast<std::int32_t>(value);
      default: return static_cast<std::int64_t>(value);
    }
  }
  // Rows an INSERT, UPDATE or DELETE touched.
  std::size_t changed() const {
    const char* text = PQcmdTuples(result_);
    return text && *text ? static_cast<std::size_t>(std::stoull(text)) : 0;
  }

 private:
  PGresult* result_;
};

namespace {

// Throws `text` as what its SQLSTATE (or a lost connection) makes it: the
// records' fault (class 22, data exception; 23, integrity constraint
// violation), a database that cannot be reached (08, connection exception;
// 57, operator intervention, a shutdown among them; a connection lost), or
// any other failure of the store (a full disk, 53; an I/O error, 58; ...),
// which a write may meet no more once the store works again.
[[noreturn]] void throw_for(PGconn* conn, const std::string& state, const std::string& text) {
  if (state.starts_with("22") || state.starts_with("23")) throw RecordsRefused(text);
  if (conn == nullptr || PQstatus(conn) == CONNECTION_BAD || state.starts_with("08") || state.starts_with("57")) {
    throw StoreUnreachable(text);
  }
  throw StoreError(text);
}

// Throws unless `result` says the statement ran.
PostgresStore::Result checked(PGconn* conn, PGresult* raw, const std::string& what) {
  PostgresStore::Result result(raw);
  const auto status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* state = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
    throw_for(conn, state ? state : "",
              what + ": " + one_line(raw ? PQresultErrorMessage(raw) : PQerrorMessage(conn)) +
                  (state ? std::string(" (SQLSTATE ") + state + ")" : std::string()));
  }
  return result;
}

// The first row's first column, if there is a row.
std::optional<std::string> first_bytes(const PostgresStore::Result& rows) {
  if (rows.rows() == 0) return std::nullopt;
  return rows.bytes(0, 0);
}

// The rooms of a kOpenRooms or kWaitingRooms result (code, settings,
// created_ms, v), with no seats or game yet.
std::vector<StoredRoom> rooms_of(const PostgresStore::Result& rows) {
  std::vector<StoredRoom> rooms;
  for (int i = 0; i < rows.rows(); ++i) {
    StoredRoom room;
    room.room = rows.bytes(i, 0);
    room.settings = rows.bytes(i, 1);
    room.created_ms = rows.integer(i, 2);
    room.v = rows.integer(i, 3);
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

PostgresStore::PostgresStore(const std::string& url, MissingTokenKey missing_key)
    : url_(url), missing_key_(missing_key), fence_(std::make_shared<Fence>()),
      sequences_(std::make_shared<DecisionSequences>()) {
  open(true);
}

// The parent has checked and migrated the schema already.
PostgresStore::PostgresStore(const PostgresStore& parent, Role role)
    : url_(parent.url_),
      missing_key_(parent.missing_key_),
      fence_(parent.fence_),
      sequences_(parent.sequences_),
      listens_(role == Role::kListener) {
  open(false);
  try {
    listen();
  } catch (...) {
    PQfinish(conn_);
    conn_ = nullptr;
    throw;
  }
}

void PostgresStore::open(bool migrate) {
  try {
    connect();
    if (migrate) check_and_migrate();
    prepare_statements();
  } catch (...) {
    PQfinish(conn_);
    conn_ = nullptr;
    throw;
  }
}

std::unique_ptr<PostgresStore> PostgresStore::open_writer() const {
  return std::unique_ptr<PostgresStore>(new PostgresStore(*this, Role::kWriter));
}

PostgresStore::~PostgresStore() { PQfinish(conn_); }

void PostgresStore::connect() {
  // Earlier entries are defaults the URL may override; later ones are not.
  // A database that does not answer is found out in seconds, not left to
  // the kernel's TCP timeouts (a quarter of an hour): 3 s to connect, then
  // (over TCP) keepalives after 5 s idle and 5 s for sent data to be
  // acknowledged.
  const char* const keys[] = {"fallback_application_name", "connect_timeout", "keepalives_idle", "keepalives_interval",
                              "keepalives_count", "tcp_user_timeout", "dbname", "client_encoding", nullptr};
  const char* const values[] = {"gofish-server", "3", "5", "2", "2", "5000", url_.c_str(), "UTF8", nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (conn_ == nullptr) throw StoreError("cannot connect to PostgreSQL: out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string message = one_line(PQerrorMessage(conn_));
    const std::string sentence = connect_failure(message);
    // A login refused or a database missing is final; a server down or
    // starting may be waited for.
    if (sentence.starts_with("cannot connect")) throw StoreUnreachable(sentence);
    throw StoreError(sentence);
  }
  // The server's notices and warnings (and the last words of a session it
  // ends) go to the log rather than stderr.
  PQsetNoticeProcessor(
      conn_, [](void*, const char* message) { spdlog::warn("storage: PostgreSQL says: {}", one_line(message)); },
      nullptr);
}

std::string PostgresStore::where() const {
  std::lock_guard lock(mutex_);
  return describe();
}

std::string PostgresStore::describe() const {
  return std::string("database ") + PQdb(conn_) + " on " + PQhost(conn_) + ":" + PQport(conn_) + " as " + PQuser(conn_);
}

PostgresStore::Result PostgresStore::exec(const char* sql) { return checked(conn_, PQexec(conn_, sql), sql); }

PostgresStore::Result PostgresStore::run(const Step& step) {
  const std::vector<const char*> values = step.pointers();
  const std::vector<int> lengths = step.lengths();
  if (PQsendQueryPrepared(conn_, step.name, static_cast<int>(values.size()), values.data(), lengths.data(),
                          step.formats.data(), 1) != 1) {
    return checked(conn_, nullptr, step.name);
  }
  // As PQexecPrepared, but a database that stops answering is given up on.
  const auto deadline = std::chrono::steady_clock::now() + kStatementTimeout;
  PGresult* last = nullptr;
  for (;;) {
    await_input(deadline);
    PGresult* next = PQgetResult(conn_);
    if (next == nullptr) break;
    PQclear(last);
    last = next;
  }
  return checked(conn_, last, step.name);
}

void PostgresStore::await_input(std::chrono::steady_clock::time_point deadline, bool drop_at_deadline) {
  while (!connection_lost() && PQisBusy(conn_) == 1) {
    const int socket = PQsocket(conn_);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (socket < 0) return;
    if (left.count() <= 0) {
      if (!drop_at_deadline) return;
      // Taken for lost, as if the database had dropped it: what follows
      // reads an error, and the connection is made again before its next use.
      spdlog::warn("storage: PostgreSQL did not answer in time; dropping the connection");
      ::shutdown(socket, SHUT_RDWR);
      PQconsumeInput(conn_);
      return;
    }
    pollfd wait{socket, POLLIN, 0};
    ::poll(&wait, 1, static_cast<int>(left.count()));
    if (PQconsumeInput(conn_) != 1) return;
  }
}

void PostgresStore::rollback() {
  if (!connection_lost()) PQclear(PQexec(conn_, "ROLLBACK"));
}

bool PostgresStore::connection_lost() const { return PQstatus(conn_) == CONNECTION_BAD; }

void PostgresStore::reconnect_if_lost() {
  // Takes in what the server sent while the connection was idle: a server
  // shutting down, or ending this session, says so (a notice) and closes
  // the socket, which marks the connection lost.
  pollfd idle{PQsocket(conn_), POLLIN, 0};
  while (!connection_lost() && idle.fd >= 0 && ::poll(&idle, 1, 0) > 0 && PQconsumeInput(conn_) == 1) {
    PQisBusy(conn_);  // parses it
  }
  if (!connection_lost()) return;
  PQreset(conn_);
  if (connection_lost()) {
    throw StoreUnreachable("the connection to PostgreSQL was lost and cannot be made again: " +
                           one_line(PQerrorMessage(conn_)));
  }
  prepare_statements();
  listen();
  spdlog::warn("storage: the connection to PostgreSQL was lost; connected again");
}

// Runs `work` once more on a new connection if the database dropped the
// connection under it: PostgreSQL rolls back what a lost connection had
// begun, so `work` must not have sent a COMMIT (commit() handles that case).
template <class Work>
auto PostgresStore::with_retry(Work&& work) {
  reconnect_if_lost();
  try {
    return work();
  } catch (const StoreError&) {
    if (!connection_lost()) throw;
  }
  reconnect_if_lost();
  return work();
}

void PostgresStore::check_and_migrate() {
  const auto one_value = [this](const char* sql) {
    Result result = checked(conn_, PQexecParams(conn_, sql, 0, nullptr, nullptr, nullptr, nullptr, 1), sql);
    return result.rows() > 0 && !result.null(0, 0) ? result.bytes(0, 0) : std::string();
  };
  const std::string encoding = one_value("SELECT current_setting('server_encoding')");
  if (encoding != "UTF8") {
    throw StoreError("the PostgreSQL " + describe() + " has encoding " + encoding +
                     ", but gofish-server stores UTF-8 text; refusing to start. Create the database with "
                     "ENCODING 'UTF8' (CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0).");
  }
  exec("BEGIN");
  try {
    exec(("SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")").c_str());
    int version = 0;
    if (one_value("SELECT to_regclass('meta') IS NOT NULL") == std::string(1, '\1')) {
      const std::string stored = one_value("SELECT value FROM meta WHERE key = 'schema_version'");
      if (!stored.empty()) {
        try {
          version = std::stoi(stored);
        } catch (const std::exception&) {
          throw StoreError("the PostgreSQL " + describe() + " has a schema version that is not a number (meta." +
                           "schema_version); refusing to start.");
        }
      }
    }
    if (version > kPostgresSchemaVersion) {
      throw StoreError("the PostgreSQL " + describe() + " has schema version " + std::to_string(version) +
                       ", newer than this server's " + std::to_string(kPostgresSchemaVersion) +
                       "; refusing to start. Run a newer gofish-server.");
    }
    for (int step = version; step < kPostgresSchemaVersion; ++step) {
      try {
        exec(kMigrations[step]);
      } catch (const StoreError& error) {
        throw StoreError("making gofish-server's tables (schema version " + std::to_string(step + 1) + ") in the " +
                         describe() + " failed: " + error.what() +
                         "; refusing to start. Give gofish-server a database of its own.");
      }
    }
    if (version < kPostgresSchemaVersion) {
      exec(("INSERT INTO meta(key, value) VALUES('schema_version', convert_to('" +
            std::to_string(kPostgresSchemaVersion) +
            "', 'UTF8')) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")
               .c_str());
    }
    exec("COMMIT");
    if (version < kPostgresSchemaVersion) {
      spdlog::info("storage: PostgreSQL {} migrated to schema version {}", describe(), kPostgresSchemaVersion);
    }
  } catch (...) {
    rollback();
    throw;
  }
}

void PostgresStore::prepare_statements() {
  for (const Sql* sql : kStatements) {
    checked(conn_, PQprepare(conn_, sql->name, sql->text, 0, nullptr), std::string("preparing ") + sql->name);
  }
}

void PostgresStore::commit(const std::vector<Record>& records) {
  if (records.empty()) return;
  std::lock_guard lock(mutex_);
  DecisionSequences::Batch numbers;
  std::vector<Step> steps;
  for (const auto& record : records) add_steps(record, numbers, steps);
  merge_steps(steps);
  commit_steps(steps, false);
  sequences_->land(numbers);
}

void PostgresStore::add_steps(const Record& record, DecisionSequences::Batch& numbers, std::vector<Step>& steps) {
  // No index keeps a game's decisions unique (schema version 8): the
  // numbers are checked here, so a decision written twice or out of order
  // fails its batch.
  if (const auto* started = std::get_if<record::GameStarted>(&record)) {
    numbers.started(started->game_id);
  } else if (const auto* decision = std::get_if<record::DecisionAccepted>(&record)) {
    sequences_->accept(numbers, decision->game_id, decision->seq, [this](const std::string& game_id) {
      reconnect_if_lost();
      return run(step(kNextDecision, game_id)).integer(0, 0);
    });
  } else if (const auto* finished = std::get_if<record::GameFinished>(&record)) {
    numbers.ended(finished->game_id);
  }
  for (auto& one : steps_for(record)) steps.push_back(std::move(one));
}

void PostgresStore::commit_steps(const std::vector<Step>& steps, bool track_xid) {
  reconnect_if_lost();
  if (!pipeline(steps, track_xid) && connection_lost()) {
    // Lost before the Sync went out: the database rolled back what it had
    // of the batch, so it is sent once more on a new connection.
    reconnect_if_lost();
    if (!pipeline(steps, track_xid)) {
      throw StoreUnreachable("writing: the connection to PostgreSQL was lost twice: " +
                             one_line(PQerrorMessage(conn_)));
    }
  }
}

std::vector<std::string> PostgresStore::commit_rooms(const std::vector<RoomRecords>& batch) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> fenced;
  // A node that loses leases one after another while it writes may find
  // its count moved again after each check; past a few rounds the batch
  // fails, and the writer commits its rooms one by one.
  for (int checks = 0;; ++checks) {
    // The rooms this batch writes (those whose lease the node holds) and
    // the count of leases lost that goes with them, read together.
    std::string node;
    std::int64_t losses = -1;
    std::vector<const RoomRecords*> writing;
    {
      std::lock_guard fence(fence_->mutex);
      node = fence_->node;
      losses = fence_->losses;
      for (const RoomRecords& room : batch) {
        if (room.records.empty()) continue;
        if (node.empty() || fence_->epochs.contains(room.room)) {
          writing.push_back(&room);
        } else if (std::find(fenced.begin(), fenced.end(), room.room) == fenced.end()) {
          fenced.push_back(room.room);
        }
      }
    }
    // The guard first, then the records in order: one room's records never
    // depend on another's, and the decisions of rooms side by side merge
    // into one statement.
    std::vector<Step> steps;
    if (!node.empty() && !writing.empty()) {
      steps.push_back(step(kFenceLock, node));
      steps.push_back(step(kFenceNode, node, losses));
    }
    DecisionSequences::Batch numbers;
    for (const RoomRecords* room : writing) {
      for (const Record& record : room->records) add_steps(record, numbers, steps);
    }
    merge_steps(steps);
    if (steps.empty()) return fenced;
    // A closed room's lease is gone with it once this commits: the code
    // may be leased again, by any node, from epoch 1.
    std::vector<std::string> closed;
    for (const RoomRecords* room : writing) {
      if (std::holds_alternative<record::RoomClosed>(room->records.back())) closed.push_back(room->room);
    }
    try {
      commit_steps(steps, true);
    } catch (const CommitUncertain&) {
      // Settled by resolve_uncertain() before the writer writes anything else.
      uncertain_ = Uncertain{xid_, std::move(numbers), std::move(fenced), std::move(closed)};
      throw;
    } catch (const StoreError&) {
      if (failed_state_ != kLostLease || !failed_step_ || *failed_step_ != 1 || checks >= 4) throw;
      recheck_fence(node);
      continue;
    }
    landed(numbers, closed);
    return fenced;
  }
}

void PostgresStore::on_slow_commit(std::chrono::milliseconds after, std::function<void()> notice) {
  std::lock_guard lock(mutex_);
  slow_after_ = after;
  slow_notice_ = std::move(notice);
}

void PostgresStore::landed(DecisionSequences::Batch& numbers, const std::vector<std::string>& closed) {
  sequences_->land(numbers);
  std::lock_guard fence(fence_->mutex);
  for (const std::string& room : closed) fence_->epochs.erase(room);
}

std::optional<std::vector<std::string>> PostgresStore::resolve_uncertain() {
  std::lock_guard lock(mutex_);
  if (!uncertain_) return std::nullopt;
  reconnect_if_lost();  // throws while the database cannot be reached
  if (!uncertain_->xid) {
    // Lost before even the transaction's id came back: nothing after it
    // ran. Its games' numbers are read again from the database when next
    // written, so a batch that committed after all is refused, not doubled.
    spdlog::warn("storage: a batch's transaction id was lost with its connection; it is sent again");
    for (const std::string& game : uncertain_->numbers.games()) sequences_->forget(game);
    uncertain_.reset();
    return std::nullopt;
  }
  const Result status = run(step(kTxidStatus, *uncertain_->xid));
  const std::string state = status.null(0, 0) ? "" : status.bytes(0, 0);
  if (state == "in progress") {
    // The old session is still being ended; asked again at the next try.
    throw StoreError("the transaction of a batch whose connection was lost is still in progress");
  }
  Uncertain settled = std::move(*uncertain_);
  uncertain_.reset();
  // "aborted", or NULL: an id too old for the commit log to remember (it
  // would take hundreds of millions of transactions, and a vacuum, between
  // the loss and this question). Both are sent again; had a forgotten
  // one committed after all, its records would be refused as out of
  // sequence, and the room would stay paused rather than be written twice.
  if (state != "committed") return std::nullopt;
  landed(settled.numbers, settled.closed);
  return std::move(settled.fenced);
}

void PostgresStore::recheck_fence(const std::string& node) {
  std::unordered_map<std::string, std::int64_t> checked;
  {
    std::lock_guard fence(fence_->mutex);
    checked = fence_->epochs;
  }
  std::vector<std::string> codes;
  std::string epochs = "{";
  for (const auto& [code, epoch] : checked) {
    epochs += (codes.empty() ? "" : ",") + std::to_string(epoch);
    codes.push_back(code);
  }
  Step recheck = step(kFenceRecheck);
  recheck.values = {text_array(codes), node, epochs + "}"};
  recheck.formats = {0, 1, 0};
  recheck.nulls = {0, 0, 0};
  // Only reads: on a connection lost meanwhile it is asked again.
  const Result result = with_retry([&] { return run(recheck); });
  std::lock_guard fence(fence_->mutex);
  if (node != fence_->node) return;
  if (!result.null(0, 1)) {
    // Room codes are letters and digits: the list needs no unquoting.
    const std::string lost = result.bytes(0, 1);
    for (std::size_t start = 0; start < lost.size();) {
      const std::size_t end = std::min(lost.find(',', start), lost.size());
      const std::string code = lost.substr(start, end - start);
      start = end + 1;
      // Lost at the epoch checked; a lease taken again since is held at its new one.
      const auto was = checked.find(code);
      const auto held = fence_->epochs.find(code);
      if (was != checked.end() && held != fence_->epochs.end() && held->second == was->second) {
        fence_->epochs.erase(held);
      }
    }
  }
  fence_->losses = result.null(0, 0) ? -1 : result.integer(0, 0);
}

void PostgresStore::fence_as(const std::string& node) {
  {
    std::lock_guard lock(mutex_);
    // The node's count of leases lost, 0 if new; read by the first batch.
    with_retry([&] { run(step(kAddNodeFence, node)); });
    std::lock_guard fence(fence_->mutex);
    fence_->node = node;
    fence_->losses = -1;
  }
  // Handover requests come on a connection of their own: were they heard
  // on this one, any query run here could take one in, and a wait on the
  // socket would miss it.
  auto listener = std::shared_ptr<PostgresStore>(new PostgresStore(*this, Role::kListener));
  std::lock_guard lock(mutex_);
  listener_ = std::move(listener);
}

void PostgresStore::listen() {
  std::string node;
  {
    std::lock_guard fence(fence_->mutex);
    node = fence_->node;
  }
  if (!listens_ || node.empty()) return;
  const std::string channel = kHandoverChannel + node;
  char* quoted = PQescapeIdentifier(conn_, channel.c_str(), channel.size());
  if (quoted == nullptr) throw StoreError("listening for handovers: " + one_line(PQerrorMessage(conn_)));
  const std::string sql = std::string("LISTEN ") + quoted;
  PQfreemem(quoted);
  exec(sql.c_str());
}

std::optional<std::int64_t> PostgresStore::take_lease(const std::string& code, const std::string& node,
                                                      std::chrono::milliseconds ttl) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<std::int64_t> {
    const Result rows = run(step(kTakeLease, code, node, static_cast<std::int64_t>(ttl.count())));
    if (rows.rows() == 0) return std::nullopt;
    const std::int64_t epoch = rows.integer(0, 0);
    std::lock_guard fence(fence_->mutex);
    if (node == fence_->node) fence_->epochs[code] = epoch;
    return epoch;
  });
}

std::vector<std::string> PostgresStore::renew_leases(const std::string& node, std::chrono::milliseconds ttl) {
  std::lock_guard lock(mutex_);
  return with_retry([&] {
    std::vector<std::string> held;
    const Result rows = run(step(kRenewLeases, node, static_cast<std::int64_t>(ttl.count())));
    for (int i = 0; i < rows.rows(); ++i) held.push_back(rows.bytes(i, 0));
    std::lock_guard fence(fence_->mutex);
    if (node == fence_->node) {
      std::erase_if(fence_->epochs, [&](const auto& entry) {
        return std::find(held.begin(), held.end(), entry.first) == held.end();
      });
    }
    return held;
  });
}

void PostgresStore::release_leases(const std::string& node, const std::vector<std::string>& codes) {
  std::lock_guard lock(mutex_);
  with_retry([&] {
    if (codes.empty()) {
      run(step(kReleaseAllLeases, node));
    } else {
      // A text[] literal: room codes are letters and digits only.
      std::string array = "{";
      for (const auto& code : codes) array += (array.size() > 1 ? "," : "") + code;
      array += "}";
      Step release = step(kReleaseLeases, node);
      release.values.push_back(array);
      release.formats.push_back(0);
      release.nulls.push_back(0);
      run(release);
    }
  });
  std::lock_guard fence(fence_->mutex);
  if (node == fence_->node) {
    if (codes.empty()) {
      fence_->epochs.clear();
    } else {
      for (const auto& code : codes) fence_->epochs.erase(code);
    }
  }
}

std::optional<std::string> PostgresStore::ask_handover(const std::string& code, const std::string& asker,
                                                       const std::string& asked_before) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<std::string> {
    const Result rows = run(step(kAskHandover, code, std::string(kHandoverChannel), asker, asked_before));
    if (rows.rows() == 0) return std::nullopt;
    return rows.bytes(0, 0);
  });
}

std::shared_ptr<PostgresStore> PostgresStore::listener() const {
  std::lock_guard lock(mutex_);
  return listener_;
}

std::vector<std::string> PostgresStore::handover_requests() {
  const auto listener = this->listener();
  return listener ? listener->notifications() : std::vector<std::string>{};
}

int PostgresStore::handover_socket() {
  const auto listener = this->listener();
  if (!listener) return -1;
  std::lock_guard lock(listener->mutex_);
  return listener->connection_lost() ? -1 : PQsocket(listener->conn_);
}

std::vector<std::string> PostgresStore::notifications() {
  std::lock_guard lock(mutex_);
  reconnect_if_lost();  // also reads what arrived while idle
  std::vector<std::string> codes;
  if (PQconsumeInput(conn_) != 1) return codes;
  while (PGnotify* notify = PQnotifies(conn_)) {
    codes.emplace_back(notify->extra ? notify->extra : "");
    PQfreemem(notify);
  }
  return codes;
}

bool PostgresStore::pipeline(const std::vector<Step>& steps, bool track_xid) {
  if (PQenterPipelineMode(conn_) != 1) throw StoreError("writing: " + one_line(PQerrorMessage(conn_)));
  // Statements sent, each a result and then a null to read.
  std::size_t sent = 0;
  bool synced = true;
  xid_.reset();
  if (track_xid) {
    // Asked to answer at once, before the rest runs (a flush request).
    if (PQsendQueryPrepared(conn_, kTxid.name, 0, nullptr, nullptr, nullptr, 1) != 1 ||
        PQsendFlushRequest(conn_) != 1) {
      synced = false;
    } else {
      ++sent;
    }
  }
  for (const auto& step : steps) {
    if (!synced) break;
    const std::vector<const char*> values = step.pointers();
    const std::vector<int> lengths = step.lengths();
    if (PQsendQueryPrepared(conn_, step.name, static_cast<int>(values.size()), values.data(), lengths.data(),
                            step.formats.data(), 1) != 1) {
      synced = false;
      break;
    }
    ++sent;
  }
  if (synced && PQpipelineSync(conn_) != 1) synced = false;
  if (!synced) {
    const std::string error = one_line(PQerrorMessage(conn_));
    if (connection_lost()) return false;
    PQreset(conn_);  // a pipeline half sent on a live connection: start clean
    if (!connection_lost()) prepare_statements();
    throw StoreError("writing: " + error);
  }
  // The results: one per statement (each followed by a null), then the
  // Sync's. After an error the statements behind it come back aborted.
  std::string error;
  std::size_t ends = 0;
  failed_step_.reset();
  failed_state_.clear();
  const std::size_t first_step = track_xid ? 1 : 0;
  const auto sent_at = std::chrono::steady_clock::now();
  const auto deadline = sent_at + kCommitTimeout;
  bool slow = !slow_notice_;  // told already, or nobody to tell
  for (bool done = false; !done;) {
    if (!slow) {
      // Wait first until the commit is slow, and say so, then to the deadline.
      await_input(std::min(deadline, sent_at + slow_after_), false);
      if (PQisBusy(conn_) == 1 && !connection_lost() && std::chrono::steady_clock::now() >= sent_at + slow_after_) {
        slow = true;
        slow_notice_();
      }
    }
    await_input(deadline);
    PGresult* raw = PQgetResult(conn_);
    if (raw == nullptr) {
      if (connection_lost() || ++ends > sent) {
        if (error.empty()) error = one_line(PQerrorMessage(conn_));
        break;
      }
      continue;
    }
    const Result result(raw);
    switch (PQresultStatus(raw)) {
      case PGRES_PIPELINE_SYNC: done = true; break;
      case PGRES_TUPLES_OK:
        if (track_xid && ends == 0 && result.rows() == 1) xid_ = result.integer(0, 0);
        break;
      case PGRES_COMMAND_OK:
      case PGRES_PIPELINE_ABORTED: break;
      default:
        if (error.empty()) {
          const char* state = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
          error = one_line(PQresultErrorMessage(raw)) + (state ? std::string(" (SQLSTATE ") + state + ")" : "");
          if (ends >= first_step) failed_step_ = ends - first_step;  // the statement whose results are being read
          if (state) failed_state_ = state;
        }
    }
  }
  const bool lost = connection_lost();
  if (PQexitPipelineMode(conn_) != 1 && !connection_lost()) {
    PQreset(conn_);
    if (!connection_lost()) prepare_statements();
  }
  if (error.empty()) return true;
  // Lost after the Sync went out, with no statement refused: committed or
  // not, only the database can tell now (resolve_uncertain).
  if (lost && failed_state_.empty()) throw CommitUncertain("writing: the connection was lost after the commit: " + error);
  throw_for(conn_, failed_state_, "writing: " + error);
}

void PostgresStore::truncate_locked(const std::string& game_id, std::int64_t keep) {
  run(step(kTruncateDecisions, game_id, keep));
}

void PostgresStore::truncate_decisions(const std::string& game_id, std::int64_t keep) {
  std::lock_guard lock(mutex_);
  sequences_->forget(game_id);
  with_retry([&] { truncate_locked(game_id, keep); });
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
      spdlog::warn("storage: room {} game {}: the decision log is torn; cut back to its {} whole decisions",
                   room.room, game.game_id, game.decisions.size());
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
