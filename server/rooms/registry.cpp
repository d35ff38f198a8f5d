#include "server/rooms/registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "protocol/room_records.hpp"
#include "protocol/text.hpp"
#include "server/rooms/room_restore.hpp"

namespace gofish::server {

Registry::Registry(RoomServices services) : services_(std::move(services)), addresses_(services_.limits) {}

std::variant<std::shared_ptr<Room>, protocol::Error> Registry::create_room(const protocol::RoomSettings& settings,
                                                                          const std::string& creator) {
  using protocol::ErrorCode;
  std::lock_guard lock(mutex_);
  if (rooms_.size() >= services_.limits.max_rooms) return protocol::default_error(ErrorCode::kRoomTooManyRooms);
  // An empty creator is the server itself (a class event's tables, whose
  // event was created by someone): no address is charged for them.
  switch (creator.empty() ? AddressLimits::RoomAdmission::kAdmitted
                          : addresses_.admit_room(creator, AddressLimits::Clock::now())) {
    case AddressLimits::RoomAdmission::kAdmitted: break;
    case AddressLimits::RoomAdmission::kRate:
      services_.metrics->room_request_refused("create_rate");
      return protocol::make_error(ErrorCode::kRoomTooManyRooms,
                                  "Rooms are being created too fast from your address; wait a moment and try again.");
    case AddressLimits::RoomAdmission::kAddressFull:
      services_.metrics->room_request_refused("address_rooms");
      return protocol::make_error(ErrorCode::kRoomTooManyRooms,
                                  "Your address has " + std::to_string(services_.limits.max_rooms_per_address) +
                                      " rooms open, as many as it may; try again once one has closed.");
  }
  // With at most max_rooms of 28.6 million codes taken, a draw collides
  // rarely; the loop is bounded by the cap all the same.
  std::string code;
  // With rooms loaded on demand the store may hold a room not held here.
  // With leases the code must also be free across the cluster: a live
  // lease of another node (a room being made there) keeps it.
  const auto taken = [&](const std::string& candidate) {
    return rooms_.contains(candidate) || reserved_.contains(candidate) ||
           (on_demand_ && on_demand_->load_room(candidate).has_value()) ||
           (!node_.empty() && !on_demand_->take_lease(candidate, node_, lease_ttl_));
  };
  try {
    do {
      code = protocol::room_code_from_index(os_random_below(protocol::room_code_count()));
    } while (taken(code));
  } catch (...) {
    if (!creator.empty()) addresses_.room_closed(creator);  // no room was made after all
    throw;
  }
  closed_.erase(code);
  auto room = Room::make(services_, weak_from_this(), code, settings);
  rooms_.emplace(code, Entry{room, creator});
  order_.push_back(code);
  return room;
}

bool Registry::adopt(const std::shared_ptr<Room>& room) {
  std::lock_guard lock(mutex_);
  if (!rooms_.emplace(room->code(), Entry{room, {}}).second) return false;
  order_.push_back(room->code());
  return true;
}

void Registry::reserve_code(const std::string& code) {
  std::lock_guard lock(mutex_);
  reserved_.insert(code);
}

std::shared_ptr<Room> Registry::held(const std::string& code) const {
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  return it == rooms_.end() ? nullptr : it->second.room;
}

namespace {

protocol::Error not_found() { return protocol::default_error(protocol::ErrorCode::kRoomNotFound); }

// A lookup the store could not answer (down, or failing): asked again by
// the client after a moment, as for a room that moves.
protocol::Error store_failing() {
  return protocol::make_error(protocol::ErrorCode::kRoomBusy,
                              "The server cannot reach its game store just now; try again in a moment.");
}

}  // namespace

struct Registry::Lookup {
  Lookup(boost::asio::io_context& io, std::string room, std::function<bool(Store&)> stored, Settle settled)
      : code(std::move(room)), exists(std::move(stored)), settle(std::move(settled)), timer(io) {}
  const std::string code;
  std::function<bool(Store&)> exists;
  Settle settle;
  bool started = false;
  std::string asked;  // the node last asked to hand the room over ("" none yet)
  std::chrono::steady_clock::time_point asked_at{};  // when it was last asked
  std::chrono::steady_clock::time_point deadline;  // room/busy from then on
  std::chrono::steady_clock::time_point last_deadline;  // however many nodes are asked
  std::chrono::milliseconds pause{10};
  boost::asio::steady_timer timer;  // the pause between tries, on the I/O threads
};

bool Registry::refused(const std::string& code) const {
  std::lock_guard lock(mutex_);
  return closed_.contains(code) || reserved_.contains(code);
}

void Registry::find(const std::string& code, std::function<void(Found)> done) {
  if (auto room = held(code); room || !on_demand_) return done(room ? Found{std::move(room)} : Found{not_found()});
  if (refused(code)) return done(not_found());
  if (node_.empty()) {
    // Without leases the store answers at once: no other node to wait for.
    std::shared_ptr<Room> room;
    try {
      room = load(code);
    } catch (const std::exception& error) {
      spdlog::error("room {}: looking it up failed: {}", code, error.what());
      return done(store_failing());
    }
    return done(room ? Found{std::move(room)} : Found{not_found()});
  }
  take_over(
      code, [code](Store& store) { return store.load_room(code).has_value(); },
      [this, code, done = std::move(done)](std::optional<protocol::Error> error) mutable -> std::function<void()> {
        Found found{not_found()};
        if (error) {
          found = std::move(*error);
        } else if (auto room = load(code)) {
          found = std::move(room);
        }
        return [done = std::move(done), found = std::move(found)]() mutable { done(std::move(found)); };
      });
}

void Registry::take_over(const std::string& code, std::function<bool(Store&)> exists, Settle settle) {
  auto lookup = std::make_shared<Lookup>(services_.io, code, std::move(exists), std::move(settle));
  boost::asio::post(*lookups_, [self = shared_from_this(), lookup] { attempt(self, lookup); });
}

void Registry::class_of_table(std::function<std::optional<std::string>(Store&)> room_of,
                              std::function<void(std::optional<std::string>)> done) {
  boost::asio::post(*lookups_,
                    [self = shared_from_this(), room_of = std::move(room_of), done = std::move(done)]() mutable {
                      std::optional<std::string> event;
                      try {
                        if (const auto room = room_of(*self->on_demand_))
                          event = self->on_demand_->event_of_table(*room);
                      } catch (const std::exception& error) {
                        spdlog::warn("looking up the class of a table failed: {}", error.what());
                      }
                      auto& io = self->services_.io;
                      boost::asio::post(io, [self = std::move(self), done = std::move(done),
                                             event = std::move(event)]() mutable { done(std::move(event)); });
                    });
}

bool Registry::holds_token(const TokenHash& hash) const {
  std::lock_guard lock(mutex_);
  const auto it = tokens_.find(hash);
  return it != tokens_.end() && !it->second.expired();
}

void Registry::serve_events(LeasedEvents* events) {
  std::lock_guard lock(events_mutex_);
  events_ = events;
}

std::shared_ptr<Room> Registry::load(const std::string& code) {
  std::lock_guard load(load_mutex_);
  if (auto room = held(code)) return room;  // rebuilt meanwhile
  if (refused(code)) return nullptr;
  const auto stored = on_demand_->load_room(code);
  if (!stored) {
    if (!node_.empty()) on_demand_->release_leases(node_, {code});
    return nullptr;
  }
  std::string problem;
  return rebuild(*stored, *on_demand_, &problem);
}

void Registry::use_leases(std::string node, std::chrono::milliseconds ttl) {
  node_ = std::move(node);
  lease_ttl_ = ttl;
  lookups_ = std::make_unique<boost::asio::thread_pool>(kLookupThreads);
}

void Registry::stop_lookups() {
  if (!lookups_) return;
  lookups_->stop();
  lookups_->join();
}

void Registry::attempt(std::shared_ptr<Registry> self, std::shared_ptr<Lookup> lookup) {
  Store& store = *self->on_demand_;
  const std::string& code = lookup->code;
  // One holder's wait: its handover, or its lease running out.
  const auto wait = self->lease_ttl_ + std::chrono::seconds(1);
  try {
    const auto now = std::chrono::steady_clock::now();
    const bool first = !lookup->started;
    if (first) {
      // The room is this node's before it is read for good.
      if (!lookup->exists(store)) return finish(std::move(self), std::move(lookup), not_found());
      lookup->started = true;
      lookup->deadline = now + wait;
      lookup->last_deadline = now + 2 * wait;
    }
    if (store.take_lease(code, self->node_, self->lease_ttl_)) {
      if (!first) spdlog::info("room {}: its lease is this server's now", code);
      return finish(std::move(self), std::move(lookup), std::nullopt);
    }
    // Another node holds it: ask it to hand the room over, and wait for
    // that or for its lease to run out. The holder may change meanwhile
    // (a dead owner's lease runs out and a third node takes it): the new
    // one is asked too, and waited for afresh.
    // The holder asked already is asked again now and then: it may have
    // handed the room over and taken it back since, and would wait out its
    // lease otherwise (a request it is already answering is ignored).
    const bool ask_again = now - lookup->asked_at >= kAskAgainAfter;
    const auto holder = store.ask_handover(code, self->node_, ask_again ? "" : lookup->asked);
    if (holder && (ask_again || *holder != lookup->asked)) lookup->asked_at = now;
    if (holder && *holder != lookup->asked) {
      spdlog::info("room {}: {} holds it; asked it to hand the room over", code,
                   lookup->asked.empty() ? "another server" : "now server " + *holder);
      if (!lookup->asked.empty()) lookup->deadline = std::min(now + wait, lookup->last_deadline);
      lookup->asked = *holder;
    } else if (!holder && first) {
      spdlog::info("room {}: no other server holds it now (its lease was let go, or taken here meanwhile); trying "
                   "again",
                   code);
    }
    if (now >= lookup->deadline) {
      spdlog::warn("room {}: its lease could not be had in time (held by {})", code,
                   lookup->asked.empty() ? "another server" : "server " + lookup->asked);
      return finish(std::move(self), std::move(lookup), protocol::default_error(protocol::ErrorCode::kRoomBusy));
    }
  } catch (const std::exception& error) {
    spdlog::error("room {}: looking it up failed: {}", code, error.what());
    return finish(std::move(self), std::move(lookup), store_failing());
  }
  lookup->timer.expires_after(lookup->pause);
  lookup->pause = std::min(lookup->pause * 2, kLookupMaxPause);
  auto& timer = lookup->timer;
  timer.async_wait([self = std::move(self), lookup = std::move(lookup)](boost::system::error_code ec) mutable {
    if (ec) return;  // the server is stopping
    auto& pool = *self->lookups_;
    boost::asio::post(pool, [self = std::move(self), lookup = std::move(lookup)]() mutable {
      attempt(std::move(self), std::move(lookup));
    });
  });
}

void Registry::finish(std::shared_ptr<Registry> self, std::shared_ptr<Lookup> lookup,
                      std::optional<protocol::Error> error) {
  auto reply = lookup->settle(std::move(error));
  auto& io = self->services_.io;
  // The lookup (and whatever its settle holds) goes to the I/O thread with
  // self, so a lookup thread never drops the last reference to the registry.
  boost::asio::post(io, [self = std::move(self), lookup = std::move(lookup), reply = std::move(reply)]() mutable {
    lookup.reset();
    if (reply) reply();
  });
}

bool Registry::event_code(const std::string& code) { return code.size() == protocol::kEventCodeLength; }

std::vector<std::string> Registry::held_codes() const {
  std::vector<std::string> codes;
  {
    std::lock_guard lock(mutex_);
    codes.reserve(rooms_.size());
    for (const auto& [code, entry] : rooms_) codes.push_back(code);
  }
  std::lock_guard events(events_mutex_);
  if (events_) {
    for (auto& code : events_->held_event_codes()) codes.push_back(std::move(code));
  }
  return codes;
}

std::shared_ptr<Room> Registry::let_go(const std::string& code) {
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  if (it == rooms_.end()) return nullptr;
  auto room = std::move(it->second.room);
  if (!it->second.creator.empty()) addresses_.room_closed(it->second.creator);
  rooms_.erase(it);
  std::erase(order_, code);
  // Its tokens now lead to the store, and from there to the new owner.
  std::erase_if(tokens_, [&](const auto& entry) {
    const auto holder = entry.second.lock();
    return !holder || holder == room;
  });
  return room;
}

void Registry::lost(const std::string& code) {
  if (event_code(code)) {
    std::lock_guard lock(events_mutex_);
    if (events_) events_->event_lost(code);
    return;
  }
  if (auto room = let_go(code)) {
    spdlog::warn("room {}: this server no longer holds its lease; its players are sent to its new owner", code);
    room->move_away(false, {});
  }
}

void Registry::leases_confirmed(bool confirmed) {
  std::vector<std::shared_ptr<Room>> rooms;
  {
    std::lock_guard lock(mutex_);
    rooms.reserve(rooms_.size());
    for (const auto& [code, entry] : rooms_) rooms.push_back(entry.room);
  }
  for (const auto& room : rooms) room->leases_confirmed(confirmed);
}

void Registry::hand_over(const std::string& code, std::function<void(bool was_here)> released) {
  if (event_code(code)) {
    std::unique_lock lock(events_mutex_);
    if (events_) return events_->hand_event_over(code, std::move(released));
    lock.unlock();
    if (released) released(false);
    return;
  }
  auto room = let_go(code);
  if (!room) {
    if (released) released(false);
    return;
  }
  room->move_away(true, [released = std::move(released)] {
    if (released) released(true);
  });
}

std::shared_ptr<Room> Registry::rebuild(const StoredRoom& stored, Store& store, std::string* problem) {
  try {
    auto rebuilt = restore_room(stored, store);
    if (auto* restored = std::get_if<RestoredRoom>(&rebuilt)) {
      const std::optional<std::string> daily_day = restored->daily_day;
      const std::optional<int> counted_sets = restored->counted_sets;
      auto room = Room::restore(services_, weak_from_this(), std::move(*restored));
      if (adopt(room)) {
        room->begin_after_restore();
        if (daily_day && daily_restored_) daily_restored_(room, *daily_day, counted_sets);
        return room;
      }
      *problem = "the code is taken twice";
    } else {
      *problem = std::get<std::string>(std::move(rebuilt));
    }
  } catch (const StoreError&) {
    throw;  // the store itself failed: no room can be trusted to it
  } catch (const std::exception& error) {
    *problem = std::string("rebuilding it failed: ") + error.what();
  } catch (...) {
    *problem = "rebuilding it failed with an unknown exception";
  }
  spdlog::error("room {} set aside: {}", stored.room, *problem);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  store.set_aside(stored.room, *problem, std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  reserve_code(stored.room);
  return nullptr;
}

Registry::Restored Registry::restore_all(Store& store) {
  Restored restored;
  for (const StoredRoom& stored : store.load_open_rooms()) {
    // With leases, only the rooms no other node holds (their lease expired
    // or released, or this node's own from before a restart).
    if (!node_.empty() && !store.take_lease(stored.room, node_, lease_ttl_)) continue;
    std::string problem;
    if (rebuild(stored, store, &problem)) ++restored.rooms;
  }
  const auto aside = store.set_aside_rooms();
  for (const SetAsideRoom& room : aside) reserve_code(room.room);
  restored.set_aside = aside.size();
  services_.metrics->rooms_set_aside(aside.size());
  return restored;
}

void Registry::load_on_demand(Store& store) {
  const auto aside = store.set_aside_rooms();
  for (const SetAsideRoom& room : aside) reserve_code(room.room);
  services_.metrics->rooms_set_aside(aside.size());
  on_demand_ = &store;
}

void Registry::room_closed(const std::string& code, const Room* room) {
  std::shared_ptr<Room> removed;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(code);
  if (it == rooms_.end() || it->second.room.get() != room) return;
  removed = std::move(it->second.room);
  if (!it->second.creator.empty()) addresses_.room_closed(it->second.creator);
  rooms_.erase(it);
  std::erase(order_, code);
  closed_.insert(code);
}

bool Registry::joins_refused(const std::string& address) {
  if (!addresses_.joins_refused(address, AddressLimits::Clock::now())) return false;
  services_.metrics->room_request_refused("failed_joins");
  return true;
}

void Registry::join_failed(const std::string& address) { addresses_.join_failed(address, AddressLimits::Clock::now()); }

std::size_t Registry::room_count() const {
  std::lock_guard lock(mutex_);
  return rooms_.size();
}

void Registry::token_issued(const TokenHash& hash, const std::shared_ptr<Room>& room, engine::Seat) {
  std::lock_guard lock(mutex_);
  tokens_[hash] = room;
}

void Registry::token_revoked(const TokenHash& hash) {
  std::lock_guard lock(mutex_);
  tokens_.erase(hash);
}

void Registry::find_token(const TokenHash& hash, std::function<void(FoundSeat)> done) {
  const auto lookup = [this, hash]() -> FoundSeat {
    std::lock_guard lock(mutex_);
    const auto it = tokens_.find(hash);
    auto room = it == tokens_.end() ? nullptr : it->second.lock();
    if (!room) return protocol::default_error(protocol::ErrorCode::kRoomBadToken);
    return TokenSeat{std::move(room)};
  };
  if (auto found = lookup(); std::holds_alternative<TokenSeat>(found) || !on_demand_) return done(std::move(found));
  // Perhaps a seat of a room not loaded yet: the store knows which room, and
  // once that room is loaded, the room knows the token.
  std::string bytes = hash_bytes(hash);
  // Given the token's room (none: no such seat; failed: the store failed).
  auto then = [self = shared_from_this(), lookup, done = std::move(done)](const std::optional<std::string>& code,
                                                                          bool failed) mutable {
    if (failed) return done(store_failing());
    if (!code) return done(protocol::default_error(protocol::ErrorCode::kRoomBadToken));
    self->find(*code, [self, lookup, done = std::move(done)](Found found) mutable {
      const auto* error = std::get_if<protocol::Error>(&found);
      if (error && error->code != protocol::ErrorCode::kRoomNotFound) return done(*error);
      auto seat = lookup();
      if (error || std::holds_alternative<TokenSeat>(seat)) return done(std::move(seat));
      // Found, but gone from here before its tokens were read: handed over
      // to another server meanwhile (or the room has closed). The room
      // answers, room/busy or room/bad_token.
      done(TokenSeat{std::get<std::shared_ptr<Room>>(std::move(found))});
    });
  };
  if (node_.empty()) {
    std::optional<std::string> code;
    try {
      code = on_demand_->room_of_token(bytes);
    } catch (const std::exception& error) {
      spdlog::error("looking a seat token up failed: {}", error.what());
      return then(std::nullopt, true);
    }
    return then(code, false);
  }
  // With leases, the store's round trip too stays off the I/O threads.
  boost::asio::post(*lookups_, [self = shared_from_this(), bytes = std::move(bytes), then = std::move(then)]() mutable {
    std::optional<std::string> code;
    bool failed = false;
    try {
      code = self->on_demand_->room_of_token(bytes);
    } catch (const std::exception& error) {
      spdlog::error("looking a seat token up failed: {}", error.what());
      failed = true;
    }
    auto& io = self->services_.io;
    boost::asio::post(io, [code = std::move(code), failed, then = std::move(then)]() mutable { then(code, failed); });
  });
}

std::vector<protocol::LobbyRoom> Registry::held_lobby(std::size_t limit) const {
  std::vector<std::shared_ptr<Room>> rooms;
  {
    std::lock_guard lock(mutex_);
    rooms.reserve(order_.size());
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) rooms.push_back(rooms_.at(*it).room);
  }
  std::vector<protocol::LobbyRoom> out;
  for (const auto& room : rooms) {
    if (out.size() >= limit) break;
    if (auto entry = room->lobby_entry()) out.push_back(std::move(*entry));
  }
  return out;
}

std::vector<protocol::LobbyRoom> Registry::with_stored(std::vector<protocol::LobbyRoom> held,
                                                       const std::vector<protocol::LobbyRoom>& stored,
                                                       std::size_t limit) const {
  // A room held here is as it is here, not as stored.
  std::lock_guard lock(mutex_);
  for (const auto& entry : stored) {
    if (held.size() >= limit) break;
    if (!rooms_.contains(entry.code) && !closed_.contains(entry.code)) held.push_back(entry);
  }
  return held;
}

void Registry::lobby(std::size_t limit, LobbyDone done) {
  auto held = held_lobby(limit);
  if (held.size() >= limit || node_.empty() || on_demand_ == nullptr) return done(std::move(held));
  std::vector<protocol::LobbyRoom> stored;
  bool fresh = false;
  {
    std::lock_guard lock(stored_lobby_mutex_);
    const auto age = std::chrono::steady_clock::now() - stored_lobby_read_;
    fresh = stored_lobby_read_ != std::chrono::steady_clock::time_point{} && age < kStoredLobbyMaxAge;
    if (fresh) {
      stored = stored_lobby_;
    } else {
      // Answered with the rooms held here as they are once the read is done.
      lobby_waiters_.push_back(LobbyWaiter{limit, std::move(done)});
      if (stored_lobby_reading_) return;
      stored_lobby_reading_ = true;
    }
  }
  if (fresh) return done(with_stored(std::move(held), stored, limit));
  boost::asio::post(*lookups_, [self = shared_from_this()] { self->read_stored_lobby(); });
}

namespace {

// A stored waiting room's lobby entry, if it is listed and has a free seat;
// nullopt too when its records cannot be read (restoring it would set it
// aside and say why).
std::optional<protocol::LobbyRoom> stored_lobby_entry(const StoredRoom& stored) {
  auto stored_settings = protocol::settings_from_record(stored.settings);
  const auto* kept = std::get_if<protocol::StoredSettings>(&stored_settings);
  if (kept == nullptr || !kept->settings.listed) return std::nullopt;
  const protocol::RoomSettings& read = kept->settings;
  SeatTable seats(read.seats);
  for (const StoredSeat& row : stored.seats) {
    if (row.seat < 0 || row.seat >= seats.size()) return std::nullopt;
    auto seat = protocol::seat_from_record(row.state);
    const auto* record = std::get_if<protocol::SeatRecord>(&seat);
    if (record == nullptr) return std::nullopt;
    seats[row.seat].occupant = record->occupant;
    seats[row.seat].name = record->name;
    if (record->host) seats.set_host(row.seat);
  }
  return seats.lobby_entry(stored.room, read);
}

}  // namespace

void Registry::read_stored_lobby() {
  const auto started = std::chrono::steady_clock::now();
  std::optional<std::vector<protocol::LobbyRoom>> read;
  try {
    std::vector<protocol::LobbyRoom> entries;
    for (const StoredRoom& room : on_demand_->waiting_rooms(kStoredLobbyScan)) {
      if (auto entry = stored_lobby_entry(room)) entries.push_back(std::move(entry.value()));
    }
    read = std::move(entries);
  } catch (const std::exception& error) {
    // The lobby still lists this node's rooms (and what was read before);
    // the next request reads again.
    spdlog::warn("lobby: cannot read other nodes' rooms: {}", error.what());
  }
  std::vector<LobbyWaiter> waiters;
  std::vector<protocol::LobbyRoom> stored;
  {
    std::lock_guard lock(stored_lobby_mutex_);
    if (read) {
      stored_lobby_ = std::move(*read);
      stored_lobby_read_ = started;
    }
    stored = stored_lobby_;
    waiters.swap(lobby_waiters_);
    stored_lobby_reading_ = false;
  }
  boost::asio::post(services_.io, [self = shared_from_this(), waiters = std::move(waiters),
                                   stored = std::move(stored)]() mutable {
    for (LobbyWaiter& waiter : waiters) {
      waiter.done(self->with_stored(self->held_lobby(waiter.limit), stored, waiter.limit));
    }
  });
}

}  // namespace gofish::server
