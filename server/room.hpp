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
// The interface is abstract so that Asio stays in room.cpp: this header (and
// the registry and handler that include it) compile without it.
//
// protocol/README.md ("Server contract") is this class's specification. The
// choices it leaves open, and how they are made here:
// - A game starts only when every seat holds a human or a bot (the host fills
//   empty seats with bots), so engine seats are room seats, one to one.
// - A player who drops keeps the seat: the grace period runs from the drop.
//   During a game a bot then plays the seat until the owner resumes; outside
//   a game the seat is freed instead. A game that ends while its owner is
//   still away gives them one more grace period before the seat is freed. A
//   seat left or kicked during a game is played by a bot to the end and freed
//   when the game ends (`seat_left` then says it is free).
// - A resume from the connection that already holds the seat is a resync:
//   the events after last_v, or a snapshot, and no `connection` event.
// - The transcript (of the last finished game) goes to players and
//   spectators alike: every hand is public once a game is over.
// - Rematch votes wait for empty seats to be filled; they start the game as
//   soon as every seat is filled and every connected human has voted.
// - A kicked connection may not sit down in that room again (it may watch).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "protocol/messages.hpp"
#include "server/client.hpp"
#include "server/limits.hpp"
#include "server/metrics.hpp"
#include "server/token.hpp"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace gofish::server {

class Registry;
class Store;
class StoreWriter;
struct StoredRoom;

// What every room shares.
struct RoomServices {
  boost::asio::io_context& io;
  Limits limits;
  std::shared_ptr<Metrics> metrics;
  std::shared_ptr<const TokenHasher> hasher;
  // Null: nothing is written and events go out at once. Otherwise a room's
  // records go through it, and what those records caused is sent only once
  // they are committed (see store.hpp). Outlives every room's strand work.
  StoreWriter* writer = nullptr;
};

class Room {
 public:
  using Clock = std::chrono::steady_clock;

  // A room with these settings and no one in it yet; `create` seats the host.
  static std::shared_ptr<Room> make(const RoomServices& services, std::weak_ptr<Registry> registry,
                                    std::string code, protocol::RoomSettings settings);
  // A room read back from the store on start (store.hpp): its settings,
  // seats and tokens, and its latest game rebuilt by replaying the stored
  // decisions through the engine (each seat's bot fed the seat's events on
  // the way, so bots pick up where they were). Nobody is connected: each
  // human seat's grace period starts afresh, and the bot or turn timer of
  // the seat to act is armed, once the io_context runs. A stored decision
  // the engine refuses is cut from the store with everything after it.
  // A finished game comes back over whoever holds its seats now (a seat may
  // have been freed or taken by someone else since): its players are those
  // kept with its set-up. The room is added to the registry with its
  // tokens. Returns the room, or a sentence saying why it could not be
  // rebuilt (the caller sets the room aside); a StoreError from the store
  // itself propagates.
  static std::variant<std::shared_ptr<Room>, std::string> restore(const RoomServices& services,
                                                                  const std::shared_ptr<Registry>& registry,
                                                                  const StoredRoom& stored, Store& store);
  virtual ~Room() = default;

  virtual const std::string& code() const = 0;

  // The creator takes seat 0 and becomes the host; `request.bots` fill their
  // seats. Replies `created` and a snapshot.
  virtual void create(std::shared_ptr<Client> client, protocol::CreateRoom request,
                      std::optional<protocol::RequestId> id) = 0;
  // Replies `joined` and a snapshot, or an error (and the client is detached).
  virtual void join(std::shared_ptr<Client> client, protocol::Join request,
                    std::optional<protocol::RequestId> id) = 0;
  // `hash` is the keyed hash of `token`, already found in the registry for
  // this room; the room checks it again against its seats. Replies `joined`
  // (resumed) followed by the missed events after `last_v` when the history
  // still holds them all, else by a fresh snapshot.
  virtual void resume(std::shared_ptr<Client> client, std::string token, TokenHash hash,
                      std::optional<std::int64_t> last_v, std::optional<protocol::RequestId> id) = 0;
  // Every room-scoped message: leave, add_bot, remove_bot, kick, start,
  // rematch, ask, answer, declare, chat, transcript. `arrived` is when the
  // frame came in, for the action latency metric.
  virtual void handle(std::shared_ptr<Client> client, protocol::ClientMessage message, Clock::time_point arrived) = 0;
  // The client's connection closed.
  virtual void disconnect(std::shared_ptr<Client> client) = 0;

  // The room's lobby entry while it is listed, waiting and has a free seat;
  // thread-safe (a copy refreshed on the strand after every change).
  virtual std::optional<protocol::LobbyRoom> lobby_entry() const = 0;
};

}  // namespace gofish::server
