// A room read back from the store (store.hpp) and rebuilt as it was: its
// settings, its seats and their tokens, and its latest game replayed decision
// by decision through the engine (each seat's bot fed the seat's events on
// the way, so bots pick up where they were). A stored decision the engine
// refuses is cut from the store, with everything after it, like a torn tail.
//
// Everything the server itself writes restores: a finished game keeps the
// players it was dealt to whoever holds the seats now. Only what it could
// not have written (unreadable JSON, a game in play with an empty seat, a
// set-up the engine refuses) gives a sentence, and the room is set aside.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "protocol/messages.hpp"
#include "server/rooms/next_deal.hpp"
#include "server/rooms/room_game.hpp"
#include "server/rooms/seat_table.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

// Today's deal's standing (Room::tell_daily_result), kept for the holder
// of its seat's token while game `game` is the room's last.
struct DailyNote {
  engine::Seat seat = 0;
  TokenHash holder;
  int game = 0;
  protocol::DailyResult result;
};

struct RestoredRoom {
  std::string code;
  protocol::RoomSettings settings;
  std::int64_t v = 0;  // the last version written
  SeatTable seats{2};
  std::optional<RoomGame> game;  // the latest game, in play or over
  // The most recent finished game, when the latest is in play: its
  // transcript is still served (read back through Store::latest_finished_game).
  std::optional<FinishedGame> last_finished;
  // A finished game whose closing record never made it to the store.
  bool finish_missing = false;
  // The next deal the room announced (no game in play), with the
  // contributions it acknowledged; none when the store kept none (a room
  // stored before it was kept), and the room draws one.
  std::optional<NextDeal> next_deal;
  // Today's deal: the standing the room kept for its player, and, when its
  // latest game is its first, dealt from a day's seed, that day if the game
  // is not yet counted (StoredRoom::daily_counted): it still counts once it
  // ends (DailyDeal::watch_restored). Or counted with no standing kept (the
  // server stopped between the two): that day too, and the sets its player
  // made, to tell the standing from the day's tally.
  std::optional<DailyNote> daily_note;
  std::optional<std::string> daily_day;
  std::optional<int> counted_sets;
  // The most recent finished game was dealt from a class event's same-deal
  // round that is over at every table (event_round_over): its transcript is
  // served with the seed (transcript_hold).
  bool deal_revealed = false;
};

std::variant<RestoredRoom, std::string> restore_room(const StoredRoom& stored, Store& store);

// Whether every table of `round` of class event `event` has finished its
// game, as the store says: the event writes each table's game id there
// once its game is over (record::EventTableSaved), so this answer holds on
// any node and after a restart. An event or a round the store does not
// have is not over: its transcripts stay held.
bool event_round_over(Store& store, const std::string& event, int round);

// The transcript (docs/TRANSCRIPT.md, with `seats`) of a finished game read
// back from the store: its set-up and decisions played again through the
// engine, or the document an older server stored. Throws StoreError, naming
// the game and what is wrong, when they do not make a finished game.
std::string finished_transcript(const StoredGame& stored);
// The same game played again, as a room serves it; nothing for a game an
// older server stored only as its transcript. Throws as finished_transcript.
std::optional<FinishedGame> finished_game(const StoredGame& stored);

}  // namespace gofish::server
