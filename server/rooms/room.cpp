// The room: its entry points, its request handlers and its game's
// lifecycle (room_impl.hpp declares the whole class). Everything here runs
// on the room's strand (see room.hpp); what it sends and writes is in
// room_output.cpp, seats over time in room_presence.cpp, and who sits where,
// the event log, the durability hold, the timers, the game and reading a
// room back from the store each live in a collaborator of their own.
#include <spdlog/spdlog.h>

#include "engine/overloaded.hpp"
#include "engine/setup.hpp"
#include "protocol/room_records.hpp"
#include "protocol/rules_json.hpp"
#include "server/rooms/room_impl.hpp"

namespace gofish::server {

RoomImpl::RoomImpl(const RoomServices& services, std::weak_ptr<RoomHost> host, std::string code,
                   protocol::RoomSettings settings, SeatTable seats, std::int64_t v)
    : services_(services),
      limits_(services_.limits),
      host_(std::move(host)),
      code_(std::move(code)),
      settings_(std::move(settings)),
      strand_(boost::asio::make_strand(services.io)),
      seats_(std::move(seats)),
      log_(limits_.room_history_events, v),
      outbox_(services.writer, code_, services.health),
      fanout_(seats_, log_, outbox_, limits_),
      clock_(*services.timers, strand_, limits_.bot_delay, settings_.bot_pace, settings_.turn_timer_seconds),
      idle_timer_(*services.timers, strand_),
      resubmit_timer_(*services.timers, strand_),
      rng_(engine::os_seed()),
      next_deal_(std::in_place, settings_.seats) {
  for (int i = 0; i < settings_.seats; ++i)
    grace_timers_.push_back(std::make_unique<GuardedTimer>(*services.timers, strand_));
  services_.metrics->rooms_changed(state_, +1);
}

// A room read back from the store: its game as it was, nobody connected.
void RoomImpl::adopt_restored(RestoredRoom& restored) {
  last_finished_ = std::move(restored.last_finished);
  if (restored.game) {
    game_number_ = restored.game->number();
    game_.emplace(std::move(*restored.game));
    set_state(game_->game().over() ? State::kOver : State::kPlaying);
    if (game_->game().over() && restored.finish_missing) {
      // Over, but the closing record never made it: write it now.
      write(record::GameFinished{game_->id(), services_.timers->wall_ms()});
    }
  }
  daily_note_ = std::move(restored.daily_note);
  deal_revealed_ = restored.deal_revealed;
  if (restored.next_deal) {
    next_deal_ = std::move(restored.next_deal);
  } else if (state_ != State::kPlaying) {
    // Stored before the next deal was kept: the seed drawn as the room was
    // made is stored now, before anyone is shown its commitment.
    write_next_deal();
  }
}

void RoomImpl::create(std::shared_ptr<Client> client, protocol::CreateRoom request, Id id) {
  on_strand([client, request = std::move(request), id = std::move(id)](RoomImpl& room) mutable {
    room.do_create(client, std::move(request), std::move(id));
  });
}

void RoomImpl::join(std::shared_ptr<Client> client, protocol::Join request, Id id) {
  on_strand([client, request = std::move(request), id = std::move(id)](RoomImpl& room) mutable {
    room.do_join(client, std::move(request), std::move(id));
  });
}

void RoomImpl::resume(std::shared_ptr<Client> client, std::string token, TokenHash hash,
                      std::optional<std::int64_t> last_v, Id id) {
  on_strand([client, token = std::move(token), hash, last_v, id = std::move(id)](RoomImpl& room) mutable {
    room.do_resume(client, token, hash, last_v, std::move(id));
  });
}

void RoomImpl::handle(std::shared_ptr<Client> client, protocol::ClientMessage message, Clock::time_point arrived) {
  on_strand([client, message = std::move(message), arrived](RoomImpl& room) mutable {
    room.do_handle(client, std::move(message), arrived);
  });
}

void RoomImpl::disconnect(std::shared_ptr<Client> client) {
  on_strand([client](RoomImpl& room) { room.do_disconnect(client); });
}

std::optional<protocol::LobbyRoom> RoomImpl::lobby_entry() const {
  std::lock_guard lock(lobby_mutex_);
  return lobby_;
}

void RoomImpl::begin_after_restore() {
  for (int i = 0; i < seats_.size(); ++i) {
    if (seats_[i].held()) issue_token(*seats_[i].token, i);
  }
  // A kicked token still names the room, so a resume with it hears room/kicked.
  for (const SeatTable::Kick& kick : seats_.kicks()) {
    if (kick.token) issue_token(*kick.token, kick.seat);
  }
  refresh_lobby();
  on_strand([](RoomImpl& room) { room.resume_after_restart(); });
}

// The `turn` that closes every decision's events: who is to act, and for
// that seat alone what it may do (under table rules each seat also gets the
// mistakes it may make, its own alone).
void RoomImpl::announce_turn() {
  fanout_.announce(turn_for(std::nullopt), [this](engine::Seat seat) { return turn_for(seat); });
}

void RoomImpl::do_create(const std::shared_ptr<Client>& client, protocol::CreateRoom request, Id id) {
  if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
  write(record::RoomCreated{code_, protocol::settings_record(settings_), services_.timers->wall_ms()});
  write_next_deal();  // before the snapshot that announces its commitment
  const std::string token = seat_human(0, client, std::move(request.name));
  for (const protocol::BotSpec& bot : request.bots) {
    if (bot.seat > 0 && bot.seat < settings_.seats) seats_.seat_bot(bot.seat, bot.level);  // the parser checked
  }
  seats_.set_host(0);
  // Listed before the creator hears of it: a lobby asked for after
  // `created` (another connection, on another thread) shows the room.
  refresh_lobby();
  send(client, protocol::Created{std::move(id), code_, 0, token});
  send(client, snapshot(0));
  spdlog::info("room {} created ({} seats, {})", code_, settings_.seats, settings_.rules.preset);
  after_membership_change();
}

namespace {

// A paused room lets nobody in: what it would show them is not saved yet.
// Clients ask again after room/paused, as after room/busy.
constexpr const char* kPausedEntry =
    "This room is paused while the server tries again to save its game; try again in a moment.";

}  // namespace

void RoomImpl::do_join(const std::shared_ptr<Client>& client, protocol::Join request, Id id) {
  if (closed_) return refuse(client, moved_ ? ErrorCode::kRoomBusy : ErrorCode::kRoomNotFound, std::move(id));
  if (held_by_store()) return refuse_paused(client, ErrorCode::kRoomPaused, std::move(id), kPausedEntry);
  if (seats_.member_of(*client)) return reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
  const bool player = request.as == protocol::JoinAs::kPlayer;
  if (player && seats_.kicked_player(*client, request.name))
    return refuse(client, ErrorCode::kRoomKicked, std::move(id));
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
    if (paused_) send(client, paused_notice());
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

void RoomImpl::do_resume(const std::shared_ptr<Client>& client, const std::string& token, const TokenHash& hash,
                         std::optional<std::int64_t> last_v, Id id) {
  if (moved_) return refuse(client, ErrorCode::kRoomBusy, std::move(id));
  if (held_by_store() && !closed_) return refuse_paused(client, ErrorCode::kRoomPaused, std::move(id), kPausedEntry);
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
  if (paused_) send(client, paused_notice());
  // Today's deal's standing, heard again after a reload (tell_daily_result).
  if (daily_note_ && daily_note_->seat == index && daily_note_->holder == hash && daily_note_->game == game_number_) {
    send(client, daily_note_->result);
  }
  // Then everyone, the owner included, learns the seat is back.
  if (was_away) record(protocol::ConnectionChanged{index, true});
  // A host away past the grace period while nobody else was here: the
  // first player back takes the role.
  if (seats_[seats_.host()].away_past_grace) pass_host_to_someone_here();
  after_membership_change();
  schedule();
}

void RoomImpl::do_disconnect(const std::shared_ptr<Client>& client) {
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

void RoomImpl::remove_spectator(std::size_t index) {
  auto& spectators = seats_.spectators();
  spectators.erase(spectators.begin() + static_cast<std::ptrdiff_t>(index));
  record(protocol::SpectatorsChanged{static_cast<int>(spectators.size())});
}

void RoomImpl::do_handle(const std::shared_ptr<Client>& client, protocol::ClientMessage message,
                         Clock::time_point arrived) {
  Id& id = message.id;
  if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
  const auto member = seats_.member_of(*client);
  if (!member) return refuse(client, ErrorCode::kRoomNotInRoom, std::move(id));
  const bool seat_action = std::visit(Overloaded{
                                          [](const protocol::Leave&) { return false; },
                                          [](const protocol::Chat&) { return false; },
                                          [](const protocol::GetTranscript&) { return false; },
                                          [](const protocol::Contribute&) { return false; },  // deal/not_seated
                                          [](const auto&) { return true; },
                                      },
                                      message.body);
  if (seat_action && !member->seat) return reply_error(client, ErrorCode::kRoomSpectator, std::move(id));
  // Paused, the room changes nothing; a finished game's transcript is saved.
  if (paused_ && !std::holds_alternative<protocol::GetTranscript>(message.body)) {
    return refuse_paused(client, ErrorCode::kRoomPaused, std::move(id));
  }
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
                 [&](const protocol::Contribute& m) { do_contribute(client, *member, m, std::move(id)); },
                 // The handler answers these itself, or refuses a second room.
                 [&](const auto&) { reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id)); },
             },
             message.body);
}

void RoomImpl::do_leave(const std::shared_ptr<Client>& client, const Member& member, Id id) {
  client->clear_room(this);  // before the ok: as in refuse()
  reply_ok(client, std::move(id));
  if (!member.seat) {
    remove_spectator(member.spectator);
    return after_membership_change();
  }
  const engine::Seat index = *member.seat;
  SeatSlot& seat = seats_[index];
  seat.client.reset();
  give_up_seat(index);
  after_seat_lost();
}

// The seat's holder is gone for good. During a game a bot plays the seat to
// the end (bot_takeover left), and it is freed (seat_left) then; else it is
// free at once. Their token opens nothing any more.
void RoomImpl::give_up_seat(engine::Seat index) {
  SeatSlot& seat = seats_[index];
  if (state_ == State::kPlaying) {
    revoke_token(seat.token);
    seat.token.reset();
    seat.away_past_grace = false;
    seat.takeover = protocol::TakeoverReason::kLeft;
    record(protocol::BotTakeover{index, protocol::TakeoverReason::kLeft, seat.level});
  } else {
    const std::string name = seat.name;
    free_seat(index);
    record(protocol::SeatLeft{index, name});
  }
}

void RoomImpl::do_add_bot(const std::shared_ptr<Client>& client, const protocol::AddBot& request, Id id) {
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

void RoomImpl::do_remove_bot(const std::shared_ptr<Client>& client, engine::Seat index, Id id) {
  if (state_ == State::kPlaying) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
  if (index >= settings_.seats || !seats_[index].bot()) {
    return reply_error(client, ErrorCode::kRoomBadSeat, std::move(id), "There is no bot in that seat.");
  }
  reply_ok(client, std::move(id));
  free_seat(index);
  record(protocol::BotRemoved{index});
  after_membership_change();
}

void RoomImpl::do_kick(const std::shared_ptr<Client>& client, engine::Seat index, Id id) {
  if (index >= settings_.seats || index == seats_.host() || !seats_[index].held()) {
    return reply_error(client, ErrorCode::kRoomBadSeat, std::move(id), "There is no other player in that seat.");
  }
  reply_ok(client, std::move(id));
  SeatSlot& seat = seats_[index];
  record(protocol::Kicked{index, seat.name});  // the kicked player sees it too
  const auto kicked = seat.client;
  // The token stays registered as a kicked one: a resume answers room/kicked.
  seats_.remember_kick(index);
  write(record::RoomSettingsChanged{code_, protocol::settings_record(settings_, seats_.removed())});
  if (kicked) {
    kicked->clear_room(this);  // before it hears why: as in refuse()
    reply_error(kicked, ErrorCode::kRoomKicked, std::nullopt);
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

void RoomImpl::do_start(const std::shared_ptr<Client>& client, Id id) {
  if (state_ == State::kPlaying) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
  if (state_ == State::kWaiting && !seats_.full()) {
    return reply_error(client, ErrorCode::kRoomNotEnoughPlayers, std::move(id),
                       "Every seat needs a player or a bot before the game can start: add a bot or wait for "
                       "someone to join.");
  }
  reply_ok(client, std::move(id));
  start_game();
}

void RoomImpl::do_rematch(const std::shared_ptr<Client>& client, engine::Seat seat, Id id) {
  if (state_ != State::kOver) return reply_error(client, ErrorCode::kRoomNotOver, std::move(id));
  reply_ok(client, std::move(id));
  seats_.vote(seat);
  write_seats();  // the vote outlives a restart or a move to another node
  record(protocol::RematchVote{seat, seats_.voters()});
  check_rematch();
}

void RoomImpl::do_chat(const std::shared_ptr<Client>& client, const Member& member, const protocol::Chat& chat, Id id) {
  if (settings_.chat == protocol::ChatMode::kOff) return reply_error(client, ErrorCode::kChatOff, std::move(id));
  if (settings_.chat == protocol::ChatMode::kPhrases && chat.phrase.empty()) {
    return reply_error(client, ErrorCode::kChatNotAPhrase, std::move(id));
  }
  TokenBucket& bucket = member.seat ? *seats_[*member.seat].chat : seats_.spectators()[member.spectator].chat;
  if (!bucket.try_take(services_.timers->steady_now())) {
    return reply_error(client, ErrorCode::kChatRateLimited, std::move(id));
  }
  reply_ok(client, std::move(id));
  record(protocol::ChatPosted{member.seat, seats_.name_of(member), chat.text, chat.phrase});
}

// A seated human's value for the next deal (docs/FAIRNESS.md): taken until
// the game starts, once per commitment. The ok follows its record, so it
// goes out once the store holds the contribution (next_deal.hpp): an
// acknowledged contribution is dealt with, whatever restarts come between.
void RoomImpl::do_contribute(const std::shared_ptr<Client>& client, const Member& member, const protocol::Contribute& m,
                             Id id) {
  if (!member.seat || !seats_[*member.seat].human() || state_ == State::kPlaying || !next_deal_) {
    return reply_error(client, ErrorCode::kDealNotSeated, std::move(id));
  }
  if (const auto error = next_deal_->contribute(*member.seat, m.value))
    return reply_error(client, *error, std::move(id));
  write_next_deal();
  reply_ok(client, std::move(id));
}

// The most recent finished game, to players and spectators alike: its
// hands are public by then. While the next game is played, the last one.
// A shared deal's is held while other tables still play that deck
// (transcript_hold): today's deal until the day is over, a same-deal round
// until the event says every table of it is over (reveal_deal).
void RoomImpl::do_transcript(const std::shared_ptr<Client>& client, Id id) {
  if (!last_finished_) return reply_error(client, ErrorCode::kRoomTranscriptUnavailable, std::move(id));
  const TranscriptHold hold = transcript_hold(last_finished_->fairness, services_.timers->wall_ms(), deal_revealed_);
  if (hold != TranscriptHold::kNone) {
    return send(client, transcript_held_error(ErrorCode::kRoomTranscriptHeld, hold, std::move(id)));
  }
  std::optional<std::string> kept_id;
  if (outbox_.enabled() && !last_finished_->id.empty()) kept_id = last_finished_->id;
  send(client,
       protocol::TranscriptMessage{std::move(id), code_, last_finished_->number, last_finished_->transcript,
                                   last_finished_->players, kept_id, served_fairness(last_finished_->fairness)});
}

void RoomImpl::do_decision(const std::shared_ptr<Client>& client, const engine::Decision& decision, Id id,
                           Clock::time_point arrived) {
  if (!game_) return reply_error(client, ErrorCode::kRoomNotStarted, std::move(id));
  const engine::Judgement judgement = game_->game().judge(decision);
  if (const auto refusal = judgement.refusal()) {
    const protocol::Error error = protocol::refusal_error(*refusal, std::move(id));
    services_.metrics->action_refused(protocol::error_code_name(error.code));
    return send(client, error);
  }
  // The ok follows the decision's record (so it waits for its commit) and
  // comes before the events it caused.
  apply(judgement, [&] { reply_ok(client, std::move(id)); });
  services_.metrics->observe_action_latency(services_.timers->steady_now() - arrived);
}

void RoomImpl::start_game() {
  while (const auto index = seats_.first_empty()) {  // after a game: a seat emptied since gets a bot
    seats_.seat_bot(*index, kStandInLevel);
    record(protocol::BotAdded{*index, kStandInLevel, seats_[*index].name});
  }
  // gofish-deal/1 (docs/FAIRNESS.md): from the seed committed to and the
  // contributions received by now; a same-deal round or today's deal from
  // the seed every table shares (room_table.cpp), with no contribution.
  if (!next_deal_) next_deal_.emplace(settings_.seats);
  const NextDeal::Dealt dealt = next_deal_->deal(settings_.rules, settings_.seats);
  const fairness::FairDeal& deal = dealt.deal;
  std::vector<protocol::BotLevel> levels;
  for (const SeatSlot& seat : seats_.seats()) levels.push_back(seat.level);
  auto started = RoomGame::start(settings_.rules, deal.deck, deal.dealer, deal.first, game_number_ + 1,
                                 outbox_.enabled() ? new_token() : std::string(), seats_.players(), levels);
  if (const auto* error = std::get_if<std::string>(&started)) {
    spdlog::error("room {}: cannot start a game: {}", code_, *error);
    return;
  }
  game_.emplace(std::get<RoomGame>(std::move(started)));
  game_->set_fairness(dealt.record);
  next_deal_.reset();  // drawn afresh once this game is over
  write_next_deal();   // its seed is kept in the set-up from now on
  if (daily_note_) {   // a rematch: the standing was of the game before
    daily_note_.reset();
    write_daily_note();
  }
  game_number_ = game_->number();
  seats_.clear_votes();  // before the seats are written: the rows keep no vote of the last game
  // A game does not begin under a host who is not here (a rematch the
  // others asked for while the host was away).
  pass_host_to_someone_here();
  write_seats();
  write(record::GameStarted{code_, game_number_, game_->id(),
                            protocol::setup_record(transcript(), game_->players(), game_->fairness()),
                            services_.timers->wall_ms()});
  set_state(State::kPlaying);
  services_.metrics->game_started();
  // The log says who plays before the engine's deal events follow.
  record(protocol::NewGame{game_number_, game_->players()});
  spdlog::info("room {}: game {} started", code_, game_number_);
  after_events(true);
  refresh_lobby();
}

// `before_events` runs once the decision is recorded, before its events go out.
void RoomImpl::apply(const engine::Judgement& judgement, const std::function<void()>& before_events) {
  const engine::Decision& decision = judgement.decision();
  if (auto refusal = game_->apply(judgement)) {  // cannot happen: judged, or chosen from the legal list
    spdlog::error("room {}: a legal decision was refused: {}", code_, refusal->message);
    return;
  }
  write(record::DecisionAccepted{game_->id(), game_->decisions() - 1, protocol::decision_to_json(decision).dump(),
                                 std::nullopt});
  services_.metrics->action_applied();
  if (before_events) before_events();
  after_events();
}

// A decision (or the deal) happened: its events go out, the game may be
// over, the next decision is waited for, and a `turn` closes it all.
void RoomImpl::after_events(bool deal) {
  for (const engine::Event& event : game_->game().last_events()) record(protocol::RoomEvent(event));
  if (deal) {
    // A game that starts while a seat's owner is away (within the grace
    // period or past it) is not played under their name unannounced: a bot
    // plays the seat from the deal until they resume, and everyone is told
    // now, before the first turn.
    for (int i = 0; i < seats_.size(); ++i) {
      SeatSlot& seat = seats_[i];
      if (!seat.held() || seat.client || seat.takeover) continue;
      seat.takeover = protocol::TakeoverReason::kDisconnected;
      record(protocol::BotTakeover{i, protocol::TakeoverReason::kDisconnected, seat.level});
    }
  }
  if (game_->game().over()) finish_game();
  schedule();
  announce_turn();
}

void RoomImpl::finish_game() {
  clock_.stop();
  set_state(State::kOver);
  last_finished_ = game_->finished();
  services_.metrics->game_finished();
  game_->drop_bots();
  write(record::GameFinished{game_->id(), services_.timers->wall_ms()});
  // This game's seed is in its transcript now; the next deal's is committed
  // to, and the commitment goes out once its seed is stored.
  draw_next_deal();
  record(protocol::DealCommitted{protocol::kDealAlgorithm, next_deal_->announced().commitment});
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

void RoomImpl::draw_next_deal() {
  next_deal_.emplace(settings_.seats);
  write_next_deal();
}

void RoomImpl::write_next_deal() {
  if (!outbox_.enabled() || closed_) return;
  write(record::NextDealSaved{code_, next_deal_ ? protocol::next_deal_record(next_deal_->kept()) : std::string()});
}

void RoomImpl::write_daily_note() {
  if (!outbox_.enabled() || closed_) return;
  std::string note;
  if (daily_note_) {
    note = protocol::daily_note_record(
        {daily_note_->seat, hash_bytes(daily_note_->holder), daily_note_->game, daily_note_->result});
  }
  write(record::DailyNoteSaved{code_, std::move(note)});
}

// Arms what the next decision waits for: a bot's move, or the turn timer
// of a human seat.
void RoomImpl::schedule() {
  if (state_ != State::kPlaying || !game_ || paused_) return clock_.stop();
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
    return clock_.wait_for_bot(key, as_turn([](RoomImpl& room) { room.on_bot_timer(); }));
  }
  const auto timer = clock_.wait_for_human(seat, key, as_turn([](RoomImpl& room) { room.on_turn_timeout(); }));
  if (timer) record(*timer);
}

void RoomImpl::on_bot_timer() {
  if (closed_ || paused_ || state_ != State::kPlaying || !game_) return;
  const engine::Seat seat = game_->game().to_act();
  if (bot_controls(seat)) bot_move(seat);
}

// The seat let its timer run out: one bot move for it, announced, then play
// goes on (a new timer if the same seat must decide again).
void RoomImpl::on_turn_timeout() {
  if (closed_ || paused_ || state_ != State::kPlaying || !game_) return;
  const auto expired = clock_.take_expired();
  const engine::Seat seat = game_->game().to_act();
  if (expired && expired->seat == seat && !bot_controls(seat)) {
    record(protocol::BotTakeover{seat, protocol::TakeoverReason::kTimeout, kStandInLevel});
    bot_move(seat);
  } else {
    schedule();
  }
}

void RoomImpl::bot_move(engine::Seat seat) {
  auto [decision, problem] = game_->bot_decision(seat, rng_);
  if (!problem.empty()) spdlog::error("room {}: seat {}: {}", code_, seat, problem);
  if (decision) apply(game_->game().judge(*decision));
}

std::shared_ptr<Room> Room::make(const RoomServices& services, std::weak_ptr<RoomHost> host, std::string code,
                                 protocol::RoomSettings settings) {
  const int seats = settings.seats;
  return std::make_shared<RoomImpl>(services, std::move(host), std::move(code), std::move(settings), SeatTable(seats),
                                    0);
}

std::shared_ptr<Room> Room::restore(const RoomServices& services, std::weak_ptr<RoomHost> host, RestoredRoom restored) {
  auto room = std::make_shared<RoomImpl>(services, std::move(host), restored.code, restored.settings,
                                         std::move(restored.seats), restored.v);
  room->adopt_restored(restored);
  return room;
}

}  // namespace gofish::server
