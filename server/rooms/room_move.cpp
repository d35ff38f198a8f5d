// A room another server now owns (room_impl.hpp, Room::move_away): several
// servers on one PostgreSQL database hold their rooms by lease, and this one
// has handed the room over or lost its lease.
#include <spdlog/spdlog.h>

#include "server/rooms/room_impl.hpp"

namespace gofish::server {

void RoomImpl::move_away(bool commit_first, std::function<void()> after) {
  on_strand([commit_first, after = std::move(after)](RoomImpl& room) mutable {
    room.do_move_away(commit_first, std::move(after));
  });
}

// Like closing, but the room lives on elsewhere: no record, no
// `room_closed`, its tokens still good in the store; each connection is told
// `moved` and closed, to resume on the room's new owner.
void RoomImpl::do_move_away(bool commit_first, std::function<void()> after) {
  const auto finished = [&after] {
    if (after) after();
  };
  if (closed_) return finished();
  spdlog::info("room {} moved to another server{}", code_,
               commit_first ? " (it asked for the room)" : " (this server lost the lease)");
  closed_ = true;
  moved_ = true;
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
  resubmit_timer_.cancel();
  if (std::exchange(paused_, false)) services_.metrics->room_paused(-1);
  if (!commit_first || !services_.writer) {
    outbox_.abandon();
    return finished();
  }
  outbox_.submit_final(log_.v());
  // Submissions commit in order: once this empty one is, so is the rest.
  services_.writer->submit(code_, {}, [after = std::move(after)](WriteOutcome outcome) {
    if (outcome != WriteOutcome::kRetrying && after) after();
  });
}

}  // namespace gofish::server
