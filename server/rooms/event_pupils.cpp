// The part of a class event (event.hpp) that changes who sits where while a
// round is in play: the teacher removes a pupil (remove_pupil) or hands a
// pupil's seat to a bot (seat_to_bot), and a pupil who comes late takes over
// a bot's seat when the teacher allows it (allow_late). Each change is the
// event's records first (the pupil, the table's seats): the `ok`, the
// pupil's `event_left` or `event_unseated` and their `event_seat` go out
// only once those are committed. The table's room follows at once (its own
// records); after a restart the event asks it again (begin_after_restore),
// so a room that lost the change before it committed catches up. Everything
// here runs on the event's strand.
#include <spdlog/spdlog.h>

#include "protocol/event_json.hpp"
#include "server/rooms/event.hpp"

namespace gofish::server {

using protocol::ErrorCode;
using protocol::EventPhase;

namespace {

constexpr const char* kNoSuchPupil = "There is no pupil with that number who has joined.";

}  // namespace

void Event::save_table(int table) {
  if (!outbox_.enabled()) return;
  const Table& t = tables_[static_cast<std::size_t>(table)];
  outbox_.write(record::EventTableSaved{
      code_, round_, table, t.room, protocol::table_seats_record({t.seats, t.let_go, t.unseated}),
      t.game_id.value_or(std::string()), t.game_id ? protocol::table_result_record(t.result) : std::string()});
  submit_due_ = true;
}

void Event::remove_pupil(const std::shared_ptr<Client>& client, int pupil, Id id) {
  if (pupil >= static_cast<int>(pupils_.size()) || !pupils_[static_cast<std::size_t>(pupil)].token) {
    return error(client, ErrorCode::kEventBadPupil, std::move(id), kNoSuchPupil);
  }
  if (phase_ == EventPhase::kPlaying && seat_of(pupil)) let_seat_go(pupil, false);
  Pupil& p = pupils_[static_cast<std::size_t>(pupil)];
  p.token.reset();
  for (auto& table : plan_) std::erase(table, pupil);
  std::erase_if(plan_, [](const std::vector<int>& table) { return table.empty(); });
  save_pupil(pupil);
  // Each connection is out of the event now; it hears why once that is stored.
  const SharedText left = make_shared_text(protocol::encode(protocol::EventLeft{"removed"}));
  for (const auto& c : p.clients) {
    c->clear_event(this);
    outbox_.send(c, left);
  }
  p.clients.clear();
  send(client, protocol::Ok{std::move(id)});
  push_state();
  spdlog::info("event {}: the teacher removed pupil {}", code_, pupil);
}

void Event::seat_to_bot(const std::shared_ptr<Client>& client, int pupil, Id id) {
  if (phase_ != EventPhase::kPlaying) return error(client, ErrorCode::kEventNoRound, std::move(id));
  if (pupil >= static_cast<int>(pupils_.size()) || !pupils_[static_cast<std::size_t>(pupil)].token) {
    return error(client, ErrorCode::kEventBadPupil, std::move(id), kNoSuchPupil);
  }
  if (!seat_of(pupil)) return error(client, ErrorCode::kEventNotSeated, std::move(id));
  let_seat_go(pupil, true);
  const SharedText unseated = make_shared_text(protocol::encode(protocol::EventUnseated{"teacher"}));
  for (const auto& c : pupils_[static_cast<std::size_t>(pupil)].clients) outbox_.send(c, unseated);
  send(client, protocol::Ok{std::move(id)});
  push_state();
  spdlog::info("event {}: the teacher handed pupil {}'s seat to a bot", code_, pupil);
}

// The event's setting, kept with the others; pupils waiting during the
// round in play (not those the teacher unseated) take their seats now.
void Event::allow_late(const std::shared_ptr<Client>& client, bool allow, Id id) {
  settings_.late_pupils = allow;
  save_event();
  send(client, protocol::Ok{std::move(id)});
  seat_waiting_pupils();
  push_state();
}

void Event::seat_waiting_pupils() {
  for (std::size_t i = 0; i < pupils_.size(); ++i) {
    const int pupil = static_cast<int>(i);
    if (pupils_[i].clients.empty() || !seat_late(pupil)) continue;
    for (const auto& pupil_client : pupils_[i].clients) hand_seat(pupil, pupil_client);
  }
}

void Event::let_seat_go(int pupil, bool unseated) {
  const auto seat = seat_of(pupil);
  if (!seat) return;
  Table& table = tables_[static_cast<std::size_t>(seat->first)];
  const auto s = static_cast<std::size_t>(seat->second);
  table.seats[s].reset();
  table.let_go[s] = true;
  table.unseated[s] = unseated ? std::optional<int>(pupil) : std::nullopt;
  save_table(seat->first);
  if (table.live) table.live->release_seat(seat->second);
}

bool Event::unseated(int pupil) const {
  if (phase_ != EventPhase::kPlaying) return false;
  for (const Table& table : tables_) {
    if (std::find(table.unseated.begin(), table.unseated.end(), std::optional<int>(pupil)) != table.unseated.end()) {
      return true;
    }
  }
  return false;
}

bool Event::seat_late(int pupil) {
  const Pupil& p = pupils_[static_cast<std::size_t>(pupil)];
  if (phase_ != EventPhase::kPlaying || !settings_.late_pupils || !p.token || seat_of(pupil) || unseated(pupil)) {
    return false;
  }
  // The table with the most seats a bot has held since the deal, whose game
  // is still being played; the first such table on a tie.
  std::optional<std::size_t> best;
  std::size_t most = 0;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    const Table& table = tables_[t];
    if (!table.live || table.game_id || table.status.state != protocol::RoomState::kPlaying) continue;
    std::size_t bots = 0;
    for (std::size_t s = 0; s < table.seats.size(); ++s) bots += !table.seats[s] && !table.let_go[s] ? 1 : 0;
    if (bots > most) {
      most = bots;
      best = t;
    }
  }
  if (!best) return false;
  Table& table = tables_[*best];
  std::size_t s = 0;
  while (table.seats[s] || table.let_go[s]) ++s;
  table.seats[s] = pupil;
  save_table(static_cast<int>(*best));
  table.live->seat_late_pupil(static_cast<engine::Seat>(s), p.name);
  spdlog::info("event {}: pupil {} came late and takes seat {} of table {}", code_, pupil, s, *best);
  return true;
}

// ---- the coaching view

void Event::watch_table(const std::shared_ptr<Client>& client, std::optional<int> table, Id id) {
  if (table && *table >= static_cast<int>(tables_.size())) return error(client, ErrorCode::kEventBadTable, std::move(id));
  std::erase_if(coached_, [&](const auto& watcher) { return watcher.first == client; });
  if (watching_ != table) {
    watching_ = table;
    save_event();
  }
  send(client, protocol::Ok{std::move(id)});
  if (!table) return;
  coached_.emplace_back(client, *table);
  send(client, table_view(*table));
}

void Event::watch_again(const std::shared_ptr<Client>& client) {
  if (!watching_ || *watching_ >= static_cast<int>(tables_.size()) || phase_ == EventPhase::kClosed) return;
  if (std::any_of(coached_.begin(), coached_.end(), [&](const auto& watcher) { return watcher.first == client; })) {
    return;
  }
  coached_.emplace_back(client, *watching_);
  // A table not heard from yet (just after a restart) is sent as soon as
  // it reports itself (push_view).
  if (!tables_[static_cast<std::size_t>(*watching_)].status.seats.empty()) send(client, table_view(*watching_));
}

// Built from what the room reported: its spectator's table, and the coach
// view's hands, which the room gives only when the event has coaching.
protocol::TableView Event::table_view(int table) const {
  const Table& t = tables_[static_cast<std::size_t>(table)];
  protocol::TableView out;
  out.table = table;
  out.room = t.room;
  out.state = t.status.state;
  out.turn = t.status.turn;
  out.pond = t.status.pond;
  for (std::size_t s = 0; s < t.status.seats.size(); ++s) {
    const protocol::EventTableSeat& seat = t.status.seats[s];
    protocol::TableViewSeat view;
    view.seat = static_cast<engine::Seat>(s);
    view.name = seat.name;
    if (s < t.seats.size()) view.pupil = t.seats[s];
    view.cards = seat.cards;
    view.sets = seat.ranks;
    if (settings_.coaching && s < t.hands.size()) view.hand = t.hands[s];
    out.seats.push_back(std::move(view));
  }
  return out;
}

void Event::push_view(int table) {
  if (std::none_of(coached_.begin(), coached_.end(), [&](const auto& watcher) { return watcher.second == table; })) {
    return;
  }
  if (views_timer_.armed()) {
    views_due_.insert(table);
    return;
  }
  send_view(table);
  arm_views();
}

// Changes within the next kConsolePace go out together at its end.
void Event::arm_views() {
  views_timer_.arm(kConsolePace, [weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->flush_views();
      self->end_turn();
    }
  });
}

void Event::flush_views() {
  const std::set<int> due = std::exchange(views_due_, {});
  if (due.empty()) return;
  for (int table : due) send_view(table);
  arm_views();
}

void Event::send_view(int table) {
  const SharedText text = make_shared_text(protocol::encode(table_view(table)));
  for (const auto& [client, watched] : coached_) {
    if (watched == table) outbox_.send(client, text);
  }
}

}  // namespace gofish::server
