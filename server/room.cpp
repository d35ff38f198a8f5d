// The room: its request handlers and its game's lifecycle. Everything here
// runs on the room's strand (see room.hpp); who sits where, the event log,
// the durability hold, the timers, the game and reading a room back from the
// store each live in a collaborator of their own.
#include "server/room.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <vector>

#include "engine/overloaded.hpp"
#include "engine/random.hpp"
#include "engine/setup.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"
#include "protocol/room_records.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"
#include "server/durable_outbox.hpp"
#include "server/guarded_timer.hpp"
#include "server/room_game.hpp"
#include "server/room_fanout.hpp"
#include "server/room_log.hpp"
#include "server/room_restore.hpp"
#include "server/seat_table.hpp"
#include "server/store.hpp"
#include "server/turn_clock.hpp"

namespace gofish::server {

namespace {

namespace net = boost::asio;
using protocol::ErrorCode;
using Strand = net::strand<net::io_context::executor_type>;
using Id = std::optional<protocol::RequestId>;
using State = protocol::RoomState;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class RoomImpl final : public Room, public std::enable_shared_from_this<RoomImpl> {
 public:
  RoomImpl(const RoomServices& services, std::weak_ptr<RoomHost> host, std::string code,
           protocol::RoomSettings settings, SeatTable seats, std::int64_t v)
      : services_(services),
        limits_(services_.limits),
        host_(std::move(host)),
        code_(std::move(code)),
        settings_(std::move(settings)),
        strand_(net::make_strand(services.io)),
        seats_(std::move(seats)),
        log_(limits_.room_history_events, v),
        outbox_(services.writer, code_),
        fanout_(seats_, log_, outbox_, limits_),
        clock_(*services.timers, strand_, limits_.bot_delay, settings_.bot_pace, settings_.turn_timer_seconds),
        idle_timer_(*services.timers, strand_),
        rng_(engine::os_seed()) {
    for (int i = 0; i < settings_.seats; ++i) grace_timers_.push_back(std::make_unique<GuardedTimer>(*services.timers, strand_));
    services_.metrics->rooms_changed(state_, +1);
  }

  // A room read back from the store: its game as it was, nobody connected.
  void adopt_restored(RestoredRoom& restored) {
    if (restored.game) {
      game_number_ = restored.game->number();
      game_.emplace(std::move(*restored.game));
      set_state(game_->game().over() ? State::kOver : State::kPlaying);
      if (game_->game().over() && restored.transcript_missing) {
        // Over, but the closing record never made it: write it now.
        write(record::GameFinished{game_->id(), protocol::transcript_document(transcript(), game_->players()),
                                   now_ms()});
      }
    }
  }

  const std::string& code() const override { return code_; }

  // ------------------------------------------------------------ entry points (any thread)

  template <class F>
  void on_strand(F&& work) {
    net::post(strand_, [self = shared_from_this(), work = std::forward<F>(work)]() mutable { work(*self); });
  }

  void create(std::shared_ptr<Client> client, protocol::CreateRoom request, Id id) override {
    on_strand([client, request = std::move(request), id = std::move(id)](RoomImpl& room) mutable {
      room.do_create(client, std::move(request), std::move(id));
    });
  }
  void join(std::shared_ptr<Client> client, protocol::Join request, Id id) override {
    on_strand([client, request = std::move(request), id = std::move(id)](RoomImpl& room) mutable {
      room.do_join(client, std::move(request), std::move(id));
    });
  }
  void resume(std::shared_ptr<Client> client, std::string token, TokenHash hash, std::optional<std::int64_t> last_v,
              Id id) override {
    on_strand([client, token = std::move(token), hash, last_v, id = std::move(id)](RoomImpl& room) mutable {
      room.do_resume(client, token, hash, last_v, std::move(id));
    });
  }
  void handle(std::shared_ptr<Client> client, protocol::ClientMessage message, Clock::time_point arrived) override {
    on_strand([client, message = std::move(message), arrived](RoomImpl& room) mutable {
      room.do_handle(client, std::move(message), arrived);
    });
  }
  void disconnect(std::shared_ptr<Client> client) override {
    on_strand([client](RoomImpl& room) { room.do_disconnect(client); });
  }
  void move_away(bool commit_first, std::function<void()> after) override {
    on_strand([commit_first, after = std::move(after)](RoomImpl& room) mutable {
      room.do_move_away(commit_first, std::move(after));
    });
  }
  std::optional<protocol::LobbyRoom> lobby_entry() const override {
    std::lock_guard lock(lobby_mutex_);
    return lobby_;
  }

  void begin_after_restore() override {
    for (int i = 0; i < seats_.size(); ++i) {
      if (seats_[i].held()) issue_token(*seats_[i].token, i);
    }
    refresh_lobby();
    on_strand([](RoomImpl& room) { room.resume_after_restart(); });
  }

 private:
  // ------------------------------------------------------------ sending and recording

  void send(const std::shared_ptr<Client>& client, const protocol::ServerMessage& message) {
    fanout_.send(client, message);
  }
  void reply_ok(const std::shared_ptr<Client>& client, Id id) { send(client, protocol::Ok{std::move(id)}); }
  void reply_error(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message = {}) {
    send(client, message.empty() ? protocol::default_error(code, std::move(id))
                                 : protocol::make_error(code, std::move(message), std::move(id)));
  }
  // A refused create, join or resume: unless it is a member already, the
  // client is in no room.
  void refuse(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message = {}) {
    reply_error(client, code, std::move(id), std::move(message));
    if (!seats_.member_of(*client)) client->clear_room(this);
  }

  // Logs an event and sends it to everyone; the store learns the new version
  // in the same submission.
  void record(protocol::RoomEvent event) {
    if (outbox_.version_moved()) post_submit();
    fanout_.record(std::move(event));
  }

  // The `turn` that closes every decision's events: who is to act, and for
  // that seat alone what it may do.
  protocol::Turn turn_for(std::optional<engine::Seat> viewer) const {
    protocol::Turn turn{log_.v(), std::nullopt, std::nullopt};
    if (state_ != State::kPlaying || !game_) return turn;
    turn.seat = game_->game().to_act();
    if (viewer == turn.seat) {
      engine::LegalDecisions legal = game_->game().legal(*viewer);
      if (!legal.empty()) turn.legal = legal;
    }
    return turn;
  }
  void announce_turn() {
    fanout_.announce(turn_for(std::nullopt), [this](engine::Seat seat) { return turn_for(seat); });
  }

  engine::Transcript transcript() const { return engine::make_transcript(game_->game()); }

  protocol::RoomSnapshot snapshot(std::optional<engine::Seat> you) const {
    protocol::RoomSnapshot m;
    m.v = log_.v();
    m.code = code_;
    m.settings = settings_;
    m.host = seats_.host();
    m.seats = seats_.infos();
    m.spectators = static_cast<int>(seats_.spectators().size());
    m.state = state_;
    m.you = you;
    m.game_number = game_number_;
    if (game_) {
      m.players = game_->players();
      m.game = engine::view_of(game_->game(), you ? engine::Viewer::of(*you) : engine::Viewer::spectator());
      if (state_ == State::kOver) m.result = game_->result();
    }
    m.timer = clock_.timer();
    return m;
  }

  // ------------------------------------------------------------ durability

  void write(Record record) {
    if (outbox_.write(std::move(record))) post_submit();
  }
  // Everything this room writes until the strand gets back here goes in one
  // submission; the writer groups submissions of all rooms further.
  void post_submit() {
    on_strand([](RoomImpl& room) { room.submit(); });
  }
  void submit() {
    if (closed_) return outbox_.submit_final(log_.v());
    // Weak: neither the writer nor the io_context's queue may keep a room
    // alive. A room already released has nobody left to send to.
    outbox_.submit(log_.v(), [weak = weak_from_this()](std::uint64_t number, bool written) {
      if (auto self = weak.lock()) {
        net::post(self->strand_, [weak, number, written] {
          auto room = weak.lock();
          if (!room) return;
          if (!written) spdlog::error("room {}: a write failed; what it recorded may not survive a restart", room->code_);
          room->outbox_.committed(number, written);
        });
      }
    });
  }
  void write_seats() {
    if (!outbox_.enabled() || closed_) return;
    for (Record& record : seats_.records(code_)) write(std::move(record));
  }

  // ------------------------------------------------------------ tokens

  void issue_token(const TokenHash& hash, engine::Seat seat) {
    if (auto host = host_.lock()) host->token_issued(hash, shared_from_this(), seat);
  }
  void revoke_token(const std::optional<TokenHash>& hash) {
    if (!hash) return;
    if (auto host = host_.lock()) host->token_revoked(*hash);
  }
  // Seats a human with a fresh token; returns the token (sent once, to them).
  std::string seat_human(engine::Seat index, const std::shared_ptr<Client>& client, std::string name) {
    std::string token = new_token();
    const TokenHash hash = services_.hasher->hash(token);
    grace_timers_[static_cast<std::size_t>(index)]->cancel();
    seats_.seat_human(index, client, std::move(name), hash, chat_bucket());
    issue_token(hash, index);
    return token;
  }
  void free_seat(engine::Seat index) {
    grace_timers_[static_cast<std::size_t>(index)]->cancel();
    revoke_token(seats_.free(index));
  }
  TokenBucket chat_bucket() const {
    return TokenBucket(limits_.chat_rate_per_second, limits_.chat_burst, TokenBucket::Clock::now());
  }

  // ------------------------------------------------------------ requests

  void do_create(const std::shared_ptr<Client>& client, protocol::CreateRoom request, Id id) {
    if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
    write(record::RoomCreated{code_, protocol::settings_record(settings_), now_ms()});
    const std::string token = seat_human(0, client, std::move(request.name));
    for (const protocol::BotSpec& bot : request.bots) {
      if (bot.seat > 0 && bot.seat < settings_.seats) seats_.seat_bot(bot.seat, bot.level);  // the parser checked
    }
    seats_.set_host(0);
    send(client, protocol::Created{std::move(id), code_, 0, token});
    send(client, snapshot(0));
    spdlog::info("room {} created ({} seats, {})", code_, settings_.seats, settings_.rules.preset);
    after_membership_change();
  }

  void do_join(const std::shared_ptr<Client>& client, protocol::Join request, Id id) {
    if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
    if (seats_.member_of(*client)) return reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
    const bool player = request.as == protocol::JoinAs::kPlayer;
    if (player && seats_.kicked_player(*client, request.name)) return refuse(client, ErrorCode::kRoomKicked, std::move(id));
    if (seats_.name_taken(request.name)) return refuse(client, ErrorCode::kRoomNameTaken, std::move(id));
    if (!player) {
      if (!settings_.spectators) return refuse(client, ErrorCode::kRoomSpectatorsOff, std::move(id));
      if (seats_.spectators().size() >= limits_.max_spectators_per_room) {
        return refuse(client, ErrorCode::kRoomFull, std::move(id), "This room has as many spectators as it can take.");
      }
      record(protocol::SpectatorsChanged{static_cast<int>(seats_.spectators().size()) + 1});
      seats_.spectators().push_back(Spectator{client, std::move(request.name), chat_bucket()});
      send(client, protocol::Joined{std::move(id), code_, protocol::JoinAs::kSpectator, std::nullopt, {}, false});
      send(client, snapshot(std::nullopt));
      return after_membership_change();
    }
    if (state_ == State::kPlaying) {
      return refuse(client, ErrorCode::kRoomAlreadyStarted, std::move(id),
                    "The game has already started; join as a spectator, or wait for the next one.");
    }
    const auto seat = seats_.first_empty();
    if (!seat) return refuse(client, ErrorCode::kRoomFull, std::move(id));
    record(protocol::SeatJoined{*seat, request.name});
    const std::string token = seat_human(*seat, client, std::move(request.name));
    send(client, protocol::Joined{std::move(id), code_, protocol::JoinAs::kPlayer, *seat, token, false});
    send(client, snapshot(*seat));
    pass_host_on();
    after_membership_change();
  }

  void do_resume(const std::shared_ptr<Client>& client, const std::string& token, const TokenHash& hash,
                 std::optional<std::int64_t> last_v, Id id) {
    std::optional<engine::Seat> found;
    for (int i = 0; i < seats_.size(); ++i) {
      if (seats_[i].held() && *seats_[i].token == hash) found = i;
    }
    if (!closed_ && !found && seats_.kicked_token(hash)) return refuse(client, ErrorCode::kRoomKicked, std::move(id));
    if (closed_ || !found) return refuse(client, ErrorCode::kRoomBadToken, std::move(id));
    if (const auto member = seats_.member_of(*client); member && member->seat != found) {
      return reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
    }
    const engine::Seat index = *found;
    SeatSlot& seat = seats_[index];
    const bool was_away = !seat.client;
    if (seat.client && seat.client != client) {
      // The same seat on a new connection (a page reload, a network switch):
      // the newest wins, the old one is told why and closed.
      const auto old = std::move(seat.client);
      seat.client.reset();
      old->clear_room(this);
      const auto reason = protocol::CloseReason::kReplaced;
      send(old, protocol::Closing{reason, std::string(protocol::close_message(reason))});
      old->close(CloseReason{protocol::close_code(reason), std::string(protocol::close_reason_name(reason))});
    }
    if (was_away) {
      grace_timers_[static_cast<std::size_t>(index)]->cancel();
      seat.away_past_grace = false;
      if (seat.takeover == protocol::TakeoverReason::kDisconnected) seat.takeover.reset();
    }
    if (seat.client != client) seat.chat = chat_bucket();
    seat.client = client;
    send(client, protocol::Joined{std::move(id), code_, protocol::JoinAs::kPlayer, index, token, true});
    if (!last_v || !fanout_.replay(client, index, *last_v)) send(client, snapshot(index));
    send(client, turn_for(index));
    // Then everyone, the owner included, learns the seat is back.
    if (was_away) record(protocol::ConnectionChanged{index, true});
    after_membership_change();
    schedule();
  }

  void do_disconnect(const std::shared_ptr<Client>& client) {
    const auto member = seats_.member_of(*client);
    if (!member) return;
    if (member->seat) {
      SeatSlot& seat = seats_[*member->seat];
      seat.client.reset();
      seat.chat.reset();
      record(protocol::ConnectionChanged{*member->seat, false});
      arm_grace(*member->seat);
    } else {
      remove_spectator(member->spectator);
    }
    after_membership_change();
    check_rematch();
  }

  void remove_spectator(std::size_t index) {
    auto& spectators = seats_.spectators();
    spectators.erase(spectators.begin() + static_cast<std::ptrdiff_t>(index));
    record(protocol::SpectatorsChanged{static_cast<int>(spectators.size())});
  }

  void do_handle(const std::shared_ptr<Client>& client, protocol::ClientMessage message, Clock::time_point arrived) {
    Id& id = message.id;
    if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
    const auto member = seats_.member_of(*client);
    if (!member) return refuse(client, ErrorCode::kRoomNotInRoom, std::move(id));
    const bool seat_action = std::visit(Overloaded{
                                            [](const protocol::Leave&) { return false; },
                                            [](const protocol::Chat&) { return false; },
                                            [](const protocol::GetTranscript&) { return false; },
                                            [](const auto&) { return true; },
                                        },
                                        message.body);
    if (seat_action && !member->seat) return reply_error(client, ErrorCode::kRoomSpectator, std::move(id));
    if (auto decision = protocol::decision_of(message.body, member->seat.value_or(0))) {
      return do_decision(client, *decision, std::move(id), arrived);
    }
    const auto host_only = [&] {
      if (member->seat == seats_.host()) return true;
      reply_error(client, ErrorCode::kRoomNotHost, std::move(id));
      return false;
    };
    std::visit(Overloaded{
                   [&](const protocol::Leave&) { do_leave(client, *member, std::move(id)); },
                   [&](const protocol::AddBot& m) {
                     if (host_only()) do_add_bot(client, m, std::move(id));
                   },
                   [&](const protocol::RemoveBot& m) {
                     if (host_only()) do_remove_bot(client, m.seat, std::move(id));
                   },
                   [&](const protocol::Kick& m) {
                     if (host_only()) do_kick(client, m.seat, std::move(id));
                   },
                   [&](const protocol::Start&) {
                     if (host_only()) do_start(client, std::move(id));
                   },
                   [&](const protocol::Rematch&) { do_rematch(client, *member->seat, std::move(id)); },
                   [&](const protocol::Chat& m) { do_chat(client, *member, m, std::move(id)); },
                   [&](const protocol::GetTranscript&) { do_transcript(client, std::move(id)); },
                   // The handler answers these itself, or refuses a second room.
                   [&](const auto&) { reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id)); },
               },
               message.body);
  }

  void do_leave(const std::shared_ptr<Client>& client, const Member& member, Id id) {
    reply_ok(client, std::move(id));
    client->clear_room(this);
    if (!member.seat) {
      remove_spectator(member.spectator);
      return after_membership_change();
    }
    const engine::Seat index = *member.seat;
    SeatSlot& seat = seats_[index];
    seat.client.reset();
    if (state_ == State::kPlaying) {
      // A bot plays the seat to the end of the game; it is freed (seat_left) then.
      revoke_token(seat.token);
      seat.token.reset();
      seat.takeover = protocol::TakeoverReason::kLeft;
      record(protocol::BotTakeover{index, protocol::TakeoverReason::kLeft, seat.level});
    } else {
      const std::string name = seat.name;
      free_seat(index);
      record(protocol::SeatLeft{index, name});
    }
    after_seat_lost();
  }

  void do_add_bot(const std::shared_ptr<Client>& client, const protocol::AddBot& request, Id id) {
    if (state_ == State::kPlaying) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
    std::optional<engine::Seat> index = request.seat;
    if (index && (*index >= settings_.seats || !seats_[*index].empty())) {
      return reply_error(client, ErrorCode::kRoomBadSeat, std::move(id), "A bot needs an empty seat at this table.");
    }
    if (!index) index = seats_.first_empty();
    if (!index) return reply_error(client, ErrorCode::kRoomFull, std::move(id));
    reply_ok(client, std::move(id));
    seats_.seat_bot(*index, request.level);
    record(protocol::BotAdded{*index, request.level, seats_[*index].name});
    after_membership_change();
    check_rematch();
  }

  void do_remove_bot(const std::shared_ptr<Client>& client, engine::Seat index, Id id) {
    if (state_ == State::kPlaying) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
    if (index >= settings_.seats || !seats_[index].bot()) {
      return reply_error(client, ErrorCode::kRoomBadSeat, std::move(id), "There is no bot in that seat.");
    }
    reply_ok(client, std::move(id));
    free_seat(index);
    record(protocol::BotRemoved{index});
    after_membership_change();
  }

  void do_kick(const std::shared_ptr<Client>& client, engine::Seat index, Id id) {
    if (index >= settings_.seats || index == seats_.host() || !seats_[index].held()) {
      return reply_error(client, ErrorCode::kRoomBadSeat, std::move(id), "There is no other player in that seat.");
    }
    reply_ok(client, std::move(id));
    SeatSlot& seat = seats_[index];
    record(protocol::Kicked{index, seat.name});  // the kicked player sees it too
    const auto kicked = seat.client;
    // The token stays registered as a kicked one: a resume answers room/kicked.
    seats_.remember_kick(index);
    if (kicked) {
      reply_error(kicked, ErrorCode::kRoomKicked, std::nullopt);
      kicked->clear_room(this);
      seat.client.reset();
    }
    grace_timers_[static_cast<std::size_t>(index)]->cancel();
    if (state_ == State::kPlaying) {
      seat.kicked = true;
      seat.takeover = protocol::TakeoverReason::kKicked;
      record(protocol::BotTakeover{index, protocol::TakeoverReason::kKicked, seat.level});
    } else {
      free_seat(index);
    }
    after_seat_lost();
  }

  void do_start(const std::shared_ptr<Client>& client, Id id) {
    if (state_ == State::kPlaying) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
    if (state_ == State::kWaiting && !seats_.full()) {
      return reply_error(client, ErrorCode::kRoomNotEnoughPlayers, std::move(id),
                         "Every seat needs a player or a bot before the game can start: add a bot or wait for "
                         "someone to join.");
    }
    reply_ok(client, std::move(id));
    start_game();
  }

  void do_rematch(const std::shared_ptr<Client>& client, engine::Seat seat, Id id) {
    if (state_ != State::kOver) return reply_error(client, ErrorCode::kRoomNotOver, std::move(id));
    reply_ok(client, std::move(id));
    seats_.vote(seat);
    record(protocol::RematchVote{seat, seats_.voters()});
    check_rematch();
  }

  void do_chat(const std::shared_ptr<Client>& client, const Member& member, const protocol::Chat& chat, Id id) {
    if (settings_.chat == protocol::ChatMode::kOff) return reply_error(client, ErrorCode::kChatOff, std::move(id));
    if (settings_.chat == protocol::ChatMode::kPhrases && chat.phrase.empty()) {
      return reply_error(client, ErrorCode::kChatNotAPhrase, std::move(id));
    }
    TokenBucket& bucket = member.seat ? *seats_[*member.seat].chat : seats_.spectators()[member.spectator].chat;
    if (!bucket.try_take(TokenBucket::Clock::now())) {
      return reply_error(client, ErrorCode::kChatRateLimited, std::move(id));
    }
    reply_ok(client, std::move(id));
    record(protocol::ChatPosted{member.seat, seats_.name_of(member), chat.text, chat.phrase});
  }

  // The most recent finished game, to players and spectators alike: its
  // hands are public by then.
  void do_transcript(const std::shared_ptr<Client>& client, Id id) {
    if (!game_ || !game_->game().over()) {
      return reply_error(client, ErrorCode::kRoomTranscriptUnavailable, std::move(id));
    }
    std::optional<std::string> kept_id;
    if (outbox_.enabled()) kept_id = game_->id();
    send(client, protocol::TranscriptMessage{std::move(id), code_, game_->number(), transcript(), game_->players(),
                                            kept_id});
  }

  void do_decision(const std::shared_ptr<Client>& client, const engine::Decision& decision, Id id,
                   Clock::time_point arrived) {
    if (!game_) return reply_error(client, ErrorCode::kRoomNotStarted, std::move(id));
    if (auto refusal = game_->game().check(decision)) {
      const protocol::Error error = protocol::refusal_error(*refusal, std::move(id));
      services_.metrics->action_refused(protocol::error_code_name(error.code));
      return send(client, error);
    }
    // The ok follows the decision's record (so it waits for its commit) and
    // comes before the events it caused.
    apply(decision, [&] { reply_ok(client, std::move(id)); });
    services_.metrics->observe_action_latency(Clock::now() - arrived);
  }

  // ------------------------------------------------------------ the game

  void start_game() {
    while (const auto index = seats_.first_empty()) {  // after a game: a seat emptied since gets a bot
      seats_.seat_bot(*index, kStandInLevel);
      record(protocol::BotAdded{*index, kStandInLevel, seats_[*index].name});
    }
    engine::Rng deal_rng(engine::os_seed());
    const engine::DealSetup deal = engine::prepare_deal(settings_.rules, settings_.seats, deal_rng);
    std::vector<protocol::BotLevel> levels;
    for (const SeatSlot& seat : seats_.seats()) levels.push_back(seat.level);
    auto started = RoomGame::start(settings_.rules, deal.deck, deal.dealer, deal.first, game_number_ + 1,
                                   outbox_.enabled() ? new_token() : std::string(), seats_.players(), levels);
    if (const auto* error = std::get_if<std::string>(&started)) {
      spdlog::error("room {}: cannot start a game: {}", code_, *error);
      return;
    }
    game_.emplace(std::get<RoomGame>(std::move(started)));
    game_number_ = game_->number();
    write_seats();
    write(record::GameStarted{code_, game_number_, game_->id(), protocol::setup_record(transcript(), game_->players()),
                              now_ms()});
    seats_.clear_votes();
    set_state(State::kPlaying);
    services_.metrics->game_started();
    // The log says who plays before the engine's deal events follow.
    record(protocol::NewGame{game_number_, game_->players()});
    spdlog::info("room {}: game {} started", code_, game_number_);
    after_events();
    refresh_lobby();
  }

  // `before_events` runs once the decision is recorded, before its events go out.
  void apply(const engine::Decision& decision, const std::function<void()>& before_events = {}) {
    if (auto refusal = game_->apply(decision)) {  // cannot happen: checked, or chosen from the legal list
      spdlog::error("room {}: a legal decision was refused: {}", code_, refusal->message);
      return;
    }
    write(record::DecisionAccepted{game_->id(), game_->decisions() - 1, protocol::decision_to_json(decision).dump()});
    services_.metrics->action_applied();
    if (before_events) before_events();
    after_events();
  }

  // A decision (or the deal) happened: its events go out, the game may be
  // over, the next decision is waited for, and a `turn` closes it all.
  void after_events() {
    for (const engine::Event& event : game_->game().last_events()) record(protocol::RoomEvent(event));
    if (game_->game().over()) finish_game();
    schedule();
    announce_turn();
  }

  void finish_game() {
    clock_.stop();
    set_state(State::kOver);
    services_.metrics->game_finished();
    game_->drop_bots();
    write(record::GameFinished{game_->id(), protocol::transcript_document(transcript(), game_->players()), now_ms()});
    spdlog::info("room {}: game {} over", code_, game_number_);
    for (int i = 0; i < seats_.size(); ++i) {
      SeatSlot& seat = seats_[i];
      if (!seat.human() || !seat.takeover) continue;
      if (seat.takeover == protocol::TakeoverReason::kDisconnected) {
        // Away: no bot is needed between games, and the seat stays its
        // owner's until the room closes (away_past_grace makes a bot play it
        // from its first turn if the next game starts without them).
        seat.takeover.reset();
      } else {
        // Left or kicked during the game: the seat is free again, and this is
        // its one `seat_left` (the leave said bot_takeover).
        const std::string name = seat.name;
        free_seat(i);
        record(protocol::SeatLeft{i, name});
      }
    }
    after_membership_change();
  }

  bool bot_controls(engine::Seat index) const {
    const SeatSlot& seat = seats_[index];
    return seat.bot() || (seat.human() && seat.takeover.has_value());
  }

  // Arms what the next decision waits for: a bot's move, or the turn timer
  // of a human seat.
  void schedule() {
    if (state_ != State::kPlaying || !game_) return clock_.stop();
    const std::size_t key = game_->game().decisions().size();
    const engine::Seat seat = game_->game().to_act();
    SeatSlot& slot = seats_[seat];
    if (slot.human() && !slot.client && slot.away_past_grace && !slot.takeover) {
      // Away past the grace period and now to act: a bot plays the seat
      // until its owner resumes.
      slot.takeover = protocol::TakeoverReason::kDisconnected;
      record(protocol::BotTakeover{seat, protocol::TakeoverReason::kDisconnected, slot.level});
    }
    if (bot_controls(seat)) {
      return clock_.wait_for_bot(key, [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->on_bot_timer();
      });
    }
    const auto timer = clock_.wait_for_human(seat, key, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->on_turn_timeout();
    });
    if (timer) record(*timer);
  }

  void on_bot_timer() {
    if (closed_ || state_ != State::kPlaying || !game_) return;
    const engine::Seat seat = game_->game().to_act();
    if (bot_controls(seat)) bot_move(seat);
  }

  // The seat let its timer run out: one bot move for it, announced, then play
  // goes on (a new timer if the same seat must decide again).
  void on_turn_timeout() {
    if (closed_ || state_ != State::kPlaying || !game_) return;
    const auto expired = clock_.take_expired();
    const engine::Seat seat = game_->game().to_act();
    if (expired && expired->seat == seat && !bot_controls(seat)) {
      record(protocol::BotTakeover{seat, protocol::TakeoverReason::kTimeout, kStandInLevel});
      bot_move(seat);
    } else {
      schedule();
    }
  }

  void bot_move(engine::Seat seat) {
    auto [decision, problem] = game_->bot_decision(seat, rng_);
    if (!problem.empty()) spdlog::error("room {}: seat {}: {}", code_, seat, problem);
    if (decision) apply(*decision);
  }

  // ------------------------------------------------------------ seats over time

  void arm_grace(engine::Seat index) {
    grace_timers_[static_cast<std::size_t>(index)]->arm(limits_.seat_grace_period, [weak = weak_from_this(), index] {
      if (auto self = weak.lock()) self->on_grace_expired(index);
    });
  }

  void on_grace_expired(engine::Seat index) {
    SeatSlot& seat = seats_[index];
    if (closed_ || seat.client || !seat.held()) return;
    if (state_ != State::kWaiting) {
      // In a game a bot stands in once the seat is to act (schedule()); after
      // a game the seat stays its owner's until the room closes.
      seat.away_past_grace = true;
      return schedule();
    }
    const std::string name = seat.name;
    free_seat(index);
    record(protocol::SeatLeft{index, name});
    after_seat_lost();
  }

  // Nobody is connected after a restart: each seat's owner has a fresh grace
  // period to come back; the seat to act gets its bot or its turn timer.
  void resume_after_restart() {
    if (closed_) return;
    for (int i = 0; i < seats_.size(); ++i) {
      if (seats_[i].held()) arm_grace(i);
    }
    spdlog::info("room {} restored ({}, version {})", code_,
                 state_ == State::kWaiting   ? "waiting"
                 : state_ == State::kPlaying ? "game " + std::to_string(game_number_) + " in play"
                                             : "game " + std::to_string(game_number_) + " over",
                 log_.v());
    after_seat_lost();  // closes a room no human holds a seat in; else schedules
  }

  // A human gave up a seat (left, kicked, or away past the grace period
  // before a game): the host role moves on, and a room without humans closes.
  void after_seat_lost() {
    if (!seats_.anyone_holds_a_seat()) {
      return close_room(protocol::RoomClosedReason::kPlayersLeft, "Every player has left, so the room has closed.");
    }
    pass_host_on();
    after_membership_change();
    schedule();
    check_rematch();
  }

  void pass_host_on() {
    if (const auto host = seats_.pass_host_on_if_needed()) record(protocol::HostChanged{*host});
  }

  // After a game: the next one starts once every connected player has voted
  // (and at least one of them has); start_game gives empty seats a bot.
  void check_rematch() {
    if (state_ != State::kOver || !seats_.any_votes()) return;
    bool voter_here = false;
    for (int i = 0; i < seats_.size(); ++i) {
      if (!seats_[i].human() || !seats_[i].client) continue;
      if (!seats_.voted(i)) return;
      voter_here = true;
    }
    if (voter_here) start_game();
  }

  void after_membership_change() {
    if (closed_) return;
    write_seats();
    refresh_lobby();
    const bool idle = seats_.connected() == 0;
    if (idle && !idle_timer_.armed()) {
      // A room that never started a game goes sooner: it was most likely
      // created and abandoned, and holds one of max_rooms.
      const auto expiry = game_number_ == 0 ? std::min(limits_.unstarted_room_expiry, limits_.room_idle_expiry)
                                            : limits_.room_idle_expiry;
      idle_timer_.arm(expiry, [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->on_idle();
      });
    } else if (!idle) {
      idle_timer_.cancel();
    }
  }

  void on_idle() {
    if (closed_ || seats_.connected() != 0) return;
    close_room(protocol::RoomClosedReason::kIdle, "Nobody was connected for a while, so the room has closed.");
  }

  // The room is gone: its tokens stop working, its code is free again, and
  // whoever is still in it is told with `room_closed` and let go.
  void close_room(protocol::RoomClosedReason reason, const std::string& why) {
    spdlog::info("room {} closed: {}", code_, why);
    write(record::RoomClosed{code_});
    closed_ = true;
    clock_.stop();
    idle_timer_.cancel();
    fanout_.to_everyone(protocol::RoomClosed{code_, reason, why});
    for (const Spectator& spectator : seats_.spectators()) spectator.client->clear_room(this);
    for (int i = 0; i < seats_.size(); ++i) {
      if (seats_[i].client) seats_[i].client->clear_room(this);
      grace_timers_[static_cast<std::size_t>(i)]->cancel();
      revoke_token(seats_[i].token);
      seats_[i].token.reset();
      seats_[i].client.reset();
    }
    for (const TokenHash& hash : seats_.kicked_tokens()) revoke_token(hash);
    seats_.spectators().clear();
    {
      std::lock_guard lock(lobby_mutex_);
      lobby_.reset();
    }
    services_.metrics->rooms_changed(state_, -1);
    if (auto host = host_.lock()) host->room_closed(code_, this);
  }

  // ------------------------------------------------------------ moving to another server

  // Like closing, but the room lives on elsewhere: no record, no
  // `room_closed`, tokens untouched in the store; each connection is told
  // `moved` and closed, to resume on the room's new owner.
  void do_move_away(bool commit_first, std::function<void()> after) {
    const auto finished = [&after] {
      if (after) after();
    };
    if (closed_) return finished();
    spdlog::info("room {} moved to another server{}", code_, commit_first ? " (handed over)" : " (lease lost)");
    closed_ = true;
    clock_.stop();
    idle_timer_.cancel();
    const auto reason = protocol::CloseReason::kMoved;
    const SharedText closing =
        make_shared_text(protocol::encode(protocol::Closing{reason, std::string(protocol::close_message(reason))}));
    const auto let_go = [&](const std::shared_ptr<Client>& client) {
      client->clear_room(this);
      client->send(closing);
      client->close(CloseReason{protocol::close_code(reason), std::string(protocol::close_reason_name(reason))});
    };
    for (const Spectator& spectator : seats_.spectators()) let_go(spectator.client);
    seats_.spectators().clear();
    for (int i = 0; i < seats_.size(); ++i) {
      grace_timers_[static_cast<std::size_t>(i)]->cancel();
      if (seats_[i].client) let_go(seats_[i].client);
      seats_[i].client.reset();
    }
    {
      std::lock_guard lock(lobby_mutex_);
      lobby_.reset();
    }
    services_.metrics->rooms_changed(state_, -1);
    if (!commit_first || !services_.writer) {
      outbox_.abandon();
      return finished();
    }
    outbox_.submit_final(log_.v());
    // Submissions commit in order: once this empty one is, so is the rest.
    services_.writer->submit(code_, {}, [after = std::move(after)](bool) {
      if (after) after();
    });
  }

  void set_state(State state) {
    if (state == state_) return;
    services_.metrics->rooms_changed(state_, -1);
    services_.metrics->rooms_changed(state, +1);
    state_ = state;
  }

  void refresh_lobby() {
    std::optional<protocol::LobbyRoom> entry;
    if (!closed_ && settings_.listed && state_ == State::kWaiting) entry = seats_.lobby_entry(code_, settings_);
    std::lock_guard lock(lobby_mutex_);
    lobby_ = std::move(entry);
  }

  const RoomServices services_;
  const Limits& limits_;
  const std::weak_ptr<RoomHost> host_;
  const std::string code_;
  const protocol::RoomSettings settings_;
  Strand strand_;

  State state_ = State::kWaiting;
  bool closed_ = false;
  SeatTable seats_;
  RoomLog log_;
  DurableOutbox outbox_;
  RoomFanout fanout_;
  int game_number_ = 0;
  std::optional<RoomGame> game_;  // the game in play, or the last one finished

  TurnClock clock_;  // a bot's move or a human's turn timer
  std::vector<std::unique_ptr<GuardedTimer>> grace_timers_;  // one per seat
  GuardedTimer idle_timer_;
  engine::Rng rng_;

  mutable std::mutex lobby_mutex_;
  std::optional<protocol::LobbyRoom> lobby_;
};

}  // namespace

std::shared_ptr<Room> Room::make(const RoomServices& services, std::weak_ptr<RoomHost> host, std::string code,
                                 protocol::RoomSettings settings) {
  const int seats = settings.seats;
  return std::make_shared<RoomImpl>(services, std::move(host), std::move(code), std::move(settings), SeatTable(seats),
                                    0);
}

std::shared_ptr<Room> Room::restore(const RoomServices& services, std::weak_ptr<RoomHost> host,
                                    RestoredRoom restored) {
  auto room = std::make_shared<RoomImpl>(services, std::move(host), restored.code, restored.settings,
                                         std::move(restored.seats), restored.v);
  room->adopt_restored(restored);
  return room;
}

}  // namespace gofish::server
