// A room: its seats, spectators, settings, the game being played, and the
// versioned log of everything that happened in it.
//
// Each room owns one strand on the server's io_context; everything that
// touches its state (the game, its seats, its timers) runs there, so a room
// needs no lock and rooms run in parallel. Every entry point below may be
// called from any thread: it posts its work to the strand and returns at once.
//
// What a room sends is built from the engine's own hiding: each engine event
// goes through engine::event_for for its audience, snapshots through
// engine::view_of. A public event is encoded once and the bytes shared by
// every seat and spectator; an event with a private twin (a hand dealt, a
// card drawn) is encoded once for its owner and once for everyone else.
//
// The interface is abstract so that Asio stays in the room's own files
// (room_impl.hpp: room.cpp, room_output.cpp, room_presence.cpp): this header
// (and the registry and handler that include it) compile without it. The
// room is built of collaborators, each in its own file and tested on its
// own: seat_table (who sits where), room_log (versions and history),
// durable_outbox (the durability hold), room_fanout (who gets which bytes),
// guarded_timer (its timers), turn_clock (a bot's move or a turn timer),
// room_game (the game and its bots), room_view (snapshots and turns) and
// room_restore (reading it back).
//
// protocol/README.md ("Server contract") is this class's specification. The
// choices it leaves open, and how they are made here:
// - A game starts only when every seat holds a human or a bot (the host fills
//   empty seats with bots), so engine seats are room seats, one to one.
// - A player who drops keeps the seat: the grace period runs from the drop.
//   In a waiting room the seat is freed when it runs out; during a game a
//   bot plays the seat, from its first turn after the grace period, until
//   the owner resumes (from the deal, announced then, when a game starts
//   while they are away); after a game the seat stays the owner's until the
//   room closes. A host who is away past the grace period, or when a game
//   starts, passes the role to the lowest seat whose player is here. A seat left or kicked during a game is played by a bot to
//   the end and freed when the game ends (`seat_left` then says it is free).
// - A resume from the connection that already holds the seat is a resync:
//   the events after last_v, or a snapshot, and no `connection` event.
// - The transcript (of the last finished game) goes to players and
//   spectators alike: every hand is public once a game is over.
// - A rematch starts once every connected player has voted; a seat emptied
//   since the last game gets a medium bot first, so nobody waits for a
//   departed player.
// - A kicked player may not sit down in that room again, by connection,
//   token or name (they may watch).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "protocol/messages.hpp"
#include "server/rooms/client.hpp"
#include "server/rooms/limits.hpp"
#include "server/rooms/metrics.hpp"
#include "server/rooms/room_host.hpp"
#include "server/rooms/timer_source.hpp"
#include "server/store/token.hpp"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace gofish::server {

class RecordSink;
class StoreHealth;
struct RestoredRoom;

// What every room shares.
struct RoomServices {
  boost::asio::io_context& io;
  Limits limits;
  std::shared_ptr<Metrics> metrics;
  std::shared_ptr<const TokenHasher> hasher;
  // Null: nothing is written and events go out at once. Otherwise a room's
  // records go through it, and what those records caused is sent only once
  // they are committed (durable_outbox.hpp). Outlives every room's strand work.
  RecordSink* writer = nullptr;
  // Null: the store never fails and holds no leases. Otherwise what it says
  // of the node's leases decides whether a room may send (may_release), and
  // a failing store refuses new rooms (store_health.hpp).
  const StoreHealth* health = nullptr;
  // The rooms' timers and the clocks they read (timer_source.hpp): the real
  // ones, or a test's.
  std::shared_ptr<const TimerSource> timers = steady_timers();
};

class Room {
 public:
  using Clock = std::chrono::steady_clock;

  // A room with these settings and no one in it yet; `create` seats the host.
  static std::shared_ptr<Room> make(const RoomServices& services, std::weak_ptr<RoomHost> host, std::string code,
                                    protocol::RoomSettings settings);
  // A room rebuilt from the store (room_restore.hpp). Once its host keeps it
  // under its code, `begin_after_restore` registers its tokens and starts
  // what it waits for: nobody is connected, so each human seat's grace
  // period starts afresh, and the bot or turn timer of the seat to act is
  // armed, once the io_context runs.
  static std::shared_ptr<Room> restore(const RoomServices& services, std::weak_ptr<RoomHost> host,
                                       RestoredRoom restored);
  virtual void begin_after_restore() = 0;
  virtual ~Room() = default;

  virtual const std::string& code() const = 0;

  // The creator takes seat 0 and becomes the host; `request.bots` fill their
  // seats. Replies `created` and a snapshot.
  virtual void create(std::shared_ptr<Client> client, protocol::CreateRoom request,
                      std::optional<protocol::RequestId> id) = 0;
  // Replies `joined` and a snapshot, or an error (and the client is detached).
  virtual void join(std::shared_ptr<Client> client, protocol::Join request,
                    std::optional<protocol::RequestId> id) = 0;
  // `hash` is the keyed hash of `token`, already found with the host for
  // this room; the room checks it again against its seats. Replies `joined`
  // (resumed), then the missed events after `last_v` when the history still
  // holds them all and they fit the send queue, else a fresh snapshot; then
  // a `turn`.
  virtual void resume(std::shared_ptr<Client> client, std::string token, TokenHash hash,
                      std::optional<std::int64_t> last_v, std::optional<protocol::RequestId> id) = 0;
  // Every room-scoped message: leave, add_bot, remove_bot, kick, start,
  // rematch, ask, answer, declare, chat, transcript. `arrived` is when the
  // frame came in, for the action latency metric.
  virtual void handle(std::shared_ptr<Client> client, protocol::ClientMessage message, Clock::time_point arrived) = 0;
  // The client's connection closed.
  virtual void disconnect(std::shared_ptr<Client> client) = 0;

  // Another server owns the room now (several servers on one database,
  // their leases: postgres_store.hpp); its host has already let it go.
  // Everyone in it is sent `closing` (moved) and closed, to resume on the
  // new owner; its timers stop and it writes nothing more. With
  // `commit_first` (a handover) what it has written is committed, and then
  // `after` runs; without (its lease is lost, so the store would refuse the
  // rest) what is not committed yet is dropped, unseen, and `after` runs at
  // once. `after` may run on any thread; it may be empty.
  virtual void move_away(bool commit_first, std::function<void()> after) = 0;

  // Whether this node's leases are confirmed (several servers on one
  // store: lease_keeper.hpp). While they are not, the room pauses: it sends
  // nothing of what it does (StoreHealth::may_release), takes no decision
  // and runs no timer, and tells everyone in it; once they are, it sends
  // what waited and goes on.
  virtual void leases_confirmed(bool confirmed) = 0;

  // ---- a table of a class event (server/rooms/event.hpp); room_table.cpp
  //
  // Seats the event's pupils (by name, in seats 0.. of `humans`; nobody
  // connected, each seat under a fresh token nobody knows until hand_seat)
  // and bots of `bots` in the rest, and starts the game at once. With
  // `shared_deal` the deck comes from that seed (every table of a same-deal
  // round, every game of today's deal gets the same one) instead of from
  // the OS.
  struct SharedDeal {
    std::vector<std::uint8_t> seed;  // 32 bytes, whose commitment was announced before
    // When the seed may be revealed (docs/FAIRNESS.md, "Shared deals"):
    // after `day` (today's deal), or when the event says (reveal_deal).
    std::optional<std::string> day;
    std::optional<std::string> event;
    std::optional<int> round;
  };
  struct TableSetup {
    std::vector<std::string> humans;
    protocol::BotLevel bots = protocol::BotLevel::kMedium;
    std::optional<SharedDeal> shared_deal;
    bool paused = false;  // the event's tables are paused: this one starts so
    // Today's deal (daily_deal.hpp): the human of seat 0 is connected
    // already and takes the seat at once, answered as a room's creator is
    // (`created` with `player_request`'s id, then the room), and is the
    // host. Null for a class event's table.
    std::shared_ptr<Client> player;
    std::optional<protocol::RequestId> player_request;
  };
  virtual void open_table(TableSetup setup) = 0;
  // Every table of this table's same-deal round is over: the round's seed
  // may be served in this table's transcript from now on.
  virtual void reveal_deal() = 0;
  // Gives the human in `seat` a fresh seat token (the one before stops
  // working), stored like any seat's, and sends `message` with it to
  // `client` once it is committed: the pupil resumes the seat with it.
  virtual void hand_seat(std::shared_ptr<Client> client, engine::Seat seat, protocol::EventSeat message) = 0;
  // `report` is called (from the room's strand, once what it shows is
  // committed) with the table as a spectator could see it (counts, never a
  // card) now and whenever it changes; with `coaching`, also with every
  // seat's hand (RoomView::coach_hands), else with none.
  using TableReport = std::function<void(protocol::EventTable, std::vector<engine::CardSet>)>;
  virtual void watch(TableReport report, bool coaching) = 0;
  // The event's teacher pauses the table (or lets it go on): the room
  // pauses as when its store fails (room_pause.cpp), with reason "teacher",
  // except that nothing is held back, so players and spectators may still
  // come in (and are told it is paused).
  virtual void pause_table(bool paused) = 0;
  // The event's teacher sets the chat mode of every table: the room keeps
  // it (like its other settings) and tells everyone in it (chat_mode).
  virtual void set_chat(protocol::ChatMode chat) = 0;
  // The event's teacher took the pupil in `seat` off the table (removed
  // them, or handed the seat to a bot): during a game a bot plays the seat
  // to its end, as when a player leaves, and the seat is freed then;
  // between games it is freed at once. Either way its token stops working
  // and the pupil's connection is no longer in the room. Nothing happens if
  // no human holds the seat (so the event may ask again after a restart).
  // Unlike a leave, the table stays open when no human is left at it: the
  // round's game is played to its end.
  virtual void release_seat(engine::Seat seat) = 0;
  // A pupil who came late takes over the bot in `seat` during a game: the
  // seat is theirs (under a fresh token nobody knows until hand_seat), and
  // the bot plays it for them, as for a player who is away, until they
  // take it. Nothing happens unless a bot sits there and a game is in play.
  virtual void seat_late_pupil(engine::Seat seat, std::string name) = 0;
  // Today's deal (daily_deal.hpp): the standing of the game the human in
  // `seat` played, counted and committed. It goes to their connection now
  // if they are here, and again each time they resume the seat with its
  // token while that game is the room's last (a rematch ends it): a reload
  // on the game-over screen still shows it, after a restart too. Only the
  // message is kept, with the room in the store (record::DailyNoteSaved,
  // committed before it is sent), tied to the seat's token hash; nothing
  // happens if the seat has no holder.
  virtual void tell_daily_result(engine::Seat seat, protocol::DailyResult result) = 0;

  // The room's lobby entry while it is listed, waiting and has a free seat;
  // thread-safe (a copy refreshed on the strand after every change).
  virtual std::optional<protocol::LobbyRoom> lobby_entry() const = 0;
};

}  // namespace gofish::server
