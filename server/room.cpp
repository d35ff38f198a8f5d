// The room: everything here runs on the room's strand (see room.hpp).
//
// Durability seam: a room is rebuilt from its code, settings, seats and, for
// the game in play, the deal (DealSetup) and the game's decisions; every other
// member below (the log, the bots' memories, the timers) follows from those or
// may start afresh.
#include "server/room.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <vector>

#include "engine/bot.hpp"
#include "engine/game.hpp"
#include "engine/overloaded.hpp"
#include "engine/random.hpp"
#include "engine/setup.hpp"
#include "engine/transcript.hpp"
#include "engine/view.hpp"
#include "protocol/rules_json.hpp"
#include "protocol/text.hpp"
#include "server/registry.hpp"
#include "server/store.hpp"
#include "server/token_bucket.hpp"

namespace gofish::server {

namespace {

namespace net = boost::asio;
using protocol::ErrorCode;
using protocol::RequestId;
using Strand = net::strand<net::io_context::executor_type>;
using Id = std::optional<RequestId>;

// A bot that plays for a human (disconnected, timed out, left or kicked)
// plays at this level: a fair stand-in, neither a gift nor a punishment.
constexpr protocol::BotLevel kTakeoverLevel = protocol::BotLevel::kMedium;

protocol::RoomState wire_state(RoomState state) {
  switch (state) {
    case RoomState::waiting: return protocol::RoomState::kWaiting;
    case RoomState::playing: return protocol::RoomState::kPlaying;
    case RoomState::over: return protocol::RoomState::kOver;
  }
  return protocol::RoomState::kWaiting;
}

SharedText encode_shared(const protocol::ServerMessage& message) {
  return make_shared_text(protocol::encode(message));
}

// The settings a room writes in write_settings_record, read back.
std::variant<protocol::RoomSettings, std::string> settings_from_json(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("rules")) return "unreadable settings " + text;
  auto rules = protocol::rules_from_json(json["rules"]);
  if (const auto* error = std::get_if<engine::ConfigError>(&rules)) return "settings: " + error->message;
  protocol::RoomSettings settings;
  settings.rules = std::get<engine::Rules>(std::move(rules));
  try {
    settings.seats = json.at("seats").get<int>();
    settings.turn_timer_seconds = json.at("turn_timer_seconds").get<int>();
    settings.spectators = json.at("spectators").get<bool>();
    settings.listed = json.at("listed").get<bool>();
    const int chat = json.at("chat").get<int>();
    if (chat < static_cast<int>(protocol::ChatMode::kFree) || chat > static_cast<int>(protocol::ChatMode::kOff)) {
      return "unknown chat mode in " + text;
    }
    settings.chat = static_cast<protocol::ChatMode>(chat);
  } catch (const nlohmann::json::exception&) {
    return "unreadable settings " + text;
  }
  if (settings.seats < 2 || settings.seats > 6 || settings.turn_timer_seconds < 0) return "settings out of range " + text;
  return settings;
}

struct SeatSlot {
  protocol::Occupant occupant = protocol::Occupant::kEmpty;
  std::string name;
  protocol::BotLevel level = kTakeoverLevel;  // a bot's level; for a human, the stand-in's
  std::optional<TokenHash> token;             // a human who still owns the seat
  std::shared_ptr<Client> client;             // the owner's live connection
  std::optional<TokenBucket> chat;            // per connection, made on attach
  // A bot plays for this human: kDisconnected until the owner resumes, kLeft
  // or kKicked for the rest of the game. (kTimeout is one move, not a state.)
  std::optional<protocol::TakeoverReason> takeover;
  bool kicked = false;
  std::uint64_t grace_generation = 0;

  bool human() const { return occupant == protocol::Occupant::kHuman; }
  bool bot() const { return occupant == protocol::Occupant::kBot; }
  bool empty() const { return occupant == protocol::Occupant::kEmpty; }
};

struct Spectator {
  std::shared_ptr<Client> client;
  std::string name;
  TokenBucket chat;
};

struct Logged {
  std::int64_t v = 0;
  protocol::RoomEvent event;  // engine events unfiltered: re-filtered per viewer on replay
};

// Who a client is in this room.
struct Member {
  std::optional<engine::Seat> seat;  // empty for a spectator
  std::size_t spectator = 0;
};

class RoomImpl final : public Room, public std::enable_shared_from_this<RoomImpl> {
 public:
  RoomImpl(const RoomServices& services, std::weak_ptr<Registry> registry, std::string code,
           protocol::RoomSettings settings)
      : services_(services),
        limits_(services_.limits),
        registry_(std::move(registry)),
        code_(std::move(code)),
        settings_(std::move(settings)),
        strand_(net::make_strand(services.io)),
        seats_(static_cast<std::size_t>(settings_.seats)),
        bot_timer_(strand_),
        turn_timer_(strand_),
        idle_timer_(strand_),
        rng_(engine::os_seed()) {
    for (int i = 0; i < settings_.seats; ++i) grace_timers_.emplace_back(strand_);
    services_.metrics->rooms_changed(state_, +1);
  }

  const std::string& code() const override { return code_; }

  void create(std::shared_ptr<Client> client, protocol::CreateRoom request, Id id) override {
    net::post(strand_, [self = shared_from_this(), client = std::move(client), request = std::move(request),
                        id = std::move(id)]() mutable { self->do_create(client, std::move(request), std::move(id)); });
  }

  void join(std::shared_ptr<Client> client, protocol::Join request, Id id) override {
    net::post(strand_, [self = shared_from_this(), client = std::move(client), request = std::move(request),
                        id = std::move(id)]() mutable { self->do_join(client, std::move(request), std::move(id)); });
  }

  void resume(std::shared_ptr<Client> client, std::string token, TokenHash hash, std::optional<std::int64_t> last_v,
              Id id) override {
    net::post(strand_, [self = shared_from_this(), client = std::move(client), token = std::move(token), hash, last_v,
                        id = std::move(id)]() mutable { self->do_resume(client, token, hash, last_v, std::move(id)); });
  }

  void handle(std::shared_ptr<Client> client, protocol::ClientMessage message, Clock::time_point arrived) override {
    net::post(strand_, [self = shared_from_this(), client = std::move(client), message = std::move(message),
                        arrived]() mutable { self->do_handle(client, std::move(message), arrived); });
  }

  void disconnect(std::shared_ptr<Client> client) override {
    net::post(strand_, [self = shared_from_this(), client = std::move(client)] { self->do_disconnect(client); });
  }

  std::optional<protocol::LobbyRoom> lobby_entry() const override {
    std::lock_guard lock(lobby_mutex_);
    return lobby_;
  }

  // ------------------------------------------------------------ restore

  // Rebuilds the room from the store (room.hpp, Room::restore). Runs before
  // the room is shared with anything, so off the strand.
  std::optional<std::string> rebuild(const StoredRoom& stored, Store& store) {
    v_ = stored.v;
    for (const StoredSeat& row : stored.seats) {
      if (auto problem = rebuild_seat(row)) return "seat " + std::to_string(row.seat) + ": " + *problem;
    }
    if (!stored.game) return std::nullopt;
    return rebuild_game(*stored.game, store);
  }

  // Registers the rebuilt room and its tokens, then (on the strand, once the
  // io_context runs) starts what the room waits for.
  bool adopt(Registry& registry) {
    if (!registry.adopt(shared_from_this())) return false;
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      if (seats_[i].human() && seats_[i].token) {
        registry.add_token(*seats_[i].token, shared_from_this(), static_cast<engine::Seat>(i));
      }
    }
    refresh_lobby();
    net::post(strand_, [self = shared_from_this()] { self->resume_after_restart(); });
    return true;
  }

 private:
  std::optional<std::string> rebuild_seat(const StoredSeat& row) {
    if (row.seat < 0 || row.seat >= settings_.seats) return "no such seat at this table";
    const auto state = nlohmann::json::parse(row.state, nullptr, false);
    if (!state.is_object() || !state.contains("occupant") || !state.contains("name") ||
        !state["name"].is_string()) {
      return "unreadable seat state " + row.state;
    }
    SeatSlot& seat = seats_[static_cast<std::size_t>(row.seat)];
    const std::string occupant = state["occupant"].is_string() ? state["occupant"].get<std::string>() : "";
    if (occupant != "human" && occupant != "bot") return "unknown occupant in " + row.state;
    seat.occupant = occupant == "human" ? protocol::Occupant::kHuman : protocol::Occupant::kBot;
    seat.name = state["name"].get<std::string>();
    if (state.contains("level")) {
      const auto level = state["level"].is_string() ? engine::parse_bot_level(state["level"].get<std::string>())
                                                     : std::nullopt;
      if (!level) return "unknown bot level in " + row.state;
      seat.level = *level;
    }
    if (state.value("host", false)) host_ = static_cast<engine::Seat>(row.seat);
    const std::string takeover = state.value("takeover", std::string());
    if (takeover == "left") seat.takeover = protocol::TakeoverReason::kLeft;
    if (takeover == "kicked") seat.takeover = protocol::TakeoverReason::kKicked;
    seat.kicked = state.value("kicked", false);
    if (seat.human() && !row.token_hash.empty()) {
      TokenHash hash;
      if (row.token_hash.size() != sizeof(hash.words)) return "a token hash of the wrong size";
      std::memcpy(hash.words.data(), row.token_hash.data(), sizeof(hash.words));
      seat.token = hash;
    }
    return std::nullopt;
  }

  std::optional<std::string> rebuild_game(const StoredGame& stored, Store& store) {
    const auto setup_json = nlohmann::json::parse(stored.setup, nullptr, false);
    auto setup = protocol::transcript_from_json(setup_json);
    if (const auto* error = std::get_if<std::string>(&setup)) return "game " + stored.game_id + ": " + *error;
    const engine::Transcript& deal = std::get<engine::Transcript>(setup);
    if (deal.players != settings_.seats) return "game " + stored.game_id + " has the wrong number of players";
    auto started = engine::Game::start(deal.rules, deal.players, deal.deck, deal.dealer, deal.first);
    if (const auto* error = std::get_if<engine::ConfigError>(&started)) {
      return "game " + stored.game_id + ": " + error->message;
    }
    for (const SeatSlot& seat : seats_) {
      if (seat.empty()) return "game " + stored.game_id + " has an empty seat";
    }
    game_.emplace(std::get<engine::Game>(std::move(started)));
    deal_ = engine::DealSetup{};
    deal_.deck = deal.deck;
    deal_.dealer = deal.dealer;
    deal_.first = deal.first;
    game_number_ = static_cast<int>(stored.game);
    game_id_ = stored.game_id;
    for (int i = 0; i < settings_.seats; ++i) {
      const SeatSlot& seat = seats_[static_cast<std::size_t>(i)];
      bots_.push_back(engine::make_bot(seat.level, settings_.rules, settings_.seats, i));
      game_players_.push_back(protocol::Player{seat.name, seat.bot() ? std::optional(seat.level) : std::nullopt});
    }
    // The same events the game produced the first time, fed to the bots,
    // so each bot remembers what its seat saw.
    const auto replay_events = [&] {
      for (const engine::Event& event : game_->last_events()) {
        if (const auto* over = std::get_if<engine::GameOver>(&event)) result_ = *over;
        feed_bots(event);
      }
    };
    replay_events();
    std::size_t applied = 0;
    std::string refused;
    for (const std::string& text : stored.decisions) {
      if (game_->over()) {
        refused = "a decision after the game was over";
        break;
      }
      auto decision = protocol::decision_from_json(nlohmann::json::parse(text, nullptr, false));
      if (const auto* error = std::get_if<std::string>(&decision)) {
        refused = *error;
        break;
      }
      if (auto refusal = game_->apply(std::get<engine::Decision>(decision))) {
        refused = refusal->message;
        break;
      }
      replay_events();
      ++applied;
    }
    if (applied < stored.decisions.size()) {
      spdlog::warn("room {}: game {}: stored decision {} was refused on replay ({}); cut back to {} decisions", code_,
                   game_id_, applied, refused, applied);
      store.truncate_decisions(game_id_, static_cast<std::int64_t>(applied));
    }
    decision_seq_ = static_cast<std::int64_t>(applied);
    if (!game_->over()) {
      set_state(RoomState::playing);
      return std::nullopt;
    }
    set_state(RoomState::over);
    bots_.clear();
    last_transcript_ = protocol::TranscriptMessage{std::nullopt, code_, game_number_, engine::make_transcript(*game_),
                                                   game_players_, game_id_};
    if (!stored.transcript) {
      // Over, but the closing record is missing: write it now.
      write(record::GameFinished{game_id_, protocol::transcript_to_json(last_transcript_->transcript).dump(),
                                 now_ms()});
    }
    return std::nullopt;
  }

  // Nobody is connected after a restart: each seat's owner has a fresh grace
  // period to come back; the seat to act gets its bot or its turn timer.
  void resume_after_restart() {
    if (closed_) return;
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      if (seats_[i].human() && seats_[i].token) arm_grace(static_cast<engine::Seat>(i));
    }
    spdlog::info("room {} restored ({}, version {})", code_,
                 state_ == RoomState::waiting   ? "waiting"
                 : state_ == RoomState::playing ? "game " + std::to_string(game_number_) + " in play"
                                                : "game " + std::to_string(game_number_) + " over",
                 v_);
    after_seat_lost();  // closes a room no human holds a seat in; else schedules
  }

 public:

 private:
  // ------------------------------------------------------------ sending

  void send(const std::shared_ptr<Client>& client, const protocol::ServerMessage& message) const {
    out(client, encode_shared(message));
  }

  // Every message the room sends passes here. While records written before
  // it are not yet committed, it waits (in order) for their commit, so no
  // client sees an effect whose cause a crash could still lose.
  void out(const std::shared_ptr<Client>& client, SharedText text) const {
    const std::uint64_t needs = submitted_ + (records_pending() ? 1 : 0);
    // A closed room writes nothing more: what it says afterwards (a refusal
    // to a late request) waits for nothing, unless its closing is still to
    // be submitted.
    if (needs <= durable_ || (closed_ && !records_pending())) {
      client->send(std::move(text));
    } else {
      held_.push_back(Held{needs, client, std::move(text)});
    }
  }

  // ------------------------------------------------------------ durability

  bool records_pending() const { return !unsubmitted_.empty() || version_pending_; }

  void write(Record record) {
    if (!services_.writer) return;
    unsubmitted_.push_back(std::move(record));
    post_flush();
  }

  // An event is about to be sent with version v_: the store learns v_ in
  // the same submission as anything else this turn writes, and the event
  // waits for it like any other effect.
  void write_version() {
    if (!services_.writer || closed_) return;
    version_pending_ = true;
    post_flush();
  }

  void post_flush() {
    if (flush_posted_) return;
    // Everything this room writes until the strand gets back here goes in
    // one submission; the writer groups submissions of all rooms further.
    flush_posted_ = true;
    net::post(strand_, [self = shared_from_this()] { self->submit_records(); });
  }

  void submit_records() {
    flush_posted_ = false;
    if (version_pending_) {
      unsubmitted_.push_back(record::RoomVersion{code_, v_});
      version_pending_ = false;
    }
    if (unsubmitted_.empty()) return;
    const std::uint64_t number = ++submitted_;
    std::vector<Record> records;
    records.swap(unsubmitted_);
    if (closed_) {
      // The room's last write (its closing): once the registry lets go, no
      // one holds the room, so the messages it still holds (the `ok` for the
      // leave that closed it, the room_not_found sent to those still in it)
      // travel with the write and go out once it is committed. Commits and
      // their callbacks run in submission order, so they follow everything
      // the room sent before.
      auto orphans = std::make_shared<std::deque<Held>>(std::move(held_));
      held_.clear();
      services_.writer->submit(std::move(records), [orphans](bool) {
        for (Held& held : *orphans) held.client->send(held.text);
      });
      return;
    }
    // Weak: neither the writer nor the io_context's queue may keep a room
    // alive (its timers must die before the io_context). A room already
    // released has nobody left to send to.
    services_.writer->submit(std::move(records), [weak = weak_from_this(), number](bool written) {
      if (auto self = weak.lock()) {
        net::post(self->strand_, [weak, number, written] {
          if (auto room = weak.lock()) room->on_committed(number, written);
        });
      }
    });
  }

  void on_committed(std::uint64_t number, bool written) {
    if (!written) {
      // The game has moved on in memory; holding its events back forever
      // would freeze the table, so they go out, and the log says so.
      spdlog::error("room {}: a write failed; what it recorded may not survive a restart", code_);
    }
    durable_ = std::max(durable_, number);
    while (!held_.empty() && held_.front().needs <= durable_) {
      held_.front().client->send(std::move(held_.front().text));
      held_.pop_front();
    }
  }

  std::string seat_state(const SeatSlot& seat, engine::Seat index) const {
    nlohmann::json state;
    state["occupant"] = seat.human() ? "human" : "bot";
    state["name"] = seat.name;
    if (seat.bot() || seat.takeover) state["level"] = std::string(engine::to_string(seat.level));
    state["host"] = index == host_;
    // Left or kicked during a game: a bot plays the seat to the end. (Away
    // is not kept: after a restart every seat is away and starts its grace.)
    if (seat.takeover == protocol::TakeoverReason::kLeft) state["takeover"] = "left";
    if (seat.takeover == protocol::TakeoverReason::kKicked) state["takeover"] = "kicked";
    if (seat.kicked) state["kicked"] = true;
    return state.dump();
  }

  // The seats as they are now: a row per taken seat, none for an empty one.
  void write_seats() {
    if (!services_.writer || closed_) return;
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      const SeatSlot& seat = seats_[i];
      const int index = static_cast<int>(i);
      if (seat.empty()) {
        write(record::SeatFreed{code_, index});
        continue;
      }
      std::string hash;
      if (seat.token) {
        hash.resize(sizeof(seat.token->words));
        std::memcpy(hash.data(), seat.token->words.data(), hash.size());
      }
      write(record::SeatTaken{code_, index, seat_state(seat, static_cast<engine::Seat>(i)), std::move(hash)});
    }
  }

  void write_settings_record() {
    if (!services_.writer) return;
    nlohmann::json settings;
    settings["rules"] = protocol::rules_to_json(settings_.rules);
    settings["seats"] = settings_.seats;
    settings["turn_timer_seconds"] = settings_.turn_timer_seconds;
    settings["spectators"] = settings_.spectators;
    settings["listed"] = settings_.listed;
    settings["chat"] = static_cast<int>(settings_.chat);
    write(record::RoomCreated{code_, settings.dump(), now_ms()});
  }

  void write_decision(const engine::Decision& decision) {
    if (!services_.writer) return;
    write(record::DecisionAccepted{game_id_, decision_seq_++, protocol::decision_to_json(decision).dump()});
  }

  static std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void reply_ok(const std::shared_ptr<Client>& client, Id id) const { send(client, protocol::Ok{std::move(id)}); }
  void reply_error(const std::shared_ptr<Client>& client, ErrorCode code, Id id) const {
    send(client, protocol::default_error(code, std::move(id)));
  }
  void reply_error(const std::shared_ptr<Client>& client, ErrorCode code, std::string message, Id id) const {
    send(client, protocol::make_error(code, std::move(message), std::move(id)));
  }
  // A refused create, join or resume: unless it is a member already, the
  // client is in no room.
  void refuse(const std::shared_ptr<Client>& client, ErrorCode code, Id id) {
    reply_error(client, code, std::move(id));
    if (!member_of(*client)) client->clear_room(this);
  }

  // Appends an event to the log and sends it to everyone in the room.
  void record(protocol::RoomEvent event) {
    ++v_;
    write_version();
    if (const auto* game_event = std::get_if<engine::Event>(&event)) {
      feed_bots(*game_event);
      broadcast_game(v_, *game_event);
    } else {
      broadcast(v_, event);
    }
    history_.push_back(Logged{v_, std::move(event)});
    while (history_.size() > limits_.room_history_events) history_.pop_front();
  }

  void broadcast(std::int64_t v, const protocol::RoomEvent& event) const {
    const SharedText text = encode_shared(protocol::EventMessage{v, event});
    for (const SeatSlot& seat : seats_) {
      if (seat.client) out(seat.client, text);
    }
    for (const Spectator& spectator : spectators_) out(spectator.client, text);
  }

  // An engine event: the public twin is encoded once for every spectator and
  // every seat that gets it; a seat that sees its private twin (event_for
  // gives another alternative of the variant: HandDealt, Drew) gets its own.
  void broadcast_game(std::int64_t v, const engine::Event& event) const {
    const engine::Event public_event = engine::event_for(event, engine::Viewer::spectator());
    SharedText public_text;
    const auto shared = [&] {
      if (!public_text) public_text = encode_shared(protocol::EventMessage{v, public_event});
      return public_text;
    };
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      const SeatSlot& seat = seats_[i];
      if (!seat.client) continue;
      engine::Event own = engine::event_for(event, engine::Viewer::of(static_cast<engine::Seat>(i)));
      if (own.index() == public_event.index()) {
        out(seat.client, shared());
      } else {
        out(seat.client, encode_shared(protocol::EventMessage{v, std::move(own)}));
      }
    }
    for (const Spectator& spectator : spectators_) out(spectator.client, shared());
  }

  protocol::EventMessage event_for_viewer(const Logged& logged, engine::Viewer viewer) const {
    if (const auto* game_event = std::get_if<engine::Event>(&logged.event)) {
      return protocol::EventMessage{logged.v, engine::event_for(*game_event, viewer)};
    }
    return protocol::EventMessage{logged.v, logged.event};
  }

  // Every seat's bot (the player for bot seats, the stand-in for humans)
  // sees the seat's own event stream from the start of the game.
  void feed_bots(const engine::Event& event) {
    for (std::size_t i = 0; i < bots_.size(); ++i) {
      bots_[i]->observe(engine::event_for(event, engine::Viewer::of(static_cast<engine::Seat>(i))));
    }
  }

  protocol::RoomSnapshot snapshot(std::optional<engine::Seat> you, Id id = std::nullopt) const {
    protocol::RoomSnapshot m;
    m.id = std::move(id);
    m.v = v_;
    m.code = code_;
    m.settings = settings_;
    m.host = host_;
    for (const SeatSlot& seat : seats_) {
      protocol::SeatInfo info;
      info.occupant = seat.occupant;
      info.name = seat.name;
      if (seat.bot()) info.bot = seat.level;
      if (seat.human()) {
        info.connected = seat.client != nullptr;
        info.bot_playing = seat.takeover.has_value();
        if (info.bot_playing) info.bot = seat.level;
        info.kicked = seat.kicked;
      }
      m.seats.push_back(std::move(info));
    }
    m.spectators = static_cast<int>(spectators_.size());
    m.state = wire_state(state_);
    m.you = you;
    m.game_number = game_number_;
    if (game_) m.game = engine::view_of(*game_, you ? engine::Viewer::of(*you) : engine::Viewer::spectator());
    if (state_ == RoomState::over) m.result = result_;
    m.timer = turn_info_;
    return m;
  }

  // ------------------------------------------------------------ members

  std::optional<Member> member_of(const Client& client) const {
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      if (seats_[i].client && seats_[i].client->id() == client.id()) return Member{static_cast<engine::Seat>(i), 0};
    }
    for (std::size_t i = 0; i < spectators_.size(); ++i) {
      if (spectators_[i].client->id() == client.id()) return Member{std::nullopt, i};
    }
    return std::nullopt;
  }

  const std::string& name_of(const Member& member) const {
    return member.seat ? seats_[static_cast<std::size_t>(*member.seat)].name : spectators_[member.spectator].name;
  }

  bool name_taken(std::string_view name) const {
    for (const SeatSlot& seat : seats_) {
      if (!seat.empty() && protocol::same_name(seat.name, name)) return true;
    }
    for (const Spectator& spectator : spectators_) {
      if (protocol::same_name(spectator.name, name)) return true;
    }
    return false;
  }

  // "Hard bot", then "Hard bot 2", ... (protocol/README.md).
  std::string bot_name(protocol::BotLevel level) const {
    std::string base(engine::to_string(level));
    base[0] = static_cast<char>(base[0] - 'a' + 'A');
    base += " bot";
    if (!name_taken(base)) return base;
    for (int n = 2;; ++n) {
      std::string name = base + " " + std::to_string(n);
      if (!name_taken(name)) return name;
    }
  }

  std::optional<engine::Seat> first_empty_seat() const {
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      if (seats_[i].empty()) return static_cast<engine::Seat>(i);
    }
    return std::nullopt;
  }

  bool all_seats_filled() const { return !first_empty_seat().has_value(); }

  TokenBucket chat_bucket() const {
    return TokenBucket(limits_.chat_rate_per_second, limits_.chat_burst, TokenBucket::Clock::now());
  }

  // Seats a human with a fresh token; returns the token (sent once, to them).
  std::string seat_human(engine::Seat index, const std::shared_ptr<Client>& client, std::string name) {
    SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
    std::string token = new_token();
    const TokenHash hash = services_.hasher->hash(token);
    const std::uint64_t generation = seat.grace_generation + 1;  // a pending grace timer finds nothing to do
    seat = SeatSlot{};
    seat.grace_generation = generation;
    seat.occupant = protocol::Occupant::kHuman;
    seat.name = std::move(name);
    seat.token = hash;
    seat.client = client;
    seat.chat = chat_bucket();
    if (auto registry = registry_.lock()) registry->add_token(hash, shared_from_this(), index);
    return token;
  }

  void revoke_token(SeatSlot& seat) {
    if (!seat.token) return;
    if (auto registry = registry_.lock()) registry->remove_token(*seat.token);
    seat.token.reset();
  }

  void free_seat(engine::Seat index) {
    SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
    revoke_token(seat);
    const std::uint64_t generation = seat.grace_generation + 1;
    seat = SeatSlot{};
    seat.grace_generation = generation;  // a pending grace timer finds nothing to do
    grace_timers_[static_cast<std::size_t>(index)].cancel();
    rematch_votes_ = static_cast<std::uint8_t>(rematch_votes_ & ~(1U << index));
  }

  int connected_count() const {
    int count = static_cast<int>(spectators_.size());
    for (const SeatSlot& seat : seats_) count += seat.client ? 1 : 0;
    return count;
  }

  // ------------------------------------------------------------ requests

  void do_create(const std::shared_ptr<Client>& client, protocol::CreateRoom request, Id id) {
    if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
    write_settings_record();
    const std::string token = seat_human(0, client, std::move(request.name));
    for (const protocol::BotSpec& bot : request.bots) {
      if (bot.seat <= 0 || bot.seat >= settings_.seats) continue;  // the parser checked; belt and braces
      SeatSlot& seat = seats_[static_cast<std::size_t>(bot.seat)];
      seat.occupant = protocol::Occupant::kBot;
      seat.level = bot.level;
      seat.name = bot_name(bot.level);
    }
    host_ = 0;
    send(client, protocol::Created{std::move(id), code_, 0, token});
    send(client, snapshot(0));
    spdlog::info("room {} created ({} seats, {})", code_, settings_.seats, settings_.rules.preset);
    after_membership_change();
  }

  void do_join(const std::shared_ptr<Client>& client, protocol::Join request, Id id) {
    if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
    if (member_of(*client)) return reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
    if (request.as == protocol::JoinAs::kPlayer && kicked_connections_.contains(client->id())) {
      return refuse(client, ErrorCode::kRoomKicked, std::move(id));
    }
    if (name_taken(request.name)) return refuse(client, ErrorCode::kRoomNameTaken, std::move(id));
    if (request.as == protocol::JoinAs::kSpectator) {
      if (!settings_.spectators) return refuse(client, ErrorCode::kRoomSpectatorsOff, std::move(id));
      if (spectators_.size() >= limits_.max_spectators_per_room) {
        reply_error(client, ErrorCode::kRoomFull, "This room has as many spectators as it can take.", std::move(id));
        return client->clear_room(this);
      }
      record(protocol::SpectatorsChanged{static_cast<int>(spectators_.size()) + 1});
      spectators_.push_back(Spectator{client, std::move(request.name), chat_bucket()});
      send(client, protocol::Joined{std::move(id), code_, protocol::JoinAs::kSpectator, std::nullopt, {}, false});
      send(client, snapshot(std::nullopt));
      after_membership_change();
      return;
    }
    if (state_ == RoomState::playing) {
      reply_error(client, ErrorCode::kRoomAlreadyStarted,
                  "The game has already started; join as a spectator, or wait for the next one.", std::move(id));
      return client->clear_room(this);
    }
    const auto seat = first_empty_seat();
    if (!seat) return refuse(client, ErrorCode::kRoomFull, std::move(id));
    record(protocol::SeatJoined{*seat, request.name});
    const std::string token = seat_human(*seat, client, std::move(request.name));
    send(client, protocol::Joined{std::move(id), code_, protocol::JoinAs::kPlayer, *seat, token, false});
    send(client, snapshot(*seat));
    reassign_host();
    after_membership_change();
  }

  void do_resume(const std::shared_ptr<Client>& client, const std::string& token, const TokenHash& hash,
                 std::optional<std::int64_t> last_v, Id id) {
    std::optional<engine::Seat> found;
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      if (seats_[i].human() && seats_[i].token && *seats_[i].token == hash) found = static_cast<engine::Seat>(i);
    }
    if (closed_ || !found) return refuse(client, ErrorCode::kRoomBadToken, std::move(id));
    if (const auto member = member_of(*client); member && member->seat != found) {
      return reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id));
    }
    const engine::Seat index = *found;
    SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
    const bool was_away = !seat.client;
    if (seat.client && seat.client != client) {
      // The same seat on a new connection (a page reload, a network switch):
      // the newest wins, the old one is told why and closed.
      const auto old = std::move(seat.client);
      seat.client.reset();
      old->clear_room(this);
      const auto reason = protocol::CloseReason::kReplaced;
      send(old, protocol::Closing{reason, std::string(protocol::close_message(reason))});
      old->close(CloseReason{protocol::close_code(reason), std::string(protocol::close_reason_name(reason))});
    }
    if (was_away) {
      ++seat.grace_generation;
      grace_timers_[static_cast<std::size_t>(index)].cancel();
      if (seat.takeover == protocol::TakeoverReason::kDisconnected) seat.takeover.reset();
    }
    if (seat.client != client) seat.chat = chat_bucket();
    seat.client = client;
    send(client, protocol::Joined{std::move(id), code_, protocol::JoinAs::kPlayer, index, token, true});
    const bool covered = last_v && *last_v <= v_ &&
                         (*last_v == v_ || (!history_.empty() && history_.front().v <= *last_v + 1));
    if (covered) {
      const engine::Viewer viewer = engine::Viewer::of(index);
      for (const Logged& logged : history_) {
        if (logged.v > *last_v) send(client, event_for_viewer(logged, viewer));
      }
    } else {
      send(client, snapshot(index));
    }
    // Then everyone, the owner included, learns the seat is back.
    if (was_away) record(protocol::ConnectionChanged{index, true});
    after_membership_change();
    schedule();
  }

  void do_disconnect(const std::shared_ptr<Client>& client) {
    const auto member = member_of(*client);
    if (!member) return;
    if (member->seat) {
      const engine::Seat index = *member->seat;
      SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
      seat.client.reset();
      seat.chat.reset();
      record(protocol::ConnectionChanged{index, false});
      arm_grace(index);
    } else {
      spectators_.erase(spectators_.begin() + static_cast<std::ptrdiff_t>(member->spectator));
      record(protocol::SpectatorsChanged{static_cast<int>(spectators_.size())});
    }
    after_membership_change();
    check_rematch();
  }

  void do_handle(const std::shared_ptr<Client>& client, protocol::ClientMessage message, Clock::time_point arrived) {
    Id& id = message.id;
    if (closed_) return refuse(client, ErrorCode::kRoomNotFound, std::move(id));
    const auto member = member_of(*client);
    if (!member) return refuse(client, ErrorCode::kRoomNotInRoom, std::move(id));
    const bool seat_action = std::visit(Overloaded{
                                            [](const protocol::Leave&) { return false; },
                                            [](const protocol::Chat&) { return false; },
                                            [](const protocol::GetTranscript&) { return false; },
                                            [](const auto&) { return true; },
                                        },
                                        message.body);
    if (seat_action && !member->seat) return reply_error(client, ErrorCode::kRoomSpectator, std::move(id));
    if (auto decision = protocol::decision_of(message.body, member->seat.value_or(0))) {
      return do_decision(client, *decision, std::move(id), arrived);
    }
    std::visit(Overloaded{
                   [&](const protocol::Leave&) { do_leave(client, *member, std::move(id)); },
                   [&](const protocol::AddBot& m) { do_add_bot(client, *member, m, std::move(id)); },
                   [&](const protocol::RemoveBot& m) { do_remove_bot(client, *member, m.seat, std::move(id)); },
                   [&](const protocol::Kick& m) { do_kick(client, *member, m.seat, std::move(id)); },
                   [&](const protocol::Start&) { do_start(client, *member, std::move(id)); },
                   [&](const protocol::Rematch&) { do_rematch(client, *member, std::move(id)); },
                   [&](const protocol::Chat& m) { do_chat(client, *member, m, std::move(id)); },
                   [&](const protocol::GetTranscript&) { do_transcript(client, std::move(id)); },
                   // The handler answers these itself, or refuses a second room.
                   [&](const auto&) { reply_error(client, ErrorCode::kRoomAlreadyInRoom, std::move(id)); },
               },
               message.body);
  }

  bool require_host(const std::shared_ptr<Client>& client, const Member& member, Id& id) const {
    if (member.seat && *member.seat == host_) return true;
    reply_error(client, ErrorCode::kRoomNotHost, std::move(id));
    return false;
  }

  void do_leave(const std::shared_ptr<Client>& client, const Member& member, Id id) {
    reply_ok(client, std::move(id));
    client->clear_room(this);
    if (!member.seat) {
      spectators_.erase(spectators_.begin() + static_cast<std::ptrdiff_t>(member.spectator));
      record(protocol::SpectatorsChanged{static_cast<int>(spectators_.size())});
      after_membership_change();
      return;
    }
    const engine::Seat index = *member.seat;
    SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
    seat.client.reset();
    record(protocol::SeatLeft{index, seat.name});
    if (state_ == RoomState::playing) {
      // The seat stays at the table, played by a bot for the rest of the game.
      revoke_token(seat);
      seat.takeover = protocol::TakeoverReason::kLeft;
      record(protocol::BotTakeover{index, protocol::TakeoverReason::kLeft, seat.level});
    } else {
      free_seat(index);
    }
    after_seat_lost();
  }

  void do_add_bot(const std::shared_ptr<Client>& client, const Member& member, const protocol::AddBot& request,
                  Id id) {
    if (!require_host(client, member, id)) return;
    if (state_ == RoomState::playing) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
    std::optional<engine::Seat> index = request.seat;
    if (index) {
      if (*index >= settings_.seats || !seats_[static_cast<std::size_t>(*index)].empty()) {
        return reply_error(client, ErrorCode::kRoomBadSeat, "A bot needs an empty seat at this table.", std::move(id));
      }
    } else {
      index = first_empty_seat();
      if (!index) return reply_error(client, ErrorCode::kRoomFull, std::move(id));
    }
    reply_ok(client, std::move(id));
    SeatSlot& seat = seats_[static_cast<std::size_t>(*index)];
    seat.name = bot_name(request.level);
    seat.occupant = protocol::Occupant::kBot;
    seat.level = request.level;
    record(protocol::BotAdded{*index, request.level, seat.name});
    after_membership_change();
    check_rematch();
  }

  void do_remove_bot(const std::shared_ptr<Client>& client, const Member& member, engine::Seat index, Id id) {
    if (!require_host(client, member, id)) return;
    if (state_ == RoomState::playing) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
    if (index >= settings_.seats || !seats_[static_cast<std::size_t>(index)].bot()) {
      return reply_error(client, ErrorCode::kRoomBadSeat, "There is no bot in that seat.", std::move(id));
    }
    reply_ok(client, std::move(id));
    free_seat(index);
    record(protocol::BotRemoved{index});
    after_membership_change();
  }

  void do_kick(const std::shared_ptr<Client>& client, const Member& member, engine::Seat index, Id id) {
    if (!require_host(client, member, id)) return;
    if (index >= settings_.seats || index == host_ || !seats_[static_cast<std::size_t>(index)].human() ||
        !seats_[static_cast<std::size_t>(index)].token) {
      return reply_error(client, ErrorCode::kRoomBadSeat, "There is no other player in that seat.", std::move(id));
    }
    reply_ok(client, std::move(id));
    SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
    record(protocol::Kicked{index, seat.name});  // the kicked player sees it too
    if (seat.client) {
      reply_error(seat.client, ErrorCode::kRoomKicked, std::nullopt);
      kicked_connections_.insert(seat.client->id());
      seat.client->clear_room(this);
      seat.client.reset();
    }
    if (state_ == RoomState::playing) {
      revoke_token(seat);
      seat.kicked = true;
      seat.takeover = protocol::TakeoverReason::kKicked;
      ++seat.grace_generation;
      record(protocol::BotTakeover{index, protocol::TakeoverReason::kKicked, seat.level});
    } else {
      free_seat(index);
    }
    after_seat_lost();
  }

  void do_start(const std::shared_ptr<Client>& client, const Member& member, Id id) {
    if (!require_host(client, member, id)) return;
    if (state_ == RoomState::playing) return reply_error(client, ErrorCode::kRoomAlreadyStarted, std::move(id));
    if (!all_seats_filled()) {
      return reply_error(client, ErrorCode::kRoomNotEnoughPlayers,
                         "Every seat needs a player or a bot before the game can start.", std::move(id));
    }
    reply_ok(client, std::move(id));
    start_game();
  }

  void do_rematch(const std::shared_ptr<Client>& client, const Member& member, Id id) {
    if (state_ != RoomState::over) return reply_error(client, ErrorCode::kRoomNotOver, std::move(id));
    reply_ok(client, std::move(id));
    rematch_votes_ = static_cast<std::uint8_t>(rematch_votes_ | (1U << *member.seat));
    record(rematch_vote(*member.seat));
    check_rematch();
  }

  protocol::RematchVote rematch_vote(engine::Seat seat) const {
    protocol::RematchVote vote{seat, {}};
    for (int i = 0; i < settings_.seats; ++i) {
      if ((rematch_votes_ >> i) & 1U) vote.ready.push_back(i);
    }
    return vote;
  }

  void do_chat(const std::shared_ptr<Client>& client, const Member& member, const protocol::Chat& chat, Id id) {
    if (settings_.chat == protocol::ChatMode::kOff) return reply_error(client, ErrorCode::kChatOff, std::move(id));
    if (settings_.chat == protocol::ChatMode::kPhrases && chat.phrase.empty()) {
      return reply_error(client, ErrorCode::kChatNotAPhrase, std::move(id));
    }
    TokenBucket& bucket = member.seat ? *seats_[static_cast<std::size_t>(*member.seat)].chat
                                      : spectators_[member.spectator].chat;
    if (!bucket.try_take(TokenBucket::Clock::now())) {
      return reply_error(client, ErrorCode::kChatRateLimited, std::move(id));
    }
    reply_ok(client, std::move(id));
    record(protocol::ChatPosted{member.seat, name_of(member), chat.text, chat.phrase});
  }

  // The most recent finished game of the room, to players and spectators
  // alike: it is only ever a finished game, whose hands are public by then.
  void do_transcript(const std::shared_ptr<Client>& client, Id id) const {
    if (!last_transcript_) return reply_error(client, ErrorCode::kRoomTranscriptUnavailable, std::move(id));
    protocol::TranscriptMessage message = *last_transcript_;
    message.id = std::move(id);
    send(client, message);
  }

  void do_decision(const std::shared_ptr<Client>& client, const engine::Decision& decision, Id id,
                   Clock::time_point arrived) {
    if (!game_) return reply_error(client, ErrorCode::kRoomNotStarted, std::move(id));
    if (auto refusal = game_->check(decision)) {
      const protocol::Error error = protocol::refusal_error(*refusal, std::move(id));
      services_.metrics->action_refused(protocol::error_code_name(error.code));
      spdlog::debug("room {}: refused {}: {}", code_, engine::to_string(decision), refusal->message);
      return send(client, error);
    }
    if (auto refusal = game_->apply(decision)) {  // cannot happen: check and apply share one test
      spdlog::error("room {}: a checked decision was refused: {}", code_, refusal->message);
      return;
    }
    write_decision(decision);
    reply_ok(client, std::move(id));
    services_.metrics->action_applied();
    after_decision();
    services_.metrics->observe_action_latency(Clock::now() - arrived);
  }

  // ------------------------------------------------------------ the game

  bool start_game() {
    const int players = settings_.seats;
    engine::Rng deal_rng(engine::os_seed());
    deal_ = engine::prepare_deal(settings_.rules, players, deal_rng);
    auto started = engine::Game::start(settings_.rules, players, deal_.deck, deal_.dealer, deal_.first);
    if (const auto* error = std::get_if<engine::ConfigError>(&started)) {
      spdlog::error("room {}: cannot start a game: {}", code_, error->message);
      return false;
    }
    game_.emplace(std::get<engine::Game>(std::move(started)));
    ++game_number_;
    if (services_.writer) {
      game_id_ = new_token();
      decision_seq_ = 0;
      write_seats();
      write(record::GameStarted{code_, game_number_, game_id_,
                                protocol::transcript_to_json(engine::make_transcript(*game_)).dump(), now_ms()});
    }
    rematch_votes_ = 0;
    result_.reset();
    set_state(RoomState::playing);
    services_.metrics->game_started();

    bots_.clear();
    game_players_.clear();
    for (int i = 0; i < players; ++i) {
      SeatSlot& seat = seats_[static_cast<std::size_t>(i)];
      bots_.push_back(engine::make_bot(seat.level, settings_.rules, players, i));
      game_players_.push_back(protocol::Player{seat.name, seat.bot() ? std::optional(seat.level) : std::nullopt});
    }
    // The log says who plays before the engine's deal events follow.
    record(protocol::NewGame{game_number_, game_players_});
    const std::vector<engine::Event> start_events = game_->last_events();
    for (const engine::Event& event : start_events) record_game_event(event);
    spdlog::info("room {}: game {} started", code_, game_number_);
    if (game_->over()) finish_game();
    schedule();
    refresh_lobby();
    return true;
  }

  void record_game_event(const engine::Event& event) {
    if (const auto* over = std::get_if<engine::GameOver>(&event)) result_ = *over;
    record(protocol::RoomEvent(event));
  }

  void after_decision() {
    const std::vector<engine::Event> events = game_->last_events();
    for (const engine::Event& event : events) record_game_event(event);
    if (game_->over()) finish_game();
    schedule();
  }

  void finish_game() {
    cancel_bot();
    cancel_turn_timer();
    set_state(RoomState::over);
    services_.metrics->game_finished();
    bots_.clear();
    last_transcript_ = protocol::TranscriptMessage{std::nullopt, code_, game_number_, engine::make_transcript(*game_),
                                                   game_players_, std::nullopt};
    if (services_.writer) {
      last_transcript_->game_id = game_id_;
      write(record::GameFinished{game_id_, protocol::transcript_to_json(last_transcript_->transcript).dump(), now_ms()});
    }
    spdlog::info("room {}: game {} over", code_, game_number_);
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      SeatSlot& seat = seats_[i];
      if (!seat.human() || !seat.takeover) continue;
      const auto index = static_cast<engine::Seat>(i);
      if (seat.takeover == protocol::TakeoverReason::kDisconnected) {
        // Away past the grace period: no bot is needed between games; the
        // seat waits one more grace period for its owner, then is freed.
        seat.takeover.reset();
        arm_grace(index);
      } else {
        // Left or kicked during the game: the seat is free again.
        const std::string name = seat.name;
        free_seat(index);
        record(protocol::SeatLeft{index, name});
      }
    }
    after_membership_change();
  }

  bool bot_controls(engine::Seat index) const {
    const SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
    return seat.bot() || (seat.human() && seat.takeover.has_value());
  }

  // Arms what the next decision waits for: a bot's move, or the turn timer
  // of a human seat. Keyed by the decision count, so an unrelated event (a
  // chat line, a reconnect) neither delays a bot nor restarts a timer.
  void schedule() {
    if (state_ != RoomState::playing || !game_ || game_->over()) {
      cancel_bot();
      cancel_turn_timer();
      return;
    }
    const std::size_t key = game_->decisions().size();
    const engine::Seat seat = game_->to_act();
    if (bot_controls(seat)) {
      cancel_turn_timer();
      if (bot_key_ != key) arm_bot(key);
      return;
    }
    cancel_bot();
    if (settings_.turn_timer_seconds > 0 && (turn_key_ != key || !turn_info_ || turn_info_->seat != seat)) {
      arm_turn_timer(seat, key);
    }
  }

  void arm_bot(std::size_t key) {
    bot_key_ = key;
    const std::uint64_t generation = ++bot_generation_;
    bot_timer_.expires_after(limits_.bot_delay);
    bot_timer_.async_wait([weak = weak_from_this(), generation](const boost::system::error_code&) {
      if (auto self = weak.lock()) self->on_bot_timer(generation);
    });
  }

  void cancel_bot() {
    if (!bot_key_) return;
    bot_key_.reset();
    ++bot_generation_;
    bot_timer_.cancel();
  }

  void on_bot_timer(std::uint64_t generation) {
    if (generation != bot_generation_ || closed_) return;
    bot_key_.reset();
    if (state_ != RoomState::playing || !game_) return;
    const engine::Seat seat = game_->to_act();
    if (bot_controls(seat)) bot_move(seat);
    schedule();
  }

  void arm_turn_timer(engine::Seat seat, std::size_t key) {
    turn_key_ = key;
    const std::uint64_t generation = ++turn_generation_;
    const std::chrono::seconds length(settings_.turn_timer_seconds);
    const auto deadline =
        std::chrono::duration_cast<std::chrono::milliseconds>((std::chrono::system_clock::now() + length).time_since_epoch());
    turn_info_ = protocol::TurnTimer{seat, settings_.turn_timer_seconds, deadline.count()};
    record(*turn_info_);
    turn_timer_.expires_after(length);
    turn_timer_.async_wait([weak = weak_from_this(), generation](const boost::system::error_code&) {
      if (auto self = weak.lock()) self->on_turn_timeout(generation);
    });
  }

  void cancel_turn_timer() {
    turn_info_.reset();
    if (!turn_key_) return;
    turn_key_.reset();
    ++turn_generation_;
    turn_timer_.cancel();
  }

  // The seat let its timer run out: one bot move for it, announced, then play
  // goes on (a new timer if the same seat must decide again).
  void on_turn_timeout(std::uint64_t generation) {
    if (generation != turn_generation_ || closed_ || state_ != RoomState::playing || !game_) return;
    const auto info = turn_info_;
    turn_key_.reset();
    turn_info_.reset();
    const engine::Seat seat = game_->to_act();
    if (info && info->seat == seat && !bot_controls(seat)) {
      record(protocol::BotTakeover{seat, protocol::TakeoverReason::kTimeout, kTakeoverLevel});
      bot_move(seat);
    }
    schedule();
  }

  void bot_move(engine::Seat seat) {
    const engine::View view = engine::view_of(*game_, engine::Viewer::of(seat));
    if (view.legal.empty()) {
      spdlog::error("room {}: seat {} is to act with no legal decision", code_, seat);
      return;
    }
    engine::Decision decision = view.legal.nth(0);
    try {
      decision = bots_[static_cast<std::size_t>(seat)]->decide(view, rng_);
    } catch (const std::exception& error) {
      spdlog::error("room {}: bot for seat {} failed: {}", code_, seat, error.what());
    }
    if (decision.seat != seat || !view.legal.contains(decision)) {
      spdlog::error("room {}: bot for seat {} chose an illegal decision; playing the first legal one", code_, seat);
      decision = view.legal.nth(0);
    }
    if (auto refusal = game_->apply(decision)) {
      spdlog::error("room {}: legal decision refused: {}", code_, refusal->message);
      return;
    }
    write_decision(decision);
    services_.metrics->action_applied();
    after_decision();
  }

  // ------------------------------------------------------------ seats over time

  void arm_grace(engine::Seat index) {
    const std::uint64_t generation = ++seats_[static_cast<std::size_t>(index)].grace_generation;
    auto& timer = grace_timers_[static_cast<std::size_t>(index)];
    timer.expires_after(limits_.seat_grace_period);
    timer.async_wait([weak = weak_from_this(), index, generation](const boost::system::error_code&) {
      if (auto self = weak.lock()) self->on_grace_expired(index, generation);
    });
  }

  void on_grace_expired(engine::Seat index, std::uint64_t generation) {
    SeatSlot& seat = seats_[static_cast<std::size_t>(index)];
    if (closed_ || generation != seat.grace_generation || seat.client || !seat.token || !seat.human()) return;
    if (state_ == RoomState::playing) {
      seat.takeover = protocol::TakeoverReason::kDisconnected;
      record(protocol::BotTakeover{index, protocol::TakeoverReason::kDisconnected, seat.level});
      schedule();
    } else {
      const std::string name = seat.name;
      free_seat(index);
      record(protocol::SeatLeft{index, name});
      after_seat_lost();
    }
  }

  // A human gave up a seat (left, kicked, or away past the grace period
  // outside a game): the host role moves on, and a room without humans closes.
  void after_seat_lost() {
    const bool anyone = std::any_of(seats_.begin(), seats_.end(), [](const SeatSlot& s) { return s.human() && s.token; });
    if (!anyone) return close_room("Every player has left, so the room has closed.");
    reassign_host();
    after_membership_change();
    schedule();
    check_rematch();
  }

  // The host must hold a seat; otherwise the lowest seat still held by a
  // human becomes host (a disconnected host keeps the role while the seat is
  // theirs).
  void reassign_host() {
    const auto holds = [&](std::size_t i) { return seats_[i].human() && seats_[i].token.has_value(); };
    if (holds(static_cast<std::size_t>(host_))) return;
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      if (holds(i)) {
        host_ = static_cast<engine::Seat>(i);
        record(protocol::HostChanged{host_});
        return;
      }
    }
  }

  // After a game: the next one starts once every seat is filled and every
  // connected player has voted for it.
  void check_rematch() {
    if (state_ != RoomState::over || rematch_votes_ == 0 || !all_seats_filled()) return;
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      if (seats_[i].human() && seats_[i].client && !((rematch_votes_ >> i) & 1U)) return;
    }
    start_game();
  }

  void after_membership_change() {
    if (closed_) return;
    write_seats();
    refresh_lobby();
    const bool idle = connected_count() == 0;
    if (idle && !idle_armed_) {
      idle_armed_ = true;
      const std::uint64_t generation = ++idle_generation_;
      // A room that never started a game goes sooner: it was most likely
      // created and abandoned, and holds one of max_rooms.
      idle_timer_.expires_after(game_number_ == 0 ? std::min(limits_.unstarted_room_expiry, limits_.room_idle_expiry)
                                                  : limits_.room_idle_expiry);
      idle_timer_.async_wait([weak = weak_from_this(), generation](const boost::system::error_code&) {
        if (auto self = weak.lock()) self->on_idle(generation);
      });
    } else if (!idle && idle_armed_) {
      idle_armed_ = false;
      ++idle_generation_;
      idle_timer_.cancel();
    }
  }

  void on_idle(std::uint64_t generation) {
    if (generation != idle_generation_ || closed_ || connected_count() != 0) return;
    close_room("Nobody was connected, so the room has closed.");
  }

  // The room is gone: its tokens stop working, its code is free again, and
  // whoever is still in it (spectators of a room whose players all left) is
  // told and let go.
  void close_room(const std::string& why) {
    spdlog::info("room {} closed: {}", code_, why);
    if (services_.writer) write(record::RoomClosed{code_});
    closed_ = true;
    cancel_bot();
    cancel_turn_timer();
    for (std::size_t i = 0; i < seats_.size(); ++i) {
      revoke_token(seats_[i]);
      ++seats_[i].grace_generation;
      grace_timers_[i].cancel();
      if (seats_[i].client) {
        reply_error(seats_[i].client, ErrorCode::kRoomNotFound, why, std::nullopt);
        seats_[i].client->clear_room(this);
        seats_[i].client.reset();
      }
    }
    for (const Spectator& spectator : spectators_) {
      reply_error(spectator.client, ErrorCode::kRoomNotFound, why, std::nullopt);
      spectator.client->clear_room(this);
    }
    spectators_.clear();
    idle_armed_ = false;
    ++idle_generation_;
    idle_timer_.cancel();
    {
      std::lock_guard lock(lobby_mutex_);
      lobby_.reset();
    }
    services_.metrics->rooms_changed(state_, -1);
    if (auto registry = registry_.lock()) registry->remove_room(code_, this);
  }

  void set_state(RoomState state) {
    if (state == state_) return;
    services_.metrics->rooms_changed(state_, -1);
    services_.metrics->rooms_changed(state, +1);
    state_ = state;
  }

  void refresh_lobby() {
    std::optional<protocol::LobbyRoom> entry;
    if (!closed_ && settings_.listed && state_ == RoomState::waiting && !all_seats_filled()) {
      protocol::LobbyRoom room;
      room.code = code_;
      room.host = seats_[static_cast<std::size_t>(host_)].name;
      room.preset = settings_.rules.preset;
      room.seats = settings_.seats;
      for (const SeatSlot& seat : seats_) {
        room.taken += seat.empty() ? 0 : 1;
        room.bots += seat.bot() ? 1 : 0;
      }
      room.spectators = settings_.spectators;
      room.turn_timer_seconds = settings_.turn_timer_seconds;
      room.chat = settings_.chat;
      entry = std::move(room);
    }
    std::lock_guard lock(lobby_mutex_);
    lobby_ = std::move(entry);
  }

  const RoomServices services_;
  const Limits& limits_;
  const std::weak_ptr<Registry> registry_;
  const std::string code_;
  const protocol::RoomSettings settings_;
  Strand strand_;

  RoomState state_ = RoomState::waiting;
  bool closed_ = false;
  engine::Seat host_ = 0;
  std::vector<SeatSlot> seats_;
  std::vector<Spectator> spectators_;

  std::int64_t v_ = 0;
  std::deque<Logged> history_;

  int game_number_ = 0;

  // Durability (services_.writer set): the current game's public id and next
  // decision number; records not yet handed to the writer; submissions made
  // and committed; messages waiting for a commit. `out` is const (sending
  // does not change the room) but may hold a message, hence mutable.
  struct Held {
    std::uint64_t needs = 0;
    std::shared_ptr<Client> client;
    SharedText text;
  };
  std::string game_id_;
  std::int64_t decision_seq_ = 0;
  std::vector<Record> unsubmitted_;
  bool version_pending_ = false;  // v_ moved since the last submission
  bool flush_posted_ = false;
  std::uint64_t submitted_ = 0;
  std::uint64_t durable_ = 0;
  mutable std::deque<Held> held_;
  engine::DealSetup deal_;
  std::optional<engine::Game> game_;
  std::optional<engine::GameOver> result_;
  std::vector<protocol::Player> game_players_;
  std::vector<std::unique_ptr<engine::Bot>> bots_;  // one per seat while a game is on
  std::optional<protocol::TranscriptMessage> last_transcript_;  // of the last finished game
  std::set<std::uint64_t> kicked_connections_;  // may not sit down here again
  std::uint8_t rematch_votes_ = 0;                   // bit per seat

  net::steady_timer bot_timer_;
  std::optional<std::size_t> bot_key_;
  std::uint64_t bot_generation_ = 0;
  net::steady_timer turn_timer_;
  std::optional<std::size_t> turn_key_;
  std::optional<protocol::TurnTimer> turn_info_;
  std::uint64_t turn_generation_ = 0;
  std::deque<net::steady_timer> grace_timers_;  // one per seat
  net::steady_timer idle_timer_;
  bool idle_armed_ = false;
  std::uint64_t idle_generation_ = 0;
  engine::Rng rng_;

  mutable std::mutex lobby_mutex_;
  std::optional<protocol::LobbyRoom> lobby_;
};

}  // namespace

std::variant<std::shared_ptr<Room>, std::string> Room::restore(const RoomServices& services,
                                                                const std::shared_ptr<Registry>& registry,
                                                                const StoredRoom& stored, Store& store) {
  auto settings = settings_from_json(stored.settings);
  if (const auto* error = std::get_if<std::string>(&settings)) return "room " + stored.room + ": " + *error;
  auto room = std::make_shared<RoomImpl>(services, registry, stored.room,
                                         std::get<protocol::RoomSettings>(std::move(settings)));
  if (auto problem = room->rebuild(stored, store)) return "room " + stored.room + ": " + *problem;
  if (!room->adopt(*registry)) return "room " + stored.room + ": the code is taken twice";
  return std::shared_ptr<Room>(std::move(room));
}

std::shared_ptr<Room> Room::make(const RoomServices& services, std::weak_ptr<Registry> registry, std::string code,
                                 protocol::RoomSettings settings) {
  return std::make_shared<RoomImpl>(services, std::move(registry), std::move(code), std::move(settings));
}

}  // namespace gofish::server
