// A room as a table of a class event (server/rooms/event.hpp): seated and
// started by the event, its pupils' seat tokens handed out by the event,
// and its state reported to the event; and today's deal's standing, kept
// for its player. Everything else about the room is as for any room
// (room.hpp); everything here runs on the room's strand.
#include <spdlog/spdlog.h>

#include "engine/view.hpp"
#include "protocol/room_records.hpp"
#include "server/rooms/room_impl.hpp"

namespace gofish::server {

void RoomImpl::open_table(TableSetup setup) {
  on_strand([setup = std::move(setup)](RoomImpl& room) mutable { room.do_open_table(std::move(setup)); });
}

void RoomImpl::reveal_deal() {
  on_strand([](RoomImpl& room) { room.deal_revealed_ = true; });
}

std::optional<protocol::DealFairness> RoomImpl::served_fairness(
    const std::optional<protocol::DealFairness>& fairness) const {
  return server::served_fairness(fairness, services_.timers->wall_ms(), deal_revealed_);
}

void RoomImpl::hand_seat(std::shared_ptr<Client> client, engine::Seat seat, protocol::EventSeat message) {
  on_strand([client = std::move(client), seat, message = std::move(message)](RoomImpl& room) mutable {
    room.do_hand_seat(client, seat, std::move(message));
  });
}

void RoomImpl::watch(TableReport report, bool coaching) {
  on_strand([report = std::move(report), coaching](RoomImpl& room) mutable {
    room.table_report_ = std::move(report);
    room.table_coached_ = coaching;
    room.table_reported_.reset();  // the new watcher hears the table as it is
  });
}

// Kept only while the game it is about is the room's last and over; sent to
// whoever holds the seat now, and on their later resumes (room.cpp). Stored
// first: like anything the room sends, the message waits for its record's
// commit, so a player who heard it hears it again after a restart.
void RoomImpl::tell_daily_result(engine::Seat seat, protocol::DailyResult result) {
  on_strand([seat, result = std::move(result)](RoomImpl& room) mutable {
    if (room.closed_ || seat < 0 || seat >= room.seats_.size() || !room.seats_[seat].held()) return;
    const SeatSlot& holder = room.seats_[seat];
    if (room.state_ == State::kOver) {
      room.daily_note_ = DailyNote{seat, *holder.token, room.game_number_, result};
      room.write_daily_note();
    }
    if (holder.client) room.send(holder.client, result);
  });
}

void RoomImpl::set_chat(protocol::ChatMode chat) {
  on_strand([chat](RoomImpl& room) {
    if (room.closed_ || room.settings_.chat == chat) return;
    room.settings_.chat = chat;
    room.write(
        record::RoomSettingsChanged{room.code_, protocol::settings_record(room.settings_, room.seats_.removed())});
    room.record(protocol::ChatModeChanged{chat});
    room.refresh_lobby();
  });
}

void RoomImpl::release_seat(engine::Seat seat) {
  on_strand([seat](RoomImpl& room) { room.do_release_seat(seat); });
}

void RoomImpl::seat_late_pupil(engine::Seat seat, std::string name) {
  on_strand([seat, name = std::move(name)](RoomImpl& room) mutable { room.do_seat_late_pupil(seat, std::move(name)); });
}

void RoomImpl::do_release_seat(engine::Seat index) {
  if (closed_ || index >= settings_.seats || !seats_[index].held()) return;
  SeatSlot& seat = seats_[index];
  // The event tells the pupil why (event_unseated, event_left).
  if (const auto client = std::exchange(seat.client, nullptr)) client->clear_room(this);
  seat.chat.reset();
  grace_timers_[static_cast<std::size_t>(index)]->cancel();
  give_up_seat(index);
  pass_host_on();
  after_membership_change();
  schedule();
}

void RoomImpl::do_seat_late_pupil(engine::Seat index, std::string name) {
  if (closed_ || state_ != State::kPlaying || index >= settings_.seats || !seats_[index].bot()) return;
  const protocol::BotLevel level = seats_[index].level;
  // Nobody knows this token: the pupil gets a fresh one from hand_seat.
  seat_human(index, nullptr, std::move(name));
  SeatSlot& seat = seats_[index];
  seat.level = level;
  seat.away_past_grace = true;
  seat.takeover = protocol::TakeoverReason::kDisconnected;
  record(protocol::SeatJoined{index, seat.name});
  record(protocol::BotTakeover{index, protocol::TakeoverReason::kDisconnected, level});
  pass_host_on();
  after_membership_change();
  schedule();
}

void RoomImpl::do_open_table(TableSetup setup) {
  if (closed_ || game_number_ > 0) {
    if (setup.player) refuse(setup.player, ErrorCode::kRoomNotFound, std::move(setup.player_request));
    return;
  }
  write(record::RoomCreated{code_, protocol::settings_record(settings_), services_.timers->wall_ms()});
  std::string player_token;
  for (std::size_t i = 0; i < setup.humans.size() && static_cast<int>(i) < settings_.seats; ++i) {
    if (i == 0 && setup.player) {
      player_token = seat_human(0, setup.player, std::move(setup.humans[i]));
      continue;
    }
    // Nobody knows this token: the pupil gets a fresh one from hand_seat.
    seat_human(static_cast<engine::Seat>(i), nullptr, std::move(setup.humans[i]));
  }
  while (const auto index = seats_.first_empty()) seats_.seat_bot(*index, setup.bots);
  if (setup.shared_deal) {
    // The shared seed's commitment, announced before (the event's state,
    // read_daily), is the one this room's snapshot shows and deals from.
    protocol::DealFairness when;
    when.day = setup.shared_deal->day;
    when.event = setup.shared_deal->event;
    when.round = setup.shared_deal->round;
    next_deal_ = NextDeal::shared(std::move(setup.shared_deal->seed), when);
  }
  if (setup.player) {
    // As do_create answers, before the deal's events.
    seats_.set_host(0);
    send(setup.player, protocol::Created{std::move(setup.player_request), code_, 0, player_token});
    send(setup.player, snapshot(0));
  }
  // Paused before the deal, so no bot moves and no clock starts.
  teacher_paused_ = setup.paused;
  update_pause();
  after_membership_change();
  start_game();
}

void RoomImpl::do_hand_seat(const std::shared_ptr<Client>& client, engine::Seat seat, protocol::EventSeat message) {
  if (closed_ || seat >= settings_.seats || !seats_[seat].held()) {
    spdlog::warn("room {}: an event asked for seat {}, which no pupil holds", code_, seat);
    return;
  }
  SeatSlot& slot = seats_[seat];
  std::string token = new_token();
  const TokenHash hash = services_.hasher->hash(token);
  revoke_token(slot.token);
  slot.token = hash;
  issue_token(hash, seat);
  write_seats();
  message.room = code_;
  message.seat = seat;
  message.token = std::move(token);
  outbox_.send(client, make_shared_text(protocol::encode(message)));
}

protocol::EventTable RoomImpl::table_status() const {
  protocol::EventTable table;
  table.room = code_;
  table.state = state_;
  std::optional<engine::View> view;
  if (game_) view = engine::view_of(game_->game(), engine::Viewer::spectator());
  for (int i = 0; i < seats_.size(); ++i) {
    const SeatSlot& slot = seats_[i];
    protocol::EventTableSeat seat;
    seat.occupant = slot.occupant;
    seat.name = slot.name;
    if (slot.bot()) seat.bot = slot.level;
    seat.connected = slot.client != nullptr;
    seat.bot_playing = slot.human() && slot.takeover.has_value();
    if (view) {
      seat.cards = view->seats[static_cast<std::size_t>(i)].hand_size;
      seat.sets = view->seats[static_cast<std::size_t>(i)].set_count;
      const auto& laid = view->seats[static_cast<std::size_t>(i)].set_ranks;
      seat.ranks.assign(laid.begin(), laid.begin() + seat.sets);
    }
    table.seats.push_back(std::move(seat));
  }
  if (view) {
    table.pond = view->stock_size;
    if (state_ == State::kPlaying) table.turn = view->to_act;
  }
  if (state_ == State::kOver && last_finished_ && outbox_.enabled() && !last_finished_->id.empty()) {
    table.game_id = last_finished_->id;
  }
  return table;
}

void RoomImpl::report_table() {
  if (!table_report_ || moved_) return;
  auto reported = std::pair(table_status(), table_coached_ ? view().coach_hands() : std::vector<engine::CardSet>());
  if (table_reported_ && *table_reported_ == reported) return;
  table_reported_ = reported;
  // After what it shows is committed, like any message the room sends.
  outbox_.after([report = table_report_, reported = std::move(reported)]() mutable {
    report(std::move(reported.first), std::move(reported.second));
  });
}

}  // namespace gofish::server
