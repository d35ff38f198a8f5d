// Seats over time (room_impl.hpp): seat tokens as the room's host knows
// them, each seat's grace period, the host role passing on, rematch votes,
// the idle expiry, and closing the room.
#include <spdlog/spdlog.h>

#include "server/rooms/room_impl.hpp"

namespace gofish::server {

void RoomImpl::issue_token(const TokenHash& hash, engine::Seat seat) {
  if (auto host = host_.lock()) host->token_issued(hash, shared_from_this(), seat);
}

void RoomImpl::revoke_token(const std::optional<TokenHash>& hash) {
  if (!hash) return;
  if (auto host = host_.lock()) host->token_revoked(*hash);
}

// Seats a human with a fresh token; returns the token (sent once, to them).
std::string RoomImpl::seat_human(engine::Seat index, const std::shared_ptr<Client>& client, std::string name) {
  std::string token = new_token();
  const TokenHash hash = services_.hasher->hash(token);
  grace_timers_[static_cast<std::size_t>(index)]->cancel();
  seats_.seat_human(index, client, std::move(name), hash, chat_bucket());
  issue_token(hash, index);
  return token;
}

void RoomImpl::free_seat(engine::Seat index) {
  grace_timers_[static_cast<std::size_t>(index)]->cancel();
  revoke_token(seats_.free(index));
  if (next_deal_ && next_deal_->forget(index)) write_next_deal();  // a restored room forgets it too
}

TokenBucket RoomImpl::chat_bucket() const {
  return TokenBucket(limits_.chat_rate_per_second, limits_.chat_burst, services_.timers->steady_now());
}

void RoomImpl::arm_grace(engine::Seat index) {
  if (paused_) return;  // armed afresh when play goes on
  grace_timers_[static_cast<std::size_t>(index)]->arm(
      limits_.seat_grace_period, as_turn([index](RoomImpl& room) { room.on_grace_expired(index); }));
}

void RoomImpl::on_grace_expired(engine::Seat index) {
  SeatSlot& seat = seats_[index];
  if (closed_ || paused_ || seat.client || !seat.held()) return;
  if (state_ != State::kWaiting) {
    // In a game a bot stands in once the seat is to act (schedule()); after
    // a game the seat stays its owner's until the room closes.
    seat.away_past_grace = true;
    if (index == seats_.host()) {
      pass_host_to_someone_here();
      after_membership_change();  // the seat rows say who is host
    }
    return schedule();
  }
  const std::string name = seat.name;
  free_seat(index);
  record(protocol::SeatLeft{index, name});
  after_seat_lost();
}

// Nobody is connected after a restart: each seat's owner has a fresh grace
// period to come back; the seat to act gets its bot or its turn timer.
void RoomImpl::resume_after_restart() {
  if (closed_) return;
  for (int i = 0; i < seats_.size(); ++i) {
    if (seats_[i].held()) arm_grace(i);
  }
  spdlog::info("room {} restored ({}, version {})", code_,
               state_ == State::kWaiting   ? "waiting"
               : state_ == State::kPlaying ? "game " + std::to_string(game_number_) + " in play"
                                           : "game " + std::to_string(game_number_) + " over",
               log_.v());
  if (state_ == State::kPlaying && !seats_.anyone_holds_a_seat()) {
    // Only a class event's table is played with no human holding a seat
    // (release_seat): its game goes on to the end, as before the restart.
    after_membership_change();
    return schedule();
  }
  after_seat_lost();  // closes a room no human holds a seat in; else schedules
}

// A human gave up a seat (left, kicked, or away past the grace period
// before a game): the host role moves on, and a room without humans closes.
void RoomImpl::after_seat_lost() {
  if (!seats_.anyone_holds_a_seat()) {
    return close_room(protocol::RoomClosedReason::kPlayersLeft, "Every player has left, so the room has closed.");
  }
  pass_host_on();
  after_membership_change();
  schedule();
  check_rematch();
}

void RoomImpl::pass_host_on() {
  if (const auto host = seats_.pass_host_on_if_needed()) record(protocol::HostChanged{*host});
}

void RoomImpl::pass_host_to_someone_here() {
  if (const auto host = seats_.pass_host_to_someone_here()) {
    spdlog::info("room {}: the host is away; seat {} is host now", code_, *host);
    record(protocol::HostChanged{*host});
  }
}

// After a game: the next one starts once every connected player has voted
// (and at least one of them has); start_game gives empty seats a bot.
void RoomImpl::check_rematch() {
  if (state_ != State::kOver || !seats_.any_votes()) return;
  bool voter_here = false;
  for (int i = 0; i < seats_.size(); ++i) {
    if (!seats_[i].human() || !seats_[i].client) continue;
    if (!seats_.voted(i)) return;
    voter_here = true;
  }
  if (voter_here) start_game();
}

void RoomImpl::after_membership_change() {
  if (closed_) return;
  write_seats();
  refresh_lobby();
  const bool idle = seats_.connected() == 0;
  if (paused_) {
    idle_timer_.cancel();  // a paused room is never closed; armed again when play goes on
  } else if (idle && !idle_timer_.armed()) {
    // A room that never started a game goes sooner: it was most likely
    // created and abandoned, and holds one of max_rooms.
    const auto expiry = game_number_ == 0 ? std::min(limits_.unstarted_room_expiry, limits_.room_idle_expiry)
                                          : limits_.room_idle_expiry;
    idle_timer_.arm(expiry, as_turn([](RoomImpl& room) { room.on_idle(); }));
  } else if (!idle) {
    idle_timer_.cancel();
  }
}

void RoomImpl::on_idle() {
  if (closed_ || paused_ || seats_.connected() != 0) return;
  close_room(protocol::RoomClosedReason::kIdle, "Nobody was connected for a while, so the room has closed.");
}

// The room is gone: its tokens stop working, its code is free again, and
// whoever is still in it is told with `room_closed` and let go.
void RoomImpl::close_room(protocol::RoomClosedReason reason, const std::string& why) {
  spdlog::info("room {} closed: {}", code_, why);
  write(record::RoomClosed{code_});
  closed_ = true;
  clock_.stop();
  idle_timer_.cancel();
  // Everyone is out of the room before hearing it closed (as in refuse()).
  for (const Spectator& spectator : seats_.spectators()) spectator.client->clear_room(this);
  for (int i = 0; i < seats_.size(); ++i) {
    if (seats_[i].client) seats_[i].client->clear_room(this);
  }
  fanout_.to_everyone(protocol::RoomClosed{code_, reason, why});
  for (int i = 0; i < seats_.size(); ++i) {
    grace_timers_[static_cast<std::size_t>(i)]->cancel();
    revoke_token(seats_[i].token);
    seats_[i].token.reset();
    seats_[i].client.reset();
  }
  for (const SeatTable::Kick& kick : seats_.kicks()) revoke_token(kick.token);
  seats_.spectators().clear();
  {
    std::lock_guard lock(lobby_mutex_);
    lobby_.reset();
  }
  services_.metrics->rooms_changed(state_, -1);
  if (std::exchange(paused_, false)) services_.metrics->room_paused(-1);
  if (auto host = host_.lock()) host->room_closed(code_, this);
}

void RoomImpl::set_state(State state) {
  if (state == state_) return;
  services_.metrics->rooms_changed(state_, -1);
  services_.metrics->rooms_changed(state, +1);
  state_ = state;
}

void RoomImpl::refresh_lobby() {
  std::optional<protocol::LobbyRoom> entry;
  if (!closed_ && settings_.listed && state_ == State::kWaiting) entry = seats_.lobby_entry(code_, settings_);
  std::lock_guard lock(lobby_mutex_);
  lobby_ = std::move(entry);
}

}  // namespace gofish::server
