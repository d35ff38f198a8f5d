#include "server/rooms/room_fanout.hpp"

#include "engine/view.hpp"

namespace gofish::server {

namespace {

SharedText encode_shared(const protocol::ServerMessage& message) {
  return make_shared_text(protocol::encode(message));
}

protocol::EventMessage as_seen_by(const RoomLog::Entry& entry, engine::Viewer viewer) {
  if (const auto* game_event = std::get_if<engine::Event>(&entry.event)) {
    return protocol::EventMessage{entry.v, engine::event_for(*game_event, viewer)};
  }
  return protocol::EventMessage{entry.v, entry.event};
}

}  // namespace

template <class Each>
void RoomFanout::for_each_member(Each&& each) const {
  for (int i = 0; i < seats_.size(); ++i) {
    if (seats_[i].client) each(seats_[i].client, std::optional<engine::Seat>(i));
  }
  for (const Spectator& spectator : seats_.spectators()) each(spectator.client, std::optional<engine::Seat>());
}

void RoomFanout::send(const std::shared_ptr<Client>& client, const protocol::ServerMessage& message) {
  outbox_.send(client, encode_shared(message));
}

void RoomFanout::to_everyone(const protocol::ServerMessage& message) {
  const SharedText text = encode_shared(message);
  for_each_member([&](const auto& client, auto) { outbox_.send(client, text); });
}

void RoomFanout::notify_everyone(const protocol::ServerMessage& message) {
  const SharedText text = encode_shared(message);
  for_each_member([&](const auto& client, auto) { client->send(text); });
}

const RoomLog::Entry& RoomFanout::record(protocol::RoomEvent event) {
  const RoomLog::Entry& entry = log_.append(std::move(event));
  const auto* game_event = std::get_if<engine::Event>(&entry.event);
  if (!game_event) {
    to_everyone(protocol::EventMessage{entry.v, entry.event});
    return entry;
  }
  // The public twin, encoded once for all who see it; a seat whose own view
  // differs (event_for gives another alternative: HandDealt, Drew) gets its own.
  const engine::Event public_event = engine::event_for(*game_event, engine::Viewer::spectator());
  SharedText shared;
  for_each_member([&](const auto& client, std::optional<engine::Seat> seat) {
    engine::Event own = seat ? engine::event_for(*game_event, engine::Viewer::of(*seat)) : public_event;
    if (own.index() != public_event.index()) {
      return outbox_.send(client, encode_shared(protocol::EventMessage{entry.v, std::move(own)}));
    }
    if (!shared) shared = encode_shared(protocol::EventMessage{entry.v, public_event});
    outbox_.send(client, shared);
  });
  return entry;
}

void RoomFanout::announce(const protocol::Turn& shared, const std::function<protocol::Turn(engine::Seat)>& own) {
  const SharedText text = encode_shared(shared);
  for_each_member([&](const auto& client, std::optional<engine::Seat> seat) {
    if (seat) {
      protocol::Turn mine = own(*seat);
      if (!(mine == shared)) return send(client, mine);
    }
    outbox_.send(client, text);
  });
}

bool RoomFanout::replay(const std::shared_ptr<Client>& client, engine::Seat seat, std::int64_t last_v) {
  const auto missed = log_.since(last_v);
  if (!missed || missed->size() > limits_.send_queue_messages / 2) return false;
  std::vector<SharedText> texts;
  std::size_t bytes = 0;
  for (const RoomLog::Entry* entry : *missed) {
    texts.push_back(encode_shared(as_seen_by(*entry, engine::Viewer::of(seat))));
    bytes += texts.back()->size();
    if (bytes > limits_.send_queue_bytes / 2) return false;
  }
  for (SharedText& text : texts) outbox_.send(client, std::move(text));
  return true;
}

}  // namespace gofish::server
