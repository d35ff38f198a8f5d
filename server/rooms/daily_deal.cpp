#include "server/rooms/daily_deal.hpp"

#include <spdlog/spdlog.h>

#include <atomic>

#include "engine/rules.hpp"
#include "protocol/text.hpp"
#include "server/rooms/daily_seed.hpp"

namespace gofish::server {

namespace {

using protocol::ErrorCode;

constexpr int kSeats = 4;  // the player and three bots

void send(const Client& client, const protocol::ServerMessage& message) {
  client.send(make_shared_text(protocol::encode(message)));
}

protocol::RoomSettings daily_settings() {
  protocol::RoomSettings settings;
  settings.rules = *engine::preset("classic");
  settings.seats = kSeats;
  settings.spectators = true;
  settings.listed = false;
  settings.chat = protocol::ChatMode::kPhrases;
  return settings;
}

}  // namespace

DailyDeal::DailyDeal(const RoomServices& services, RoomDirectory& directory, Store* store)
    : services_(services), directory_(directory) {
  if (store == nullptr) own_store_ = std::make_unique<NullStore>();
  store_ = store != nullptr ? store : own_store_.get();
  thread_ = std::thread([this] { run(); });
}

DailyDeal::~DailyDeal() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool DailyDeal::queue(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= kMaxQueued) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void DailyDeal::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

void DailyDeal::play(const std::shared_ptr<Client>& client, protocol::PlayDaily request,
                     std::optional<protocol::RequestId> id) {
  const protocol::RoomSettings settings = daily_settings();
  std::variant<std::shared_ptr<Room>, protocol::Error> made;
  try {
    // Charged to the address as any room it makes.
    made = directory_.create_room(settings, client->address());
  } catch (const std::exception& error) {
    spdlog::error("connection {}: making today's deal's room failed: {}", client->id(), error.what());
    return send(*client, protocol::default_error(ErrorCode::kServerStoreUnavailable, std::move(id)));
  }
  if (auto* error = std::get_if<protocol::Error>(&made)) {
    error->id = std::move(id);
    return send(*client, *error);
  }
  auto room = std::get<std::shared_ptr<Room>>(std::move(made));
  client->set_room(room);

  // The deck is the one of the day the game is dealt; it counts for that day.
  const std::string date = utc_date(services_.timers->wall_ms());
  Room::TableSetup setup;
  setup.humans.push_back(std::move(request.name));
  setup.bots = protocol::BotLevel::kMedium;
  // Its commitment is read_daily's (daily_commitment); the seed is served
  // once the day is over.
  setup.shared_deal = Room::SharedDeal{daily_seed_bytes(*services_.hasher, date), date, std::nullopt, std::nullopt};
  setup.player = client;
  setup.player_request = std::move(id);
  watch(room, date);
  room->open_table(std::move(setup));
  spdlog::info("room {}: today's deal ({})", room->code(), date);
}

void DailyDeal::watch_restored(const std::shared_ptr<Room>& room, const std::string& day,
                               std::optional<int> counted_sets) {
  if (!counted_sets) {
    spdlog::info("room {}: today's deal ({}), restored: its game counts once it is over", room->code(), day);
    return watch(room, day);
  }
  spdlog::info("room {}: today's deal ({}), restored: counted, its standing not kept; told from the tally",
               room->code(), day);
  std::weak_ptr<Room> weak_room = room;
  if (!queue([this, day, sets = *counted_sets, code = room->code(), weak_room] {
        tell_counted(day, sets, code, weak_room);
      })) {
    spdlog::warn("room {}: today's deal ({}): its standing is not told: too many waiting for the store",
                 room->code(), day);
  }
}

// The report comes once the game's end is committed; only the first game's
// end counts (a rematch deals from the OS, like any room's), and the store
// counts it once (count_daily_game marks the room's game 1 in the same
// transaction), whatever restarts come between.
void DailyDeal::watch(const std::shared_ptr<Room>& room, const std::string& date) {
  auto counted = std::make_shared<std::atomic<bool>>(false);
  std::weak_ptr<Room> weak_room = room;
  room->watch(
      [weak = weak_from_this(), counted, date, code = room->code(), weak_room](protocol::EventTable table,
                                                                               std::vector<engine::CardSet> /*hands*/) {
        if (table.state != protocol::RoomState::kOver || table.seats.empty() || counted->exchange(true)) return;
        const int sets = table.seats.front().sets;
        if (auto held = weak_room.lock()) held->watch({}, false);  // nothing more to hear
        const auto self = weak.lock();
        if (!self) return;
        if (!self->queue(
                [deal = self.get(), date, sets, code, weak_room] { deal->count(date, sets, code, weak_room); })) {
          spdlog::warn("today's deal: a game of {} left out of the tally: too many waiting for the store", date);
        }
      },
      false);
}

void DailyDeal::count(const std::string& date, int sets, const std::string& code, std::weak_ptr<Room> room) {
  std::optional<DailyTally> tally;
  try {
    tally = store_->count_daily_game(date, sets, code, 1);
  } catch (const std::exception& error) {
    spdlog::error("today's deal: a game of {} left out of the tally: {}", date, error.what());
    return;
  }
  if (!tally) {
    spdlog::info("room {}: today's deal ({}): its game was counted already", code, date);
    return;
  }
  tell(date, sets, *tally, room);
}

void DailyDeal::tell_counted(const std::string& date, int sets, const std::string& code, std::weak_ptr<Room> room) {
  try {
    tell(date, sets, store_->daily_tally(date), room);
  } catch (const std::exception& error) {
    spdlog::error("room {}: today's deal ({}): reading the tally for its standing failed: {}", code, date,
                  error.what());
  }
}

// Counted and committed: now the player may hear it, if still there, and
// again whenever they resume the seat with its token (a reload).
void DailyDeal::tell(const std::string& date, int sets, const DailyTally& tally, const std::weak_ptr<Room>& room) {
  const auto held = room.lock();
  if (!held) return;
  const DailyStanding standing = daily_standing(tally, sets);
  held->tell_daily_result(0, protocol::DailyResult{date, sets, standing.players, standing.percentile, standing.best});
}

void DailyDeal::read(const std::shared_ptr<Client>& client, std::optional<protocol::RequestId> id,
                     std::function<void()> answered) {
  const std::string date = utc_date(services_.timers->wall_ms());
  auto job = [this, client, date, id, answered]() mutable {
    try {
      const DailyStanding standing = daily_standing(store_->daily_tally(date), 0);
      send(*client, protocol::DailySummary{std::move(id), date, standing.players, standing.best,
                                           daily_commitment(*services_.hasher, date)});
    } catch (const std::exception& error) {
      spdlog::error("today's deal: reading the tally of {} failed: {}", date, error.what());
      send(*client, protocol::default_error(ErrorCode::kServerStoreUnavailable, std::move(id)));
    }
    answered();
  };
  if (!queue(std::move(job))) {
    send(*client, protocol::default_error(ErrorCode::kServerFull, std::move(id)));
    answered();
  }
}

}  // namespace gofish::server
