// Durable rooms: what a room writes so that a restart, or a crash, loses no
// acknowledged action, and what the server reads back on start.
//
// A room is its settings, its seats and its games; a game is its set-up
// (rules, seat count, deck after shuffle and cut, dealer, first player, the
// players) and its decisions, because the engine is deterministic: a
// finished game's transcript is played again from them when it is asked
// for (finished_transcript in server/rooms/room_restore.hpp, which the transcript API
// calls), not stored. The room layer encodes
// each of these as JSON text (protocol/ owns every JSON spelling); the store
// keeps the text and knows only the keys: room code, seat number, game id,
// decision sequence number.
//
// Writing is asynchronous and grouped (StoreWriter): a room submits its
// records with a callback, one writer thread commits everything submitted
// since its last commit in one transaction, then runs the callbacks, which
// post back to each room's strand to send the events those records caused.
// So no room strand waits for an fsync, many actions share one, and an event
// is sent only after the decision that caused it is on disk.
//
// Store is the interface rooms and the writer talk to: NullStore keeps
// nothing (tests that need no durability, and `--storage none`, the baseline
// for measuring what durability costs); SqliteStore (sqlite_store.hpp) is the
// embedded default; PostgresStore (postgres_store.hpp) keeps the same tables
// in a PostgreSQL database that several servers can share.
#pragma once

#include <array>
#include <chrono>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace gofish::server {

class StoreHealth;

// A store that cannot be opened safely (not a database, a schema newer than
// this program knows, a malformed file), or a write or read that failed. The
// message is a sentence for the operator; the server refuses to start
// rather than lose rooms. A write that fails with a plain StoreError failed
// for the store's sake (it cannot be reached, its disk is full, it failed an
// I/O): the same records are written once it works again.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A write the store refused for the records in it, not for its own state (a
// decision out of sequence, a key written twice): writing the same records
// again fails again, so the writer tries each room's records on its own and
// keeps only the rooms refused waiting (StoreWriter).
class RecordsRefused : public StoreError {
 public:
  using StoreError::StoreError;
};

// The store cannot be reached at all (a database server down or starting,
// a network that does not answer): a start may wait for it (gofish-server
// --store-connect-wait-ms), and a write is tried again.
class StoreUnreachable : public StoreError {
 public:
  using StoreError::StoreError;
};

// The connection was lost after the commit was sent: the store may or may
// not have committed it. Store::resolve_uncertain says which, once the store
// can be reached again; until then nothing else is written, so that the
// records are not written twice.
class CommitUncertain : public StoreError {
 public:
  using StoreError::StoreError;
};

namespace record {

struct RoomCreated {
  std::string room;
  std::string settings;  // JSON
  std::int64_t created_ms = 0;
};
// The settings record written again (protocol::settings_record): the room
// writes it when the host removes a player, whom it keeps out after a restart.
struct RoomSettingsChanged {
  std::string room;
  std::string settings;  // JSON
};
// A seat taken (or its holder changed): `state` is the room layer's JSON for
// the seat (name, human or bot and its level, host). `token_hash` is the
// token's keyed hash (16 bytes), empty for a bot.
struct SeatTaken {
  std::string room;
  int seat = 0;
  std::string state;
  std::string token_hash;
};
struct SeatFreed {
  std::string room;
  int seat = 0;
};
// A game dealt: `setup` is the JSON of rules, seat count, deck, dealer and
// first player. `game_id` is the public id its transcript is served under.
struct GameStarted {
  std::string room;
  std::int64_t game = 0;  // 1, 2, ... within the room
  std::string game_id;
  std::string setup;
  std::int64_t started_ms = 0;
};
// An accepted decision: `seq` counts from 0 within the game without gaps.
// `v`, when set, is the room's event version after the decision's events:
// a turn whose last record is its decision carries the version in it
// (DurableOutbox), so the usual action writes one row, not two.
struct DecisionAccepted {
  std::string game_id;
  std::int64_t seq = 0;
  std::string decision;  // JSON
  std::optional<std::int64_t> v;
};
// The game is over: its set-up and decisions are all of its transcript.
struct GameFinished {
  std::string game_id;
  std::int64_t finished_ms = 0;
};
// The room's event version `v` (protocol/README.md, "Room versions"): the
// room writes it with every event it records, so no client has seen a
// version the store does not know, and a restored room carries on from it.
// A turn that ends with a decision puts it in DecisionAccepted::v instead;
// a store reads a room's version back as the larger of the two.
struct RoomVersion {
  std::string room;
  std::int64_t v = 0;
};
// The room's next deal under gofish-deal/1 (server/rooms/next_deal.hpp),
// written whole whenever it changes: drawn (as the room is made, after a
// game, or on a restore that found none), a seat's contribution taken, a
// seat's forgotten; `deal` empty once the game is dealt from it. It holds
// the secret seed: the store is the server's own, and nothing read from it
// goes to a client but through the room's views.
struct NextDealSaved {
  std::string room;
  std::string deal;  // JSON (protocol::next_deal_record), or empty: none
};
// Today's deal (server/rooms/daily_deal.hpp): the daily_result the room
// keeps for its player, written before it is sent, so that a resume after
// a restart hears it again; `note` empty once a rematch begins.
struct DailyNoteSaved {
  std::string room;
  std::string note;  // JSON (protocol::daily_note_record), or empty: none
};
// The room is gone (expired or emptied); its finished games stay, served by
// their game id, until the retention time has passed. A room code may be
// used again afterwards.
struct RoomClosed {
  std::string room;
};

// A class event (server/rooms/event.hpp), written whole whenever its
// phase or round changes: `settings` is the protocol's JSON of its settings
// and roster, `teacher_hash` the teacher token's keyed hash (16 bytes),
// `phase` "open", "playing" or "closed".
struct EventSaved {
  std::string event;
  std::string name;
  std::string settings;
  std::string teacher_hash;
  std::string phase;
  std::int64_t round = 0;
  std::int64_t created_ms = 0;
};
// One pupil of an event, written whole when it changes: `token_hash` is
// empty while nobody has claimed the name.
struct PupilSaved {
  std::string event;
  std::int64_t pupil = 0;
  std::string name;
  std::string token_hash;
};
// A table of a round: its room and the pupil in each seat (the protocol's
// JSON, table_seats_record); written again, whole, when the table's game is
// over, with the game's public id and the result (the protocol's JSON,
// table_result_record: each seat's name and the ranks of its sets). Both
// empty until then.
struct EventTableSaved {
  std::string event;
  std::int64_t round = 0;
  std::int64_t table = 0;
  std::string room;
  std::string seats;
  std::string game_id{};  // {}: the records written before a game ends leave them out
  std::string result{};
};

}  // namespace record

using Record = std::variant<record::RoomCreated, record::RoomSettingsChanged, record::SeatTaken, record::SeatFreed,
                            record::GameStarted, record::DecisionAccepted, record::GameFinished, record::RoomVersion,
                            record::RoomClosed, record::NextDealSaved, record::DailyNoteSaved, record::EventSaved,
                            record::PupilSaved, record::EventTableSaved>;

struct StoredPupil {
  std::int64_t pupil = 0;
  std::string name;
  std::string token_hash;
  friend bool operator==(const StoredPupil&, const StoredPupil&) = default;
};
struct StoredEventTable {
  std::int64_t table = 0;
  std::string room;
  std::string seats;
  std::string game_id{};  // empty until the table's game is over
  std::string result{};
  friend bool operator==(const StoredEventTable&, const StoredEventTable&) = default;
};
struct StoredEventRound {
  std::int64_t round = 0;
  std::vector<StoredEventTable> tables;
  friend bool operator==(const StoredEventRound&, const StoredEventRound&) = default;
};
// An event not closed, as read back on start: its pupils by number, the
// tables of its latest round, and those of the rounds before (for their
// results).
struct StoredEvent {
  std::string event;
  std::string name;
  std::string settings;
  std::string teacher_hash;
  std::string phase;
  std::int64_t round = 0;
  std::int64_t created_ms = 0;
  std::vector<StoredPupil> pupils;
  std::vector<StoredEventTable> tables;
  std::vector<StoredEventRound> earlier_rounds;  // round 1 first
  friend bool operator==(const StoredEvent&, const StoredEvent&) = default;
};

// Files a table read back under `round`: the latest round's in `tables`,
// an earlier one's in `earlier_rounds` (rows come ordered by round).
void add_event_table(StoredEvent& event, std::int64_t round, StoredEventTable table);

struct StoredSeat {
  int seat = 0;
  std::string state;
  std::string token_hash;
};

struct StoredGame {
  std::int64_t game = 0;
  std::string game_id;
  std::string setup;
  std::int64_t started_ms = 0;
  std::vector<std::string> decisions;  // in sequence, 0 first
  bool finished = false;               // GameFinished was written
  // The transcript older servers (before schema version 5, of either
  // store) wrote when a game finished; newer ones write none.
  std::optional<std::string> transcript;
};

// A room the server could not rebuild on start, kept in the store as it was
// (with its seats and games) but no longer loaded: `reason` is the sentence
// saying why, `set_aside_ms` when (milliseconds since the Unix epoch).
struct SetAsideRoom {
  std::string room;
  std::int64_t set_aside_ms = 0;
  std::string reason;
  friend bool operator==(const SetAsideRoom&, const SetAsideRoom&) = default;
};

// The records one room submitted, for Store::commit_rooms.
struct RoomRecords {
  std::string room;
  std::vector<Record> records;
};

// An open room as read back on start: its latest game (if any) and seats.
struct StoredRoom {
  std::string room;
  std::string settings;
  std::int64_t created_ms = 0;
  std::int64_t v = 0;              // the last event version written (RoomVersion or a decision's v)
  std::vector<StoredSeat> seats;   // by seat number
  std::optional<StoredGame> game;  // the latest game
  std::string next_deal;           // NextDealSaved's, empty if none (read by load_open_rooms and load_room)
  // Today's deal, read as next_deal is: the number of the room's game the
  // day's tally counted (count_daily_game), 0 if none, and DailyNoteSaved's
  // note, empty if none.
  std::int64_t daily_counted = 0;
  std::string daily_note;
};

// Today's deal (server/rooms/daily_deal.hpp): of a day's games, how many
// made each number of sets (sets -> games). Nothing else is kept of them:
// no name, no room, no time.
using DailyTally = std::map<int, std::int64_t>;

// What token_key() does when a store that holds rooms or games has no
// usable key: refuse (StoreError), or make a new one (gofish-server
// --new-token-key), knowing that every stored seat token stops working.
enum class MissingTokenKey { kRefuse, kMakeNew };

class Store {
 public:
  virtual ~Store() = default;
  // Commits every record in one transaction, or throws (StoreError or
  // std::runtime_error): a write that fails is not acknowledged.
  virtual void commit(const std::vector<Record>& records) = 0;
  // The records of several rooms, in one transaction. Where the store
  // fences writes by room leases (PostgresStore::fence_as), a room's records
  // are written only while this node still holds the room's lease at the
  // epoch it took it with; the rooms whose lease is gone come back, their
  // records not written, and every other room's records are written. Throws
  // as commit() does (RecordsRefused, CommitUncertain or StoreError). The
  // default commits them all with commit().
  virtual std::vector<std::string> commit_rooms(const std::vector<RoomRecords>& batch);
  // After commit_rooms threw CommitUncertain: whether that batch committed.
  // The rooms it fenced out when it did, nothing when it did not (it may be
  // sent again); throws StoreError while that cannot be told yet (the store
  // cannot be reached). The default: a store whose commits are never
  // uncertain.
  virtual std::optional<std::vector<std::string>> resolve_uncertain() { return std::nullopt; }
  // `notice` is called (on the committing thread, during commit_rooms) once
  // a commit has waited `after` for its answer: the writer tells the rooms
  // waiting for it to pause, before the commit succeeds or fails. Stores
  // that cannot tell (SQLite's calls block) never call it.
  virtual void on_slow_commit(std::chrono::milliseconds after, std::function<void()> notice) {
    (void)after;
    (void)notice;
  }

  // Room leases: which node owns a room when several servers share one
  // store (PostgresStore). The defaults are a single node's, which owns
  // every room it has (SqliteStore, NullStore): no lease is ever refused.
  //
  // Whether leases are kept at all.
  virtual bool has_leases() const { return false; }
  // Takes `code` for `node` for `ttl`: when nobody holds it, when its lease
  // has expired (the epoch goes up: earlier holders are fenced out), or when
  // `node` holds it already (renewed, same epoch). The epoch, or nothing
  // when another node holds a live lease.
  virtual std::optional<std::int64_t> take_lease(const std::string& code, const std::string& node,
                                                 std::chrono::milliseconds ttl);
  // Extends every lease `node` holds to `ttl` from now, in one statement;
  // the codes it still holds.
  virtual std::vector<std::string> renew_leases(const std::string& node, std::chrono::milliseconds ttl);
  // Lets `codes` go (every lease of `node` when empty) at once, without
  // waiting for them to expire; their epochs stay, so the next holder's is
  // higher.
  virtual void release_leases(const std::string& node, const std::vector<std::string>& codes);
  // Asks the node holding a live lease on `code` to hand the room over,
  // unless that node is `asker` itself or `asked_before` (which a lookup
  // has asked already). Returns that node, asked now or before; nullopt
  // when no other node holds a live lease on it (the lease is free, or
  // already the asker's).
  virtual std::optional<std::string> ask_handover(const std::string& code, const std::string& asker,
                                                  const std::string& asked_before = "");
  // The codes other nodes have asked this store's node (fence_as) to hand
  // over since the last call.
  virtual std::vector<std::string> handover_requests();
  // A socket that becomes readable when a handover request may have come
  // (or its connection dropped), for a caller to wait on instead of asking
  // handover_requests() again and again; -1 when there is none.
  virtual int handover_socket() { return -1; }

  // Every room not closed and not set aside, with its latest game; a torn
  // decision tail has been cut back (with a warning naming the room) before
  // this returns.
  virtual std::vector<StoredRoom> load_open_rooms() = 0;
  // One open room (not closed, not set aside) by its code, as
  // load_open_rooms gives it; a node that loads rooms when asked for them
  // (the directory seam, server/rooms/registry.hpp) reads them one at a time.
  virtual std::optional<StoredRoom> load_room(const std::string& code);
  // The code of the open room one of whose seats `token_hash` (a seat
  // token's keyed hash, 16 bytes) holds.
  virtual std::optional<std::string> room_of_token(const std::string& token_hash);
  // The code of the open class event (not closed) whose latest round has
  // the room `room` among its tables: on several servers such a room is
  // served with its class (protocol/README.md, "Class events").
  virtual std::optional<std::string> event_of_table(const std::string& room);
  // Open rooms (not closed, not set aside) in which no game has been dealt,
  // newest first, at most `limit`, with their seats (no game): the rooms
  // other nodes sharing the store may list in their lobbies (whether a room
  // is listed is in its settings, which the registry reads). The default
  // has none: a store no other node shares.
  virtual std::vector<StoredRoom> waiting_rooms(std::size_t limit);
  // Every class event not closed, with its pupils and its latest round's
  // tables. The default has none (a store that keeps nothing).
  virtual std::vector<StoredEvent> load_open_events() { return {}; }
  // The class event of `code` if it is stored and not closed (a node
  // sharing the store takes an event over by it; a same-deal game's
  // transcript asks whether its round is over). One lookup by the code's
  // key in the stores that keep events; the default reads every open event
  // and keeps the one asked for.
  virtual std::optional<StoredEvent> load_open_event(const std::string& code);
  // The class event of `code` if it is stored and closed, as
  // load_open_events gives an open one: its results stay readable after a
  // restart (server/rooms/closed_events.hpp). One lookup by the code's key;
  // the pupils and tables are read only when it is found. The default has
  // none (a store that keeps nothing).
  virtual std::optional<StoredEvent> load_closed_event(const std::string&) { return std::nullopt; }
  // Today's deal: counts one game of `day` ("YYYY-MM-DD") that made `sets`
  // sets, and returns the day's tally with it, in one transaction (so every
  // node sharing the store counts into one tally). daily_tally reads it.
  // Unless `room` is empty, the same transaction marks game `game` of that
  // room counted (StoredRoom::daily_counted), and counts nothing (nullopt)
  // if it was marked already or the room is not stored: a game is counted
  // once, whatever restarts or nodes come between its end and its count.
  // The defaults keep the tally in this process's memory (NullStore,
  // --storage none: it is gone after a restart, and no room is restored).
  virtual std::optional<DailyTally> count_daily_game(const std::string& day, int sets, const std::string& room,
                                                     std::int64_t game);
  virtual DailyTally daily_tally(const std::string& day);
  // Marks a room that cannot be rebuilt: it stays in the store, untouched
  // (its finished games are not pruned), and load_open_rooms skips it.
  virtual void set_aside(const std::string& room, const std::string& reason, std::int64_t now_ms) = 0;
  // Every room set aside, oldest first.
  virtual std::vector<SetAsideRoom> set_aside_rooms() = 0;
  // Clears the mark, so the next start tries the room again; false if no
  // room of that code is set aside.
  virtual bool restore_set_aside(const std::string& room) = 0;
  // A finished game still kept, by its public id, with every decision
  // (finished games are never cut back).
  virtual std::optional<StoredGame> finished_game(const std::string& game_id) = 0;
  // The public id of open room `room`'s most recent finished game, if it
  // has one (a room rebuilt while its next game is played still serves
  // that one's transcript). The default keeps none.
  virtual std::optional<std::string> latest_finished_game(const std::string& room);
  // Deletes finished games (and closed rooms left without games) finished
  // before `before_ms`; returns how many games went.
  virtual std::size_t prune_finished(std::int64_t before_ms) = 0;
  // The 256-bit key for seat-token hashes, made once and kept with the
  // rooms so stored hashes stay valid across restarts. Throws StoreError
  // when the key of a store that holds rooms or games is missing or unusable
  // (SqliteStore and PostgresStore, unless told to make a new one).
  virtual std::array<std::uint64_t, 4> token_key() = 0;
  // Cuts a game's decisions back to the first `keep` (the room layer calls
  // it when the engine refuses a stored decision on replay).
  virtual void truncate_decisions(const std::string& game_id, std::int64_t keep) = 0;

 private:
  // The in-memory daily tallies of the defaults above.
  std::mutex daily_mutex_;
  std::map<std::string, DailyTally> daily_;
};

// Keeps nothing; its token key is fresh from the OS each run. Tests derive
// from it for a store that only counts or delays commits.
class NullStore : public Store {
 public:
  NullStore();
  void commit(const std::vector<Record>&) override {}
  std::vector<StoredRoom> load_open_rooms() override { return {}; }
  void set_aside(const std::string&, const std::string&, std::int64_t) override {}
  std::vector<SetAsideRoom> set_aside_rooms() override { return {}; }
  bool restore_set_aside(const std::string&) override { return false; }
  std::optional<StoredGame> finished_game(const std::string&) override { return std::nullopt; }
  std::size_t prune_finished(std::int64_t) override { return 0; }
  std::array<std::uint64_t, 4> token_key() override { return key_; }
  void truncate_decisions(const std::string&, std::int64_t) override {}

 private:
  std::array<std::uint64_t, 4> key_{};
};

// What became of a room's submission (RecordSink::Done).
enum class WriteOutcome {
  kWritten,   // committed
  kFenced,    // not written, ever: another node holds the room's lease now
  kRetrying,  // not written yet: the write failed and is tried again, until written or fenced
};

// Where a room's records go: the StoreWriter below, or a room test's fake.
// `done` is called from any thread, once with kWritten or kFenced, and
// before that at most once with kRetrying (the first time the write failed);
// it must be quick (post to a strand and return). A room's submissions are
// written in the order it made them, and never one before another that
// failed: a failed write holds back the room's later ones until it is
// written.
class RecordSink {
 public:
  using Done = std::function<void(WriteOutcome)>;
  virtual ~RecordSink() = default;
  // `room` is the code of the room whose records these are: with leases, a
  // room's records are written only while this node owns the room.
  // Takes the records only when it returns: one that throws (out of
  // memory) leaves them to the caller.
  virtual void submit(std::string room, std::vector<Record>&& records, Done done) = 0;
};

// The one writer: collects the records of every room, commits them in one
// transaction per batch on its own thread, then runs each submission's
// callback (in submission order) with what became of it. A callback must be
// quick: hand its work to a strand and return. With run_callbacks_with, a
// batch's callbacks run together, handed over in one piece.
//
// A write that fails is never given up: its submissions wait, each room's in
// order, and are tried again with a growing pause (kFirstRetry doubling to
// kLongestRetry) until they are written or fenced out; a room's later
// submissions wait behind them. While the store itself fails (not the
// records) everything new waits too, for the next try. A write whose
// commit is uncertain (CommitUncertain) is settled with the store
// (Store::resolve_uncertain) before anything else is written. What waits is
// reported to `health` (store_health.hpp), which logs an outage's start and
// end and serves /healthz and /metrics.
class StoreWriter final : public RecordSink {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kFirstRetry{100};
  static constexpr std::chrono::milliseconds kLongestRetry{1000};
  // A commit that has waited this long for its answer pauses its rooms
  // already (Store::on_slow_commit): within a second of a store that hangs.
  static constexpr std::chrono::milliseconds kSlowCommit{1000};

  // With `retention`, finished games older than it are deleted on the
  // writer thread: after a batch, or after `prune_period` without one, at
  // most once per `prune_period`. `health` (may be null) outlives the
  // writer; `lane` is this writer's number there (ShardedWriter).
  explicit StoreWriter(Store& store, std::optional<std::chrono::seconds> retention = std::nullopt,
                       std::chrono::milliseconds prune_period = std::chrono::minutes(1),
                       StoreHealth* health = nullptr, std::size_t lane = 0);
  ~StoreWriter();  // stop(), so pending writes finish
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  void submit(std::string room, std::vector<Record>&& records, Done done) override;
  // Called on the writer thread, before the callbacks of its batch, with a
  // room whose records were fenced out (another node owns it now; their
  // callbacks say kFenced). Set before the first submission.
  void on_fenced(std::function<void(const std::string& room)> fenced) { on_fenced_ = std::move(fenced); }
  // Group commit: once a batch's first submission has come, wait this long
  // for more before committing (Limits::store_commit_delay). Set before the
  // first submission; 0 (the default) commits as soon as the thread is free.
  void commit_delay(std::chrono::microseconds delay) { commit_delay_ = delay; }
  // The I/O threads have run everything that was ready (Server::on_idle):
  // the batch under way, if any, is committed without waiting out the rest
  // of its delay, since no room has more to add before its answers go out.
  // From any thread; cheap when nothing is queued.
  void flush_now();
  // Set before the first submission: each batch's callbacks go, as one
  // function that runs them in order, to `hand_over` (the server posts it to
  // its I/O threads, where a room's callback can enter the room's strand at
  // once instead of queueing a handler per room from this thread). Unset,
  // they run on the writer thread, as they do once stop() is called.
  using Callbacks = std::function<void()>;
  void run_callbacks_with(std::function<void(Callbacks)> hand_over) { hand_over_ = std::move(hand_over); }

  // What a stop left unwritten: the records of each room, by room code.
  using Unwritten = std::vector<std::pair<std::string, std::size_t>>;
  // Writes everything submitted, trying failed writes again until
  // `deadline`, runs the callbacks of what was written, and stops the
  // thread. What could not be written by then is returned (and its
  // callbacks never run: nothing it held may be sent). Later submissions
  // are written at once on the caller's thread, or added to what stop
  // returned when that fails.
  Unwritten stop(Clock::time_point deadline = Clock::time_point::max());

  // Batches committed so far (for tests and metrics).
  std::uint64_t batches() const;

 private:
  struct Pending {
    std::string room;
    std::vector<Record> records;
    Done done;
    Clock::time_point since{};  // when it was submitted
    bool told = false;          // kRetrying has been sent
  };
  // What became of each submission of one round, and the callbacks to run.
  struct Results;
  void run();
  // Writes what was submitted, and what waits when its next try is due.
  void write_round(std::vector<Pending>& fresh);
  // Commits `batch` (each room's submissions in order); what fails waits.
  // `alone`: one room's, tried on its own.
  void write(std::vector<Pending> batch, Results& results, bool alone = false);
  // Commits the batch in one transaction: the rooms fenced out. Throws as
  // Store::commit_rooms does.
  std::vector<std::string> commit(const std::vector<Pending>& batch);
  void written(std::vector<Pending>& batch, const std::vector<std::string>& fenced, Results& results);
  // A try failed: the next is due after the pause, which grows.
  void failed(const std::string& error, bool store_failed, Results& results);
  // kRetrying, once per submission.
  void tell(Pending& pending, Results& results);
  void tell_and_hold(Pending pending, Results& results);
  // Keeps a submission waiting (in front of its room's others, or behind),
  // and lets a room go once none of its submissions waits.
  void hold(Pending pending, bool front);
  void release(const std::string& room);
  // The commit under way has waited long: its rooms are told kRetrying now.
  void commit_is_slow();
  // Settles the uncertain batch with the store; false while it cannot.
  bool settle_uncertain(Results& results);
  // stop()'s deadline has passed: what waits goes to unwritten_. Under mutex_.
  void give_up();
  // Tells the health what waits, and runs the round's callbacks.
  void finish_round(Results& results);
  // Runs the round's callbacks: through hand_over_ (on the rooms' threads),
  // or here once stopping.
  void deliver(Results& results);
  bool retry_due(Clock::time_point now) const { return !waiting_.empty() && now >= next_retry_; }

  void maybe_prune();

  Store& store_;
  std::function<void(const std::string&)> on_fenced_;
  const std::optional<std::chrono::seconds> retention_;
  const std::chrono::milliseconds prune_period_;
  StoreHealth* const health_;
  const std::size_t lane_;
  std::chrono::microseconds commit_delay_{0};
  std::function<void(Callbacks)> hand_over_;
  std::chrono::steady_clock::time_point last_prune_{};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Pending> queue_;
  bool stopping_ = false;
  bool stopped_ = false;
  bool flush_ = false;  // flush_now() came for what is queued
  Clock::time_point stop_deadline_ = Clock::time_point::max();
  Unwritten unwritten_;  // what stop() gave up on
  std::uint64_t batches_ = 0;

  // On the writer thread only. Submissions whose write failed, in the order
  // they were made (every room's in its own order), and the rooms they
  // belong to: a room's later submissions join them here.
  std::vector<Pending> waiting_;
  // Each room's submissions in waiting_ and uncertain_: a room listed here
  // writes nothing new before they are written.
  std::unordered_map<std::string, std::size_t> waiting_count_;
  // Rooms whose own records the store refused (RecordsRefused): tried on
  // their own, so they hold back no other room.
  std::unordered_set<std::string> own_fault_;
  // The batch being committed (commit()), for commit_is_slow.
  std::vector<Pending>* in_flight_ = nullptr;
  // A batch whose commit is uncertain, settled before anything else is written.
  std::optional<std::vector<Pending>> uncertain_;
  bool store_failing_ = false;  // the last try failed for the store's sake: new submissions wait too
  Clock::time_point next_retry_{};
  std::chrono::milliseconds retry_pause_{kFirstRetry};
  std::thread thread_;
};

}  // namespace gofish::server
