// The ConnectionHandler of the rooms layer: parses every client frame once
// (protocol::parse_client_message), answers what needs no room (hello, ping,
// lobby) and hands the rest to the client's room.
//
// - The first message must be a hello naming our protocol version. Before
//   it, a frame that parses to anything else gets protocol/hello_required; a
//   frame that does not parse gets its parse error (bad_json, ...), which says
//   more; a hello for another version gets protocol/version_mismatch.
// - A join or resume may wait for its room (another node may hold it, see
//   RoomDirectory::find) on no thread: the client's later messages wait
//   behind it, and a room that could not be had in time is room/busy, which
//   is no failed join.
// - Every reply and error echoes the request's id. Malformed input gets an
//   error and the connection stays open (the network layer closes floods).
// - A connection is in at most one room at a time (room/already_in_room).
//   A resume on the connection that already holds the seat is a resync: it
//   gets the events after last_v, or a fresh snapshot without last_v.
// - Decisions are made for the connection's own seat: there is no way to
//   name another one. Tokens that do not exist get room/bad_token.
// - On shutdown every connection is sent `closing` before the server closes
//   it, and new rooms are refused (server/shutting_down); the connections
//   closing then leave their rooms as they were.
// - Per client address (Registry, AddressLimits): room creation is
//   rate-limited and the rooms an address holds open are capped
//   (room/too_many_rooms with a sentence saying which); a join whose code
//   names no room (or is no code) and a resume whose token names no seat are
//   failed joins, and once an address is over their rate its joins are
//   refused, right code or not (room/too_many_attempts). Resumes are never
//   refused for it: tokens cannot be guessed.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "protocol/limits.hpp"
#include "protocol/messages.hpp"
#include "server/rooms/client.hpp"
#include "server/rooms/connection.hpp"
#include "server/rooms/daily_deal.hpp"
#include "server/rooms/event_registry.hpp"
#include "server/rooms/limits.hpp"
#include "server/rooms/metrics.hpp"
#include "server/rooms/registry.hpp"
#include "server/rooms/room.hpp"

namespace gofish::server {

class RecordSink;
class Store;
class StoreHealth;

class RoomsHandler : public ConnectionHandler {
 public:
  // `io` (the server's io_context) must outlive the handler and its rooms;
  // Server keeps the handler until its I/O threads have stopped.
  // `hasher` hashes seat tokens; null makes one with a fresh key (a durable
  // store passes one keyed by its stored key, so stored hashes stay valid).
  // `writer` (may be null: nothing is kept) must outlive the I/O threads,
  // and so must `health` (may be null: the store never fails), which
  // refuses new rooms while the store fails (server/store_unavailable) and
  // tells rooms whether they may send (server/store/store_health.hpp).
  RoomsHandler(boost::asio::io_context& io, const Limits& limits, std::shared_ptr<Metrics> metrics,
               std::string server_version, std::shared_ptr<const TokenHasher> hasher = nullptr,
               RecordSink* writer = nullptr, const StoreHealth* health = nullptr);

  // Stops the registry's lookup threads (Registry::stop_lookups).
  ~RoomsHandler() override;

  void on_open(const std::shared_ptr<Connection>& connection) override;
  void on_message(const std::shared_ptr<Connection>& connection, std::string_view text) override;
  void on_close(const std::shared_ptr<Connection>& connection) override;
  void on_shutdown(std::function<void()> done) override;

  Registry& registry() { return *registry_; }
  EventRegistry& events() { return *events_; }
  // Every room the handler finds or makes goes through this seam.
  RoomDirectory& directory() { return *registry_; }

  using Restored = Registry::Restored;
  // Rebuilds every open room the store holds (Registry::restore_all); call
  // before the server starts accepting connections. A room that cannot be
  // rebuilt is set aside in the store with the reason, logged at error level
  // ("room CODE set aside: REASON"), and its code is never given to a new
  // room; every other room starts. gofish_rooms_set_aside counts the rooms
  // set aside. Throws StoreError only when the store itself fails.
  Restored restore(Store& store);
  // Brings back every open class event (EventRegistry::restore); call after
  // restore() or load_on_demand(), before serving. Returns how many.
  std::size_t restore_events(Store& store) { return events_->restore(store); }
  // Or: rebuild each room only when someone asks for it, by code or by seat
  // token (--load-rooms on-demand).
  void load_on_demand(Store& store);
  // Today's deal keeps its tallies in `store` (which outlives the handler);
  // until this is called they are kept in memory. Call before restore() or
  // load_on_demand(): a restored day's game not yet counted is watched again.
  void keep_daily_in(Store& store);

 private:
  std::shared_ptr<Client> find_client(std::uint64_t id) const;
  // Handles one frame; true if it began a room lookup, whose answer handles
  // the messages held back meanwhile (looked_up).
  bool handle(const std::shared_ptr<Client>& client, std::string_view text, Room::Clock::time_point arrived);
  bool dispatch(const std::shared_ptr<Client>& client, protocol::ClientMessage message,
                Room::Clock::time_point arrived);
  void dispatch_now(const std::shared_ptr<Client>& client, protocol::ClientMessage& message,
                    Room::Clock::time_point arrived);
  // A join's or resume's room is being looked up (RoomDirectory::find), which
  // may answer later from another thread: the client's messages wait meanwhile.
  void look_up(const std::shared_ptr<Client>& client);
  // The lookup is answered: the held-back messages are handled, in order, or
  // the client is disconnected if its connection closed meanwhile.
  void looked_up(const std::shared_ptr<Client>& client);
  bool closed(const std::shared_ptr<Client>& client);
  void joined(const std::shared_ptr<Client>& client, protocol::Join join, std::optional<protocol::RequestId> id,
              RoomDirectory::Found found);
  void resumed(const std::shared_ptr<Client>& client, protocol::Resume resume, const TokenHash& hash,
               std::optional<protocol::RequestId> id, RoomDirectory::FoundSeat found);

  // On several servers (leases), a room is served with its class when it
  // is a table of an open class (protocol/README.md, "Class events"): a
  // join or resume of such a room, neither it nor its class held here, is
  // answered room/class_table with the class's code to route by, unless the
  // socket was routed by that code already (this is then the class's
  // server behind the proxy), which takes the class over first, its tables
  // with it. `held`: the room is held here. `room_of` names the room in the
  // store. `then` runs with nothing when the room is to be looked up as any
  // room, or with the error to answer.
  void serve_with_class(const std::shared_ptr<Client>& client, bool held,
                        std::function<std::optional<std::string>(Store&)> room_of,
                        std::function<void(std::optional<protocol::Error>)> then);

  const Limits limits_;
  const protocol::Welcome welcome_;
  std::shared_ptr<Registry> registry_;
  std::unique_ptr<EventRegistry> events_;

  std::atomic<bool> shutting_down_{false};  // no new rooms once set
  mutable std::mutex clients_mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<Client>> clients_;
  // Last, so it goes first: its thread's last answers still find the handler whole.
  std::shared_ptr<DailyDeal> daily_;
};

}  // namespace gofish::server
