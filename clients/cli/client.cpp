#include "clients/cli/client.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <variant>

#include "clients/cli/class_console.hpp"
#include "clients/cli/commands.hpp"
#include "clients/cli/connection.hpp"
#include "clients/cli/line_reader.hpp"
#include "clients/cli/pacing.hpp"
#include "engine/overloaded.hpp"
#include "fairness/deal_algorithm.hpp"
#include "gofish/version.hpp"
#include "protocol/text.hpp"
#include "protocol/token_bucket.hpp"

namespace gofish::cli {
namespace {

using protocol::ErrorCode;

// A hint after the server's sentence, for refusals a person can put right.
std::string_view hint_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kActionNotYourTurn: return "Wait for your turn; 'table' shows whose turn it is.";
    case ErrorCode::kActionRankNotHeld: return "Ask for a rank in your hand; 'hand' shows it.";
    case ErrorCode::kActionAskedSelf:
    case ErrorCode::kActionUnknownSeat:
    case ErrorCode::kActionTargetOut: return "Ask another player who is still in; 'table' lists them.";
    case ErrorCode::kActionCardAskInRankGame: return "Ask for a rank, e.g. 'ask 2 9'.";
    case ErrorCode::kActionRankAskInCardGame: return "Ask for one card, e.g. 'ask 2 QH'.";
    case ErrorCode::kActionCardHeld: return "Ask for a card you do not hold.";
    case ErrorCode::kActionGameOver:
    case ErrorCode::kRoomNotOver: return "Type 'rematch' once the game is over.";
    case ErrorCode::kRoomNotStarted: return "Wait for the host to start the game.";
    case ErrorCode::kRoomNotHost: return "Only the host can do that; wait for them.";
    case ErrorCode::kRoomNotEnoughPlayers: return "Wait until every seat is filled.";
    case ErrorCode::kRoomSpectator: return "Spectators watch; 'table' shows the game.";
    case ErrorCode::kChatOff: return "Chat is off in this room.";
    case ErrorCode::kChatNotAPhrase:
      return "Say one of the phrases by its id, e.g. 'say good_luck' (in a phrases-only room, 'say' with any other "
             "text lists them).";
    case ErrorCode::kChatRateLimited:
    case ErrorCode::kRateLimited: return "Wait a moment and try again.";
    default: return "Type 'help' for the commands.";
  }
}

// The exit status for a refusal of the request that enters a room (or a class).
int entry_exit_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::kRoomNotFound:
    case ErrorCode::kRoomBadCode:
    case ErrorCode::kEventNotFound:
    case ErrorCode::kEventBadCode: return kExitBadCode;
    case ErrorCode::kRoomFull:
    case ErrorCode::kEventFull: return kExitRoomFull;
    case ErrorCode::kVersionMismatch: return kExitVersion;
    default: return kExitRefused;
  }
}

constexpr const char* kPrompt = "gofish> ";

enum class Request {
  kHello,
  kCreate,
  kJoin,
  kResume,
  kResync,
  kDecision,
  kLeave,
  kRevote,
  kClass,
  kContribute,
  kOther
};

}  // namespace

class Session : public ConnectionHandler {
 public:
  explicit Session(Options options) : o_(std::move(options)), room_code_(o_.join_code) {
    if (o_.bot) bot_.emplace(*o_.bot, engine::os_seed());
    // A pupil's every socket, its tables' included, names the class: a
    // proxy then keeps the whole class on one server.
    if (o_.class_code) room_code_ = protocol::normalize_event_code(*o_.class_code);
    interactive_ = !o_.bot && !o_.json;
    line_editing_ = interactive_ && isatty(STDIN_FILENO) != 0;
  }

  ~Session() override { release_terminal(); }

  int run() {
    using Clock = std::chrono::steady_clock;
    const auto started = Clock::now();
    bool first = true;  // no connection has been welcomed yet
    auto lost_since = started;
    std::string last_problem;
    // A try that opened the WebSocket and then waited in vain for the
    // welcome says more than a later one cut short by the end of the window
    // before its upgrade was answered: the first connection's failure names it.
    std::string hello_unanswered;
    while (!done_) {
      // The first connection may take --connect-timeout-ms in all; once a
      // connection is lost, reconnecting may take the resume window. Each
      // try within it is given up after --handshake-timeout-ms.
      const auto window_end = first ? started + std::chrono::milliseconds(o_.connect_timeout_ms)
                                    : lost_since + std::chrono::milliseconds(o_.resume_window_ms);
      const auto try_end = std::min(Clock::now() + std::chrono::milliseconds(o_.handshake_timeout_ms), window_end);
      const auto left = [&try_end] {
        return std::max(std::chrono::ceil<std::chrono::milliseconds>(try_end - Clock::now()),
                        std::chrono::milliseconds(1));
      };
      std::optional<std::string> failed;  // why this try did not get as far as the welcome
      bool timed_out = false;             // ... because the server did not answer in time
      bool connected = false;             // ... though the WebSocket was open
      Connection connection(o_.ca_file);
      try {
        connection.open(o_.address, left(), room_code_);
        connected = true;
      } catch (const ConnectError& error) {
        failed = error.what();
        timed_out = error.timed_out();
      }
      if (connected) {
        if (!first) note(token_ ? "Reconnected; resuming the seat." : "Reconnected; joining again.");
        connection_ = &connection;
        welcomed_ = false;
        // The reader thread posts each typed line to this connection's loop.
        reader_.set_wake([this, &connection] { connection.post([this] { drain_typed_lines(); }); });
        outgoing_.clear();
        flush_scheduled_ = false;
        bucket_ = hello_only_bucket();
        if (o_.liveness_timeout_ms > 0) connection.watch_liveness(std::chrono::milliseconds(o_.liveness_timeout_ms));
        connection.after(left(), [this, &connection, &timed_out] {
          if (welcomed_) return;
          timed_out = true;
          connection.drop("The server did not answer the hello within " + std::to_string(o_.handshake_timeout_ms) +
                          " ms.");
        });
        send(protocol::Hello{o_.protocol_version, std::string(kCliName)}, Request::kHello);
        const std::optional<std::string> ended = connection.run(*this);
        reader_.set_wake(nullptr);
        connection_ = nullptr;
        entered_since_connect_ = false;
        if (done_ || !ended) break;
        if (welcomed_) {
          // Lost: resume the seat with its token (a spectator, who has none, joins again).
          first = false;
          if ((!token_ && !o_.spectate && !class_token_) || finished_all_games()) return fail(kExitRefused, *ended);
          last_problem = *ended;
          lost_since = Clock::now();
          note(*ended + (class_token_ ? " Reconnecting to the class..."
                         : token_     ? " Reconnecting to resume the seat..."
                                      : " Reconnecting to watch again..."));
          // A server found silent has been waited for already; one that
          // closed the connection is given a moment before the next try.
          if (!connection.went_silent()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
          continue;
        }
        failed = *ended;
        timed_out = timed_out || connection.went_silent();
        if (timed_out) hello_unanswered = *failed;
      }
      // This try failed before the welcome. A first connection that is
      // refused, or closed unanswered, ends the client as it always did.
      // Another try is made while the window lasts (a proxy sends it to a
      // server that answers): at once after a try that ran out of time,
      // after a pause after one that failed at once.
      if (first && !timed_out) return fail(connected ? kExitRefused : kExitUnreachable, *failed);
      if (Clock::now() >= window_end) {
        const bool cut_short = timed_out && !connected && !hello_unanswered.empty();
        return first ? fail(kExitUnreachable, cut_short ? hello_unanswered : *failed)
                     : fail(kExitRefused, last_problem + " Could not reconnect: " + *failed);
      }
      if (timed_out) note(*failed + " Trying again...");
      if (!timed_out) {
        std::this_thread::sleep_for(
            std::min<Clock::duration>(std::chrono::milliseconds(500), window_end - Clock::now()));
      }
    }
    return exit_code_;
  }

  void on_frame(std::string_view frame) override {
    if (o_.json) {
      std::cout << frame << '\n' << std::flush;
    }
    auto parsed = protocol::parse_server_message(frame);
    if (auto* problem = std::get_if<std::string>(&parsed)) {
      // A class event's messages are a variant of their own.
      auto class_message = protocol::parse_event_server_message(frame);
      if (auto* message = std::get_if<protocol::EventServerMessage>(&class_message)) return on_class_message(*message);
      note("The server sent a message this client cannot read: " + *problem);
      return;
    }
    std::visit(Overloaded{
                   [&](const protocol::Welcome& m) { on_welcome(m); },
                   [&](const protocol::Ok& m) { on_ok(m); },
                   [&](const protocol::Created& m) { on_created(m); },
                   [&](const protocol::Joined& m) { on_joined(m); },
                   [&](const protocol::RoomSnapshot& m) { on_snapshot(m); },
                   [&](const protocol::EventMessage& m) { on_event(m); },
                   [&](const protocol::LobbyList&) {},
                   [&](const protocol::TranscriptMessage&) {},
                   [&](const protocol::Pong&) {},
                   [&](const protocol::Error& m) { on_error(m); },
                   [&](const protocol::Closing& m) { on_closing(m); },
                   [&](const protocol::Turn&) { settled(); },
                   [&](const protocol::RoomClosed& m) { on_room_closed(m); },
                   [&](const protocol::RoomPaused& m) { note("Paused: " + m.message); },
                   [&](const protocol::RoomResumed& m) {
                     note(m.message);
                     // What was refused during the pause is decided again.
                     decided_at_v_ = -1;
                     settled();
                   },
                   [&](const protocol::DailyResult& m) { on_daily_result(m); },
                   [&](const protocol::DailySummary&) {},
               },
               std::get<protocol::ServerMessage>(parsed));
  }

  void on_input() override {
    char chunk[512];
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n <= 0) return handle_line(nullptr);
    typed_.append(chunk, static_cast<std::size_t>(n));
    for (auto end = typed_.find('\n'); end != std::string::npos; end = typed_.find('\n')) {
      const std::string line = typed_.substr(0, end);
      typed_.erase(0, end + 1);
      handle_line(line.c_str());
    }
  }

  // A line from the prompt; nullptr at the end of input (Ctrl-D).
  void handle_line(const char* line) {
    if (!line) return quit();
    const std::string text(line);
    if (text.find_first_not_of(" \t") == std::string::npos) return;
    if (line_editing_) reader_.remember(text);
    if (o_.create_class) {
      auto command = parse_class_command(text);
      if (auto* problem = std::get_if<std::string>(&command)) return print(*problem);
      return run_class_command(std::get<ClassCommand>(command));
    }
    auto parsed = parse_command(text);
    if (auto* problem = std::get_if<std::string>(&parsed)) return print(*problem);
    run_command(std::get<Command>(parsed));
  }

 private:
  // ------------------------------------------------------------ output

  // A line for the person: on stdout, around the prompt. Nothing in --json mode.
  // While the prompt owns the terminal, lines are queued for it to print
  // above itself (LineReader), so that the prompt and the output are never
  // written at the same time.
  void print(const std::string& line) {
    if (o_.json) return;
    if (reader_.queue(line)) return;
    std::fputs(line.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }

  void print(const std::vector<std::string>& lines) {
    for (const auto& line : lines) print(line);
  }
  // Messages about the connection: on stderr in --json mode, so stdout stays JSON.
  void note(const std::string& line) {
    if (o_.json) {
      std::cerr << line << '\n';
    } else {
      print(line);
    }
  }
  int fail(int code, const std::string& sentence) {
    release_terminal();
    std::cerr << "gofish-cli: " << sentence << '\n';
    exit_code_ = code;
    done_ = true;
    if (connection_) connection_->stop();
    return code;
  }

  // Lines are read by LineReader's thread (line editing and history); each
  // line is handed to the connection's loop, and the next prompt waits until
  // it has been handled.
  void watch_terminal(Connection& connection) {
    if (!line_editing_) return connection.watch_input(STDIN_FILENO);
    reader_.start(kPrompt);
  }

  void drain_typed_lines() {
    while (!done_) {
      const std::optional<LineReader::Line> line = reader_.next();
      if (!line) return;
      handle_line(line->end_of_input ? nullptr : line->text.c_str());
      reader_.handled();
    }
    reader_.discard();
  }

  // Gives the terminal back as it was, and prints what the prompt had queued.
  void release_terminal() {
    if (!reader_.started()) return;
    for (const auto& line : reader_.stop()) print(line);
    std::fflush(stdout);
  }

  // ------------------------------------------------------------ requests

  // The kind of request a reply (ok or error) answers, kOther if it names
  // none of ours; each is answered once, so it is forgotten here.
  Request answered(const std::optional<protocol::RequestId>& reply_id) {
    const auto* id = reply_id ? std::get_if<std::int64_t>(&*reply_id) : nullptr;
    const auto found = id ? requests_.find(*id) : requests_.end();
    if (found == requests_.end()) return Request::kOther;
    const Request kind = found->second;
    requests_.erase(found);
    return kind;
  }

  void send(protocol::ClientBody body, Request kind) {
    if (!connection_) return;
    const std::int64_t id = next_id_++;
    requests_[id] = kind;
    outgoing_.push_back(protocol::encode_client_message(protocol::ClientMessage{id, std::move(body)}));
    flush();
  }

  // Until the server's welcome says its rate, the hello alone: a server may be
  // configured below any rate this client could assume.
  static TokenBucket hello_only_bucket() { return TokenBucket(0.0, 1, TokenBucket::Clock::now()); }

  // Keeps under the server's message rate (welcome.limits) with a token
  // bucket of our own, so no request is dropped as rate-limited.
  void flush() {
    const auto now = TokenBucket::Clock::now();
    while (!outgoing_.empty() && bucket_.try_take(now)) {
      connection_->send(std::move(outgoing_.front()));
      outgoing_.pop_front();
    }
    if (stop_when_sent_ && outgoing_.empty()) return connection_->stop();
    if (outgoing_.empty() || flush_scheduled_) return;
    flush_scheduled_ = true;
    const auto wait = bucket_.time_to_token(now);
    connection_->after(std::chrono::ceil<std::chrono::milliseconds>(wait), [this] {
      flush_scheduled_ = false;
      if (connection_) flush();
    });
  }

  void enter_room() {
    if (o_.class_code || o_.create_class) return enter_class();
    if (token_)
      return send(protocol::Resume{*token_, table_.in_room() ? std::optional(table_.v()) : std::nullopt},
                  Request::kResume);
    if (o_.join_code || o_.spectate) {
      protocol::Join join;
      join.code = o_.join_code.value_or("");
      join.name = o_.name;
      join.as = o_.spectate ? protocol::JoinAs::kSpectator : protocol::JoinAs::kPlayer;
      return send(join, Request::kJoin);
    }
    if (o_.daily) return send(protocol::PlayDaily{o_.name}, Request::kCreate);
    protocol::CreateRoom create;
    create.name = o_.name;
    create.settings.rules = engine::preset(o_.preset).value_or(engine::Rules{});
    create.settings.seats = o_.seats;
    create.settings.rules.table_rules = o_.table_rules;
    create.settings.turn_timer_seconds = o_.turn_timer_seconds;
    create.settings.spectators = o_.spectators;
    create.settings.listed = o_.listed;
    for (std::size_t i = 0; i < o_.bots.size(); ++i) {
      create.bots.push_back(protocol::BotSpec{static_cast<engine::Seat>(i + 1), o_.bots[i]});
    }
    send(create, Request::kCreate);
  }

  // ------------------------------------------------------------ server messages

  void on_welcome(const protocol::Welcome& welcome) {
    welcomed_ = true;
    // A new connection is in no room: a class hands its seat over again.
    resume_after_leave_.reset();
    // At the pace the server asks of its clients, less the hello it has counted.
    bucket_ = pacing_bucket(welcome.limits, TokenBucket::Clock::now());
    bucket_.try_take(TokenBucket::Clock::now());
    // A flush timer armed under the hello-only bucket waits a day; whatever
    // was typed before the welcome goes with the next flush instead.
    flush_scheduled_ = false;
    if (welcome.protocol != o_.protocol_version) {
      fail(kExitVersion, "The server speaks protocol version " + std::to_string(welcome.protocol) +
                             " and this gofish-cli speaks version " + std::to_string(o_.protocol_version) +
                             "; use a client and server of the same release.");
      return;
    }
    enter_room();
  }

  // Commands are read once the client is in a room (a refusal to enter is
  // the answer then, not the end of the input), on each new connection.
  void entered_room() {
    if (!interactive_ || !connection_ || entered_since_connect_) return;
    entered_since_connect_ = true;
    watch_terminal(*connection_);
    connection_->post([this] { drain_typed_lines(); });  // lines typed while reconnecting
  }

  void on_created(const protocol::Created& created) {
    token_ = created.token;
    room_code_ = created.code;
    entered_room();
    if (o_.daily) {
      print("Today's deal: the same cards for everyone today, against three computer players. Friends can watch "
            "with: gofish-cli " + server_url(o_.address) + " --join " + created.code + " --spectate");
      return;
    }
    print("Created room " + created.code + ". Others join with: gofish-cli " + server_url(o_.address) + " --join " +
          created.code + "  (or open " + invite_url(o_.address, created.code) + ")");
  }

  void on_joined(const protocol::Joined& joined) {
    busy_since_.reset();
    if (!joined.token.empty()) token_ = joined.token;
    // A pupil's table: the sockets keep naming the class (on_class_seat).
    if (!o_.class_code && !routed_by_class_) room_code_ = joined.code;
    entered_room();
    if (joined.resumed) {
      decided_at_v_ = -1;  // a move sent just before the drop may never have arrived
      turn_announced_ = false;  // show the turn again below the reconnection lines
      print(o_.class_code ? "At your table: room " + joined.code + "." : "Resumed your seat in room " + joined.code + ".");
      // A rematch sent just before the drop may never have arrived (the
      // server was stopping, say), and a game may have ended while this
      // client was away (its end then comes in the snapshot, with no event
      // to answer): once the room is known, a finished game gets a rematch
      // vote; a vote already counted counts once.
      revote_ = true;
      revote_if_over();
    } else if (joined.as == protocol::JoinAs::kSpectator) {
      print("Watching room " + joined.code + ".");
    } else {
      print("Joined room " + joined.code + " in seat " + std::to_string(joined.seat.value_or(0) + 1) + ".");
    }
  }

  // After a resume (revote_), the first time the room is seen finished.
  void revote_if_over() {
    // In a class, the teacher starts the next game (the next round).
    if (!revote_ || interactive_ || o_.class_code || !table_.you() || table_.state() != protocol::RoomState::kOver) {
      return;
    }
    revote_ = false;
    if (!finished_all_games()) send(protocol::Rematch{}, Request::kRevote);
  }

  // A seat's share of the next deal (docs/FAIRNESS.md): 32 random bytes
  // from the OS, once for each commitment the room announces. The deal
  // does not wait for it, so nothing waits for the reply either.
  void contribute(const std::string& commitment) {
    if (!table_.you() || !contributed_.insert(commitment).second) return;
    send(protocol::Contribute{fairness::to_hex(fairness::new_seed())}, Request::kContribute);
  }

  void on_snapshot(const protocol::RoomSnapshot& snapshot) {
    table_.apply_snapshot(snapshot);
    if (snapshot.next_deal) contribute(snapshot.next_deal->commitment);
    if (count_game_missed(snapshot)) return;
    revote_if_over();
    decided_at_v_ = -1;
    if (bot_ && table_.has_game()) bot_->restart(table_);
    if (interactive_) {
      print(table_lines(table_, o_.style));
      show_hand();
      turn_announced_ = false;
      print("Type 'help' for the commands.");
    }
    maybe_start();
    settled();  // a snapshot is complete in itself
  }

  // A game that ended while this client was away comes only in the
  // snapshot, with no event: a --games run counts it as played (the
  // server's bot finished it in its seat), so it plays no game too many.
  // True when that was the last game to play (the client is quitting).
  bool count_game_missed(const protocol::RoomSnapshot& snapshot) {
    // Only after a resume: a join between games is shown the last game too.
    if (!revote_ || interactive_ || !table_.you() || snapshot.state != protocol::RoomState::kOver || !snapshot.result) {
      return false;
    }
    if (!count_game(snapshot.game_number)) return false;
    GameResult result{shown_game_number(snapshot.game_number), {}, *snapshot.result};
    for (engine::Seat s = 0; s < snapshot.result->players; ++s) result.names.push_back(table_.name_of(s));
    results_.push_back(result);
    print("Game " + std::to_string(result.game) + " ended while you were away. " +
          winners_text(snapshot.result->winners, table_));
    if (!finished_all_games()) return false;
    revote_ = false;
    print_summary();
    quit();
    return true;
  }

  void on_event(const protocol::EventMessage& message) {
    if (!table_.apply(message.v, message.event)) return;  // seen before a resume replayed it
    if (const auto* committed = std::get_if<protocol::DealCommitted>(&message.event)) contribute(committed->commitment);
    revote_ = false;  // a replay: a game over among its events asks for the rematch itself
    if (std::holds_alternative<protocol::NewGame>(message.event)) game_log_.clear();
    const std::string line = narrate(message.event, table_);
    if (!line.empty()) {
      game_log_.push_back(line);
      print(line);
    }
    if (const auto* event = std::get_if<engine::Event>(&message.event)) {
      if (bot_) bot_->observe(*event, table_);
      if (calls_for_prompt(*event)) turn_announced_ = false;
      if (const auto* over = std::get_if<engine::GameOver>(event)) on_game_over(*over);
    }
    maybe_start();
  }

  // The room closed under us (everyone else left, or it sat idle): a
  // --games run reports what it played; anyone else is told and stops.
  void on_room_closed(const protocol::RoomClosed& closed) {
    note(closed.message);
    if (!interactive_ && !results_.empty()) print_summary();
    fail(kExitRefused, "Room " + closed.code + " has closed.");
  }

  // Each game is counted once: by its room and its number there (a class
  // seats a pupil in a new room each round, whose games count from 1 again).
  bool count_game(int number) { return counted_games_.emplace(table_.code(), number).second; }
  // A class's games are numbered by round, the room's games by the room.
  int shown_game_number(int number) const {
    return o_.class_code ? static_cast<int>(results_.size()) + 1 : number;
  }

  void on_game_over(const engine::GameOver& over) {
    count_game(table_.game_number());
    GameResult result{shown_game_number(table_.game_number()), {}, over};
    for (engine::Seat s = 0; s < over.players; ++s) result.names.push_back(table_.name_of(s));
    results_.push_back(result);
    if (interactive_) {
      if (o_.class_code) {
        print("Waiting for your teacher to start the next round.");
      } else if (table_.you()) {
        print("Type 'rematch' for another game, or 'quit'.");
      }
      return;
    }
    if (finished_all_games()) {
      print_summary();
      // Today's deal: its standing comes once the game is counted.
      if (o_.daily && !daily_result_) return await_daily_result();
      quit();
    } else if (table_.you() && !o_.class_code) {
      send(protocol::Rematch{}, Request::kOther);
    } else if (o_.class_code) {
      print("Waiting for your teacher to start the next round.");
    }
  }

  void on_error(const protocol::Error& error) {
    const Request kind = answered(error.id);
    // The room is moving between servers: ask again shortly, as after a
    // reconnection, for as long as a reconnection would be tried. Or it is
    // paused while its game is saved again: ask again until let in, however
    // long the store takes (a paused room is never closed).
    // A class moving between servers answers its join_event or resume_event
    // room/busy in the same way.
    if ((error.code == ErrorCode::kRoomBusy || error.code == ErrorCode::kRoomPaused) &&
        (kind == Request::kJoin || kind == Request::kResume ||
         (kind == Request::kClass && error.code == ErrorCode::kRoomBusy))) {
      const auto now = std::chrono::steady_clock::now();
      if (!busy_since_) busy_since_ = now;
      if (error.code == ErrorCode::kRoomPaused ||
          now - *busy_since_ <= std::chrono::milliseconds(o_.resume_window_ms)) {
        note(error.message + " Trying again...");
        connection_->after(std::chrono::milliseconds(500), [this] {
          if (connection_) enter_room();
        });
        return;
      }
    }
    // A class's table asked for on a server that does not hold its class:
    // connect again by the class's code (which a proxy sends to the class's
    // server) and ask again. Once: a second answer like it ends the client.
    if (error.code == ErrorCode::kRoomClassTable && error.event && room_code_ != *error.event &&
        (kind == Request::kJoin || kind == Request::kResume)) {
      note("Room " + room_code_.value_or("") + " is a table of the class " + *error.event +
           "; connecting by the class's code.");
      room_code_ = *error.event;
      routed_by_class_ = true;
      connection_->drop("Connecting again by the class's code " + *error.event + ".");
      return;
    }
    // Paused while the server saves the game again: `room_resumed` says
    // when play goes on, and the bot decides again then.
    if (error.code == ErrorCode::kRoomPaused) {
      if (kind == Request::kDecision) decided_at_v_ = -1;
      if (kind == Request::kLeave) left_room();  // the seat is tried all the same; a refusal says why
      if (!bot_) print("Refused: " + error.message);
      return;
    }
    switch (kind) {
      case Request::kHello: fail(entry_exit_code(error.code), error.message); return;
      case Request::kClass: {
        std::string sentence = error.message;
        if (error.code == ErrorCode::kEventNotFound) {
          sentence = "No class has the code " + o_.class_code.value_or("") + "; check the code your teacher gave.";
        }
        fail(entry_exit_code(error.code), sentence);
        return;
      }
      case Request::kCreate:
      case Request::kJoin: {
        std::string sentence = error.message;
        if (error.code == ErrorCode::kRoomNotFound) {
          sentence = "No room has the code " + o_.join_code.value_or("") + "; check the code or the invite link.";
        }
        if (error.code == ErrorCode::kRoomAlreadyStarted) sentence += " You can watch it with --spectate.";
        fail(entry_exit_code(error.code), sentence);
        return;
      }
      case Request::kResume: fail(kExitRefused, "Could not resume the seat: " + error.message); return;
      case Request::kContribute: return;  // the game began first: this seat gave none, which the record says
      case Request::kLeave: return left_room();
      case Request::kRevote:
        if (error.code == ErrorCode::kRoomNotOver) return;  // the next game began meanwhile
        break;
      case Request::kDecision:
        if (bot_) {
          // The server saw the table differently: take its snapshot and decide again.
          note("The server refused the bot's move (" + error.message + "); resynchronising.");
          send(protocol::Resume{*token_, std::nullopt}, Request::kResync);
          return;
        }
        break;
      default: break;
    }
    if (error.code == ErrorCode::kRoomKicked) {
      fail(kExitRefused, error.message);
      return;
    }
    print("Refused: " + error.message + " " + std::string(hint_for(error.code)));
  }

  void on_closing(const protocol::Closing& closing) {
    note("The server says: " + closing.message);
    if (closing.reason == protocol::CloseReason::kReplaced) {
      fail(kExitRefused, "This seat was resumed by another connection.");
    }
  }

  // ------------------------------------------------------------ a class

  // The teacher creates the class (or, after a reconnection, comes back
  // with the teacher token); a pupil joins with the code and a name (or
  // comes back with the pupil token, and is handed their seat again).
  void enter_class() {
    if (o_.create_class) {
      if (class_token_) return send(protocol::ResumeEvent{class_code_, *class_token_}, Request::kClass);
      protocol::CreateEvent create;
      create.name = *o_.create_class;
      create.settings.rules = engine::preset(o_.preset).value_or(engine::Rules{});
      create.settings.rules.table_rules = o_.table_rules;
      create.settings.table_size = o_.seats;
      create.settings.bots = o_.class_bots;
      create.settings.turn_timer_seconds = o_.turn_timer_seconds;
      create.settings.rounds = o_.rounds;
      create.settings.same_deal = o_.same_deal;
      create.settings.coaching = o_.coaching;
      create.roster = o_.roster;
      return send(create, Request::kClass);
    }
    protocol::JoinEvent join;
    join.code = *o_.class_code;
    if (class_token_) {
      join.token = *class_token_;
    } else {
      join.name = o_.name;
    }
    send(join, Request::kClass);
  }

  void on_class_message(const protocol::EventServerMessage& message) {
    std::visit(Overloaded{
                   [&](const protocol::EventCreated& m) { on_class_created(m); },
                   [&](const protocol::EventJoined& m) { on_class_joined(m); },
                   [&](const protocol::EventStateMessage& m) { on_class_state(m.event); },
                   [&](const protocol::EventSeat& m) { on_class_seat(m); },
                   [&](const protocol::EventTeacherMessage& m) { print("Your teacher says: " + m.text); },
                   [&](const protocol::EventUnseated&) {
                     // The server has taken this connection out of the table's room.
                     table_ = Table{};
                     print("Your teacher gave your seat to a computer player. Wait here for the next round.");
                   },
                   [&](const protocol::EventLeft&) {
                     table_ = Table{};
                     print("Your teacher took you out of this class.");
                     quit();
                   },
                   [&](const protocol::EventResults& m) {
                     // Pushed as every table finishes; shown when asked for.
                     if (std::exchange(results_asked_, false)) print(results_lines(m));
                   },
                   [&](const auto&) {},
               },
               message);
  }

  void on_class_created(const protocol::EventCreated& created) {
    class_token_ = created.token;
    class_code_ = created.code;
    room_code_ = created.code;
    entered_room();
    print("Created the class " + created.event.name + ": its code is " + created.code + ". Pupils join with: gofish-cli " +
          server_url(o_.address) + " --class " + created.code + " --name NAME  (or open " +
          (o_.address.tls ? "https://" : "http://") + host_and_port(o_.address) + "/?event=" + created.code + ")");
    on_class_state(created.event);
    print("Type 'help' for the teacher's commands: 'seat', then 'start' when everyone is in.");
  }

  void on_class_joined(const protocol::EventJoined& joined) {
    if (!joined.token.empty()) class_token_ = joined.token;
    class_code_ = joined.code;
    room_code_ = joined.code;
    entered_room();
    print((joined.resumed ? "Back in the class " : "Joined the class ") + joined.name + " as " + joined.pupil.name +
          ".");
    if (joined.coaching) print("Your teacher can see your cards in this class.");
    if (!table_.in_room()) print("Waiting for your teacher to start the round.");
  }

  // The teacher's console: the whole class when it is first seen (and on
  // 'class'), then a line for each change worth telling at once.
  void on_class_state(const protocol::EventState& state) {
    // The teacher back after a reconnection (resume_event answers with the
    // state): the console takes typed commands on this connection too.
    entered_room();
    if (class_state_) {
      print(class_changes(*class_state_, state));
    } else {
      print(class_lines(state));
    }
    class_state_ = state;
  }

  // Where to sit this round: the seat is taken as after a reconnection
  // (resume with the seat token), once the server has answered the leave
  // of the last round's table: a resume sent right behind the leave can
  // reach the server while the connection is still in the old room, and be
  // refused room/already_in_room.
  void on_class_seat(const protocol::EventSeat& seat) {
    const bool same_room = table_.in_room() && table_.code() == seat.room;
    token_ = seat.token;
    // room_code_ stays the class's: its tables are served where it is.
    print("Round " + std::to_string(seat.round) + ": you sit at table " + std::to_string(seat.table + 1) + " (room " +
          seat.room + "), seat " + std::to_string(seat.seat + 1) + ".");
    protocol::Resume resume{seat.token, same_room ? std::optional(table_.v()) : std::nullopt};
    if (resume_after_leave_) {  // still leaving: the latest seat waits instead
      resume_after_leave_ = std::move(resume);
      return;
    }
    if (table_.in_room() && !same_room) {
      send(protocol::Leave{}, Request::kLeave);
      table_ = Table{};
      resume_after_leave_ = std::move(resume);
      return;
    }
    send(std::move(resume), Request::kResume);
  }

  // The answer to a leave (ok, or an error: the room was gone already):
  // the seat waiting for it is taken.
  void left_room() {
    if (auto resume = std::exchange(resume_after_leave_, std::nullopt)) send(std::move(*resume), Request::kResume);
  }

  void on_ok(const protocol::Ok& ok) {
    if (answered(ok.id) == Request::kLeave) left_room();
  }

  void run_class_command(const ClassCommand& command) {
    const auto pupil = [this](const std::string& typed) -> std::optional<int> {
      if (!class_state_) return std::nullopt;
      auto found = resolve_pupil(typed, *class_state_);
      if (auto* problem = std::get_if<std::string>(&found)) {
        print(*problem);
        return std::nullopt;
      }
      return std::get<int>(found);
    };
    switch (command.kind) {
      case ClassCommandKind::kShow:
        if (!class_state_) return print("The class has not been heard from yet.");
        return print(class_lines(*class_state_));
      case ClassCommandKind::kSeat: return send(protocol::SeatPupils{}, Request::kOther);
      case ClassCommandKind::kStart: return send(protocol::StartRound{}, Request::kOther);
      case ClassCommandKind::kEnd: return send(protocol::EndRound{}, Request::kOther);
      case ClassCommandKind::kMove:
        if (const auto id = pupil(command.pupil)) send(protocol::MovePupil{*id, command.table - 1}, Request::kOther);
        return;
      case ClassCommandKind::kFree:
        if (const auto id = pupil(command.pupil)) send(protocol::FreeName{*id}, Request::kOther);
        return;
      case ClassCommandKind::kRemove:
        if (const auto id = pupil(command.pupil)) send(protocol::RemovePupil{*id}, Request::kOther);
        return;
      case ClassCommandKind::kBot:
        if (const auto id = pupil(command.pupil)) send(protocol::SeatToBot{*id}, Request::kOther);
        return;
      case ClassCommandKind::kLate: return send(protocol::AllowLate{command.pupil == "on"}, Request::kOther);
      case ClassCommandKind::kPause: return send(protocol::PauseTables{}, Request::kOther);
      case ClassCommandKind::kResume: return send(protocol::ResumeTables{}, Request::kOther);
      case ClassCommandKind::kMessage: return send(protocol::MessageTables{command.pupil}, Request::kOther);
      case ClassCommandKind::kChat:
        return send(protocol::SetChat{protocol::parse_chat_mode(command.pupil).value_or(protocol::ChatMode::kPhrases)},
                    Request::kOther);
      case ClassCommandKind::kResults:
        results_asked_ = true;
        return send(protocol::ReadResults{}, Request::kOther);
      case ClassCommandKind::kHelp: return print(class_help_lines());
      case ClassCommandKind::kQuit: return quit();
    }
  }

  // ------------------------------------------------------------ playing

  // Today's deal: the day's standing, in a sentence.
  static std::string daily_line(const protocol::DailyResult& r) {
    const auto plural = [](std::int64_t n, const std::string& one, const std::string& many) {
      return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    std::string line = "Today's deal (" + r.date + "): you made " + plural(r.sets, "set", "sets") + ". ";
    if (r.players == 1) {
      line += "Yours is the first game counted today.";
    } else {
      line += "That beats " + std::to_string(r.percentile) + "% of today's " + std::to_string(r.players) +
              " games (a tie counts as half).";
    }
    return line + " The best today: " + plural(r.best, "set", "sets") + ".";
  }

  void on_daily_result(const protocol::DailyResult& result) {
    daily_result_ = result;
    print(daily_line(result));
    if (awaiting_daily_) quit();
  }

  // A --bot run waits a while for the standing, then goes without it.
  void await_daily_result() {
    awaiting_daily_ = true;
    if (!connection_) return quit();
    connection_->after(std::chrono::milliseconds(15000), [this] {
      if (done_ || daily_result_) return;
      note("The server did not say how today's game compares; try read_daily later.");
      quit();
    });
  }

  bool finished_all_games() const { return !interactive_ && static_cast<int>(results_.size()) >= o_.games; }

  void maybe_start() {
    if (!o_.start_when_full || start_sent_ || !table_.in_room() || !table_.is_you(table_.host())) return;
    if (table_.state() != protocol::RoomState::kWaiting) return;
    for (const auto& seat : table_.seats()) {
      if (seat.occupant == protocol::Occupant::kEmpty) return;
    }
    start_sent_ = true;
    send(protocol::Start{}, Request::kOther);
  }

  // The server ends every decision's events with a `turn` (and a snapshot
  // is whole by itself): only then does the client show whose turn it is or
  // let the bot decide, from the whole picture.
  void settled() {
    if (!connection_) return;
    const std::uint64_t generation = ++settle_generation_;
    announce_turn();
    if (!bot_ || !table_.your_move() || table_.v() <= decided_at_v_) return;
    connection_->after(std::chrono::milliseconds(o_.think_ms), [this, generation] {
      if (generation != settle_generation_ || !table_.your_move() || table_.v() <= decided_at_v_) return;
      if (const auto decision = bot_->decide(table_)) {
        decided_at_v_ = table_.v();
        send(protocol::request_for(*decision), Request::kDecision);
      }
    });
  }

  // Events after which what you may do has changed, so the prompt is shown
  // again once the stream settles: your asks, asks put to you (a player may
  // ask you twice in a row under table rules), answers, the turn passing,
  // and sets you lay down.
  bool calls_for_prompt(const engine::Event& event) const {
    return std::visit(Overloaded{
                          [&](const engine::AskedRank& e) { return table_.is_you(e.seat) || table_.is_you(e.target); },
                          [&](const engine::AskedCard& e) { return table_.is_you(e.seat) || table_.is_you(e.target); },
                          [&](const engine::Answered&) { return true; },
                          [&](const engine::TurnPassed&) { return true; },
                          [&](const engine::SetLaid& e) { return table_.is_you(e.seat); },
                          [&](const auto&) { return false; },
                      },
                      event);
  }

  void announce_turn() {
    if (!interactive_) return;
    if (!table_.your_move()) {
      turn_announced_ = false;
      return;
    }
    if (turn_announced_) return;
    turn_announced_ = true;
    show_hand();
    print(your_turn_text(table_));
  }

  void show_hand() {
    if (!table_.has_game() || !table_.you()) return;
    const int size = table_.view().hand.size();
    print("Your hand (" + std::to_string(size) + (size == 1 ? " card):" : " cards):"));
    print(hand_lines(table_.view().hand, o_.style));
  }

  void print_summary() {
    const std::string who = table_.you() ? o_.name + " (seat " + std::to_string(*table_.you() + 1) + ")" : o_.name;
    std::vector<std::string> lines;
    lines.push_back(
        "Summary: " + std::to_string(results_.size()) + (results_.size() == 1 ? " game " : " games ") +
        (table_.you()
             ? "played by " + who + (bot_ ? " with the " + std::string(engine::to_string(bot_->level())) + " bot" : "")
             : "watched by " + who) +
        (o_.class_code ? " in the class " + class_code_ : " in room " + table_.code()) + ".");
    int wins = 0;
    for (const GameResult& result : results_) {
      lines.push_back("  " + result_line(result));
      if (table_.you() && (result.over.winners & (1U << *table_.you()))) ++wins;
    }
    if (table_.you())
      lines.push_back(o_.name + " won " + std::to_string(wins) + " of " + std::to_string(results_.size()) + ".");
    for (const auto& line : lines) {
      if (o_.json) {
        std::cerr << line << '\n';
      } else {
        print(line);
      }
    }
  }

  std::optional<protocol::DailyResult> daily_result_;
  bool awaiting_daily_ = false;

  void quit() {
    done_ = true;
    leave_and_stop();
  }

  // The leave must reach the server before the close does (or the seat stays
  // held for its owner's return), and it may be waiting for a token of the
  // rate: the connection stops once everything queued has gone.
  void leave_and_stop() {
    if (!connection_) return;
    if (table_.in_room()) send(protocol::Leave{}, Request::kLeave);
    stop_when_sent_ = true;
    if (outgoing_.empty()) connection_->stop();
  }

  // Free text, or a fixed phrase by its id (the only chat of a "phrases" room).
  void say(const std::string& text) {
    if (const auto* phrase = protocol::find_phrase(text)) {
      return send(protocol::Chat{"", std::string(phrase->id)}, Request::kOther);
    }
    if (table_.settings().chat == protocol::ChatMode::kPhrases) {
      std::string ids;
      for (const auto& phrase : protocol::chat_phrases()) ids += (ids.empty() ? "" : ", ") + std::string(phrase.id);
      return print("This room allows only the fixed phrases; say one by its id: " + ids + ".");
    }
    send(protocol::Chat{text, ""}, Request::kOther);
  }

  void run_command(const Command& command) {
    switch (command.kind) {
      case CommandKind::kAsk: {
        if (!table_.has_game())
          return print("The game has not started yet. " + std::string(hint_for(ErrorCode::kRoomNotStarted)));
        auto ask = resolve_ask(command, table_);
        if (auto* problem = std::get_if<std::string>(&ask)) return print(*problem);
        return send(std::get<protocol::Ask>(ask), Request::kOther);
      }
      case CommandKind::kHand:
        if (!table_.you()) return print("Spectators hold no cards; 'table' shows the game.");
        if (!table_.has_game()) return print("No cards yet: the game has not started.");
        return show_hand();
      case CommandKind::kTable: return print(table_lines(table_, o_.style));
      case CommandKind::kLog:
        if (game_log_.empty()) return print("Nothing has happened in this game yet.");
        return print(game_log_);
      case CommandKind::kRules: return print(rules_lines(table_));
      case CommandKind::kSay: return say(command.what);
      case CommandKind::kRematch: return send(protocol::Rematch{}, Request::kOther);
      case CommandKind::kStart: return send(protocol::Start{}, Request::kOther);
      case CommandKind::kAnswer: return send(protocol::Answer{command.what == "give"}, Request::kOther);
      case CommandKind::kDeclare: {
        const auto rank = engine::parse_rank(command.what);
        if (!rank) return print("'" + command.what + "' is not a rank. Ranks are 2 to 10, J, Q, K and A.");
        return send(protocol::Declare{*rank}, Request::kOther);
      }
      case CommandKind::kHelp: return print(help_lines());
      case CommandKind::kQuit: return quit();
    }
  }

  Options o_;
  bool interactive_ = false;
  bool line_editing_ = false;
  LineReader reader_{STDIN_FILENO, STDOUT_FILENO};
  bool entered_since_connect_ = false;  // a resync is answered with joined again
  bool welcomed_ = false;               // the current connection's welcome has come
  // Since when joins or resumes have been answered room/busy; reset by joined.
  std::optional<std::chrono::steady_clock::time_point> busy_since_;
  Connection* connection_ = nullptr;
  Table table_;
  std::optional<RemoteBot> bot_;
  bool revote_ = false;  // resumed, and no finished game seen since
  std::optional<std::string> token_;
  // A class: the teacher's or the pupil's token, the class's code, and (the
  // teacher's) the class as last heard.
  std::optional<std::string> class_token_;
  std::string class_code_;
  std::optional<protocol::EventState> class_state_;
  bool results_asked_ = false;  // the teacher typed 'results'
  // The room's code once known (--join, an invite link, created, joined),
  // or in a class the class's code: every connection then asks for
  // /ws?room=CODE, so a proxy in front of several servers sends it to the
  // one serving the room (or the class and its tables).
  std::optional<std::string> room_code_;
  // A table of a class joined or resumed by its own code was served with
  // its class (room/class_table): room_code_ stays the class's code.
  bool routed_by_class_ = false;
  std::map<std::int64_t, Request> requests_;  // sent and not yet answered
  std::optional<protocol::Resume> resume_after_leave_;  // on_class_seat: sent once the leave is answered
  std::int64_t next_id_ = 1;
  std::vector<GameResult> results_;
  std::set<std::pair<std::string, int>> counted_games_;  // (room, game number)
  std::set<std::string> contributed_;                    // the commitments this client has contributed to
  std::vector<std::string> game_log_;
  std::string typed_;
  std::deque<std::string> outgoing_;
  TokenBucket bucket_ = hello_only_bucket();
  bool flush_scheduled_ = false;
  std::int64_t decided_at_v_ = -1;
  std::uint64_t settle_generation_ = 0;
  bool start_sent_ = false;
  bool turn_announced_ = false;
  bool done_ = false;
  bool stop_when_sent_ = false;  // leave_and_stop(): stop once the queue is empty
  int exit_code_ = kExitOk;
};

Client::Client(Options options) : session_(std::make_unique<Session>(std::move(options))) {}
Client::~Client() = default;
int Client::run() { return session_->run(); }

}  // namespace gofish::cli
