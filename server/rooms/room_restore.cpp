#include "server/rooms/room_restore.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/view.hpp"
#include "protocol/room_records.hpp"
#include "protocol/rules_json.hpp"

namespace gofish::server {

namespace {

// A stored decision, or a sentence saying why it is none.
std::variant<engine::Decision, std::string> stored_decision(const std::string& text) {
  return protocol::decision_from_json(nlohmann::json::parse(text, nullptr, false));
}

std::optional<std::string> restore_seat(SeatTable& seats, const StoredSeat& row) {
  if (row.seat < 0 || row.seat >= seats.size()) return "no such seat at this table";
  auto read = protocol::seat_from_record(row.state);
  if (const auto* error = std::get_if<std::string>(&read)) return *error;
  const auto& record = std::get<protocol::SeatRecord>(read);
  SeatSlot& seat = seats[row.seat];
  seat.occupant = record.occupant;
  seat.name = record.name;
  if (record.level) seat.level = *record.level;
  if (record.host) seats.set_host(row.seat);
  seat.takeover = record.takeover;
  seat.kicked = record.kicked;
  if (record.rematch) seats.vote(row.seat);
  if (seat.human() && !row.token_hash.empty()) {
    seat.token = hash_from_bytes(row.token_hash);
    if (!seat.token) return "a token hash of the wrong size";
  }
  return std::nullopt;
}

// Who played a stored game, by seat: the players kept with its set-up. A
// set-up written before they were kept has none: the seats' holders stand
// in, and "Seat N" for a seat nobody holds.
std::vector<protocol::Player> players_of(const protocol::GameSetup& setup, const SeatTable& seats) {
  if (setup.players) return *setup.players;
  std::vector<protocol::Player> players = seats.players();
  for (std::size_t i = 0; i < players.size(); ++i) {
    if (seats.seats()[i].empty()) players[i] = protocol::Player{"Seat " + std::to_string(i), std::nullopt};
  }
  return players;
}

std::optional<std::string> restore_game(RestoredRoom& room, const StoredGame& stored, Store& store) {
  const std::string game = "game " + stored.game_id + ": ";
  auto read = protocol::setup_from_record(stored.setup);
  if (const auto* error = std::get_if<std::string>(&read)) return game + *error;
  const auto& setup = std::get<protocol::GameSetup>(read);
  const engine::Transcript& deal = setup.deal;
  if (deal.players != room.settings.seats) return game + "the wrong number of players";
  std::vector<protocol::Player> players = players_of(setup, room.seats);
  if (static_cast<int>(players.size()) != room.settings.seats) {
    return game + "the set-up names " + std::to_string(players.size()) + " players for " +
           std::to_string(room.settings.seats) + " seats";
  }
  // A seat's bot (or a human's stand-in) plays at the seat's level; a seat
  // freed after the game was over replays at the level its player had.
  std::vector<protocol::BotLevel> levels;
  for (int i = 0; i < room.settings.seats; ++i) {
    const SeatSlot& seat = room.seats[i];
    levels.push_back(seat.empty() ? players[static_cast<std::size_t>(i)].bot.value_or(kStandInLevel) : seat.level);
  }
  auto started = RoomGame::start(deal.rules, deal.deck, deal.dealer, deal.first, static_cast<int>(stored.game),
                                 stored.game_id, std::move(players), levels);
  if (const auto* error = std::get_if<std::string>(&started)) return game + *error;
  RoomGame& restored = room.game.emplace(std::get<RoomGame>(std::move(started)));
  restored.set_fairness(setup.fairness);

  std::size_t applied = 0;
  std::string refused;
  for (const std::string& text : stored.decisions) {
    if (restored.game().over()) {
      refused = "a decision after the game was over";
      break;
    }
    auto decision = stored_decision(text);
    if (const auto* error = std::get_if<std::string>(&decision)) {
      refused = *error;
      break;
    }
    if (auto refusal = restored.apply(std::get<engine::Decision>(decision))) {
      refused = refusal->message;
      break;
    }
    ++applied;
  }
  if (!restored.game().over()) {
    // Only a finished game's seats may have been freed since (a leave, a
    // kick, a bot removed): a game in play keeps every seat filled.
    for (int i = 0; i < room.seats.size(); ++i) {
      if (room.seats[i].empty()) return game + "is in play but seat " + std::to_string(i) + " is empty";
    }
  }
  if (applied < stored.decisions.size()) {
    spdlog::warn("room {}: game {}: stored decision {} was refused on replay ({}); cut back to {} decisions", room.code,
                 stored.game_id, applied, refused, applied);
    store.truncate_decisions(stored.game_id, static_cast<std::int64_t>(applied));
  }
  if (restored.game().over()) {
    restored.drop_bots();
    room.finish_missing = !stored.finished;
  }
  return std::nullopt;
}

}  // namespace

std::optional<FinishedGame> finished_game(const StoredGame& stored) {
  if (stored.transcript) return std::nullopt;
  const std::string game = "game " + stored.game_id + ": ";
  auto read = protocol::setup_from_record(stored.setup);
  if (const auto* error = std::get_if<std::string>(&read)) throw StoreError(game + *error);
  const auto& setup = std::get<protocol::GameSetup>(read);
  engine::Transcript transcript = setup.deal;
  for (const std::string& text : stored.decisions) {
    auto decision = stored_decision(text);
    if (const auto* error = std::get_if<std::string>(&decision)) throw StoreError(game + *error);
    transcript.actions.push_back(std::get<engine::Decision>(decision));
  }
  auto replayed = engine::replay(transcript);
  if (const auto* error = std::get_if<std::string>(&replayed)) throw StoreError(game + *error);
  const engine::Game& played = std::get<engine::Game>(replayed);
  if (!played.over()) throw StoreError(game + "its stored decisions do not finish it");
  std::vector<protocol::Player> players;
  if (setup.players) {
    players = *setup.players;
  } else {
    for (int i = 0; i < transcript.players; ++i) players.push_back({"Seat " + std::to_string(i), std::nullopt});
  }
  return FinishedGame{static_cast<int>(stored.game), stored.game_id, engine::make_transcript(played),
                      std::move(players), setup.fairness};
}

std::string finished_transcript(const StoredGame& stored) {
  if (stored.transcript) return *stored.transcript;
  const auto played = finished_game(stored);
  return protocol::transcript_document(played->transcript, played->players, played->fairness);
}

bool event_round_over(Store& store, const std::string& event, int round) {
  auto stored = store.load_open_event(event);
  if (!stored) stored = store.load_closed_event(event);
  if (!stored) return false;
  const std::vector<StoredEventTable>* tables = nullptr;
  if (stored->round == round) tables = &stored->tables;
  for (const StoredEventRound& earlier : stored->earlier_rounds) {
    if (earlier.round == round) tables = &earlier.tables;
  }
  if (!tables || tables->empty()) return false;
  return std::ranges::all_of(*tables, [](const StoredEventTable& table) { return !table.game_id.empty(); });
}

std::variant<RestoredRoom, std::string> restore_room(const StoredRoom& stored, Store& store) {
  auto settings = protocol::settings_from_record(stored.settings);
  if (const auto* error = std::get_if<std::string>(&settings)) return *error;
  auto& read = std::get<protocol::StoredSettings>(settings);
  RestoredRoom room;
  room.code = stored.room;
  room.settings = std::move(read.settings);
  room.v = stored.v;
  room.seats = SeatTable(room.settings.seats);
  for (const protocol::RemovedPlayer& player : read.removed) {
    std::optional<TokenHash> token;
    if (!player.token_hash.empty() && !(token = hash_from_bytes(player.token_hash))) {
      return "a removed player's token hash of the wrong size";
    }
    if (player.seat < 0 || player.seat >= room.seats.size()) return "a removed player in no seat at this table";
    room.seats.restore_kick(player.name, player.seat, token);
  }
  for (const StoredSeat& row : stored.seats) {
    if (auto problem = restore_seat(room.seats, row)) return "seat " + std::to_string(row.seat) + ": " + *problem;
  }
  if (stored.game) {
    if (auto problem = restore_game(room, *stored.game, store)) return *problem;
    if (room.game->game().over()) {
      room.last_finished = room.game->finished();
    } else if (stored.game->game > 1) {
      // Game 1 is over and game 2 in play, say: game 1's transcript is still served.
      if (const auto id = store.latest_finished_game(stored.room)) {
        if (const auto previous = store.finished_game(*id)) room.last_finished = finished_game(*previous);
      }
    }
  }
  // A same-deal round's game: an open event tells its table again that the
  // round is over (Event::begin_after_restore), a closed one never does.
  if (room.last_finished) {
    const auto& kept = room.last_finished->fairness;
    room.deal_revealed =
        kept && kept->shared && kept->event && kept->round && event_round_over(store, *kept->event, *kept->round);
  }
  // A vote counts only after a game that is over.
  if (!room.game || !room.game->game().over()) room.seats.clear_votes();
  // Between games, the deal announced before the restart (a game in play
  // was dealt from it already: its seed is in the set-up).
  if (!stored.next_deal.empty() && (!room.game || room.game->game().over())) {
    auto kept = protocol::next_deal_from_record(stored.next_deal);
    if (const auto* error = std::get_if<std::string>(&kept)) return *error;
    auto next = NextDeal::restore(std::get<protocol::DealFairness>(kept), room.settings.seats);
    if (const auto* error = std::get_if<std::string>(&next)) return "next deal: " + *error;
    room.next_deal.emplace(std::get<NextDeal>(std::move(next)));
  }
  if (!stored.daily_note.empty()) {
    auto kept = protocol::daily_note_from_record(stored.daily_note);
    if (const auto* error = std::get_if<std::string>(&kept)) return *error;
    auto& note = std::get<protocol::DailyNoteRecord>(kept);
    const auto holder = hash_from_bytes(note.token_hash);
    if (!holder) return "daily note: a token hash of the wrong size";
    room.daily_note = DailyNote{note.seat, *holder, note.game, std::move(note.result)};
  }
  if (room.game && room.game->number() == 1 && room.game->fairness() && room.game->fairness()->day) {
    if (stored.daily_counted < 1) {
      room.daily_day = room.game->fairness()->day;
    } else if (!room.daily_note && room.game->game().over()) {
      // Counted, and the server stopped before the standing was kept.
      room.daily_day = room.game->fairness()->day;
      room.counted_sets = engine::view_of(room.game->game(), engine::Viewer::spectator()).seats.front().set_count;
    }
  }
  return room;
}

}  // namespace gofish::server
