// The part of a class event (event.hpp) that keeps its results: each
// table's first finished game is recorded with the round (its game id and
// every seat's sets), the results are recomputed from what is kept
// (event_results.hpp), pushed to the teacher's connections at most every
// kConsolePace once their records commit, answered to read_results, and
// published for the CSV download. Everything here runs on the event's
// strand except results_for_teacher.
#include <spdlog/spdlog.h>

#include "protocol/event_json.hpp"
#include "server/rooms/event.hpp"

namespace gofish::server {

void Event::table_finished(int table) {
  Table& t = tables_[static_cast<std::size_t>(table)];
  t.game_id = t.status.game_id;
  t.result = {};
  for (const auto& seat : t.status.seats) {
    t.result.names.push_back(seat.name);
    t.result.ranks.push_back(seat.ranks);
  }
  save_table(table);
  spdlog::info("event {}: round {} table {} finished (game {})", code_, round_, table, *t.game_id);
  publish_results();
  push_results();
}

void Event::read_results(const std::shared_ptr<Client>& client, Id id) {
  protocol::EventResults message = results();
  message.id = std::move(id);
  send(client, message);
}

EventResultsInput::Round Event::round_input(int round, const std::vector<Table>& tables) const {
  EventResultsInput::Round out;
  out.round = round;
  for (const Table& table : tables) {
    EventResultsInput::Table in;
    in.room = table.room;
    in.pupils = table.seats;
    if (table.game_id) {
      in.game_id = table.game_id;
      in.names = table.result.names;
      in.ranks = table.result.ranks;
    } else {
      for (const auto& seat : table.status.seats) {
        in.names.push_back(seat.name);
        in.ranks.push_back(seat.ranks);
      }
    }
    out.tables.push_back(std::move(in));
  }
  return out;
}

void Event::keep_round_results() {
  if (!tables_.empty()) earlier_rounds_.push_back(round_input(round_ - 1, tables_));
}

protocol::EventResults Event::results() const {
  EventResultsInput input;
  input.code = code_;
  input.name = name_;
  input.same_deal = settings_.same_deal;
  input.rounds = earlier_rounds_;
  if (!tables_.empty()) input.rounds.push_back(round_input(round_, tables_));
  for (const Pupil& pupil : pupils_) input.pupil_names.push_back(pupil.name);
  return event_results(input);
}

void Event::publish_results() {
  auto snapshot = std::make_shared<const protocol::EventResults>(results());
  outbox_.after([weak = weak_from_this(), snapshot = std::move(snapshot), teacher = teacher_]() mutable {
    auto self = weak.lock();
    if (!self) return;
    std::lock_guard lock(self->published_mutex_);
    self->published_ = std::move(snapshot);
    self->published_teacher_ = teacher;
  });
}

void Event::push_results() {
  if (teachers_.empty()) return;
  if (results_timer_.armed()) {
    results_due_ = true;
    return;
  }
  const SharedText text = make_shared_text(protocol::encode(results()));
  for (const auto& teacher : teachers_) outbox_.send(teacher, text);
  results_timer_.arm(kConsolePace, [weak = weak_from_this()] {
    auto self = weak.lock();
    if (!self || !std::exchange(self->results_due_, false)) return;
    self->push_results();
    self->end_turn();
  });
}

std::shared_ptr<const protocol::EventResults> Event::results_for_teacher(std::string_view token) const {
  std::lock_guard lock(published_mutex_);
  if (!published_teacher_ || !published_ || !(services_.hasher->hash(token) == *published_teacher_)) return nullptr;
  return published_;
}

void Event::restore_results(const StoredEvent& stored) {
  const auto read = [&](Table& table, const StoredEventTable& row) {
    if (row.game_id.empty()) return;
    auto result = protocol::table_result_from_record(row.result);
    if (!result) {
      spdlog::warn("event {}: the result of table {} (room {}) could not be read", code_, row.table, row.room);
      return;
    }
    table.game_id = row.game_id;
    table.result = std::move(*result);
  };
  for (std::size_t t = 0; t < tables_.size() && t < stored.tables.size(); ++t) read(tables_[t], stored.tables[t]);
  for (const StoredEventRound& round : stored.earlier_rounds) {
    std::vector<Table> tables;
    for (const StoredEventTable& row : round.tables) {
      Table table;
      table.room = row.room;
      if (auto seats = protocol::table_seats_from_record(row.seats)) table.seats = std::move(seats->pupils);
      read(table, row);
      tables.push_back(std::move(table));
    }
    earlier_rounds_.push_back(round_input(static_cast<int>(round.round), tables));
  }
  // Nothing is pending yet: what was read back is committed.
  std::lock_guard lock(published_mutex_);
  published_ = std::make_shared<const protocol::EventResults>(results());
  published_teacher_ = teacher_;
}

}  // namespace gofish::server
