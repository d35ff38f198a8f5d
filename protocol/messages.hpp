// Every message of the wire protocol, as typed values (protocol/README.md is
// the reference a client is written from).
//
// Client frames are parsed once, at the edge, into ClientMessage: a closed
// set of small structs whose fields are already checked against ParseLimits
// (names trimmed, codes normalised, rules validated), so the rooms layer
// never sees JSON or an unchecked value. Server messages are built as structs
// and encoded to a string once, to be shared by every recipient.
//
// Room events carry engine events AS THE VIEWER SEES THEM: the rooms layer
// passes each engine event through engine::event_for first, so hiding stays
// in the engine; this library only spells what it is given.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/bot_level.hpp"
#include "engine/card.hpp"
#include "engine/event.hpp"
#include "engine/improper_decisions.hpp"
#include "engine/rules.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"
#include "protocol/errors.hpp"
#include "protocol/fairness_json.hpp"
#include "protocol/limits.hpp"

namespace gofish::protocol {

// ---------------------------------------------------------------- small enums

// The engine's bot levels, spelled "easy", "medium", "hard" (engine/bot.hpp).
using BotLevel = engine::BotLevel;
using engine::parse_bot_level;
enum class ChatMode { kFree, kPhrases, kOff };
// How long the room's bots think before they move, against the server's bot
// delay: twice as long, as long, or two fifths of it.
enum class BotPace { kRelaxed, kNormal, kQuick };
std::string_view to_string(BotPace pace);  // "relaxed", "normal", "quick"
enum class JoinAs { kPlayer, kSpectator };
enum class RoomState { kWaiting, kPlaying, kOver };
// Why a room closed (the `room_closed` message).
enum class RoomClosedReason {
  kPlayersLeft,  // no player holds a seat any more
  kIdle,         // nobody was connected for the room's expiry time
};
// Why a room paused (the `room_paused` message).
enum class PauseReason {
  kSavingFailed,      // the store refused or failed a write; it is tried again
  kStoreUnreachable,  // this server cannot reach the store to confirm it still holds the room
  kTeacher,           // the table is a class event's, and its teacher paused every table
};
enum class Occupant { kEmpty, kHuman, kBot };
enum class TakeoverReason {
  kDisconnected,  // until the seat's owner reconnects
  kTimeout,       // one move, because the turn timer ran out
  kLeft,          // for the rest of the game: the owner left
  kKicked,        // for the rest of the game: the host removed the owner
};

std::string_view to_string(ChatMode mode);     // "free", "phrases", "off"
std::string_view to_string(JoinAs as);         // "player", "spectator"
std::string_view to_string(RoomState state);   // "waiting", "playing", "over"
std::string_view to_string(Occupant occupant);  // "empty", "human", "bot"
std::string_view to_string(TakeoverReason reason);  // "disconnected", "timeout", "left", "kicked"
std::string_view to_string(RoomClosedReason reason);  // "players_left", "idle"
std::string_view to_string(PauseReason reason);       // "saving_failed", "store_unreachable", "teacher"
std::optional<ChatMode> parse_chat_mode(std::string_view text);

// ------------------------------------------------------------ client messages

struct Hello {
  int protocol = kProtocolVersion;
  std::string client;  // free-form, "web/0.1"; may be empty
  friend bool operator==(const Hello&, const Hello&) = default;
};

// What a room is set up with. Also sent back in every room snapshot.
struct RoomSettings {
  engine::Rules rules;  // validated, and playable with `seats` seats
  int seats = 4;        // 2..6
  int turn_timer_seconds = 0;  // 0: none
  bool spectators = true;
  bool listed = false;  // shown in the lobby while waiting
  ChatMode chat = ChatMode::kFree;
  BotPace bot_pace = BotPace::kNormal;
  friend bool operator==(const RoomSettings&, const RoomSettings&) = default;
};

struct BotSpec {
  engine::Seat seat = 1;
  BotLevel level = BotLevel::kMedium;
  friend bool operator==(const BotSpec&, const BotSpec&) = default;
};

// The creator takes seat 0 and becomes the host. Bots sit in distinct seats
// 1..seats-1 (checked by the parser).
struct CreateRoom {
  std::string name;
  RoomSettings settings;
  std::vector<BotSpec> bots;
  friend bool operator==(const CreateRoom&, const CreateRoom&) = default;
};

struct Join {
  std::string code;  // normalised: is_room_code(code)
  std::string name;
  JoinAs as = JoinAs::kPlayer;
  friend bool operator==(const Join&, const Join&) = default;
};

struct Resume {
  std::string token;                  // is_token(token)
  std::optional<std::int64_t> last_v;  // the last room version the client saw
  friend bool operator==(const Resume&, const Resume&) = default;
};

struct Leave {
  friend bool operator==(const Leave&, const Leave&) = default;
};
struct Lobby {
  friend bool operator==(const Lobby&, const Lobby&) = default;
};
struct AddBot {
  std::optional<engine::Seat> seat;  // empty: the first free seat
  BotLevel level = BotLevel::kMedium;
  friend bool operator==(const AddBot&, const AddBot&) = default;
};
struct RemoveBot {
  engine::Seat seat = 0;  // 0..5; the rooms layer checks it against the table
  friend bool operator==(const RemoveBot&, const RemoveBot&) = default;
};
struct Kick {
  engine::Seat seat = 0;
  friend bool operator==(const Kick&, const Kick&) = default;
};
struct Start {
  friend bool operator==(const Start&, const Start&) = default;
};
struct Rematch {
  friend bool operator==(const Rematch&, const Rematch&) = default;
};
// An ask for a rank (rank presets) or a named card (card presets).
struct Ask {
  engine::Seat target = 0;
  std::variant<engine::Rank, engine::Card> what;
  friend bool operator==(const Ask&, const Ask&) = default;
};
struct Answer {  // table rules: the asked seat's reply
  bool give = true;
  friend bool operator==(const Answer&, const Answer&) = default;
};
struct Declare {  // table rules: lay down a set
  engine::Rank rank = 0;
  friend bool operator==(const Declare&, const Declare&) = default;
};
// Exactly one of the two is non-empty: free text (normalised), or the id of
// one of chat_phrases().
struct Chat {
  std::string text;
  std::string phrase;
  friend bool operator==(const Chat&, const Chat&) = default;
};
struct GetTranscript {
  friend bool operator==(const GetTranscript&, const GetTranscript&) = default;
};
struct Ping {
  friend bool operator==(const Ping&, const Ping&) = default;
};


// ------------------------------------------------------- class events (client)
//
// A class event (protocol/README.md, "Class events"): a teacher's session
// with one join code, its pupils, and rounds played at tables, each table an
// ordinary room the event creates.

// What an event is set up with; also in every `event_state`.
struct EventSettings {
  engine::Rules rules;          // validated, playable with table_size seats
  int table_size = 4;           // 2..6 seats at each table
  BotLevel bots = BotLevel::kMedium;  // the bots that fill the seats pupils leave empty
  ChatMode chat = ChatMode::kPhrases;
  int turn_timer_seconds = 0;   // 0: none
  int rounds = 1;               // 1..kMaxEventRounds
  bool same_deal = false;       // every table of a round is dealt the same deck
  bool coaching = false;        // the teacher may see the tables' hands (pupils are told)
  // A pupil who joins (or has no seat) while a round is in play takes over a
  // seat a bot has held since that round began (allow_late changes it).
  bool late_pupils = true;
  friend bool operator==(const EventSettings&, const EventSettings&) = default;
};
inline constexpr int kMaxEventRounds = 20;
inline constexpr std::size_t kMaxRosterNames = 120;  // also the most pupils an event takes

// The teacher creates an event; the connection becomes the teacher's.
struct CreateEvent {
  std::string name;  // the event's name, checked as a display name
  EventSettings settings;
  std::vector<std::string> roster;  // pupils' names, distinct; empty: pupils type their own
  friend bool operator==(const CreateEvent&, const CreateEvent&) = default;
};
// A pupil joins with the code and a name (a roster name, or any valid name
// without a roster), or comes back with the code and their pupil token.
// Exactly one of `name` and `token` is non-empty.
struct JoinEvent {
  std::string code;  // is_event_code(code)
  std::string name;
  std::string token;
  friend bool operator==(const JoinEvent&, const JoinEvent&) = default;
};
// The teacher comes back (reload, another device) with the teacher token.
struct ResumeEvent {
  std::string code;
  std::string token;
  friend bool operator==(const ResumeEvent&, const ResumeEvent&) = default;
};
// Teacher commands.
struct SeatPupils {  // seat every pupil at balanced tables for the next round
  friend bool operator==(const SeatPupils&, const SeatPupils&) = default;
};
struct MovePupil {  // before a round: move one pupil to another table
  int pupil = 0;
  int table = 0;
  friend bool operator==(const MovePupil&, const MovePupil&) = default;
};
struct FreeName {  // a roster name claimed by the wrong pupil becomes free again
  int pupil = 0;
  friend bool operator==(const FreeName&, const FreeName&) = default;
};
struct StartRound {
  friend bool operator==(const StartRound&, const StartRound&) = default;
};
struct EndRound {
  friend bool operator==(const EndRound&, const EndRound&) = default;
};
// Anyone after hello, before joining: the event's name and roster, so a
// pupil can tap their name. Not a teacher command.
struct ReadRoster {
  std::string code;  // is_event_code(code)
  friend bool operator==(const ReadRoster&, const ReadRoster&) = default;
};
struct PauseTables {  // every table of the round in play pauses
  friend bool operator==(const PauseTables&, const PauseTables&) = default;
};
struct ResumeTables {  // and goes on
  friend bool operator==(const ResumeTables&, const ResumeTables&) = default;
};
struct MessageTables {  // a line of text to every pupil in the event
  std::string text;     // normalised as chat text is
  friend bool operator==(const MessageTables&, const MessageTables&) = default;
};
inline constexpr std::size_t kMaxTeacherMessageChars = 200;
struct SetChat {  // the event's chat mode, and every table's in the round in play
  ChatMode chat = ChatMode::kPhrases;
  friend bool operator==(const SetChat&, const SetChat&) = default;
};
struct ReadResults {  // the results so far: answered with event_results
  friend bool operator==(const ReadResults&, const ReadResults&) = default;
};
struct RemovePupil {  // the pupil leaves the event; a bot plays their seat in the round in play
  int pupil = 0;
  friend bool operator==(const RemovePupil&, const RemovePupil&) = default;
};
struct SeatToBot {  // a bot plays the pupil's seat for the rest of the round; they wait for the next
  int pupil = 0;
  friend bool operator==(const SeatToBot&, const SeatToBot&) = default;
};
struct AllowLate {  // EventSettings::late_pupils
  bool allow = true;
  friend bool operator==(const AllowLate&, const AllowLate&) = default;
};
struct WatchTable {  // the teacher's connection is sent table_view of this table; none: no more
  std::optional<int> table;
  friend bool operator==(const WatchTable&, const WatchTable&) = default;
};

// Today's deal (protocol/README.md, "Today's deal"): the day's deck against
// three bots, and how the day's games compare. Anyone after hello.
struct PlayDaily {  // answered as create_room is (created, then the room), the game dealt at once
  std::string name;
  friend bool operator==(const PlayDaily&, const PlayDaily&) = default;
};
struct ReadDaily {  // answered with daily: how many played today, and the best
  friend bool operator==(const ReadDaily&, const ReadDaily&) = default;
};

// A seated human's random value for the next deal (docs/FAIRNESS.md): hex
// of 16 to 32 bytes, once per commitment, before the game starts.
struct Contribute {
  std::string value;
  friend bool operator==(const Contribute&, const Contribute&) = default;
};

using ClientBody =
    std::variant<Hello, CreateRoom, Join, Resume, Leave, Lobby, AddBot, RemoveBot, Kick, Start, Rematch, Ask, Answer,
                 Declare, Chat, GetTranscript, Ping, CreateEvent, JoinEvent, ResumeEvent, SeatPupils, MovePupil,
                 FreeName, StartRound, EndRound, ReadRoster, PauseTables, ResumeTables, MessageTables, SetChat,
                 ReadResults, RemovePupil, SeatToBot, AllowLate, WatchTable, PlayDaily, ReadDaily, Contribute>;
// True for the messages only an event's teacher may send.
bool is_teacher_command(const ClientBody& body);

struct ClientMessage {
  std::optional<RequestId> id;
  ClientBody body;
  friend bool operator==(const ClientMessage&, const ClientMessage&) = default;
};

// "create_room": the message's `type` on the wire.
std::string_view message_type(const ClientBody& body);
// Every client message type, in ClientBody order.
std::span<const std::string_view> client_message_types();

// Never throws, whatever the frame holds. On error the result carries the
// request's id when one could be read, so the error can echo it.
std::variant<ClientMessage, Error> parse_client_message(std::string_view frame, const ParseLimits& limits = {});
// For clients written in C++ (terminal client, load generator) and tests.
std::string encode_client_message(const ClientMessage& message);

// The engine decision an ask, answer or declare stands for, made by `seat`;
// nullopt for every other message.
std::optional<engine::Decision> decision_of(const ClientBody& body, engine::Seat seat);
// The other way: the message a client sends a decision as (ask, answer or
// declare), for clients that decide with the engine's bots.
ClientBody request_for(const engine::Decision& decision);

// ------------------------------------------------------------ server messages

// What the client should respect: a view of the server's configured limits,
// filled field by field by server::welcome_limits (server/rooms/limits.hpp), or read
// from a welcome. It holds no defaults of its own (the zeros only keep a
// default-constructed message determinate): the defaults are typed once, in
// protocol::ParseLimits and server::Limits.
struct WelcomeLimits {
  std::int64_t max_frame_bytes = 0;
  double messages_per_second = 0;
  std::int64_t message_burst = 0;
  double chats_per_second = 0;
  std::int64_t chat_burst = 0;
  std::int64_t max_name_chars = 0;
  std::int64_t max_chat_chars = 0;
  std::int64_t max_id_bytes = 0;
  std::int64_t min_turn_timer_seconds = 0;
  std::int64_t max_turn_timer_seconds = 0;
  std::int64_t max_spectators = 0;
  std::int64_t idle_timeout_ms = 0;
  std::int64_t seat_grace_ms = 0;
  // The rate and burst a client should keep its own bucket at: a margin
  // under messages_per_second and message_burst, chosen by the server
  // (server::welcome_limits). 0 when the welcome had none (a server from
  // before these fields); a client then picks a margin of its own.
  double pace_messages_per_second = 0;
  std::int64_t pace_message_burst = 0;
  friend bool operator==(const WelcomeLimits&, const WelcomeLimits&) = default;
};

// Also lists the presets, the chat phrases and the room code format (static
// tables, encoded every time, not held here).
struct Welcome {
  std::optional<RequestId> id;
  std::string server = "gofish";
  std::string version;  // the server's version, kVersion ("0.1.0")
  int protocol = kProtocolVersion;
  WelcomeLimits limits;
  friend bool operator==(const Welcome&, const Welcome&) = default;
};

struct Ok {
  std::optional<RequestId> id;
  friend bool operator==(const Ok&, const Ok&) = default;
};

// The reply to create_room; sent only to the creator (it holds the token).
struct Created {
  std::optional<RequestId> id;
  std::string code;
  engine::Seat seat = 0;
  std::string token;
  friend bool operator==(const Created&, const Created&) = default;
};

// The reply to join and resume; sent only to that client.
struct Joined {
  std::optional<RequestId> id;
  std::string code;
  JoinAs as = JoinAs::kPlayer;
  std::optional<engine::Seat> seat;  // empty for spectators
  std::string token;                 // empty for spectators
  bool resumed = false;              // true for the reply to resume
  friend bool operator==(const Joined&, const Joined&) = default;
};

struct SeatInfo {
  Occupant occupant = Occupant::kEmpty;
  std::string name;              // empty for an empty seat
  std::optional<BotLevel> bot;   // a bot's level; for a human, the level of a bot playing for them
  bool connected = false;        // a human with a live connection
  bool bot_playing = false;      // a bot plays for this human (disconnected, left or kicked)
  bool kicked = false;           // the host removed this human during the game
  bool rematch = false;          // asked for a rematch of the game that is over
  friend bool operator==(const SeatInfo&, const SeatInfo&) = default;
};

struct Player {
  std::string name;
  std::optional<BotLevel> bot;
  friend bool operator==(const Player&, const Player&) = default;
};

struct TurnTimer {
  engine::Seat seat = 0;          // whose decision the timer is for
  int seconds = 0;                // the room's timer length
  std::int64_t deadline_ms = 0;   // server time, milliseconds since the Unix epoch
  friend bool operator==(const TurnTimer&, const TurnTimer&) = default;
};

// Everything one viewer may know about a room, at room version `v`.
struct RoomSnapshot {
  std::optional<RequestId> id;
  std::int64_t v = 0;
  std::string code;
  RoomSettings settings;
  engine::Seat host = 0;
  std::vector<SeatInfo> seats;  // one per seat, settings.seats of them
  int spectators = 0;
  RoomState state = RoomState::kWaiting;
  std::optional<engine::Seat> you;  // the viewer's seat; empty for a spectator
  int game_number = 0;              // games started in this room so far
  // Who plays (or played) the current or last game, by seat: the names the
  // score table and the replay use, whoever holds the seats now. Empty
  // before the first game.
  std::vector<Player> players;
  std::optional<engine::View> game;  // when a game exists: view_of(game, viewer)
  std::optional<engine::GameOver> result;  // when state is over
  std::optional<TurnTimer> timer;          // when a turn timer is running
  // The commitment to the next deal's seed (docs/FAIRNESS.md): never the
  // seed. Empty while a game is played.
  std::optional<DealFairness> next_deal;
};

// --- room events (the versioned log) ---

struct SeatJoined {  // a human took a seat
  engine::Seat seat = 0;
  std::string name;
  friend bool operator==(const SeatJoined&, const SeatJoined&) = default;
};
struct SeatLeft {  // a human left; before a game the seat is free again
  engine::Seat seat = 0;
  std::string name;
  friend bool operator==(const SeatLeft&, const SeatLeft&) = default;
};
struct BotAdded {
  engine::Seat seat = 0;
  BotLevel level = BotLevel::kMedium;
  std::string name;
  friend bool operator==(const BotAdded&, const BotAdded&) = default;
};
struct BotRemoved {
  engine::Seat seat = 0;
  friend bool operator==(const BotRemoved&, const BotRemoved&) = default;
};
struct Kicked {
  engine::Seat seat = 0;
  std::string name;
  friend bool operator==(const Kicked&, const Kicked&) = default;
};
struct ConnectionChanged {
  engine::Seat seat = 0;
  bool connected = false;
  friend bool operator==(const ConnectionChanged&, const ConnectionChanged&) = default;
};
struct SpectatorsChanged {
  int count = 0;
  friend bool operator==(const SpectatorsChanged&, const SpectatorsChanged&) = default;
};
struct HostChanged {
  engine::Seat seat = 0;
  friend bool operator==(const HostChanged&, const HostChanged&) = default;
};
// A game begins (the first, or a rematch); the engine's deal events follow.
struct NewGame {
  int game = 1;
  std::vector<Player> players;  // by seat
  friend bool operator==(const NewGame&, const NewGame&) = default;
};
struct BotTakeover {
  engine::Seat seat = 0;
  TakeoverReason reason = TakeoverReason::kDisconnected;
  BotLevel level = BotLevel::kMedium;
  friend bool operator==(const BotTakeover&, const BotTakeover&) = default;
};
struct RematchVote {
  engine::Seat seat = 0;
  std::vector<engine::Seat> ready;  // every seat that has asked for a rematch so far
  friend bool operator==(const RematchVote&, const RematchVote&) = default;
};
struct ChatPosted {
  std::optional<engine::Seat> seat;  // empty for a spectator
  std::string name;
  std::string text;    // free text, or
  std::string phrase;  // a phrase id (the text is in chat_phrases())
  friend bool operator==(const ChatPosted&, const ChatPosted&) = default;
};

// The room's chat mode changed (a class event's teacher set it for every
// table): chat lines are checked against `chat` from now on.
struct ChatModeChanged {
  ChatMode chat = ChatMode::kFree;
  friend bool operator==(const ChatModeChanged&, const ChatModeChanged&) = default;
};

// A game is over and the next deal is committed to (docs/FAIRNESS.md): its
// seed's SHA-256, never the seed; seated humans may contribute from now on.
struct DealCommitted {
  std::string algorithm = kDealAlgorithm;
  std::string commitment;
  friend bool operator==(const DealCommitted&, const DealCommitted&) = default;
};

using RoomEvent = std::variant<engine::Event, SeatJoined, SeatLeft, BotAdded, BotRemoved, Kicked, ConnectionChanged,
                               SpectatorsChanged, HostChanged, NewGame, BotTakeover, TurnTimer, RematchVote, ChatPosted,
                               ChatModeChanged, DealCommitted>;

// `{"type":"event","v":17,"event":{...}}`
struct EventMessage {
  std::int64_t v = 0;
  RoomEvent event;
};

// The wire `type` of an event: "drew", "seat_joined", ...
std::string_view event_type(const RoomEvent& event);
std::string_view event_type(const engine::Event& event);

struct LobbyRoom {
  std::string code;
  std::string host;    // the host's name
  std::string preset;  // settings.rules.preset
  int seats = 0;
  int taken = 0;  // seats with a human or a bot
  int bots = 0;
  bool spectators = true;
  int turn_timer_seconds = 0;
  ChatMode chat = ChatMode::kFree;
  friend bool operator==(const LobbyRoom&, const LobbyRoom&) = default;
};
struct LobbyList {
  std::optional<RequestId> id;
  std::vector<LobbyRoom> rooms;
  friend bool operator==(const LobbyList&, const LobbyList&) = default;
};

// A finished game's transcript (TRANSCRIPT.md), with who sat where as the
// extra field "seats".
struct TranscriptMessage {
  std::optional<RequestId> id;
  std::string code;
  int game = 1;
  engine::Transcript transcript;
  std::vector<Player> players;
  // Where the server keeps finished games: the id GET
  // /api/games/<game_id>/transcript serves this transcript under.
  std::optional<std::string> game_id;
  // The deal's commitment, seed and contributions (docs/FAIRNESS.md); games
  // dealt before gofish-deal/1 have none.
  std::optional<DealFairness> fairness;
  friend bool operator==(const TranscriptMessage&, const TranscriptMessage&) = default;
};

// The `transcript` object of a TranscriptMessage, alone: the transcript
// with the seats' names. GET /api/games/<game_id>/transcript serves exactly
// this, so the message and the HTTP API have one shape.
std::string transcript_document(const engine::Transcript& transcript, const std::vector<Player>& players,
                                const std::optional<DealFairness>& fairness = std::nullopt);

struct Pong {
  std::optional<RequestId> id;
  friend bool operator==(const Pong&, const Pong&) = default;
};

// Sent to everyone in the room after the events of every decision and of a
// game's start, and to a resuming client after its replay or snapshot: what
// came before it is complete, and it says who is to act. `legal` is in the
// copy sent to the seat that is to act and in no other (it reveals that
// seat's hand). Not a room event: it has no version of its own.
struct Turn {
  std::int64_t v = 0;                           // the room version it follows
  std::optional<engine::Seat> seat;             // the seat to act; empty when no game is in play
  std::optional<engine::LegalDecisions> legal;  // only for the seat to act
  // Table rules: the receiving seat's own decisions that are accepted with a
  // penalty (any seat in play, to act or not); never in anyone else's copy.
  std::optional<engine::ImproperDecisions> improper = std::nullopt;
  friend bool operator==(const Turn&, const Turn&) = default;
};

// The room has closed: sent to everyone still in it, who are then in no room
// (the connection stays open). Seat tokens of the room stop working.
struct RoomClosed {
  std::string code;
  RoomClosedReason reason = RoomClosedReason::kIdle;
  std::string message;
  friend bool operator==(const RoomClosed&, const RoomClosed&) = default;
};

// The room has paused: what it did last is not saved yet (the store failed
// a write, or this server cannot reach the store), and the server keeps
// trying. Sent at once to everyone in the room, outside the room's versions;
// until `room_resumed` the room takes no decision, chat or change of seats
// (room/paused) and runs no bot or timer, and nothing it did after its last
// saved moment is sent.
struct RoomPaused {
  std::string code;
  PauseReason reason = PauseReason::kSavingFailed;
  std::string message;
  friend bool operator==(const RoomPaused&, const RoomPaused&) = default;
};

// Play goes on: everything the room did is saved, and whatever waited for it
// has been sent before this.
struct RoomResumed {
  std::string code;
  std::string message;
  friend bool operator==(const RoomResumed&, const RoomResumed&) = default;
};

// Sent just before the server closes the connection, when it can.
struct Closing {
  CloseReason reason = CloseReason::kShuttingDown;
  std::string message;
  friend bool operator==(const Closing&, const Closing&) = default;
};


// ------------------------------------------------------- class events (server)

enum class EventPhase { kOpen, kPlaying, kClosed };  // "open", "playing", "closed"
std::string_view to_string(EventPhase phase);

struct EventPupil {
  int id = 0;  // the pupil's number in the event, from 0
  std::string name;
  bool claimed = false;    // someone joined under this name (always, without a roster)
  bool connected = false;  // a connection of theirs is in the event now
  std::optional<int> table;          // where they sit (or will, once seated) this round
  std::optional<engine::Seat> seat;
  // The teacher handed their seat in the round in play to a bot
  // (seat_to_bot): no table until the next round seats them.
  bool unseated = false;
  friend bool operator==(const EventPupil&, const EventPupil&) = default;
};

// One seat of a table as anyone watching the room could see it: counts only.
struct EventTableSeat {
  Occupant occupant = Occupant::kEmpty;
  std::string name;
  std::optional<int> pupil;      // the event's pupil in this seat
  std::optional<BotLevel> bot;   // a bot's level
  bool connected = false;
  bool bot_playing = false;      // a bot plays for the pupil (away)
  int cards = 0;                 // cards in hand
  int sets = 0;                  // sets laid
  std::vector<engine::Rank> ranks{};  // the ranks of the sets laid, in order (sets are public)
  friend bool operator==(const EventTableSeat&, const EventTableSeat&) = default;
};

struct EventTable {
  int table = 0;
  std::string room;  // the table's room code
  RoomState state = RoomState::kWaiting;
  std::vector<EventTableSeat> seats;
  std::optional<engine::Seat> turn;  // whose decision is awaited, while playing
  int pond = 0;                      // cards left to draw
  std::optional<std::string> game_id;  // the finished game, for its transcript
  friend bool operator==(const EventTable&, const EventTable&) = default;
};

struct EventState {
  std::string code;
  std::string name;
  EventSettings settings;
  EventPhase state = EventPhase::kOpen;
  int round = 0;  // rounds started so far
  bool paused = false;  // the teacher paused every table (pause_tables)
  std::vector<EventPupil> pupils;
  std::vector<EventTable> tables;  // the current (or last) round's, or the planned seating
  // A same-deal event (docs/FAIRNESS.md, "Shared deals"): the commitment to
  // the next round's seed, announced before that round deals; and the round
  // in play's (or the last round's), with its seed once every table is over.
  std::optional<DealFairness> next_deal;
  std::optional<DealFairness> deal;
  friend bool operator==(const EventState&, const EventState&) = default;
};

// The reply to create_event, to the teacher alone (it holds the token).
struct EventCreated {
  std::optional<RequestId> id;
  std::string code;
  std::string token;
  EventState event;
  friend bool operator==(const EventCreated&, const EventCreated&) = default;
};
// The reply to join_event, to that pupil alone.
struct EventJoined {
  std::optional<RequestId> id;
  std::string code;
  std::string name;  // the event's name
  std::string token;  // the pupil token; empty in the reply to a comeback
  bool resumed = false;
  EventPupil pupil;
  int round = 0;
  bool coaching = false;  // the teacher can see the pupils' cards
  std::optional<DealFairness> next_deal;  // a same-deal event: the next round's commitment
  friend bool operator==(const EventJoined&, const EventJoined&) = default;
};
// The event as its teacher's console sees it: the reply to resume_event and
// pushed to the teacher whenever it changes.
struct EventStateMessage {
  std::optional<RequestId> id;
  EventState event;
  friend bool operator==(const EventStateMessage&, const EventStateMessage&) = default;
};
// To a pupil: where to sit. `token` is a seat token of `room`: the pupil
// sends `resume` with it to take the seat (as after a reconnect).
struct EventSeat {
  std::string event;
  int round = 0;
  int table = 0;
  std::string room;
  engine::Seat seat = 0;
  std::string token;
  bool coaching = false;  // the teacher can see this table's hands
  std::optional<DealFairness> next_deal;  // a same-deal event with a round to come: its commitment
  friend bool operator==(const EventSeat&, const EventSeat&) = default;
};
// The reply to read_roster.
struct EventRosterName {
  std::string name;
  bool claimed = false;
  friend bool operator==(const EventRosterName&, const EventRosterName&) = default;
};
struct EventRoster {
  std::optional<RequestId> id;
  std::string code;
  std::string name;       // the event's name
  bool roster = false;    // false: pupils type their names
  std::vector<EventRosterName> names;  // empty without a roster
  bool coaching = false;
  EventPhase state = EventPhase::kOpen;
  friend bool operator==(const EventRoster&, const EventRoster&) = default;
};
// The teacher's message_tables, to every pupil connected to the event.
struct EventTeacherMessage {
  std::string text;
  friend bool operator==(const EventTeacherMessage&, const EventTeacherMessage&) = default;
};

// To every connection of a pupil who is no longer in the event
// ("removed": remove_pupil); the connection is out of the event.
struct EventLeft {
  std::string reason;
  friend bool operator==(const EventLeft&, const EventLeft&) = default;
};
// To every connection of a pupil whose seat in the round in play went to a
// bot ("teacher": seat_to_bot); they are still in the event and wait.
struct EventUnseated {
  std::string reason;
  friend bool operator==(const EventUnseated&, const EventUnseated&) = default;
};

// The teacher's view of one table (watch_table): what a spectator sees,
// and with coaching every seat's hand, from the room's coach view.
struct TableViewSeat {
  engine::Seat seat = 0;
  std::string name;
  std::optional<int> pupil;  // the event's pupil in this seat; none: a bot
  int cards = 0;
  std::vector<engine::Rank> sets;     // the ranks of the sets laid, in order
  std::optional<engine::CardSet> hand;  // only when the event has coaching
  friend bool operator==(const TableViewSeat&, const TableViewSeat&) = default;
};
struct TableView {
  int table = 0;
  std::string room;
  RoomState state = RoomState::kWaiting;
  std::optional<engine::Seat> turn;
  int pond = 0;
  std::vector<TableViewSeat> seats;
  friend bool operator==(const TableView&, const TableView&) = default;
};

// Results (protocol/README.md, "event_results"): names, sets and places,
// never a card beyond the ranks of the sets laid.
struct ResultSeat {
  engine::Seat seat = 0;
  std::string name;
  std::optional<int> pupil;  // none: a bot
  int sets = 0;
  std::vector<engine::Rank> ranks;
  std::optional<int> place;  // once the game is over: 1 = most sets, ties share a place
  // Same deal, game over: sets minus the average at this seat position
  // over the round's finished tables.
  std::optional<double> vs_seat_average;
  friend bool operator==(const ResultSeat&, const ResultSeat&) = default;
};
struct ResultTable {
  int table = 0;
  std::string room;
  std::optional<std::string> game_id;  // the finished game, for its transcript
  bool finished = false;
  std::vector<ResultSeat> seats;
  friend bool operator==(const ResultTable&, const ResultTable&) = default;
};
struct SeatPositionTable {
  int table = 0;
  int sets = 0;
  friend bool operator==(const SeatPositionTable&, const SeatPositionTable&) = default;
};
// Same deal: one seat position (the same cards at every table of the round).
struct SeatPosition {
  engine::Seat seat = 0;
  std::vector<SeatPositionTable> tables;  // the finished tables only
  std::optional<double> average;          // none while no table has finished
  friend bool operator==(const SeatPosition&, const SeatPosition&) = default;
};
struct RoundResults {
  int round = 0;
  std::vector<ResultTable> tables;
  std::vector<SeatPosition> seat_positions;  // empty without the same deal
  friend bool operator==(const RoundResults&, const RoundResults&) = default;
};
struct PupilResults {
  int pupil = 0;
  std::string name;
  int games = 0;  // finished games played
  int sets = 0;   // sets laid in them
  int wins = 0;   // games placed first in (ties included)
  // Same deal: the mean over their finished games of sets minus the seat
  // position's average; none without the same deal or a finished game.
  std::optional<double> vs_seat_average;
  friend bool operator==(const PupilResults&, const PupilResults&) = default;
};
struct EventResults {
  std::optional<RequestId> id;
  std::string code;
  std::string name;
  bool same_deal = false;
  std::vector<RoundResults> rounds;  // round 1 first
  std::vector<PupilResults> pupils;  // every pupil who joined, by number
  friend bool operator==(const EventResults&, const EventResults&) = default;
};

// Today's deal: once the first game of a play_daily room is over and
// counted, its player is told how it compares with the day's other games.
// Nothing personal is kept: the day's tally is a count of games per number
// of sets.
struct DailyResult {
  std::string date;         // "YYYY-MM-DD", UTC: the day whose deck it was
  int sets = 0;             // the player's sets in this game
  std::int64_t players = 0; // games counted that day, this one included
  int percentile = 0;       // 0..100: the share with fewer sets, plus half of those with as many
  int best = 0;             // the most sets anyone made that day
  friend bool operator==(const DailyResult&, const DailyResult&) = default;
};
// The reply to read_daily.
struct DailySummary {
  std::optional<RequestId> id;
  std::string date;
  std::int64_t players = 0;  // games counted so far today
  int best = 0;              // the most sets made today; 0 when nobody has played
  std::optional<DealFairness> deal;  // the commitment to today's seed (docs/FAIRNESS.md, "Shared deals")
  friend bool operator==(const DailySummary&, const DailySummary&) = default;
};

using ServerMessage = std::variant<Welcome, Ok, Created, Joined, RoomSnapshot, EventMessage, LobbyList,
                                   TranscriptMessage, Pong, Error, Closing, Turn, RoomClosed, RoomPaused,
                                   RoomResumed, DailyResult, DailySummary>;
// The class-event messages, a variant of their own: a client that plays in
// rooms only (the terminal client, the load generator) never receives one,
// and its handling of ServerMessage stays as it is. A frame of one of these
// types is read by parse_event_server_message; parse_server_message refuses
// it with a sentence saying so.
using EventServerMessage = std::variant<EventCreated, EventJoined, EventStateMessage, EventSeat, EventRoster,
                                        EventTeacherMessage, EventResults, EventLeft, EventUnseated,
                                        TableView>;
// "event_created", "event_joined", "event_state", "event_seat", "event_roster", "event_message", "event_results",
// "event_left", "event_unseated", "table_view".
std::string_view message_type(const EventServerMessage& message);
std::string encode(const EventServerMessage& message);
std::variant<EventServerMessage, std::string> parse_event_server_message(std::string_view frame);

// The wire `type` of a server message: "welcome", "room", "event", ...
std::string_view message_type(const ServerMessage& message);

// Encoders: one string per message, to be wrapped once in a
// shared_ptr<const std::string> and shared by every recipient.
std::string encode(const ServerMessage& message);
std::string encode(const Welcome& message);
std::string encode(const Ok& message);
std::string encode(const Created& message);
std::string encode(const Joined& message);
std::string encode(const RoomSnapshot& message);
std::string encode(const EventMessage& message);
std::string encode(const LobbyList& message);
std::string encode(const TranscriptMessage& message);
std::string encode(const Pong& message);
std::string encode(const Error& message);
std::string encode(const Closing& message);
std::string encode(const Turn& message);
std::string encode(const RoomClosed& message);
std::string encode(const RoomPaused& message);
std::string encode(const RoomResumed& message);
std::string encode(const DailyResult& message);
std::string encode(const DailySummary& message);
std::string encode(const EventCreated& message);
std::string encode(const EventJoined& message);
std::string encode(const EventStateMessage& message);
std::string encode(const EventSeat& message);
std::string encode(const EventRoster& message);
std::string encode(const EventTeacherMessage& message);
std::string encode(const EventResults& message);
std::string encode(const EventLeft& message);
std::string encode(const EventUnseated& message);
std::string encode(const TableView& message);

// For clients written in C++ and for tests. Treats the frame as
// untrusted: malformed input yields a sentence, never an exception.
std::variant<ServerMessage, std::string> parse_server_message(std::string_view frame);

}  // namespace gofish::protocol
