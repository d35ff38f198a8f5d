#include "server/rooms/rooms_handler.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "protocol/text.hpp"
#include "server/store/store.hpp"
#include "server/store/store_health.hpp"

namespace gofish::server {

namespace {

using protocol::ErrorCode;

protocol::Welcome welcome_of(const Limits& limits, std::string version) {
  protocol::Welcome welcome;
  welcome.version = std::move(version);
  welcome.limits = welcome_limits(limits);
  return welcome;
}

void send(const Client& client, const protocol::ServerMessage& message) {
  client.send(make_shared_text(protocol::encode(message)));
}

void send_error(const Client& client, ErrorCode code, std::optional<protocol::RequestId> id) {
  send(client, protocol::default_error(code, std::move(id)));
}

}  // namespace

RoomsHandler::RoomsHandler(boost::asio::io_context& io, const Limits& limits, std::shared_ptr<Metrics> metrics,
                           std::string server_version, std::shared_ptr<const TokenHasher> hasher,
                           RecordSink* writer, const StoreHealth* health)
    : limits_(limits),
      welcome_(welcome_of(limits, std::move(server_version))),
      registry_(std::make_shared<Registry>(
          RoomServices{io, limits, std::move(metrics),
                       hasher ? std::move(hasher) : std::make_shared<const TokenHasher>(), writer, health})),
      events_(std::make_unique<EventRegistry>(registry_->services(), *registry_)),
      daily_(std::make_shared<DailyDeal>(registry_->services(), *registry_, nullptr)) {}

void RoomsHandler::keep_daily_in(Store& store) {
  daily_ = std::make_shared<DailyDeal>(registry_->services(), *registry_, &store);
  // A day's game that was in play (or over but not yet counted) when the
  // server stopped still counts once it ends; one counted but whose
  // standing was not kept has it told again.
  registry_->on_daily_restored([weak = std::weak_ptr<DailyDeal>(daily_)](const std::shared_ptr<Room>& room,
                                                                         const std::string& day,
                                                                         std::optional<int> counted_sets) {
    if (const auto deal = weak.lock()) deal->watch_restored(room, day, counted_sets);
  });
}

RoomsHandler::~RoomsHandler() { registry_->stop_lookups(); }

RoomsHandler::Restored RoomsHandler::restore(Store& store) { return registry_->restore_all(store); }

void RoomsHandler::load_on_demand(Store& store) { registry_->load_on_demand(store); }

void RoomsHandler::on_open(const std::shared_ptr<Connection>& connection) {
  auto client = std::make_shared<Client>(connection);
  std::lock_guard lock(clients_mutex_);
  clients_[client->id()] = std::move(client);
}

std::shared_ptr<Client> RoomsHandler::find_client(std::uint64_t id) const {
  std::lock_guard lock(clients_mutex_);
  const auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second;
}

void RoomsHandler::on_message(const std::shared_ptr<Connection>& connection, std::string_view text) {
  const auto arrived = Room::Clock::now();
  const auto client = find_client(connection->id());
  if (!client) return;
  bool dropped = false;
  {
    std::lock_guard lock(client->waiting_mutex);
    if (client->waiting) {
      if (client->held_back.size() < Client::kMaxHeldBack) {
        return client->held_back.push_back({std::string(text), arrived});
      }
      dropped = true;  // as a message over the rate is (protocol/README.md)
    }
  }
  if (dropped) {
    spdlog::debug("connection {}: more than {} messages while its room was looked up; one dropped", client->id(),
                  Client::kMaxHeldBack);
    return send_error(*client, ErrorCode::kRateLimited, std::nullopt);
  }
  handle(client, text, arrived);
}

bool RoomsHandler::handle(const std::shared_ptr<Client>& client, std::string_view text,
                          Room::Clock::time_point arrived) {
  auto parsed = protocol::parse_client_message(text, limits_.parse);
  if (auto* error = std::get_if<protocol::Error>(&parsed)) {
    // A join by something that cannot be a room code, or a resume with
    // something that cannot be a token, is a failed join too.
    if (error->code == ErrorCode::kRoomBadCode || error->code == ErrorCode::kRoomBadToken) {
      directory().join_failed(client->address());
    }
    spdlog::debug("connection {}: refused a frame: {} {}", client->id(), protocol::error_code_name(error->code),
                  error->message);
    send(*client, *error);
    return false;
  }
  auto& message = std::get<protocol::ClientMessage>(parsed);
  if (!client->greeted && !std::holds_alternative<protocol::Hello>(message.body)) {
    send_error(*client, ErrorCode::kHelloRequired, std::move(message.id));
    return false;
  }
  return dispatch(client, std::move(message), arrived);
}

void RoomsHandler::look_up(const std::shared_ptr<Client>& client) {
  std::lock_guard lock(client->waiting_mutex);
  client->waiting = true;
}

void RoomsHandler::looked_up(const std::shared_ptr<Client>& client) {
  for (;;) {
    Client::HeldBack next;
    {
      std::lock_guard lock(client->waiting_mutex);
      if (client->closed) {
        client->waiting = false;
        client->held_back.clear();
        break;
      }
      if (client->held_back.empty()) {
        client->waiting = false;
        return;
      }
      next = std::move(client->held_back.front());
      client->held_back.pop_front();
    }
    // Still waiting, so what arrives meanwhile queues behind `next`. A
    // message that looks a room up again answers (and resumes) on its own.
    if (handle(client, next.text, next.arrived)) return;
  }
  // The connection closed while its room was looked up.
  if (auto room = client->room()) room->disconnect(client);
}

bool RoomsHandler::closed(const std::shared_ptr<Client>& client) {
  std::lock_guard lock(client->waiting_mutex);
  return client->closed;
}

bool RoomsHandler::dispatch(const std::shared_ptr<Client>& client, protocol::ClientMessage message,
                            Room::Clock::time_point arrived) {
  auto& id = message.id;
  if (auto* join = std::get_if<protocol::Join>(&message.body)) {
    if (client->room()) return send_error(*client, ErrorCode::kRoomAlreadyInRoom, std::move(id)), false;
    // Refused whether or not the code is right, so a guesser learns nothing.
    if (directory().joins_refused(client->address())) {
      return send_error(*client, ErrorCode::kRoomTooManyAttempts, std::move(id)), false;
    }
    look_up(client);
    const std::string code = join->code;
    serve_with_class(
        client, registry_->holds(code), [code](Store&) { return std::optional<std::string>(code); },
        [this, client, code, join = std::move(*join),
         id = std::move(id)](std::optional<protocol::Error> refusal) mutable {
          if (refusal) {
            if (!closed(client)) joined(client, std::move(join), std::move(id), std::move(*refusal));
            return looked_up(client);
          }
          directory().find(
              code, [this, client, join = std::move(join), id = std::move(id)](RoomDirectory::Found found) mutable {
                if (!closed(client)) joined(client, std::move(join), std::move(id), std::move(found));
                looked_up(client);
              });
        });
    return true;
  }
  if (auto* resume = std::get_if<protocol::Resume>(&message.body)) {
    look_up(client);
    const TokenHash hash = directory().hasher().hash(resume->token);
    serve_with_class(
        client, registry_->holds_token(hash),
        [bytes = hash_bytes(hash)](Store& store) { return store.room_of_token(bytes); },
        [this, client, hash, resume = std::move(*resume),
         id = std::move(id)](std::optional<protocol::Error> refusal) mutable {
          if (refusal) {
            if (!closed(client)) resumed(client, std::move(resume), hash, std::move(id), std::move(*refusal));
            return looked_up(client);
          }
          directory().find_token(hash, [this, client, hash, resume = std::move(resume),
                                        id = std::move(id)](RoomDirectory::FoundSeat found) mutable {
            if (!closed(client)) resumed(client, std::move(resume), hash, std::move(id), std::move(found));
            looked_up(client);
          });
        });
    return true;
  }
  if (std::holds_alternative<protocol::Lobby>(message.body)) {
    // On a cluster, perhaps after a store read: what follows waits, so
    // replies keep the order of their requests.
    look_up(client);
    directory().lobby(Registry::kLobbyLimit,
                      [this, client, id = std::move(id)](std::vector<protocol::LobbyRoom> rooms) mutable {
                        if (!closed(client)) send(*client, protocol::LobbyList{std::move(id), std::move(rooms)});
                        looked_up(client);
                      });
    return true;
  }
  if (std::holds_alternative<protocol::ReadDaily>(message.body)) {
    // A store read on the deal's thread: what follows waits, as for lobby.
    look_up(client);
    daily_->read(client, std::move(id), [this, client] { looked_up(client); });
    return true;
  }
  dispatch_now(client, message, arrived);
  return false;
}

void RoomsHandler::serve_with_class(const std::shared_ptr<Client>& client, bool held,
                                    std::function<std::optional<std::string>(Store&)> room_of,
                                    std::function<void(std::optional<protocol::Error>)> then) {
  if (held || !registry_->uses_leases()) return then(std::nullopt);
  registry_->class_of_table(
      std::move(room_of), [this, client, then = std::move(then)](std::optional<std::string> event) mutable {
        if (!event || events_->find(*event)) return then(std::nullopt);
        if (client->route() == *event) {
          spdlog::info("connection {}: a table of class {}, asked for by the class's code: the class comes here",
                       client->id(), *event);
          // However that ends, the table is looked up next: taken over with
          // its class, or on its own if the class could not be had.
          return events_->find_event(
              *event, [then = std::move(then)](EventRegistry::FoundEvent) mutable { then(std::nullopt); });
        }
        auto refusal = protocol::default_error(ErrorCode::kRoomClassTable);
        refusal.event = std::move(*event);
        then(std::move(refusal));
      });
}

void RoomsHandler::joined(const std::shared_ptr<Client>& client, protocol::Join join,
                          std::optional<protocol::RequestId> id, RoomDirectory::Found found) {
  if (auto* error = std::get_if<protocol::Error>(&found)) {
    // room/busy is no failed join: the room is there, only moving.
    if (error->code == ErrorCode::kRoomNotFound) directory().join_failed(client->address());
    error->id = std::move(id);
    return send(*client, *error);
  }
  auto room = std::get<std::shared_ptr<Room>>(std::move(found));
  client->set_room(room);
  room->join(client, std::move(join), std::move(id));
}

void RoomsHandler::resumed(const std::shared_ptr<Client>& client, protocol::Resume resume, const TokenHash& hash,
                           std::optional<protocol::RequestId> id, RoomDirectory::FoundSeat found) {
  // A resume is never refused for failed joins: a token cannot be guessed
  // (192 random bits), and a player behind the same address as a guesser
  // keeps their seat. An unknown token still counts against the address.
  if (auto* error = std::get_if<protocol::Error>(&found)) {
    if (error->code == ErrorCode::kRoomBadToken) directory().join_failed(client->address());
    error->id = std::move(id);
    return send(*client, *error);
  }
  auto& seat = std::get<RoomDirectory::TokenSeat>(found);
  // A resume from the seat's own connection is a resync: the events after
  // last_v, or a fresh snapshot.
  const auto current = client->room();
  if (current && current != seat.room) return send_error(*client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
  if (!current) client->set_room(seat.room);
  seat.room->resume(client, std::move(resume.token), hash, resume.last_v, std::move(id));
}

void RoomsHandler::dispatch_now(const std::shared_ptr<Client>& client, protocol::ClientMessage& message,
                                Room::Clock::time_point arrived) {
  auto& id = message.id;
  if (std::holds_alternative<protocol::Hello>(message.body)) {
    client->greeted = true;
    protocol::Welcome welcome = welcome_;
    welcome.id = std::move(id);
    return send(*client, welcome);
  }
  if (std::holds_alternative<protocol::Ping>(message.body)) return send(*client, protocol::Pong{std::move(id)});

  if (auto* play = std::get_if<protocol::PlayDaily>(&message.body)) {
    // It makes a room: refused as create_room would be.
    if (client->room()) return send_error(*client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
    if (shutting_down_) return send_error(*client, ErrorCode::kServerShuttingDown, std::move(id));
    if (const StoreHealth* health = registry_->services().health;
        health && (health->failing() || !health->may_release())) {
      return send_error(*client, ErrorCode::kServerStoreUnavailable, std::move(id));
    }
    return daily_->play(client, std::move(*play), std::move(id));
  }
  if (auto* create = std::get_if<protocol::CreateRoom>(&message.body)) {
    if (client->room()) return send_error(*client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
    if (shutting_down_) return send_error(*client, ErrorCode::kServerShuttingDown, std::move(id));
    // A room made now could not be saved: refused until the store works.
    if (const StoreHealth* health = registry_->services().health;
        health && (health->failing() || !health->may_release())) {
      return send_error(*client, ErrorCode::kServerStoreUnavailable, std::move(id));
    }
    std::variant<std::shared_ptr<Room>, protocol::Error> created;
    try {
      created = directory().create_room(create->settings, client->address());
    } catch (const std::exception& error) {
      // With a shared store the code is drawn against it, which failed.
      spdlog::error("connection {}: making a room failed: {}", client->id(), error.what());
      return send_error(*client, ErrorCode::kServerStoreUnavailable, std::move(id));
    }
    if (auto* error = std::get_if<protocol::Error>(&created)) {
      error->id = std::move(id);
      return send(*client, *error);
    }
    auto room = std::get<std::shared_ptr<Room>>(std::move(created));
    client->set_room(room);
    return room->create(client, std::move(*create), std::move(id));
  }
  const auto& body = message.body;
  if (std::holds_alternative<protocol::CreateEvent>(body) || std::holds_alternative<protocol::JoinEvent>(body) ||
      std::holds_alternative<protocol::ResumeEvent>(body) || std::holds_alternative<protocol::ReadRoster>(body) ||
      protocol::is_teacher_command(body)) {
    if (std::holds_alternative<protocol::CreateEvent>(body)) {
      if (shutting_down_) return send_error(*client, ErrorCode::kServerShuttingDown, std::move(id));
    }
    return events_->handle(client, message);
  }
  auto room = client->room();
  if (!room) return send_error(*client, ErrorCode::kRoomNotInRoom, std::move(id));
  room->handle(client, std::move(message), arrived);
}

void RoomsHandler::on_close(const std::shared_ptr<Connection>& connection) {
  std::shared_ptr<Client> client;
  {
    std::lock_guard lock(clients_mutex_);
    const auto it = clients_.find(connection->id());
    if (it == clients_.end()) return;
    client = std::move(it->second);
    clients_.erase(it);
  }
  {
    // Its room is being looked up: the answer disconnects it (looked_up).
    std::lock_guard lock(client->waiting_mutex);
    if (client->waiting) {
      client->closed = true;
      return;
    }
  }
  // Stopping: rooms stay as they are, to be restored (or taken over by
  // another node) with every seat away. A disconnect now would still change
  // them: start a rematch for the players who had voted, say.
  if (shutting_down_) return;
  if (auto event = client->event()) event->disconnect(client);
  if (auto room = client->room()) room->disconnect(client);
}

void RoomsHandler::on_shutdown(std::function<void()> done) {
  shutting_down_ = true;
  std::vector<std::shared_ptr<Client>> clients;
  {
    std::lock_guard lock(clients_mutex_);
    clients.reserve(clients_.size());
    for (const auto& [id, client] : clients_) clients.push_back(client);
  }
  const auto reason = protocol::CloseReason::kShuttingDown;
  const SharedText closing =
      make_shared_text(protocol::encode(protocol::Closing{reason, std::string(protocol::close_message(reason))}));
  for (const auto& client : clients) client->send(closing);
  done();
}

}  // namespace gofish::server
