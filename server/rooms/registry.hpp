// The in-process room directory: every open room of this process, by code,
// and every live seat token, by its keyed hash. Thread-safe: the handler
// looks rooms up from connection strands while rooms register tokens and
// remove themselves from their own strands (as their RoomHost). The lock is
// held only for map operations, never while a room runs.
//
// Rooms come back from the store in one of two ways: all at start
// (restore_all), or one at a time when first asked for by code or by seat
// token (load_on_demand), so a node holds only the rooms people use.
//
// It also keeps the per-address limits of the rooms layer (AddressLimits):
// who created each room, which counts against its address until the room is
// removed, how fast an address creates rooms, and its failed joins.
//
// Room codes are drawn uniformly from the OS random source over all
// protocol::room_code_count() codes and drawn again on a collision (with an
// open room, or with a room set aside in the store).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "engine/card.hpp"
#include "protocol/messages.hpp"
#include "server/rooms/address_limits.hpp"
#include "server/rooms/leased_events.hpp"
#include "server/rooms/room.hpp"
#include "server/rooms/room_directory.hpp"
#include "server/rooms/room_host.hpp"
#include "server/store/store.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

class Registry : public RoomDirectory, public RoomHost, public std::enable_shared_from_this<Registry> {
 public:
  explicit Registry(RoomServices services);

  // RoomDirectory.
  std::variant<std::shared_ptr<Room>, protocol::Error> create_room(const protocol::RoomSettings& settings,
                                                                  const std::string& creator) override;
  void find(const std::string& code, std::function<void(Found)> done) override;
  void find_token(const TokenHash& hash, std::function<void(FoundSeat)> done) override;
  // The listed rooms waiting for players held here, newest first; with
  // leases (several nodes on one store) followed by those other nodes hold,
  // read from the store (Store::waiting_rooms) at most once a second, on a
  // lookup thread: requests that come during a read wait for that one.
  void lobby(std::size_t limit, LobbyDone done) override;
  const TokenHasher& hasher() const override { return *services_.hasher; }
  bool joins_refused(const std::string& address) override;
  void join_failed(const std::string& address) override;
  static constexpr std::size_t kLobbyLimit = 50;
  // With leases: how long the other nodes' waiting rooms read from the
  // store are used for (the lobby may be polled), and how many are read
  // (unlisted and full ones are left out after reading).
  static constexpr std::chrono::milliseconds kStoredLobbyMaxAge{1000};
  static constexpr std::size_t kStoredLobbyScan = 4 * kLobbyLimit;

  // RoomHost: what the rooms tell it.
  void token_issued(const TokenHash& hash, const std::shared_ptr<Room>& room, engine::Seat seat) override;
  void token_revoked(const TokenHash& hash) override;
  void room_closed(const std::string& code, const Room* room) override;

  // Rebuilds every open room the store holds, each on its own: a room that
  // cannot be rebuilt is set aside in the store (logged, counted) and the
  // others start. Throws StoreError only when the store itself fails.
  struct Restored {
    std::size_t rooms = 0;
    std::size_t set_aside = 0;
  };
  Restored restore_all(Store& store);
  // From now on a room not held here is looked for in `store` when it is
  // asked for, and rebuilt then. `store` outlives the registry.
  void load_on_demand(Store& store);

  // Several servers on one store (PostgreSQL): with rooms loaded on demand,
  // this node (`node`) holds each of its rooms by a lease of `ttl`
  // (Store::take_lease), taken when it creates or loads the room. A room
  // whose live lease another node holds is asked for (Store::ask_handover)
  // and waited for, at most the TTL and a little more: the owner hands it
  // over, or its lease runs out; if neither happens, the lookup answers
  // room/busy. When a third node takes the lease meanwhile (a dead owner's
  // ran out), that node is asked in turn and waited for afresh, up to twice
  // that wait in all. Such lookups (every find and find_token of a room not
  // held here) do their store round trips on a few threads of their own and
  // wait on timers, so no I/O thread waits and this node keeps handing its
  // own rooms over meanwhile. Call after load_on_demand, before serving.
  void use_leases(std::string node, std::chrono::milliseconds ttl);
  // With leases: takes the lease of `code`, a room's or a class event's,
  // as find does for a room (asking its holder to hand it over, waiting on
  // timers, room/busy in the end). `exists` is asked first, on a lookup
  // thread: whether the store holds what `code` names (room/not_found if
  // not). `settle` runs on a lookup thread too, once: with nothing once the
  // lease is this node's, or with the error; what it returns runs on an
  // I/O thread.
  using Settle = std::function<std::function<void()>(std::optional<protocol::Error>)>;
  void take_over(const std::string& code, std::function<bool(Store&)> exists, Settle settle);
  // With leases: the open class event (Store::event_of_table) whose table
  // is the room `room_of` names (a code, or the room of a seat token; null:
  // none), read on a lookup thread; `done` runs on an I/O thread with its
  // code, or with nothing (no such class, or the store failed: the lookup
  // that follows says so).
  void class_of_table(std::function<std::optional<std::string>(Store&)> room_of,
                      std::function<void(std::optional<std::string>)> done);
  // Whether the room `code`, or the seat of token `hash`, is held here.
  bool holds(const std::string& code) const { return held(code) != nullptr; }
  bool holds_token(const TokenHash& hash) const;
  // The class events held here by leases (null: none). Unset it before the
  // events go.
  void serve_events(LeasedEvents* events);
  const std::string& node() const { return node_; }
  std::chrono::milliseconds lease_ttl() const { return lease_ttl_; }
  // Stops the lookup threads, once the I/O threads have stopped and before
  // the io_context goes: lookups under way are dropped unanswered.
  void stop_lookups();
  // The codes of the rooms held here (LeaseKeeper compares them with the
  // leases still held).
  std::vector<std::string> held_codes() const;
  // The room's lease is lost (a renewal left it out, or a commit was fenced):
  // it is let go here without a record, its connections are told `moved`.
  void lost(const std::string& code);
  // Every room held here: whether the node's leases are confirmed
  // (Room::leases_confirmed; from the lease keeper).
  void leases_confirmed(bool confirmed);
  // Another node asks for the room: it is let go as by lost(), after what it
  // wrote is committed; `released(true)` runs then, or `released(false)` at
  // once if the room is not held here, to release the lease.
  void hand_over(const std::string& code, std::function<void(bool was_here)> released);

  // Today's deal (daily_deal.hpp): `restored` is called with every room
  // rebuilt from the store (at start or on demand, on the thread that
  // rebuilt it) whose game is a day's deal not yet counted, and that day;
  // or counted with no standing kept for its player, that day and the sets
  // the player made (RestoredRoom::counted_sets). Set before restoring or
  // serving.
  using DailyRestored = std::function<void(const std::shared_ptr<Room>&, const std::string& day,
                                           std::optional<int> counted_sets)>;
  void on_daily_restored(DailyRestored restored) { daily_restored_ = std::move(restored); }

  // A room rebuilt from the store, under its own code; false if the code is
  // taken already.
  bool adopt(const std::shared_ptr<Room>& room);
  // A code kept by a room set aside in the store (server/store/store.hpp): never handed
  // to a new room, since the store still holds a room under it.
  void reserve_code(const std::string& code);
  std::size_t room_count() const;
  // Whether this node holds its rooms by leases (use_leases): several
  // servers share the store.
  bool uses_leases() const { return !node_.empty(); }
  const RoomServices& services() const { return services_; }

 private:
  struct Entry {
    std::shared_ptr<Room> room;
    std::string creator;  // an address key; empty for a room restored from the store
  };
  std::shared_ptr<Room> held(const std::string& code) const;
  // Rebuilds one stored room and keeps it; null (the room set aside, or
  // gone) when it cannot be.
  std::shared_ptr<Room> rebuild(const StoredRoom& stored, Store& store, std::string* problem);
  // A room looked up with leases (use_leases), from first try to answer.
  struct Lookup;
  // Hands the lookup's outcome to its settle, and what that returns to an
  // I/O thread.
  static void finish(std::shared_ptr<Registry> self, std::shared_ptr<Lookup> lookup,
                     std::optional<protocol::Error> error);
  // Whether `code` is a class event's (LeasedEvents): held_codes, lost and
  // hand_over pass those on.
  static bool event_code(const std::string& code);
  // One try of a lookup, on a lookup thread: takes the lease (asking the
  // owner the first time) and answers, or tries again after a pause.
  static void attempt(std::shared_ptr<Registry> self, std::shared_ptr<Lookup> lookup);
  // True if the code is closed here or kept by a room set aside.
  bool refused(const std::string& code) const;
  // Rebuilds the stored room (whose lease, with leases, this node holds);
  // null if there is none.
  std::shared_ptr<Room> load(const std::string& code);
  // Removes the room from the maps without marking it closed; null if not held.
  std::shared_ptr<Room> let_go(const std::string& code);
  // The lobby of the rooms held here, at most `limit`.
  std::vector<protocol::LobbyRoom> held_lobby(std::size_t limit) const;
  // `held` followed by the stored rooms not held or closed here, at most `limit`.
  std::vector<protocol::LobbyRoom> with_stored(std::vector<protocol::LobbyRoom> held,
                                               const std::vector<protocol::LobbyRoom>& stored, std::size_t limit) const;
  // On a lookup thread: reads the listed, waiting, not full rooms in the
  // store, newest first, then answers every lobby request waiting for it.
  void read_stored_lobby();

  const RoomServices services_;
  DailyRestored daily_restored_;  // on_daily_restored
  Store* on_demand_ = nullptr;
  std::string node_;                 // use_leases: empty without leases
  std::chrono::milliseconds lease_ttl_{0};
  // The threads of lookups with leases: a few suffice, since they only make
  // store round trips (each waits on a timer between tries, on no thread).
  static constexpr std::size_t kLookupThreads = 2;
  // The longest pause between a lookup's tries of the lease (they start at
  // 10 ms and double): a room released by its owner is taken about this soon.
  static constexpr std::chrono::milliseconds kLookupMaxPause{20};
  // How often a lookup asks the same holder again (Registry::attempt).
  static constexpr std::chrono::milliseconds kAskAgainAfter{500};
  std::unique_ptr<boost::asio::thread_pool> lookups_;  // use_leases
  mutable std::mutex events_mutex_;
  LeasedEvents* events_ = nullptr;  // serve_events
  std::mutex load_mutex_;  // one rebuild at a time
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> rooms_;
  AddressLimits addresses_;  // its own lock, taken under mutex_ (never the other way)
  std::unordered_set<std::string> reserved_;
  // Closed by this process: with rooms loaded on demand, not brought back
  // from a store that may not have committed the closing yet.
  std::unordered_set<std::string> closed_;
  std::vector<std::string> order_;  // codes in creation order, for the lobby
  std::unordered_map<TokenHash, std::weak_ptr<Room>, TokenHashHash> tokens_;  // each seat token's room
  // The stored lobby's last read and the requests waiting for the next;
  // its own lock, never held across the read.
  struct LobbyWaiter {
    std::size_t limit = 0;
    LobbyDone done;
  };
  std::mutex stored_lobby_mutex_;
  std::chrono::steady_clock::time_point stored_lobby_read_{};
  std::vector<protocol::LobbyRoom> stored_lobby_;
  bool stored_lobby_reading_ = false;
  std::vector<LobbyWaiter> lobby_waiters_;
};

}  // namespace gofish::server
