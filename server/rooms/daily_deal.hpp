// Today's deal (protocol/README.md, "Today's deal"): anyone may play the
// day's deal against three medium bots and hear how their game compares
// with everyone else's that day, and nothing personal is kept.
//
// - play_daily makes an ordinary room (charged to the address as
//   create_room is, never listed), seats the player in seat 0 and three
//   medium bots, and deals at once from the day's seed (daily_seed.hpp)
//   through Room::open_table; the player is answered as a room's creator is.
// - The room's first game, once over and committed (Room::watch), adds the
//   player's sets to the day's tally in the store (Store::count_daily_game:
//   sets and a count, no name), and only once that has committed is the
//   player's connection, if it is still in the room, sent `daily_result`;
//   the room keeps that message for the seat's token while the game is its
//   last, stored with the room before it is sent (record::DailyNoteSaved),
//   and sends it again when the player resumes the seat (a reload), after
//   a restart too. A rematch in that room is an ordinary game from a fresh
//   deck and is not counted, nor is a game whose count the store refused.
// - Counted once: the count marks the room's game counted in the same
//   transaction (rooms.daily_counted), and a game marked already is not
//   counted again. A room restored from the store (a restart, or another
//   node taking it over) whose first game was dealt a day's deal and is not
//   marked is watched again (watch_restored), so a game the server stopped
//   during counts when it ends. A crash between the count and the note's
//   commit errs towards silence: the game is counted, but a reload after
//   the restart does not hear its standing; it is never counted twice.
// - read_daily answers how many games the day has counted and the best.
//
// The store is read and written on a thread of the deal's own, so no room
// strand or I/O thread waits for it; its queue is bounded, and a read_daily
// over it is refused (server/busy), a count over it dropped with a warning.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "protocol/messages.hpp"
#include "server/rooms/client.hpp"
#include "server/rooms/room.hpp"
#include "server/rooms/room_directory.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

// Held by a shared_ptr: a room's report may come after the handler is gone.
class DailyDeal : public std::enable_shared_from_this<DailyDeal> {
 public:
  // `store` (outlives the deal) keeps the tallies; null keeps them in
  // memory, for this process only.
  DailyDeal(const RoomServices& services, RoomDirectory& directory, Store* store);
  // Does the jobs queued, then stops its thread.
  ~DailyDeal();
  DailyDeal(const DailyDeal&) = delete;
  DailyDeal& operator=(const DailyDeal&) = delete;

  // The caller has checked that the server takes new rooms (not shutting
  // down, the store working) and that the client is in no room.
  void play(const std::shared_ptr<Client>& client, protocol::PlayDaily request, std::optional<protocol::RequestId> id);
  // Answers read_daily from the deal's thread, then calls `answered` there
  // (the handler holds the client's later messages until then, so replies
  // keep the order of their requests).
  void read(const std::shared_ptr<Client>& client, std::optional<protocol::RequestId> id,
            std::function<void()> answered);
  // A room rebuilt from the store whose first game was dealt `day`'s deal
  // and is not counted yet (Registry::on_daily_restored): watched as play
  // watches a new one, so its end counts once. With `counted_sets`, the
  // game was counted and the server stopped before its player's standing
  // was kept: the standing is told from the day's tally as it is now (the
  // game in it), and kept with the room.
  void watch_restored(const std::shared_ptr<Room>& room, const std::string& day, std::optional<int> counted_sets);

  // Jobs waiting for the store at most; more are refused.
  static constexpr std::size_t kMaxQueued = 256;

 private:
  // Runs `job` on the deal's thread; false when the queue is full.
  bool queue(std::function<void()> job);
  void run();
  // Counts the room's first game once it is over, then tells its player.
  void watch(const std::shared_ptr<Room>& room, const std::string& date);
  void count(const std::string& date, int sets, const std::string& code, std::weak_ptr<Room> room);
  // Tells the room's player (and keeps with the room) the standing of
  // `sets` in `date`'s tally, read now (the game counted already).
  void tell_counted(const std::string& date, int sets, const std::string& code, std::weak_ptr<Room> room);
  static void tell(const std::string& date, int sets, const DailyTally& tally, const std::weak_ptr<Room>& room);

  const RoomServices services_;
  RoomDirectory& directory_;
  std::unique_ptr<Store> own_store_;  // when none is given
  Store* store_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gofish::server
