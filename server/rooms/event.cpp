#include "server/rooms/event.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "engine/overloaded.hpp"
#include "fairness/deal_algorithm.hpp"
#include "protocol/event_json.hpp"
#include "server/rooms/event_seating.hpp"

namespace gofish::server {

using protocol::ErrorCode;
using protocol::EventPhase;

namespace {

std::string folded(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::optional<EventPhase> phase_of(std::string_view text) {
  for (EventPhase phase : {EventPhase::kOpen, EventPhase::kPlaying, EventPhase::kClosed}) {
    if (protocol::to_string(phase) == text) return phase;
  }
  return std::nullopt;
}

}  // namespace

Event::Event(const RoomServices& services, RoomDirectory& directory, std::string code, protocol::CreateEvent request)
    : services_(services),
      directory_(directory),
      code_(std::move(code)),
      name_(std::move(request.name)),
      settings_(std::move(request.settings)),
      roster_(std::move(request.roster)),
      strand_(boost::asio::make_strand(services.io)),
      outbox_(services.writer, code_, services.health),
      created_ms_(services.timers->wall_ms()),
      console_timer_(*services.timers, strand_),
      views_timer_(*services.timers, strand_),
      results_timer_(*services.timers, strand_) {
  for (const std::string& name : roster_) pupils_.push_back(Pupil{name, std::nullopt, {}});
  if (settings_.same_deal) next_round_seed_ = fairness::new_seed();
}

std::optional<protocol::DealFairness> Event::next_deal() const {
  if (!settings_.same_deal || next_round_seed_.empty() || round_ >= settings_.rounds) return std::nullopt;
  protocol::DealFairness deal;
  deal.commitment = fairness::to_hex(fairness::commitment_of(next_round_seed_));
  deal.shared = true;
  return deal;
}

std::optional<protocol::DealFairness> Event::round_deal() const {
  if (round_seed_.empty()) return std::nullopt;
  protocol::DealFairness deal;
  deal.commitment = fairness::to_hex(fairness::commitment_of(round_seed_));
  deal.shared = true;
  if (round_revealed_) deal.seed = fairness::to_hex(round_seed_);
  return deal;
}

// Every table of the round has played its game to the end: nobody can use
// the deck against anyone any more, so its seed is revealed, in the
// teacher's state and in each table's transcript.
void Event::reveal_round_if_over() {
  if (!settings_.same_deal || round_revealed_ || tables_.empty()) return;
  for (const Table& table : tables_) {
    if (!table.live || table.status.state != protocol::RoomState::kOver) return;
  }
  round_revealed_ = true;
  for (const Table& table : tables_) table.live->reveal_deal();
  spdlog::info("event {}: every table of round {} is over; its deal's seed is revealed", code_, round_);
}

template <class F>
void Event::on_strand(F&& work) {
  boost::asio::post(strand_, [self = shared_from_this(), work = std::forward<F>(work)]() mutable {
    if (self->gone_) return;
    work(*self);
    self->end_turn();
  });
}

void Event::end_turn() {
  if (!std::exchange(submit_due_, false) || gone_) return;
  outbox_.submit(0, [weak = weak_from_this()](std::uint64_t number, WriteOutcome outcome) {
    if (auto self = weak.lock()) {
      boost::asio::dispatch(self->strand_, [weak, number, outcome] {
        if (auto event = weak.lock()) event->on_write(number, outcome);
      });
    }
  });
}

void Event::on_write(std::uint64_t number, WriteOutcome outcome) {
  if (outcome == WriteOutcome::kWritten) return outbox_.committed(number);
  if (outcome == WriteOutcome::kRetrying) {
    outbox_.retrying(number);
    spdlog::warn("event {}: saving failed; the store writer tries again", code_);
    return;
  }
  spdlog::error("event {}: its records were fenced out (another node holds its code)", code_);
  outbox_.abandon();
}

void Event::save_event() {
  if (!outbox_.enabled()) return;
  // The seeds go with the settings: whatever shows their commitments
  // (event_state, event_joined, event_seat) goes out after this commits.
  const auto hex = [](const std::vector<std::uint8_t>& seed) {
    return seed.empty() ? std::string() : fairness::to_hex(seed);
  };
  protocol::EventSettingsRecord settings;
  settings.settings = settings_;
  settings.roster = roster_;
  settings.paused = paused_;
  settings.watching = watching_;
  settings.next_seed = hex(next_round_seed_);
  settings.round_seed = hex(round_seed_);
  outbox_.write(record::EventSaved{code_, name_, protocol::event_settings_record(settings),
                                   teacher_ ? hash_bytes(*teacher_) : std::string(),
                                   std::string(protocol::to_string(phase_)), round_, created_ms_});
  submit_due_ = true;
}

void Event::save_pupil(int pupil) {
  if (!outbox_.enabled()) return;
  const Pupil& p = pupils_[static_cast<std::size_t>(pupil)];
  outbox_.write(record::PupilSaved{code_, pupil, p.name, p.token ? hash_bytes(*p.token) : std::string()});
  submit_due_ = true;
}

void Event::error(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message) {
  // A refusal is no effect of anything held: it goes at once.
  client->send(make_shared_text(protocol::encode(
      message.empty() ? protocol::default_error(code, std::move(id))
                      : protocol::make_error(code, std::move(message), std::move(id)))));
}

void Event::push_state() {
  if (teachers_.empty()) return;
  if (console_timer_.armed()) {
    state_due_ = true;
    return;
  }
  send_state();
  // Changes within the next kConsolePace go out together at its end.
  console_timer_.arm(kConsolePace, [weak = weak_from_this()] {
    auto self = weak.lock();
    if (!self || !std::exchange(self->state_due_, false)) return;
    self->push_state();
    self->end_turn();
  });
}

void Event::send_state() {
  const SharedText text = make_shared_text(protocol::encode(protocol::EventStateMessage{std::nullopt, state()}));
  for (const auto& teacher : teachers_) outbox_.send(teacher, text);
}

bool Event::is_teacher(const std::shared_ptr<Client>& client) const {
  return std::find(teachers_.begin(), teachers_.end(), client) != teachers_.end();
}

std::optional<int> Event::pupil_of(const std::shared_ptr<Client>& client) const {
  for (std::size_t i = 0; i < pupils_.size(); ++i) {
    const auto& clients = pupils_[i].clients;
    if (std::find(clients.begin(), clients.end(), client) != clients.end()) return static_cast<int>(i);
  }
  return std::nullopt;
}

int Event::capacity() const {
  return roster_.empty() ? static_cast<int>(protocol::kMaxRosterNames) : static_cast<int>(roster_.size());
}

std::optional<std::pair<int, engine::Seat>> Event::seat_of(int pupil) const {
  if (phase_ == EventPhase::kPlaying) {
    for (std::size_t t = 0; t < tables_.size(); ++t) {
      const auto& seats = tables_[t].seats;
      for (std::size_t s = 0; s < seats.size(); ++s) {
        if (seats[s] == pupil) return std::pair{static_cast<int>(t), static_cast<engine::Seat>(s)};
      }
    }
    return std::nullopt;
  }
  for (std::size_t t = 0; t < plan_.size(); ++t) {
    for (std::size_t s = 0; s < plan_[t].size(); ++s) {
      if (plan_[t][s] == pupil) return std::pair{static_cast<int>(t), static_cast<engine::Seat>(s)};
    }
  }
  return std::nullopt;
}

protocol::EventPupil Event::pupil_state(int pupil) const {
  const Pupil& p = pupils_[static_cast<std::size_t>(pupil)];
  protocol::EventPupil out;
  out.id = pupil;
  out.name = p.name;
  out.claimed = p.token.has_value();
  out.connected = !p.clients.empty();
  if (const auto seat = seat_of(pupil)) {
    out.table = seat->first;
    out.seat = seat->second;
  } else {
    out.unseated = unseated(pupil);
  }
  return out;
}

protocol::EventState Event::state() const {
  protocol::EventState out;
  out.code = code_;
  out.name = name_;
  out.settings = settings_;
  out.state = phase_;
  out.round = round_;
  out.paused = paused_;
  out.next_deal = next_deal();
  out.deal = round_deal();
  for (std::size_t i = 0; i < pupils_.size(); ++i) out.pupils.push_back(pupil_state(static_cast<int>(i)));
  if (phase_ != EventPhase::kPlaying && !plan_.empty()) {
    // The next round's seating, before its rooms exist.
    for (std::size_t t = 0; t < plan_.size(); ++t) {
      protocol::EventTable table;
      table.table = static_cast<int>(t);
      for (int pupil : plan_[t]) {
        protocol::EventTableSeat seat;
        seat.occupant = protocol::Occupant::kHuman;
        seat.name = pupils_[static_cast<std::size_t>(pupil)].name;
        seat.pupil = pupil;
        seat.connected = !pupils_[static_cast<std::size_t>(pupil)].clients.empty();
        table.seats.push_back(std::move(seat));
      }
      out.tables.push_back(std::move(table));
    }
    return out;
  }
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    protocol::EventTable table = tables_[t].status;
    table.table = static_cast<int>(t);
    table.room = tables_[t].room;
    for (std::size_t s = 0; s < table.seats.size() && s < tables_[t].seats.size(); ++s) {
      table.seats[s].pupil = tables_[t].seats[s];
    }
    out.tables.push_back(std::move(table));
  }
  return out;
}

// ---- entry points

void Event::create(std::shared_ptr<Client> client, Id id) {
  on_strand([client, id = std::move(id)](Event& event) mutable { event.do_create(client, std::move(id)); });
}
void Event::join(std::shared_ptr<Client> client, protocol::JoinEvent request, Id id) {
  on_strand([client, request = std::move(request), id = std::move(id)](Event& event) mutable {
    event.do_join(client, std::move(request), std::move(id));
  });
}
void Event::resume_teacher(std::shared_ptr<Client> client, protocol::ResumeEvent request, Id id) {
  on_strand([client, request = std::move(request), id = std::move(id)](Event& event) mutable {
    event.do_resume_teacher(client, request, std::move(id));
  });
}
void Event::read_roster(std::shared_ptr<Client> client, Id id) {
  on_strand([client, id = std::move(id)](Event& event) mutable {
    protocol::EventRoster roster;
    roster.id = std::move(id);
    roster.code = event.code_;
    roster.name = event.name_;
    roster.roster = !event.roster_.empty();
    if (roster.roster) {
      for (const Pupil& pupil : event.pupils_) roster.names.push_back({pupil.name, pupil.token.has_value()});
    }
    roster.coaching = event.settings_.coaching;
    roster.state = event.phase_;
    // Through the outbox: a name shown claimed is a claim already stored.
    event.send(client, roster);
  });
}
void Event::command(std::shared_ptr<Client> client, protocol::ClientBody body, Id id) {
  on_strand([client, body = std::move(body), id = std::move(id)](Event& event) mutable {
    event.do_command(client, body, std::move(id));
  });
}
void Event::disconnect(std::shared_ptr<Client> client) {
  on_strand([client](Event& event) { event.do_disconnect(client); });
}

void Event::do_create(const std::shared_ptr<Client>& client, Id id) {
  std::string token = new_token();
  teacher_ = services_.hasher->hash(token);
  teachers_.push_back(client);
  save_event();
  for (std::size_t i = 0; i < pupils_.size(); ++i) save_pupil(static_cast<int>(i));
  send(client, protocol::EventCreated{std::move(id), code_, std::move(token), state()});
  publish_results();
  spdlog::info("event {}: created, {} roster names", code_, roster_.size());
}

void Event::do_join(const std::shared_ptr<Client>& client, protocol::JoinEvent request, Id id) {
  if (is_teacher(client) || pupil_of(client)) {
    client->clear_event(this);
    return error(client, ErrorCode::kEventAlreadyInEvent, std::move(id));
  }
  const auto refuse = [&](ErrorCode code) {
    client->clear_event(this);
    error(client, code, std::move(id));
  };
  if (!request.token.empty()) {
    const TokenHash hash = services_.hasher->hash(request.token);
    for (std::size_t i = 0; i < pupils_.size(); ++i) {
      Pupil& pupil = pupils_[i];
      if (!pupil.token || !(*pupil.token == hash)) continue;
      pupil.clients.push_back(client);
      seat_late(static_cast<int>(i));
      send(client, protocol::EventJoined{std::move(id), code_, name_, std::string(), true,
                                         pupil_state(static_cast<int>(i)), round_, settings_.coaching, next_deal()});
      hand_seat(static_cast<int>(i), client);
      push_state();
      return;
    }
    return refuse(ErrorCode::kEventBadToken);
  }
  if (phase_ == EventPhase::kClosed) return refuse(ErrorCode::kEventClosed);
  const auto claimed = std::count_if(pupils_.begin(), pupils_.end(), [](const Pupil& p) { return p.token.has_value(); });
  if (claimed >= capacity()) return refuse(ErrorCode::kEventFull);
  std::optional<std::size_t> index;
  const std::string wanted = folded(request.name);
  for (std::size_t i = 0; i < pupils_.size(); ++i) {
    if (folded(pupils_[i].name) != wanted) continue;
    if (pupils_[i].token) return refuse(ErrorCode::kEventNameTaken);
    index = i;
  }
  if (!index) {
    if (!roster_.empty()) return refuse(ErrorCode::kEventNotOnRoster);
    pupils_.push_back(Pupil{request.name, std::nullopt, {}});
    index = pupils_.size() - 1;
  }
  std::string token = new_token();
  Pupil& pupil = pupils_[*index];
  pupil.token = services_.hasher->hash(token);
  pupil.clients.push_back(client);
  save_pupil(static_cast<int>(*index));
  const bool late = seat_late(static_cast<int>(*index));
  send(client, protocol::EventJoined{std::move(id), code_, name_, std::move(token), false,
                                     pupil_state(static_cast<int>(*index)), round_, settings_.coaching, next_deal()});
  if (late) hand_seat(static_cast<int>(*index), client);
  push_state();
}

void Event::do_resume_teacher(const std::shared_ptr<Client>& client, const protocol::ResumeEvent& request, Id id) {
  if (!teacher_ || !(services_.hasher->hash(request.token) == *teacher_)) {
    client->clear_event(this);
    return error(client, ErrorCode::kEventBadToken, std::move(id));
  }
  if (!is_teacher(client)) teachers_.push_back(client);
  send(client, protocol::EventStateMessage{std::move(id), state()});
  watch_again(client);
}

void Event::do_disconnect(const std::shared_ptr<Client>& client) {
  std::erase(teachers_, client);
  std::erase_if(coached_, [&](const auto& watcher) { return watcher.first == client; });
  if (const auto pupil = pupil_of(client)) {
    std::erase(pupils_[static_cast<std::size_t>(*pupil)].clients, client);
    push_state();
  }
}

void Event::do_command(const std::shared_ptr<Client>& client, const protocol::ClientBody& body, Id id) {
  if (!is_teacher(client)) return error(client, ErrorCode::kEventNotTeacher, std::move(id));
  // A closed event's results stay readable.
  if (phase_ == EventPhase::kClosed && !std::holds_alternative<protocol::ReadResults>(body)) {
    return error(client, ErrorCode::kEventClosed, std::move(id));
  }
  std::visit(Overloaded{
                 [&](const protocol::SeatPupils&) {
                   if (phase_ == EventPhase::kPlaying) return error(client, ErrorCode::kEventRoundInPlay, std::move(id));
                   seat_pupils();
                   if (plan_.empty()) return error(client, ErrorCode::kEventNoPupils, std::move(id));
                   send(client, protocol::Ok{std::move(id)});
                   push_state();
                 },
                 [&](const protocol::MovePupil& m) { move_pupil(client, m, std::move(id)); },
                 [&](const protocol::FreeName& m) { free_name(client, m.pupil, std::move(id)); },
                 [&](const protocol::StartRound&) { start_round(client, std::move(id)); },
                 [&](const protocol::EndRound&) { end_round(client, std::move(id)); },
                 [&](const protocol::PauseTables&) { pause_tables(client, true, std::move(id)); },
                 [&](const protocol::ResumeTables&) { pause_tables(client, false, std::move(id)); },
                 [&](const protocol::MessageTables& m) { message_tables(client, m.text, std::move(id)); },
                 [&](const protocol::SetChat& m) { set_chat(client, m.chat, std::move(id)); },
                 [&](const protocol::ReadResults&) { read_results(client, std::move(id)); },
                 [&](const protocol::RemovePupil& m) { remove_pupil(client, m.pupil, std::move(id)); },
                 [&](const protocol::SeatToBot& m) { seat_to_bot(client, m.pupil, std::move(id)); },
                 [&](const protocol::AllowLate& m) { allow_late(client, m.allow, std::move(id)); },
                 [&](const protocol::WatchTable& m) { watch_table(client, m.table, std::move(id)); },
                 [&](const auto&) { error(client, ErrorCode::kBadMessage, std::move(id)); },
             },
             body);
}

void Event::seat_pupils() {
  std::vector<int> claimed;
  for (std::size_t i = 0; i < pupils_.size(); ++i) {
    if (pupils_[i].token) claimed.push_back(static_cast<int>(i));
  }
  plan_ = EventSeating::balanced(claimed, settings_.table_size);
}

void Event::move_pupil(const std::shared_ptr<Client>& client, const protocol::MovePupil& move, Id id) {
  if (phase_ == EventPhase::kPlaying) return error(client, ErrorCode::kEventRoundInPlay, std::move(id));
  if (plan_.empty()) seat_pupils();
  const auto from = seat_of(move.pupil);
  if (move.pupil >= static_cast<int>(pupils_.size()) || !from) {
    return error(client, ErrorCode::kEventBadPupil, std::move(id));
  }
  const auto to = static_cast<std::size_t>(move.table);
  if (to > plan_.size() || (to < plan_.size() && static_cast<int>(plan_[to].size()) >= settings_.table_size)) {
    return error(client, ErrorCode::kEventBadTable, std::move(id));
  }
  std::erase(plan_[static_cast<std::size_t>(from->first)], move.pupil);
  if (to == plan_.size()) plan_.emplace_back();
  plan_[to].push_back(move.pupil);
  std::erase_if(plan_, [](const std::vector<int>& table) { return table.empty(); });
  send(client, protocol::Ok{std::move(id)});
  push_state();
}

void Event::free_name(const std::shared_ptr<Client>& client, int pupil, Id id) {
  if (pupil >= static_cast<int>(pupils_.size()) || !pupils_[static_cast<std::size_t>(pupil)].token) {
    return error(client, ErrorCode::kEventBadPupil, std::move(id), "There is no pupil with that number who has joined.");
  }
  Pupil& p = pupils_[static_cast<std::size_t>(pupil)];
  p.token.reset();
  for (const auto& c : p.clients) c->clear_event(this);
  p.clients.clear();
  for (auto& table : plan_) std::erase(table, pupil);
  std::erase_if(plan_, [](const std::vector<int>& table) { return table.empty(); });
  save_pupil(pupil);
  send(client, protocol::Ok{std::move(id)});
  push_state();
}

void Event::start_round(const std::shared_ptr<Client>& client, Id id) {
  if (phase_ == EventPhase::kPlaying) return error(client, ErrorCode::kEventRoundInPlay, std::move(id));
  if (round_ >= settings_.rounds) return error(client, ErrorCode::kEventNoMoreRounds, std::move(id));
  if (plan_.empty()) seat_pupils();
  // Pupils who joined after the seating was made sit where there is room.
  for (std::size_t i = 0; i < pupils_.size(); ++i) {
    if (pupils_[i].token && !seat_of(static_cast<int>(i))) {
      EventSeating::place(plan_, static_cast<int>(i), settings_.table_size);
    }
  }
  if (plan_.empty()) return error(client, ErrorCode::kEventNoPupils, std::move(id));

  protocol::RoomSettings room;
  room.rules = settings_.rules;
  room.seats = settings_.table_size;
  room.turn_timer_seconds = settings_.turn_timer_seconds;
  room.spectators = true;
  room.listed = false;
  room.chat = settings_.chat;
  std::vector<std::shared_ptr<Room>> rooms;
  for (std::size_t t = 0; t < plan_.size(); ++t) {
    std::variant<std::shared_ptr<Room>, protocol::Error> made;
    try {
      made = directory_.create_room(room, std::string());
    } catch (const std::exception& failure) {
      spdlog::error("event {}: making a table failed: {}", code_, failure.what());
      return error(client, ErrorCode::kServerStoreUnavailable, std::move(id));
    }
    if (auto* refusal = std::get_if<protocol::Error>(&made)) {
      // Tables made so far stay empty and expire as unstarted rooms do.
      refusal->id = std::move(id);
      return client->send(make_shared_text(protocol::encode(*refusal)));
    }
    rooms.push_back(std::get<std::shared_ptr<Room>>(std::move(made)));
  }
  ++round_;
  phase_ = EventPhase::kPlaying;
  // A same-deal round deals from the seed whose commitment everyone was
  // shown before it began (next_deal), and the next round's is drawn now.
  std::optional<Room::SharedDeal> shared;
  round_seed_.clear();
  round_revealed_ = false;
  if (settings_.same_deal) {
    if (next_round_seed_.empty()) next_round_seed_ = fairness::new_seed();
    round_seed_ = std::exchange(next_round_seed_, fairness::new_seed());
    shared = Room::SharedDeal{round_seed_, std::nullopt, code_, round_};
  }
  keep_round_results();
  tables_.clear();
  for (std::size_t t = 0; t < plan_.size(); ++t) {
    Table table;
    table.room = rooms[t]->code();
    table.live = rooms[t];
    Room::TableSetup setup;
    setup.bots = settings_.bots;
    setup.shared_deal = shared;
    setup.paused = paused_;
    for (int pupil : plan_[t]) {
      table.seats.emplace_back(pupil);
      setup.humans.push_back(pupils_[static_cast<std::size_t>(pupil)].name);
    }
    table.seats.resize(static_cast<std::size_t>(settings_.table_size));
    table.let_go.resize(table.seats.size());
    table.unseated.resize(table.seats.size());
    table.status.room = table.room;
    rooms[t]->open_table(std::move(setup));
    tables_.push_back(std::move(table));
    save_table(static_cast<int>(t));
    watch(static_cast<int>(t));
  }
  plan_.clear();
  save_event();
  publish_results();
  spdlog::info("event {}: round {} started at {} tables{}", code_, round_, tables_.size(),
               settings_.same_deal ? ", the same deal at each" : "");
  send(client, protocol::Ok{std::move(id)});
  push_state();
  // Each pupil here hears where to sit once the round's records are saved.
  for (std::size_t i = 0; i < pupils_.size(); ++i) {
    for (const auto& pupil_client : pupils_[i].clients) hand_seat(static_cast<int>(i), pupil_client);
  }
}

void Event::end_round(const std::shared_ptr<Client>& client, Id id) {
  if (phase_ != EventPhase::kPlaying) return error(client, ErrorCode::kEventNoRound, std::move(id));
  phase_ = round_ >= settings_.rounds ? EventPhase::kClosed : EventPhase::kOpen;
  // The round's games may still finish, so its tables go on (a paused room
  // is never closed); the pause, if any, holds for the next round.
  if (paused_) {
    for (const Table& table : tables_) {
      if (table.live) table.live->pause_table(false);
    }
  }
  if (phase_ == EventPhase::kClosed) paused_ = false;
  save_event();
  send(client, protocol::Ok{std::move(id)});
  push_state();
  spdlog::info("event {}: round {} ended{}", code_, round_, phase_ == EventPhase::kClosed ? "; the event is over" : "");
}

// The event keeps the pause (a round started while it holds starts
// paused; a restart keeps it); every table of the round in play follows it.
void Event::pause_tables(const std::shared_ptr<Client>& client, bool paused, Id id) {
  if (phase_ != EventPhase::kPlaying) return error(client, ErrorCode::kEventNoRound, std::move(id));
  paused_ = paused;
  save_event();
  for (const Table& table : tables_) {
    if (table.live) table.live->pause_table(paused);
  }
  send(client, protocol::Ok{std::move(id)});
  push_state();
  spdlog::info("event {}: the teacher {} every table", code_, paused ? "paused" : "resumed");
}

void Event::message_tables(const std::shared_ptr<Client>& client, const std::string& text, Id id) {
  const auto now = services_.timers->steady_now();
  if (last_message_ && now - *last_message_ < kMessagePace) {
    return error(client, ErrorCode::kEventRateLimited, std::move(id));
  }
  last_message_ = now;
  const SharedText message = make_shared_text(protocol::encode(protocol::EventTeacherMessage{text}));
  for (const Pupil& pupil : pupils_) {
    for (const auto& pupil_client : pupil.clients) outbox_.send(pupil_client, message);
  }
  send(client, protocol::Ok{std::move(id)});
}

// The event's setting (later rounds' tables are made with it), and every
// table of the round in play at once.
void Event::set_chat(const std::shared_ptr<Client>& client, protocol::ChatMode chat, Id id) {
  settings_.chat = chat;
  save_event();
  if (phase_ == EventPhase::kPlaying) {
    for (const Table& table : tables_) {
      if (table.live) table.live->set_chat(chat);
    }
  }
  send(client, protocol::Ok{std::move(id)});
  push_state();
}

void Event::hand_seat(int pupil, const std::shared_ptr<Client>& client) {
  if (phase_ != EventPhase::kPlaying) return;
  const auto seat = seat_of(pupil);
  if (!seat) return;
  Table& table = tables_[static_cast<std::size_t>(seat->first)];
  protocol::EventSeat message{code_,        round_,        seat->first,        table.room,
                              seat->second, std::string(), settings_.coaching, next_deal()};
  // After the event's own records (the round, its tables) are committed.
  outbox_.after([self = shared_from_this(), client, message = std::move(message), table = seat->first,
                 round = round_]() mutable {
    boost::asio::dispatch(self->strand_, [self, client, message = std::move(message), table, round]() mutable {
      if (round != self->round_) return;
      const auto& room = self->tables_[static_cast<std::size_t>(table)].live;
      if (room) room->hand_seat(client, message.seat, std::move(message));
    });
  });
}

void Event::watch(int table) {
  const auto& room = tables_[static_cast<std::size_t>(table)].live;
  if (!room) return;
  room->watch(
      [weak = weak_from_this(), round = round_, table](protocol::EventTable status, std::vector<engine::CardSet> hands) {
        if (auto self = weak.lock()) {
          boost::asio::post(self->strand_,
                            [weak, round, table, status = std::move(status), hands = std::move(hands)]() mutable {
                              if (auto event = weak.lock()) {
                                event->table_changed(round, table, std::move(status), std::move(hands));
                                event->end_turn();
                              }
                            });
        }
      },
      settings_.coaching);
}

void Event::table_changed(int round, int table, protocol::EventTable status, std::vector<engine::CardSet> hands) {
  if (gone_ || round != round_ || table >= static_cast<int>(tables_.size())) return;
  Table& changed = tables_[static_cast<std::size_t>(table)];
  const bool was_playing = changed.status.state == protocol::RoomState::kPlaying;
  changed.status = std::move(status);
  changed.hands = std::move(hands);
  if (changed.status.game_id && !changed.game_id) table_finished(table);
  reveal_round_if_over();
  // The table's first word that its game is in play: a pupil who came in
  // the moment the round started (or the server did), before any table
  // had said so, found no seat to take over; they take one now.
  if (!was_playing && changed.status.state == protocol::RoomState::kPlaying) seat_waiting_pupils();
  push_state();
  push_view(table);
}

// ---- another server

void Event::move_away(bool commit_first, std::function<void()> after) {
  boost::asio::post(strand_, [self = shared_from_this(), commit_first, after = std::move(after)]() mutable {
    if (self->gone_) {
      if (after) after();
      return;
    }
    spdlog::info("event {} moved to another server{}", self->code_,
                 commit_first ? " (it asked for the event)" : " (this server lost the lease)");
    self->gone_ = true;
    self->console_timer_.cancel();
    self->views_timer_.cancel();
    self->results_timer_.cancel();
    const auto reason = protocol::CloseReason::kMoved;
    const SharedText closing =
        make_shared_text(protocol::encode(protocol::Closing{reason, std::string(protocol::close_message(reason))}));
    const auto let_go = [&](const std::shared_ptr<Client>& client) {
      client->clear_event(self.get());
      client->send(closing);
      client->close(CloseReason{protocol::close_code(reason), std::string(protocol::close_reason_name(reason))});
    };
    for (const auto& teacher : std::exchange(self->teachers_, {})) let_go(teacher);
    for (Pupil& pupil : self->pupils_) {
      for (const auto& client : std::exchange(pupil.clients, {})) let_go(client);
    }
    self->coached_.clear();
    // Its tables are rooms: they stay here until the new owner asks for them.
    for (Table& table : self->tables_) table.live.reset();
    if (!commit_first || !self->services_.writer) {
      self->outbox_.abandon();
      if (after) after();
      return;
    }
    // Submissions commit in order: once this empty one is, so is the rest.
    self->services_.writer->submit(self->code_, {}, [after = std::move(after)](WriteOutcome outcome) {
      if (outcome != WriteOutcome::kRetrying && after) after();
    });
  });
}

// ---- restart

std::shared_ptr<Event> Event::restore(const RoomServices& services, RoomDirectory& directory,
                                      const StoredEvent& stored, std::string* problem) {
  auto settings = protocol::event_settings_from_record(stored.settings);
  const auto phase = phase_of(stored.phase);
  const auto teacher = hash_from_bytes(stored.teacher_hash);
  if (!settings || !phase || !teacher) {
    *problem = "its settings, phase or teacher token could not be read";
    return nullptr;
  }
  protocol::CreateEvent request{stored.name, settings->settings, {}};
  auto event = std::make_shared<Event>(services, directory, stored.event, std::move(request));
  event->roster_ = settings->roster;
  event->created_ms_ = stored.created_ms;
  event->teacher_ = teacher;
  event->phase_ = *phase;
  event->round_ = static_cast<int>(stored.round);
  event->paused_ = settings->paused;
  event->watching_ = settings->watching;
  // A same-deal event's seeds: the next round's keeps the commitment
  // announced before the restart (a record from before seeds were kept
  // has none: the constructor's fresh one is stored in
  // begin_after_restore), and the round's keeps its `deal`, revealed if
  // every table of it has finished its game.
  if (event->settings_.same_deal) {
    if (auto next = fairness::from_hex(settings->next_seed); next && !next->empty()) {
      event->next_round_seed_ = std::move(*next);
    } else {
      event->seeds_unsaved_ = true;
    }
    if (auto seed = fairness::from_hex(settings->round_seed)) event->round_seed_ = std::move(*seed);
  }
  for (const StoredPupil& pupil : stored.pupils) {
    if (pupil.pupil != static_cast<std::int64_t>(event->pupils_.size())) {
      *problem = "its pupils are not numbered 0, 1, 2 ...";
      return nullptr;
    }
    Pupil p{pupil.name, hash_from_bytes(pupil.token_hash), {}};
    event->pupils_.push_back(std::move(p));
  }
  for (const StoredEventTable& table : stored.tables) {
    auto seats = protocol::table_seats_from_record(table.seats);
    if (!seats || table.table != static_cast<std::int64_t>(event->tables_.size())) {
      *problem = "its tables could not be read";
      return nullptr;
    }
    Table t;
    t.room = table.room;
    t.seats = std::move(seats->pupils);
    t.let_go = std::move(seats->let_go);
    t.unseated = std::move(seats->unseated);
    t.status.room = table.room;
    event->tables_.push_back(std::move(t));
  }
  event->restore_results(stored);
  // A table whose game's result is stored was over: so it shows until its
  // room reports again (begin_after_restore), and when all were, the
  // round's seed was revealed.
  for (Table& table : event->tables_) {
    if (!table.game_id) continue;
    table.status.state = protocol::RoomState::kOver;
    table.status.game_id = table.game_id;
  }
  event->round_revealed_ =
      !event->round_seed_.empty() && !event->tables_.empty() &&
      std::ranges::all_of(event->tables_, [](const Table& table) { return table.game_id.has_value(); });
  return event;
}

// The round in play is watched again as it was before. So is the last
// same-deal round between rounds (or once the event is over): its tables
// report, so it is revealed once they are all over. (Other rounds' tables
// are left where they are: on a cluster, finding a room takes it over.) A
// restart forgets, in the tables' rooms, that the round's seed was
// revealed: a revealed round's tables are told again, so they serve their
// transcripts with it as before.
void Event::begin_after_restore() {
  on_strand([](Event& event) {
    if (std::exchange(event.seeds_unsaved_, false)) event.save_event();
  });
  if (phase_ != EventPhase::kPlaying && round_seed_.empty()) return;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    directory_.find(tables_[t].room, [weak = weak_from_this(), t, round = round_](RoomDirectory::Found found) {
      auto self = weak.lock();
      auto* room = std::get_if<std::shared_ptr<Room>>(&found);
      if (!self || !room) return;
      boost::asio::post(self->strand_, [self, t, round, room = *room] {
        if (self->gone_ || round != self->round_ || t >= self->tables_.size()) return;
        Table& table = self->tables_[t];
        table.live = room;
        if (self->round_revealed_) room->reveal_deal();
        if (self->phase_ != EventPhase::kPlaying) return self->watch(static_cast<int>(t));
        if (self->paused_) room->pause_table(true);
        // What the event stored and the room may have lost (event_pupils.cpp):
        // each asks nothing of a room that has it already.
        for (std::size_t s = 0; s < table.seats.size(); ++s) {
          const auto seat = static_cast<engine::Seat>(s);
          if (table.let_go[s]) room->release_seat(seat);
          if (table.seats[s]) room->seat_late_pupil(seat, self->pupils_[static_cast<std::size_t>(*table.seats[s])].name);
        }
        self->watch(static_cast<int>(t));
        // Pupils who came back before the table was found here (another
        // server's, taken over) were handed no seat: they are now.
        for (const auto& pupil : table.seats) {
          if (!pupil) continue;
          for (const auto& client : self->pupils_[static_cast<std::size_t>(*pupil)].clients) {
            self->hand_seat(*pupil, client);
          }
        }
      });
    });
  }
}

}  // namespace gofish::server
