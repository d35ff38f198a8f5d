#include "server/rooms/event_registry.hpp"

#include <spdlog/spdlog.h>

#include "protocol/text.hpp"

namespace gofish::server {

using protocol::ErrorCode;

namespace {

void refuse(const Client& client, ErrorCode code, std::optional<protocol::RequestId> id) {
  client.send(make_shared_text(protocol::encode(protocol::default_error(code, std::move(id)))));
}

}  // namespace

EventRegistry::EventRegistry(const RoomServices& services, RoomDirectory& directory)
    : services_(services), directory_(directory) {}

std::shared_ptr<Event> EventRegistry::find(const std::string& code) const {
  std::lock_guard lock(mutex_);
  const auto it = events_.find(code);
  return it == events_.end() ? nullptr : it->second;
}

std::size_t EventRegistry::event_count() const {
  std::lock_guard lock(mutex_);
  return events_.size();
}

void EventRegistry::handle(const std::shared_ptr<Client>& client, protocol::ClientMessage& message) {
  auto& id = message.id;
  if (auto* create = std::get_if<protocol::CreateEvent>(&message.body)) {
    if (client->event()) return refuse(*client, ErrorCode::kEventAlreadyInEvent, std::move(id));
    std::shared_ptr<Event> event;
    {
      std::lock_guard lock(mutex_);
      if (events_.size() >= services_.limits.max_rooms) {
        return refuse(*client, ErrorCode::kRoomTooManyRooms, std::move(id));
      }
      std::string code;
      do {
        code = protocol::event_code_from_index(os_random_below(protocol::event_code_count()));
      } while (events_.contains(code));
      event = std::make_shared<Event>(services_, directory_, code, std::move(*create));
      events_.emplace(code, event);
    }
    client->set_event(event);
    return event->create(client, std::move(id));
  }
  if (auto* join = std::get_if<protocol::JoinEvent>(&message.body)) {
    if (client->event()) return refuse(*client, ErrorCode::kEventAlreadyInEvent, std::move(id));
    // As for rooms: an address over its rate of wrong codes is refused
    // whether this code is right or not, so guessing codes teaches nothing.
    if (directory_.joins_refused(client->address())) {
      return refuse(*client, ErrorCode::kRoomTooManyAttempts, std::move(id));
    }
    auto event = find(join->code);
    if (!event) {
      directory_.join_failed(client->address());
      return refuse(*client, ErrorCode::kEventNotFound, std::move(id));
    }
    client->set_event(event);
    return event->join(client, std::move(*join), std::move(id));
  }
  if (auto* read = std::get_if<protocol::ReadRoster>(&message.body)) {
    // A look before joining, from any connection; a wrong code counts as a
    // failed join of the address, as for join_event.
    if (directory_.joins_refused(client->address())) {
      return refuse(*client, ErrorCode::kRoomTooManyAttempts, std::move(id));
    }
    auto event = find(read->code);
    if (!event) {
      directory_.join_failed(client->address());
      return refuse(*client, ErrorCode::kEventNotFound, std::move(id));
    }
    return event->read_roster(client, std::move(id));
  }
  if (auto* resume = std::get_if<protocol::ResumeEvent>(&message.body)) {
    auto current = client->event();
    auto event = find(resume->code);
    if (!event) return refuse(*client, ErrorCode::kEventNotFound, std::move(id));
    if (current && current != event) return refuse(*client, ErrorCode::kEventAlreadyInEvent, std::move(id));
    client->set_event(event);
    return event->resume_teacher(client, std::move(*resume), std::move(id));
  }
  auto event = client->event();
  if (!event) return refuse(*client, ErrorCode::kEventNotInEvent, std::move(id));
  event->command(client, std::move(message.body), std::move(id));
}

std::size_t EventRegistry::restore(Store& store) {
  std::size_t restored = 0;
  for (const StoredEvent& stored : store.load_open_events()) {
    std::string problem;
    auto event = Event::restore(services_, directory_, stored, &problem);
    if (!event) {
      spdlog::error("event {} left out: {}", stored.event, problem);
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      events_[stored.event] = event;
    }
    event->begin_after_restore();
    ++restored;
  }
  return restored;
}

}  // namespace gofish::server
