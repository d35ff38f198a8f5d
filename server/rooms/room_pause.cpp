// A room that pauses (room_impl.hpp): its store failed a write, which the
// writer tries again until it is written, or its node cannot confirm its
// lease with the store, or (a class event's table) its teacher paused every
// table; a teacher's pause holds nothing back, so it lets people in. Until both are well again the room sends nothing of
// what it did after its last saved moment (the durability hold does that),
// takes no decision, chat or change of seats (room/paused), lets nobody in
// (room/busy), and runs no bot, turn timer, grace period or idle expiry; so
// a table never goes on in a way the store could not tell again. Everyone
// in the room is told once when it pauses and once when play goes on.
#include <spdlog/spdlog.h>

#include "server/rooms/room_impl.hpp"

namespace gofish::server {

namespace {

std::string pause_message(protocol::PauseReason reason) {
  switch (reason) {
    case protocol::PauseReason::kSavingFailed:
      return "Saving the game failed, so play is paused; the server is trying again.";
    case protocol::PauseReason::kStoreUnreachable:
      return "The server cannot reach its game store, so play is paused until it can; it keeps trying.";
    case protocol::PauseReason::kTeacher: return "Your teacher has paused the game.";
  }
  return "Play is paused.";
}

}  // namespace

void RoomImpl::leases_confirmed(bool confirmed) {
  on_strand([confirmed](RoomImpl& room) {
    if (room.closed_) return;
    room.leases_lapsed_ = !confirmed;
    if (confirmed) room.outbox_.release_committed();
    room.update_pause();
  });
}

std::optional<protocol::PauseReason> RoomImpl::pause_reason() const {
  if (outbox_.stalled()) return protocol::PauseReason::kSavingFailed;
  if (leases_lapsed_) return protocol::PauseReason::kStoreUnreachable;
  if (teacher_paused_) return protocol::PauseReason::kTeacher;
  return std::nullopt;
}

protocol::RoomPaused RoomImpl::paused_notice() const {
  return protocol::RoomPaused{code_, paused_for_, pause_message(paused_for_)};
}

bool RoomImpl::held_by_store() const { return paused_ && (outbox_.stalled() || leases_lapsed_); }

void RoomImpl::pause_table(bool paused) {
  on_strand([paused](RoomImpl& room) {
    if (room.closed_) return;
    room.teacher_paused_ = paused;
    room.update_pause();
  });
}

void RoomImpl::update_pause() {
  if (closed_) return;
  const bool pausing = pause_reason().has_value();
  if (pausing == paused_) return;
  if (pausing) {
    pause();
  } else {
    go_on();
  }
}

void RoomImpl::pause() {
  paused_ = true;
  services_.metrics->room_paused(+1);
  clock_.stop();
  for (auto& timer : grace_timers_) timer->cancel();
  idle_timer_.cancel();
  const auto reason = *pause_reason();
  paused_for_ = reason;
  spdlog::debug("room {} paused ({})", code_, protocol::to_string(reason));
  fanout_.notify_everyone(paused_notice());
}

// As after a restart: every absent player's seat gets a fresh grace period,
// the seat to act its bot or a fresh turn timer, an empty room its expiry.
void RoomImpl::go_on() {
  paused_ = false;
  services_.metrics->room_paused(-1);
  spdlog::debug("room {} goes on", code_);
  // After everything the pause held back, which went out as it was saved.
  fanout_.notify_everyone(protocol::RoomResumed{code_, paused_for_ == protocol::PauseReason::kTeacher
                                                           ? "Your teacher lets play go on."
                                                           : "The game is saved again; play goes on."});
  for (int i = 0; i < seats_.size(); ++i) {
    if (seats_[i].held() && !seats_[i].client && !seats_[i].away_past_grace) arm_grace(i);
  }
  after_membership_change();
  schedule();
}

}  // namespace gofish::server
