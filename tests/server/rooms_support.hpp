// Support for the rooms integration tests: a real server with the rooms
// handler on 127.0.0.1, protocol-level clients, a test player that plays from
// the legal decisions of its own view, and the leak check.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <variant>
#include <vector>

#include "engine/transcript.hpp"
#include "protocol/messages.hpp"
#include "rooms_socket.hpp"
#include "server/app/config.hpp"
#include "server/edge/server.hpp"
#include "server/rooms/metrics.hpp"
#include "server/rooms/rooms_handler.hpp"
#include "server/store/store.hpp"

namespace gofish::server::testing {

using namespace std::chrono_literals;

// test_config() with limits for games driven at full speed: no bot delay, a
// message rate no test player reaches, short grace and expiry.
Config rooms_config();

// A running server with the rooms layer, stopped on destruction.
class RoomsServer {
 public:
  // `writer` (optional) makes the rooms durable through it. As in
  // gofish-server's main, stop() this server, then the writer, before this
  // server is destroyed: the writer's last callbacks may hold the last
  // reference to a room, whose timers belong to this server's io_context.
  explicit RoomsServer(Config config = rooms_config(), RecordSink* writer = nullptr);
  ~RoomsServer();
  // Ends the I/O threads (the rooms and their io_context stay until the
  // destructor).
  void stop();
  std::uint16_t port() const { return port_; }
  Metrics& metrics() { return *metrics_; }
  Server& server() { return *server_; }
  RoomsHandler& handler() { return *handler_; }

 private:
  std::shared_ptr<Metrics> metrics_;
  std::unique_ptr<Server> server_;
  std::shared_ptr<RoomsHandler> handler_;
  std::uint16_t port_ = 0;
};

// The id a server message echoes, if any.
std::optional<protocol::RequestId> id_of(const protocol::ServerMessage& message);
// The room version of an event or snapshot.
std::optional<std::int64_t> version_of(const protocol::ServerMessage& message);
// {"preset":...} rules with `seats` seats and the given bots.
protocol::CreateRoom create_request(std::string name, const std::string& preset, int seats,
                                    std::vector<protocol::BotSpec> bots = {});

// One client connection speaking the protocol. Every frame it receives is
// kept (raw and parsed) for the leak check; frames not yet consumed by
// await() stay unread.
class Peer {
 public:
  struct Frame {
    std::string text;
    protocol::ServerMessage message;
  };

  // Connects and, unless told otherwise, says hello.
  explicit Peer(std::uint16_t port, bool hello = true);

  LiveSocket& socket() { return *socket_; }
  const std::vector<Frame>& frames() const { return frames_; }
  // Class-event messages (protocol::EventServerMessage) are kept apart.
  struct ClassFrame {
    std::string text;
    protocol::EventServerMessage message;
  };
  const std::vector<ClassFrame>& class_frames() const { return class_frames_; }
  // As await(), for the first unread class-event message matching `match`.
  std::optional<protocol::EventServerMessage> await_class(
      const std::function<bool(const protocol::EventServerMessage&)>& match, std::chrono::milliseconds timeout = 5000ms);
  // Sends `body` and returns its reply, which must be a class-event message
  // of type T (throws otherwise, naming what came).
  template <class T>
  T expect_class(protocol::ClientBody body) {
    auto message = class_reply(send(std::move(body)));
    if (auto* value = std::get_if<T>(&message)) return std::move(*value);
    throw std::runtime_error("expected " + std::string(typeid(T).name()) + ", got " +
                             std::string(protocol::message_type(message)));
  }
  std::int64_t last_v() const { return last_v_; }

  // Sends with a fresh integer id; returns it.
  std::int64_t send(protocol::ClientBody body);
  void send_raw(std::string text) { socket_->send(std::move(text)); }

  // Takes every frame already received without waiting; returns how many.
  std::size_t pump();
  // Waits for the first unread message matching `match`, consumes it and
  // returns it; nullopt after `timeout`.
  std::optional<protocol::ServerMessage> await(const std::function<bool(const protocol::ServerMessage&)>& match,
                                               std::chrono::milliseconds timeout = 5000ms);
  // The message answering request `id` (throws after a timeout).
  protocol::ServerMessage reply(std::int64_t id, std::chrono::milliseconds timeout = 5000ms);
  protocol::ServerMessage request(protocol::ClientBody body) { return reply(send(std::move(body))); }
  // The reply must be a T (throws otherwise, naming what came).
  template <class T>
  T expect(protocol::ClientBody body) {
    auto message = request(std::move(body));
    if (auto* value = std::get_if<T>(&message)) return std::move(*value);
    throw std::runtime_error("expected " + std::string(typeid(T).name()) + ", got " + describe(message));
  }
  // The error code answering `body`; throws if the reply is not an error.
  std::string error_of(protocol::ClientBody body);
  // Waits for the next unread room event of type E (skipping others).
  template <class E>
  std::optional<E> await_event(std::chrono::milliseconds timeout = 5000ms) {
    auto message = await(
        [](const protocol::ServerMessage& m) {
          const auto* event = std::get_if<protocol::EventMessage>(&m);
          return event != nullptr && holds<E>(event->event);
        },
        timeout);
    if (!message) return std::nullopt;
    return get<E>(std::get<protocol::EventMessage>(*message).event);
  }
  // Consumes every unread message.
  void clear_unread();
  std::vector<protocol::ServerMessage> unread() const;

  static std::string describe(const protocol::ServerMessage& message);

 private:
  template <class T, class V>
  struct IsAlternative;
  template <class T, class... Ts>
  struct IsAlternative<T, std::variant<Ts...>> : std::disjunction<std::is_same<T, Ts>...> {};
  template <class E>
  static constexpr bool kEngineEvent = IsAlternative<E, engine::Event>::value;

  template <class E>
  static bool holds(const protocol::RoomEvent& event) {
    if constexpr (kEngineEvent<E>) {
      const auto* game = std::get_if<engine::Event>(&event);
      return game != nullptr && std::holds_alternative<E>(*game);
    } else {
      return std::holds_alternative<E>(event);
    }
  }
  template <class E>
  static E get(const protocol::RoomEvent& event) {
    if constexpr (kEngineEvent<E>) {
      return std::get<E>(std::get<engine::Event>(event));
    } else {
      return std::get<E>(event);
    }
  }
  void take(std::string text);
  protocol::EventServerMessage class_reply(std::int64_t id);
  std::vector<ClassFrame> class_frames_;
  std::vector<std::size_t> class_unread_;  // indexes into class_frames_

  std::unique_ptr<LiveSocket> socket_;
  std::vector<Frame> frames_;
  std::vector<std::size_t> unread_;  // indexes into frames_
  std::int64_t next_id_ = 1;
  std::int64_t last_v_ = 0;
};

// A seated test client that plays by itself: whenever a `turn` offers its
// seat legal decisions it sends one of them, chosen at random, once per turn
// version and only while no later game event has been read. At the start,
// on a new connection and after a refusal it resyncs (resume with its own
// token on its own connection) for a fresh `turn`. Anything unexpected is
// noted in `problems`.
class AutoPlayer {
 public:
  AutoPlayer(std::unique_ptr<Peer> peer, engine::Seat seat, std::string token, std::uint64_t seed);

  Peer& peer() { return *peer_; }
  engine::Seat seat() const { return seat_; }
  const std::string& token() const { return token_; }
  // Reads what has arrived and acts on it.
  void step();
  // Stops acting (a player who walked away) or starts again.
  bool active = true;
  // Refusals are expected (a turn timer may take the turn first).
  bool tolerate_refusals = false;
  // At most this many frames are read per step(): with 1, every frame is a
  // step of its own, the order a slow client (a sanitizer build) may see
  // when frames that were sent together arrive apart.
  std::size_t frames_per_step = std::numeric_limits<std::size_t>::max();
  int games_over() const { return games_over_; }
  int decisions() const { return decisions_; }
  std::vector<std::string> problems;

  // Replaces the connection (after a reconnect); the frames of the old one
  // are kept in `history`.
  void replace_peer(std::unique_ptr<Peer> peer);
  std::vector<std::string> all_frames() const;

 private:
  static std::string describe_error(const protocol::Error& error);

  std::unique_ptr<Peer> peer_;
  std::vector<std::string> history_;
  engine::Seat seat_;
  std::string token_;
  std::mt19937_64 rng_;
  std::size_t seen_ = 0;
  bool dirty_ = true;
  std::optional<std::int64_t> resync_id_;
  std::optional<std::int64_t> decision_id_;
  std::optional<protocol::Turn> last_turn_;
  // The room version of the last game event or snapshot read. A `turn`
  // whose `v` is older was overtaken by a decision (a bot's, a timer's): its
  // legal decisions are from a hand that has changed since. Room-level
  // events (connection, chat, rematch votes) have versions too, but change
  // no hand and are followed by no `turn`, so they do not count.
  std::int64_t game_v_ = 0;
  // The version of the turn the last decision was sent for. A resync repeats
  // the turn of the same version, and that copy can be read after the
  // decision's `ok` but before its events: acting on it again would decide
  // from the hand before the decision.
  std::optional<std::int64_t> acted_v_;
  std::chrono::steady_clock::time_point request_sent_;
  int games_over_ = 0;
  int decisions_ = 0;
};

// A client in a seat, with what the server told it when it sat down.
struct Seated {
  std::unique_ptr<Peer> peer;
  std::string code;
  engine::Seat seat = 0;
  std::string token;
};
// Connects, says hello and creates the room (seat 0, the host).
Seated create_room(std::uint16_t port, const protocol::CreateRoom& request);
// Connects, says hello and joins `code` as a player.
Seated join_room(std::uint16_t port, const std::string& code, const std::string& name);
// Connects, says hello and joins `code` as a spectator.
std::unique_ptr<Peer> watch_room(std::uint16_t port, const std::string& code, const std::string& name);
// An AutoPlayer taking over a seated client.
std::unique_ptr<AutoPlayer> autoplay(Seated seated, std::uint64_t seed);

// The value of one sample in Prometheus text ("name{labels}"), 0 if absent.
double metric_value(const std::string& text, const std::string& sample);

// Steps every player until `done` holds or the timeout passes; false on timeout.
bool drive(const std::vector<AutoPlayer*>& players, const std::function<bool()>& done,
           std::chrono::milliseconds timeout = 20'000ms);

// The leak check, independent of the server's hiding code. The truth comes
// from each game's transcript (deck and decisions, replayed with the engine);
// which room version each engine event got comes from `spectator_frames`,
// the stream of a spectator who watched every game from before its start.
// A viewer may know: its own hand, cards shown at the table (gave,
// lucky_draw, set_laid) and what it drew itself. Every frame the viewer
// received before a game was over must mention no other card, except where a
// card is named as a choice rather than a fact (an ask's card, the pending
// ask, the legal decisions); and any improper decisions it shows (table
// rules, in a `turn` or a snapshot) must be the viewer's own, as the game had
// them at that version, never any for a spectator; and no frame before a game
// is over may carry its deal's seed (a "seed" or "fairness" key: only the
// commitment goes out, docs/FAIRNESS.md). Returns one sentence per problem.
std::vector<std::string> find_leaks(const std::vector<std::string>& viewer_frames, std::optional<engine::Seat> viewer,
                                    const std::vector<std::string>& spectator_frames,
                                    const std::map<int, engine::Transcript>& transcripts);

// The hiding property for class events: a class event's own messages
// (event_created, event_joined, event_state, event_seat, ..., and the
// console's table_view) name no card at all, whoever receives them (a
// pupil, or a teacher without the coaching view), and carry no hand or deck.
// A pupil never receives a table_view; a coaching teacher's table_view
// carries each seat's hand (as many cards as the seat holds) and no other
// card. No event message carries a same-deal round's seed, except the
// teacher's event_state once every table of the round is over (as `deal`'s
// `seed`). One problem per offending frame; other frames are left to find_leaks.
enum class EventAudience { kPupil, kTeacher, kCoach };
std::vector<std::string> find_event_leaks(const std::vector<std::string>& frames, const std::string& who,
                                          EventAudience audience = EventAudience::kPupil);

}  // namespace gofish::server::testing
