// Durable rooms: what a room writes so that a restart, or a crash, loses no
// acknowledged action, and what the server reads back on start.
//
// A room is its settings, its seats and its games; a game is its set-up
// (rules, seat count, deck after shuffle and cut, dealer, first player, the
// players) and its decisions, because the engine is deterministic: a
// finished game's transcript is played again from them when it is asked
// for (finished_transcript in room_restore.hpp, which the transcript API
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
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace gofish::server {

// A store that cannot be opened safely (not a database, a schema newer than
// this program knows, a malformed file). The message is a sentence for the
// operator; the server refuses to start rather than lose rooms.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
// The room is gone (expired or emptied); its finished games stay, served by
// their game id, until the retention time has passed. A room code may be
// used again afterwards.
struct RoomClosed {
  std::string room;
};

}  // namespace record

using Record = std::variant<record::RoomCreated, record::RoomSettingsChanged, record::SeatTaken, record::SeatFreed,
                            record::GameStarted, record::DecisionAccepted, record::GameFinished, record::RoomVersion,
                            record::RoomClosed>;

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
};

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
  // as commit() does. The default commits them all with commit().
  virtual std::vector<std::string> commit_rooms(const std::vector<RoomRecords>& batch);

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
  // (the directory seam, registry.hpp) reads them one at a time.
  virtual std::optional<StoredRoom> load_room(const std::string& code);
  // The code of the open room one of whose seats `token_hash` (a seat
  // token's keyed hash, 16 bytes) holds.
  virtual std::optional<std::string> room_of_token(const std::string& token_hash);
  // Open rooms (not closed, not set aside) in which no game has been dealt,
  // newest first, at most `limit`, with their seats (no game): the rooms
  // other nodes sharing the store may list in their lobbies (whether a room
  // is listed is in its settings, which the registry reads). The default
  // has none: a store no other node shares.
  virtual std::vector<StoredRoom> waiting_rooms(std::size_t limit);
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

// Where a room's records go: the StoreWriter below, or a room test's fake.
// `done` is called once, from any thread, with whether the records were
// written; it must be quick (post to a strand and return).
class RecordSink {
 public:
  using Done = std::function<void(bool written)>;
  virtual ~RecordSink() = default;
  // `room` is the code of the room whose records these are: with leases, a
  // room's records are written only while this node owns the room.
  virtual void submit(std::string room, std::vector<Record> records, Done done) = 0;
};

// The one writer: collects the records of every room, commits them in one
// transaction per batch on its own thread, then runs each submission's
// callback (in submission order) with whether its records were written. A callback
// must be quick: hand its work to a strand and return. With run_callbacks_with, a
// batch's callbacks run together, handed over in one piece.
class StoreWriter final : public RecordSink {
 public:

  // With `retention`, finished games older than it are deleted on the
  // writer thread: after a batch, or after `prune_period` without one, at
  // most once per `prune_period`.
  explicit StoreWriter(Store& store, std::optional<std::chrono::seconds> retention = std::nullopt,
                       std::chrono::milliseconds prune_period = std::chrono::minutes(1));
  ~StoreWriter();  // stop(), so pending writes finish
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  void submit(std::string room, std::vector<Record> records, Done done) override;
  // Called on the writer thread, before the callbacks of its batch, with a
  // room whose records were fenced out (another node owns it now; their
  // callbacks say not written). Set before the first submission.
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
  // Finishes every submitted write, runs its callback, and stops the thread.
  // Later submissions are written at once on the caller's thread.
  void stop();

  // Batches committed so far (for tests and metrics).
  std::uint64_t batches() const;

 private:
  struct Pending {
    std::string room;
    std::vector<Record> records;
    Done done;
  };
  void run();
  // Commits the batch in one transaction and runs its callbacks; when that
  // fails, commits each submission on its own, so one bad record refuses
  // only its own submission.
  void write(std::vector<Pending>& batch);
  // The rooms fenced out, or nothing when the commit failed.
  std::optional<std::vector<std::string>> commit(const std::vector<RoomRecords>& batch);

  void maybe_prune();

  Store& store_;
  std::function<void(const std::string&)> on_fenced_;
  const std::optional<std::chrono::seconds> retention_;
  const std::chrono::milliseconds prune_period_;
  std::chrono::microseconds commit_delay_{0};
  std::function<void(Callbacks)> hand_over_;
  std::chrono::steady_clock::time_point last_prune_{};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Pending> queue_;
  bool stopping_ = false;
  bool stopped_ = false;
  bool flush_ = false;  // flush_now() came for what is queued
  std::uint64_t batches_ = 0;
  std::thread thread_;
};

}  // namespace gofish::server
