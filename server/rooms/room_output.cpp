// What a room sends and writes (room_impl.hpp): replies and events through
// the fan-out, records through the durability hold, one submission to the
// store per strand turn.
#include <boost/asio/dispatch.hpp>
#include <spdlog/spdlog.h>

#include <utility>

#include "server/rooms/room_impl.hpp"

namespace gofish::server {

void RoomImpl::send(const std::shared_ptr<Client>& client, const protocol::ServerMessage& message) {
  fanout_.send(client, message);
}

void RoomImpl::reply_error(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message) {
  send(client, message.empty() ? protocol::default_error(code, std::move(id))
                               : protocol::make_error(code, std::move(message), std::move(id)));
}

// A refused create, join or resume: unless it is a member already, the
// client is in no room. Out of it before it hears so: a join it sends as
// soon as it has the refusal (on another thread) must not find it still
// in this room, which answers room/already_in_room (a test saw it once).
void RoomImpl::refuse(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message) {
  if (!seats_.member_of(*client)) client->clear_room(this);
  reply_error(client, code, std::move(id), std::move(message));
}

void RoomImpl::refuse_paused(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message) {
  if (!seats_.member_of(*client)) client->clear_room(this);
  const protocol::Error error = message.empty() ? protocol::default_error(code, std::move(id))
                                                : protocol::make_error(code, std::move(message), std::move(id));
  client->send(make_shared_text(protocol::encode(error)));
}

// Logs an event and sends it to everyone; the store learns the new version
// in the same submission.
void RoomImpl::record(protocol::RoomEvent event) {
  if (outbox_.version_moved()) post_submit();
  fanout_.record(std::move(event));
}

void RoomImpl::write(Record record) {
  if (outbox_.write(std::move(record))) post_submit();
}

// Everything this room writes in a turn of the strand goes in one
// submission, made as the turn ends (end_turn; outside on_strand, a timer's
// handler for one, the submission gets a turn of its own); the writer
// groups submissions of all rooms further.
void RoomImpl::post_submit() {
  if (in_turn_) {
    submit_due_ = true;
    return;
  }
  on_strand([](RoomImpl& room) { room.submit(); });
}

RoomImpl::Turn::~Turn() {
  try {
    room.end_turn();
  } catch (const std::exception& error) {
    spdlog::error("room {}: ending a turn failed: {}", room.code_, error.what());
  }
}

void RoomImpl::end_turn() {
  report_table();
  in_turn_ = false;
  if (std::exchange(submit_due_, false)) submit();
}

void RoomImpl::submit() {
  if (closed_) return outbox_.submit_final(log_.v());
  // Weak: neither the writer nor the io_context's queue may keep a room
  // alive. A room already released has nobody left to send to. Dispatch:
  // the server runs a batch's callbacks on an I/O thread (StoreWriter::
  // run_callbacks_with), where this enters a free strand at once; from any
  // other thread it queues, as a post would.
  const bool taken = outbox_.submit(log_.v(), [weak = weak_from_this()](std::uint64_t number, WriteOutcome outcome) {
    if (auto self = weak.lock()) {
      boost::asio::dispatch(self->strand_, [weak, number, outcome] {
        if (auto room = weak.lock()) room->on_write(number, outcome);
      });
    }
  });
  if (taken) return;
  // The writer refused the records (out of memory): paused, and handed
  // over again in a moment.
  update_pause();
  resubmit_timer_.arm(StoreWriter::kFirstRetry, [weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->on_strand([](RoomImpl& room) {
        room.submit();
        room.update_pause();
      });
    }
  });
}

void RoomImpl::on_write(std::uint64_t number, WriteOutcome outcome) {
  switch (outcome) {
    case WriteOutcome::kWritten:
      outbox_.committed(number);
      break;
    case WriteOutcome::kRetrying:
      outbox_.retrying(number);
      break;
    case WriteOutcome::kFenced:
      // Another server holds the room now: the registry lets it go here
      // (Registry::lost), and nothing held is ever sent.
      return;
  }
  update_pause();
}

void RoomImpl::write_seats() {
  if (!outbox_.enabled() || closed_) return;
  std::vector<Record> records = seats_.records(code_);
  seats_written_.resize(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    // What the store keeps of the seat; a resume or a presence change that
    // leaves it as it was writes nothing.
    std::string row = "-";
    if (const auto* taken = std::get_if<record::SeatTaken>(&records[i])) {
      row = taken->state;
      row += '\0';
      row += taken->token_hash;
    }
    if (row == seats_written_[i]) continue;
    seats_written_[i] = std::move(row);
    write(std::move(records[i]));
  }
}

}  // namespace gofish::server
