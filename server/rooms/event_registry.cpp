#include "server/rooms/event_registry.hpp"

#include <spdlog/spdlog.h>

#include "protocol/text.hpp"
#include "server/rooms/registry.hpp"

namespace gofish::server {

using protocol::ErrorCode;

namespace {

void refuse(const Client& client, ErrorCode code, std::optional<protocol::RequestId> id) {
  client.send(make_shared_text(protocol::encode(protocol::default_error(code, std::move(id)))));
}

}  // namespace

EventRegistry::EventRegistry(const RoomServices& services, RoomDirectory& directory)
    : services_(services), directory_(directory) {}

EventRegistry::~EventRegistry() {
  if (leases_) leases_->serve_events(nullptr);
}

void EventRegistry::use_leases(Registry& registry, Store& store) {
  leases_ = &registry;
  store_ = &store;
  registry.serve_events(this);
}

void EventRegistry::keep_closed_in(Store& store) {
  closed_ = std::make_unique<ClosedEvents>(services_, directory_, store);
}

std::shared_ptr<Event> EventRegistry::find_or_closed(const std::string& code) const {
  if (auto event = find(code)) return event;
  return closed_ ? closed_->find(code) : nullptr;
}

std::vector<std::string> EventRegistry::held_event_codes() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> codes;
  codes.reserve(events_.size());
  for (const auto& [code, event] : events_) codes.push_back(code);
  return codes;
}

std::shared_ptr<Event> EventRegistry::let_go(const std::string& code) {
  std::lock_guard lock(mutex_);
  const auto it = events_.find(code);
  if (it == events_.end()) return nullptr;
  auto event = std::move(it->second);
  events_.erase(it);
  return event;
}

void EventRegistry::event_lost(const std::string& code) {
  if (auto event = let_go(code)) {
    spdlog::warn("event {}: this server no longer holds its lease; its teacher and pupils are sent to its new owner",
                 code);
    event->move_away(false, {});
  }
}

void EventRegistry::hand_event_over(const std::string& code, std::function<void(bool was_here)> released) {
  auto event = let_go(code);
  if (!event) {
    if (released) released(false);
    return;
  }
  spdlog::info("event {}: another server asked for it; handing it over", code);
  event->move_away(true, [released = std::move(released)] {
    if (released) released(true);
  });
}

std::string EventRegistry::draw_code() {
  // Drawn against the store too with leases: an open event there, or a
  // live lease of another node (an event being made there), keeps a code;
  // and so does a closed event in the store, whose results stay readable.
  const auto taken = [&](const std::string& candidate) {
    return events_.contains(candidate) || (closed_ && closed_->find(candidate)) ||
           (leases_ && (store_->load_open_event(candidate).has_value() ||
                        !store_->take_lease(candidate, leases_->node(), leases_->lease_ttl())));
  };
  std::string code;
  do {
    code = protocol::event_code_from_index(os_random_below(protocol::event_code_count()));
  } while (taken(code));
  return code;
}

void EventRegistry::refused(const Client& client, protocol::Error error, std::optional<protocol::RequestId> id) {
  if (error.code == ErrorCode::kEventNotFound) directory_.join_failed(client.address());
  error.id = std::move(id);
  client.send(make_shared_text(protocol::encode(error)));
}

void EventRegistry::find_event(const std::string& code, std::function<void(FoundEvent)> done) {
  const auto not_found = [this, code]() -> FoundEvent {
    // No open event of that code: a closed one's results stay readable.
    if (auto closed = closed_ ? closed_->find(code) : nullptr) return closed;
    return protocol::default_error(ErrorCode::kEventNotFound);
  };
  if (auto event = find(code); event || !leases_) return done(event ? FoundEvent{std::move(event)} : not_found());
  // Codes of another length are no event's: not worth a store round trip.
  if (code.size() != protocol::kEventCodeLength) return done(protocol::default_error(ErrorCode::kEventNotFound));
  leases_->take_over(
      code, [code](Store& store) { return store.load_open_event(code).has_value(); },
      [this, code, not_found,
       done = std::move(done)](std::optional<protocol::Error> error) mutable -> std::function<void()> {
        // room/not_found from the lookup (no open event of that code) is the
        // event's not_found here, unless the event is closed.
        if (error && error->code == ErrorCode::kRoomNotFound) {
          return [done = std::move(done), found = not_found()]() mutable { done(std::move(found)); };
        }
        if (error) return [done = std::move(done), error = std::move(*error)]() mutable { done(std::move(error)); };
        std::shared_ptr<Event> event = find(code);
        bool restored = false;
        if (!event) {
          std::optional<StoredEvent> stored;
          try {
            stored = store_->load_open_event(code);
          } catch (const std::exception& failure) {
            spdlog::error("event {}: reading it failed: {}", code, failure.what());
          }
          std::string problem = "it is no longer open";
          if (stored) event = Event::restore(services_, directory_, *stored, &problem);
          if (!event) {
            spdlog::error("event {}: not taken over: {}", code, problem);
            try {
              store_->release_leases(leases_->node(), {code});
            } catch (const std::exception&) {
              // It expires by itself.
            }
            return [done = std::move(done)] { done(protocol::default_error(ErrorCode::kEventNotFound)); };
          }
          std::lock_guard lock(mutex_);
          // Taken over by another lookup meanwhile: that one is kept.
          auto [it, added] = events_.emplace(code, event);
          event = it->second;
          restored = added;
        }
        if (restored) spdlog::info("event {}: taken over; its lease is this server's now", code);
        return [done = std::move(done), event = std::move(event), restored]() mutable {
          if (restored) event->begin_after_restore();
          done(std::move(event));
        };
      });
}

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
      try {
        code = draw_code();
      } catch (const std::exception& failure) {
        spdlog::error("event: drawing a code failed: {}", failure.what());
        return refuse(*client, ErrorCode::kRoomBusy, std::move(id));
      }
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
    const std::string code = join->code;
    return find_event(code, [this, client, join = std::move(*join), id = std::move(id)](FoundEvent found) mutable {
      if (auto* error = std::get_if<protocol::Error>(&found)) return refused(*client, std::move(*error), std::move(id));
      if (client->event()) return refuse(*client, ErrorCode::kEventAlreadyInEvent, std::move(id));
      auto& event = std::get<std::shared_ptr<Event>>(found);
      client->set_event(event);
      event->join(client, std::move(join), std::move(id));
    });
  }
  if (auto* read = std::get_if<protocol::ReadRoster>(&message.body)) {
    // A look before joining, from any connection; a wrong code counts as a
    // failed join of the address, as for join_event.
    if (directory_.joins_refused(client->address())) {
      return refuse(*client, ErrorCode::kRoomTooManyAttempts, std::move(id));
    }
    return find_event(read->code, [this, client, id = std::move(id)](FoundEvent found) mutable {
      if (auto* error = std::get_if<protocol::Error>(&found)) return refused(*client, std::move(*error), std::move(id));
      std::get<std::shared_ptr<Event>>(found)->read_roster(client, std::move(id));
    });
  }
  if (auto* resume = std::get_if<protocol::ResumeEvent>(&message.body)) {
    const std::string code = resume->code;
    return find_event(code, [client, resume = std::move(*resume), id = std::move(id)](FoundEvent found) mutable {
      if (auto* error = std::get_if<protocol::Error>(&found)) {
        error->id = std::move(id);
        return client->send(make_shared_text(protocol::encode(*error)));
      }
      auto& event = std::get<std::shared_ptr<Event>>(found);
      auto current = client->event();
      if (current && current != event) return refuse(*client, ErrorCode::kEventAlreadyInEvent, std::move(id));
      client->set_event(event);
      event->resume_teacher(client, std::move(resume), std::move(id));
    });
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
