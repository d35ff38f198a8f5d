#include "rooms_support.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include "engine/game.hpp"
#include "engine/view.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {

Config rooms_config() {
  Config config = test_config();
  Limits& limits = config.limits;
  limits.message_rate_per_second = 5000;
  limits.message_burst = 5000;
  limits.bot_delay = 0ms;
  limits.seat_grace_period = 2000ms;
  limits.room_idle_expiry = 60'000ms;
  limits.parse.min_turn_timer_seconds = 1;
  limits.send_queue_messages = 4096;
  limits.send_queue_bytes = 16 * 1024 * 1024;
  // Every test client here is 127.0.0.1, and some tests open fifty rooms at
  // once: the per-address limits are tested through the binary
  // (abuse_test.cpp), not in these suites.
  limits.room_create_burst = 100'000;
  limits.max_rooms_per_address = 100'000;
  limits.failed_join_burst = 100'000;
  return config;
}

RoomsServer::RoomsServer(Config config, RecordSink* writer) : metrics_(std::make_shared<Metrics>()) {
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  server_ = std::make_unique<Server>(config, metrics_);
  handler_ = std::make_shared<RoomsHandler>(server_->io_context(), config.limits, metrics_, "test", nullptr, writer);
  port_ = server_->start(handler_);
}

void RoomsServer::stop() { server_->stop(); }

RoomsServer::~RoomsServer() {
  server_->stop();
  // The rooms' timers belong to the server's io_context: drop them first.
  handler_.reset();
  server_.reset();
}

std::optional<protocol::RequestId> id_of(const protocol::ServerMessage& message) {
  return std::visit(
      [](const auto& m) -> std::optional<protocol::RequestId> {
        if constexpr (requires { m.id; }) {
          return m.id;
        } else {
          return std::nullopt;
        }
      },
      message);
}

std::optional<std::int64_t> version_of(const protocol::ServerMessage& message) {
  if (const auto* event = std::get_if<protocol::EventMessage>(&message)) return event->v;
  if (const auto* room = std::get_if<protocol::RoomSnapshot>(&message)) return room->v;
  return std::nullopt;
}


protocol::CreateRoom create_request(std::string name, const std::string& preset, int seats,
                                    std::vector<protocol::BotSpec> bots) {
  protocol::CreateRoom request;
  request.name = std::move(name);
  request.settings.rules = *engine::preset(preset);
  request.settings.seats = seats;
  request.bots = std::move(bots);
  return request;
}

// ------------------------------------------------------------------ Peer

Peer::Peer(std::uint16_t port, bool hello) : socket_(std::make_unique<LiveSocket>(port)) {
  if (hello) expect<protocol::Welcome>(protocol::Hello{});
}

std::int64_t Peer::send(protocol::ClientBody body) {
  const std::int64_t id = next_id_++;
  socket_->send(protocol::encode_client_message(protocol::ClientMessage{id, std::move(body)}));
  return id;
}

void Peer::take(std::string text) {
  auto parsed = protocol::parse_server_message(text);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    auto event = protocol::parse_event_server_message(text);
    if (auto* message = std::get_if<protocol::EventServerMessage>(&event)) {
      class_unread_.push_back(class_frames_.size());
      class_frames_.push_back(ClassFrame{std::move(text), std::move(*message)});
      return;
    }
    throw std::runtime_error("unparseable server frame (" + *error + "): " + text.substr(0, 300));
  }
  auto message = std::get<protocol::ServerMessage>(std::move(parsed));
  if (auto v = version_of(message)) last_v_ = std::max(last_v_, *v);
  unread_.push_back(frames_.size());
  frames_.push_back(Frame{std::move(text), std::move(message)});
}

std::size_t Peer::pump() {
  std::size_t count = 0;
  while (auto text = socket_->next(0ms)) {
    take(std::move(*text));
    ++count;
  }
  return count;
}

std::optional<protocol::ServerMessage> Peer::await(const std::function<bool(const protocol::ServerMessage&)>& match,
                                                   std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t checked = 0;
  while (true) {
    for (; checked < unread_.size(); ++checked) {
      const std::size_t index = unread_[checked];
      if (match(frames_[index].message)) {
        unread_.erase(unread_.begin() + static_cast<std::ptrdiff_t>(checked));
        return frames_[index].message;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    auto text = socket_->next(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + 1ms);
    if (!text) {
      if (socket_->ended()) return std::nullopt;
      continue;
    }
    take(std::move(*text));
  }
}

std::optional<protocol::EventServerMessage> Peer::await_class(
    const std::function<bool(const protocol::EventServerMessage&)>& match, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t checked = 0;
  while (true) {
    for (; checked < class_unread_.size(); ++checked) {
      const std::size_t index = class_unread_[checked];
      if (match(class_frames_[index].message)) {
        class_unread_.erase(class_unread_.begin() + static_cast<std::ptrdiff_t>(checked));
        return class_frames_[index].message;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    auto text = socket_->next(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + 1ms);
    if (!text) {
      if (socket_->ended()) return std::nullopt;
      continue;
    }
    take(std::move(*text));
  }
}

protocol::EventServerMessage Peer::class_reply(std::int64_t id) {
  const protocol::RequestId wanted = id;
  const auto deadline = std::chrono::steady_clock::now() + 5000ms;
  const auto answers = [&](const protocol::EventServerMessage& m) {
    return std::visit(
        [&](const auto& value) {
          if constexpr (requires { value.id; }) {
            return value.id == std::optional<protocol::RequestId>(wanted);
          } else {
            return false;
          }
        },
        m);
  };
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto message = await_class(answers, 20ms)) return std::move(*message);
    if (auto other = await([&](const protocol::ServerMessage& m) { return id_of(m) == wanted; }, 0ms)) {
      throw std::runtime_error("expected a class-event reply to request " + std::to_string(id) + ", got " +
                               describe(*other));
    }
    if (socket_->ended()) break;
  }
  throw std::runtime_error("no class-event reply to request " + std::to_string(id));
}

protocol::ServerMessage Peer::reply(std::int64_t id, std::chrono::milliseconds timeout) {
  const protocol::RequestId wanted = id;
  auto message = await([&](const protocol::ServerMessage& m) { return id_of(m) == wanted; }, timeout);
  if (!message) {
    std::string seen;
    for (const auto& m : unread()) seen += " " + describe(m);
    throw std::runtime_error("no reply to request " + std::to_string(id) + (socket_->ended() ? " (closed)" : "") +
                             "; unread:" + seen);
  }
  return *message;
}

std::string Peer::error_of(protocol::ClientBody body) {
  auto message = request(std::move(body));
  if (const auto* error = std::get_if<protocol::Error>(&message)) {
    return std::string(protocol::error_code_name(error->code));
  }
  throw std::runtime_error("expected an error, got " + describe(message));
}

void Peer::clear_unread() {
  pump();
  unread_.clear();
}

std::vector<protocol::ServerMessage> Peer::unread() const {
  std::vector<protocol::ServerMessage> out;
  for (std::size_t index : unread_) out.push_back(frames_[index].message);
  return out;
}

std::string Peer::describe(const protocol::ServerMessage& message) {
  std::string text(protocol::message_type(message));
  if (const auto* error = std::get_if<protocol::Error>(&message)) {
    text += " " + std::string(protocol::error_code_name(error->code)) + " (" + error->message + ")";
  }
  if (const auto* event = std::get_if<protocol::EventMessage>(&message)) {
    text += " " + std::string(protocol::event_type(event->event)) + " v" + std::to_string(event->v);
  }
  return text;
}

// ------------------------------------------------------------------ AutoPlayer

AutoPlayer::AutoPlayer(std::unique_ptr<Peer> peer, engine::Seat seat, std::string token, std::uint64_t seed)
    : peer_(std::move(peer)),
      seat_(seat),
      token_(std::move(token)),
      rng_(seed) {
  seen_ = peer_->frames().size();
}

void AutoPlayer::replace_peer(std::unique_ptr<Peer> peer) {
  for (const auto& frame : peer_->frames()) history_.push_back(frame.text);
  peer_ = std::move(peer);
  seen_ = 0;
  resync_id_.reset();
  decision_id_.reset();
  last_turn_.reset();
  // A decision lost with the old connection was never applied, so the turn
  // of the same version the resume brings must be acted on. game_v_ stays:
  // a resume that missed nothing replays no event.
  acted_v_.reset();
  dirty_ = true;
}

std::vector<std::string> AutoPlayer::all_frames() const {
  std::vector<std::string> out = history_;
  for (const auto& frame : peer_->frames()) out.push_back(frame.text);
  return out;
}

void AutoPlayer::step() {
  peer_->pump();
  const auto now = std::chrono::steady_clock::now();
  const auto& frames = peer_->frames();
  const std::size_t end = seen_ + std::min(frames.size() - seen_, frames_per_step);
  for (; seen_ < end; ++seen_) {
    const protocol::ServerMessage& message = frames[seen_].message;
    const auto id = id_of(message);
    if (const auto* event = std::get_if<protocol::EventMessage>(&message)) {
      if (const auto* game = std::get_if<engine::Event>(&event->event)) {
        game_v_ = event->v;
        if (std::holds_alternative<engine::GameOver>(*game)) ++games_over_;
      }
    } else if (const auto* room = std::get_if<protocol::RoomSnapshot>(&message)) {
      game_v_ = room->v;
    } else if (const auto* turn = std::get_if<protocol::Turn>(&message)) {
      // The end of a decision's events: act on what it offers.
      if (turn->legal && turn->seat != seat_) problems.push_back("a turn offered decisions to another seat");
      if (turn->improper && turn->improper->decisions.seat != seat_) {
        problems.push_back("a turn offered another seat's improper decisions");
      }
      last_turn_ = *turn;
    } else if (std::holds_alternative<protocol::Joined>(message)) {
      if (resync_id_ && id == protocol::RequestId(*resync_id_)) resync_id_.reset();  // its turn follows
    } else if (const auto* error = std::get_if<protocol::Error>(&message)) {
      const protocol::RequestId decision = decision_id_.value_or(-1);
      const protocol::RequestId resync = resync_id_.value_or(-1);
      if (!id || *id == decision || *id == resync) {
        if (!tolerate_refusals) {
          problems.push_back("seat " + std::to_string(seat_) + ": " + describe_error(*error));
        }
        decision_id_.reset();
        resync_id_.reset();
        acted_v_.reset();  // a refusal changes nothing: the same turn is to be played again
        dirty_ = true;     // ask for a fresh turn
      }
    } else if (std::holds_alternative<protocol::Ok>(message)) {
      if (decision_id_ && id == protocol::RequestId(*decision_id_)) decision_id_.reset();
    } else if (std::holds_alternative<protocol::Closing>(message)) {
      problems.push_back("seat " + std::to_string(seat_) + ": the server sent closing");
    }
  }
  if ((resync_id_ || decision_id_) && now - request_sent_ > 5s) {
    problems.push_back("seat " + std::to_string(seat_) + ": a request went unanswered");
    resync_id_.reset();
    decision_id_.reset();
    dirty_ = true;
  }
  if (!active || resync_id_ || decision_id_ || peer_->socket().ended()) return;
  if (dirty_) {
    // At the start, after a new connection or a refusal: a resync brings a
    // snapshot and the `turn` to act on.
    resync_id_ = peer_->send(protocol::Resume{token_, std::nullopt});
    request_sent_ = now;
    dirty_ = false;
    return;
  }
  // A turn older than the last game event read no longer tells the hand,
  // and a turn is played once: its repeat after a resync is not a new turn.
  if (!last_turn_ || !last_turn_->legal || last_turn_->v < game_v_) return;
  if (acted_v_ && last_turn_->v <= *acted_v_) return;
  const auto legal = last_turn_->legal->list();
  if (legal.empty()) return;
  const auto& choice = legal[std::uniform_int_distribution<std::size_t>(0, legal.size() - 1)(rng_)];
  if (choice.seat != seat_) problems.push_back("a turn offered a decision for another seat");
  decision_id_ = peer_->send(protocol::request_for(choice));
  request_sent_ = now;
  acted_v_ = last_turn_->v;
  ++decisions_;
}

std::string AutoPlayer::describe_error(const protocol::Error& error) {
  return std::string(protocol::error_code_name(error.code)) + ": " + error.message;
}

bool drive(const std::vector<AutoPlayer*>& players, const std::function<bool()>& done,
           std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const std::uint64_t seen = activity();
    for (AutoPlayer* player : players) player->step();
    if (done()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    wait_for_activity(seen, 3ms);
  }
}

Seated create_room(std::uint16_t port, const protocol::CreateRoom& request) {
  Seated seated;
  seated.peer = std::make_unique<Peer>(port);
  const auto created = seated.peer->expect<protocol::Created>(request);
  seated.code = created.code;
  seated.seat = created.seat;
  seated.token = created.token;
  return seated;
}

Seated join_room(std::uint16_t port, const std::string& code, const std::string& name) {
  Seated seated;
  seated.peer = std::make_unique<Peer>(port);
  const auto joined = seated.peer->expect<protocol::Joined>(protocol::Join{code, name, protocol::JoinAs::kPlayer});
  if (!joined.seat) throw std::runtime_error("joined without a seat");
  seated.code = joined.code;
  seated.seat = *joined.seat;
  seated.token = joined.token;
  return seated;
}

std::unique_ptr<Peer> watch_room(std::uint16_t port, const std::string& code, const std::string& name) {
  auto peer = std::make_unique<Peer>(port);
  peer->expect<protocol::Joined>(protocol::Join{code, name, protocol::JoinAs::kSpectator});
  return peer;
}

std::unique_ptr<AutoPlayer> autoplay(Seated seated, std::uint64_t seed) {
  return std::make_unique<AutoPlayer>(std::move(seated.peer), seated.seat, std::move(seated.token), seed);
}

double metric_value(const std::string& text, const std::string& sample) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() > sample.size() && line.compare(0, sample.size(), sample) == 0 && line[sample.size()] == ' ') {
      return std::stod(line.substr(sample.size() + 1));
    }
  }
  return 0;
}

// ------------------------------------------------------------------ leaks

namespace {

struct GameLog {
  int number = 0;
  std::int64_t start_v = 0;
  std::int64_t over_v = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> engine_v;    // room version of each engine event, in order
  std::vector<engine::Event> truth;      // the unfiltered events, replayed from the transcript
  // The game after the start (0) and after each decision, with the number of
  // events up to then: the state a `turn` or a snapshot of that version shows.
  std::vector<engine::Game> states;
  std::vector<std::size_t> events_until;
};

// Every card a frame states as a fact. Skipped: an ask's card and the
// pending ask (a player's choice of what to ask for, not where a card is)
// and the legal and improper decisions (the cards one may ask for; whose
// they are is checked apart, below).
void collect_cards(const nlohmann::json& json, std::vector<engine::Card>& out) {
  if (json.is_object()) {
    const bool ask = json.contains("type") && json["type"] == "asked";
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (it.key() == "legal" || it.key() == "improper" || it.key() == "pending") continue;
      if (ask && it.key() == "card") continue;
      collect_cards(*it, out);
    }
  } else if (json.is_array()) {
    for (const auto& item : json) collect_cards(item, out);
  } else if (json.is_string()) {
    const auto& text = json.get_ref<const std::string&>();
    if (auto card = engine::parse_card(text); card && engine::to_string(*card) == text) out.push_back(*card);
  }
}

// What `viewer` knows after `event`, by the rules' own visibility.
void learn(engine::CardSet& known, const engine::Event& event, std::optional<engine::Seat> viewer) {
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, engine::HandDealt>) {
          if (viewer == e.seat) known.add(e.cards);
        } else if constexpr (std::is_same_v<T, engine::Drew>) {
          if (viewer == e.seat) known.add(e.card);
        } else if constexpr (std::is_same_v<T, engine::Gave> || std::is_same_v<T, engine::SetLaid>) {
          known.add(e.cards);
        } else if constexpr (std::is_same_v<T, engine::LuckyDraw>) {
          known.add(e.card);
        } else if constexpr (std::is_same_v<T, engine::GameOver>) {
          known = engine::CardSet::full_deck();
        }
      },
      event);
}

std::vector<engine::Event> replay_events(const engine::Transcript& t, std::string& error, GameLog* log = nullptr) {
  std::vector<engine::Event> out;
  auto started = engine::Game::start(t.rules, t.players, t.deck, t.dealer, t.first);
  if (auto* config = std::get_if<engine::ConfigError>(&started)) {
    error = "transcript does not start: " + config->message;
    return out;
  }
  auto& game = std::get<engine::Game>(started);
  out = game.last_events();
  if (log != nullptr) {
    log->states.push_back(game);
    log->events_until.push_back(out.size());
  }
  for (const auto& decision : t.actions) {
    if (auto refusal = game.apply(decision)) {
      error = "transcript decision refused: " + refusal->message;
      return out;
    }
    out.insert(out.end(), game.last_events().begin(), game.last_events().end());
    if (log != nullptr) {
      log->states.push_back(game);
      log->events_until.push_back(out.size());
    }
  }
  return out;
}

// The improper decisions a frame shows (a turn's, or a snapshot's game's).
std::optional<engine::ImproperDecisions> improper_in(const protocol::ServerMessage& message) {
  if (const auto* turn = std::get_if<protocol::Turn>(&message)) return turn->improper;
  if (const auto* room = std::get_if<protocol::RoomSnapshot>(&message)) {
    if (room->game && !room->game->improper.empty()) return room->game->improper;
  }
  return std::nullopt;
}

// The game as of room version `v`: after every decision whose events all
// came at or before it.
const engine::Game* state_at(const GameLog& game, std::int64_t v) {
  const engine::Game* found = nullptr;
  for (std::size_t k = 0; k < game.states.size(); ++k) {
    const std::size_t n = game.events_until[k];
    if (n == 0 || n > game.engine_v.size() || game.engine_v[n - 1] > v) break;
    found = &game.states[k];
  }
  return found;
}

}  // namespace

namespace {

// A key that would carry a deal's secret, wherever it appears.
bool reveals_deal(const nlohmann::json& json) {
  if (json.is_object()) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (it.key() == "seed" || it.key() == "fairness") return true;
      if (reveals_deal(*it)) return true;
    }
  } else if (json.is_array()) {
    for (const auto& item : json) {
      if (reveals_deal(item)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> find_leaks(const std::vector<std::string>& viewer_frames, std::optional<engine::Seat> viewer,
                                    const std::vector<std::string>& spectator_frames,
                                    const std::map<int, engine::Transcript>& transcripts) {
  std::vector<std::string> problems;
  std::vector<GameLog> games;
  for (const std::string& text : spectator_frames) {
    auto parsed = protocol::parse_server_message(text);
    const auto* message = std::get_if<protocol::ServerMessage>(&parsed);
    const auto* event = message ? std::get_if<protocol::EventMessage>(message) : nullptr;
    if (event == nullptr) continue;
    if (const auto* started = std::get_if<protocol::NewGame>(&event->event)) {
      GameLog log;
      log.number = started->game;
      log.start_v = event->v;
      games.push_back(std::move(log));
    } else if (const auto* game_event = std::get_if<engine::Event>(&event->event)) {
      if (games.empty()) {
        problems.push_back("the spectator saw an engine event before any game started");
        continue;
      }
      games.back().engine_v.push_back(event->v);
      if (std::holds_alternative<engine::GameOver>(*game_event)) games.back().over_v = event->v;
    }
  }
  if (games.empty()) problems.push_back("the spectator saw no game");
  for (GameLog& game : games) {
    const auto t = transcripts.find(game.number);
    if (t == transcripts.end()) {
      problems.push_back("no transcript for game " + std::to_string(game.number));
      continue;
    }
    std::string error;
    game.truth = replay_events(t->second, error, &game);
    if (!error.empty()) problems.push_back(error);
    if (game.truth.size() != game.engine_v.size()) {
      problems.push_back("game " + std::to_string(game.number) + ": the spectator saw " +
                         std::to_string(game.engine_v.size()) + " engine events, the transcript replays " +
                         std::to_string(game.truth.size()));
    }
  }
  if (!problems.empty()) return problems;

  const std::string who = viewer ? "seat " + std::to_string(*viewer) : std::string("spectator");
  std::int64_t current_v = 0;
  const GameLog* game = nullptr;
  std::size_t applied = 0;
  engine::CardSet known;
  for (const std::string& text : viewer_frames) {
    auto parsed = protocol::parse_server_message(text);
    if (auto* error = std::get_if<std::string>(&parsed)) {
      problems.push_back(who + " got an unparseable frame: " + *error);
      continue;
    }
    if (auto v = version_of(std::get<protocol::ServerMessage>(parsed))) current_v = *v;
    const GameLog* now = nullptr;
    for (const GameLog& g : games) {
      if (g.start_v <= current_v) now = &g;
    }
    if (now != game) {
      game = now;
      applied = 0;
      known = engine::CardSet{};
    }
    if (game != nullptr && current_v >= game->over_v) continue;  // every hand is shown at the end
    if (game != nullptr) {
      while (applied < game->truth.size() && game->engine_v[applied] <= current_v) {
        learn(known, game->truth[applied], viewer);
        ++applied;
      }
    }
    // A seat's improper decisions (table rules) tell of its hand: a frame
    // may show only the viewer's own, exactly as the game had them then, and
    // a spectator none.
    if (const auto improper = improper_in(std::get<protocol::ServerMessage>(parsed))) {
      const auto* turn = std::get_if<protocol::Turn>(&std::get<protocol::ServerMessage>(parsed));
      const engine::Game* state = game != nullptr ? state_at(*game, turn ? turn->v : current_v) : nullptr;
      if (!viewer) {
        problems.push_back(who + " was shown a seat's improper decisions at v" + std::to_string(current_v) + ": " +
                           text.substr(0, 300));
      } else if (state == nullptr || !(state->improper(*viewer) == *improper)) {
        problems.push_back(who + " was shown improper decisions that are not its own at v" +
                           std::to_string(current_v) + ": " + text.substr(0, 300));
      }
    }
    for (std::string& problem : find_event_leaks({text}, who)) problems.push_back(std::move(problem));
    // gofish-deal/1 (docs/FAIRNESS.md): until the game is over only the
    // commitment goes out, never the seed or the record that holds it.
    if (reveals_deal(nlohmann::json::parse(text))) {
      problems.push_back(who + " was sent a deal's seed at v" + std::to_string(current_v) +
                         " before the game was over: " + text.substr(0, 300));
    }
    std::vector<engine::Card> cards;
    collect_cards(nlohmann::json::parse(text), cards);
    for (engine::Card card : cards) {
      if (!known.contains(card)) {
        problems.push_back(who + " was told of " + engine::to_string(card) + " at v" + std::to_string(current_v) +
                           ", which it could not know: " + text.substr(0, 300));
      }
    }
  }
  return problems;
}

namespace {

// A key that would carry cards, wherever it appears in an event message.
bool names_hands(const nlohmann::json& json) {
  if (json.is_object()) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (it.key() == "hand" || it.key() == "hands" || it.key() == "deck") return true;
      if (names_hands(*it)) return true;
    }
  } else if (json.is_array()) {
    for (const auto& item : json) {
      if (names_hands(item)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> find_event_leaks(const std::vector<std::string>& frames, const std::string& who,
                                          EventAudience audience) {
  std::vector<std::string> problems;
  for (const std::string& text : frames) {
    auto json = nlohmann::json::parse(text, nullptr, false);
    if (!json.is_object() || !json.contains("type") || !json["type"].is_string()) continue;
    const std::string type = json["type"].get<std::string>();
    if (!type.starts_with("event_") && type != "table_view") continue;
    if (type == "table_view" && audience == EventAudience::kPupil) {
      problems.push_back(who + " got a table_view, which only the teacher's console is sent: " + text.substr(0, 300));
      continue;
    }
    if (type == "table_view" && audience == EventAudience::kCoach && json.contains("seats") &&
        json["seats"].is_array()) {
      // The hands are the coach's to see: each as big as the seat's count,
      // and no card anywhere else.
      for (auto& seat : json["seats"]) {
        if (!seat.is_object() || !seat.contains("hand")) continue;
        std::vector<engine::Card> hand;
        collect_cards(seat["hand"], hand);
        if (!seat.contains("cards") || seat["cards"] != static_cast<int>(hand.size())) {
          problems.push_back(who + " got a table_view whose hand is not the seat's count of cards: " +
                             text.substr(0, 300));
        }
        seat.erase("hand");
      }
    }
    // The settings hold the rules, which name ranks and no card; everything
    // else is checked, the settings too.
    std::vector<engine::Card> cards;
    collect_cards(json, cards);
    if (!cards.empty()) {
      problems.push_back(who + " got an " + type + " naming " + engine::to_string(cards.front()) + ": " +
                         text.substr(0, 300));
    }
    if (names_hands(json)) problems.push_back(who + " got an " + type + " with a hand or deck: " + text.substr(0, 300));
    // A same-deal round's seed (docs/FAIRNESS.md, "Shared deals"): only in
    // the teacher's event_state, as its round's `deal`, once every table of
    // the round is over; anywhere else, or sooner, it would give one
    // table's deck to another.
    if (type == "event_state" && json.contains("event") && json["event"].is_object()) {
      auto& event = json["event"];
      bool all_over = event.contains("tables") && event["tables"].is_array() && !event["tables"].empty();
      if (all_over) {
        for (const auto& table : event["tables"]) all_over = all_over && table.value("state", "") == "over";
      }
      if (all_over && event.contains("deal") && event["deal"].is_object()) event["deal"].erase("seed");
    }
    if (reveals_deal(json)) {
      problems.push_back(who + " got an " + type +
                         " with a deal's seed while a table of its round still plays: " + text.substr(0, 300));
    }
  }
  return problems;
}

}  // namespace gofish::server::testing
