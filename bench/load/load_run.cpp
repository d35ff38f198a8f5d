#include "bench/load/load_run.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "bench/load/room.hpp"
#include "engine/rules.hpp"
#include "protocol/messages.hpp"

namespace gofish::load {

namespace {

using namespace std::chrono_literals;

constexpr auto kTick = 20ms;             // how often the run checks its phase
constexpr auto kSetupTimeout = 60s;      // beyond the ramp-up, for every room to be ready
constexpr int kErrorsPrinted = 5;        // the first few errors go to stderr

std::uint64_t micros_between(Clock::time_point from, Clock::time_point to) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(to - from).count());
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// The exact bytes a player sends to ask: the echo run sends messages of this size.
std::string sample_ask() {
  return protocol::encode_client_message(
      protocol::ClientMessage{protocol::RequestId(std::int64_t{100000}), protocol::Ask{1, engine::Rank{8}}});
}

}  // namespace

LoadRun::LoadRun(LoadOptions options)
    : options_(std::move(options)),
      echo_message_(sample_ask()),
      seeds_(options_.seed != 0 ? options_.seed : engine::os_seed()),
      by_rules_(options_.rules.size()) {
  tcp::resolver resolver(io_);
  const auto results = resolver.resolve(tcp::v4(), options_.target.host, std::to_string(options_.target.port));
  server_ = results.begin()->endpoint();
  host_header_ = options_.target.host + ":" + std::to_string(options_.target.port);
  if (options_.source_addresses > 1 && !server_.address().is_loopback()) {
    throw std::runtime_error("--source-addresses needs a loopback server address");
  }
  if (options_.target.tls) {
    // The server's certificate must chain to a trusted authority and name
    // the URL's host (Player::on_connected sets the name).
    tls_context_ = std::make_shared<ssl::context>(ssl::context::tls_client);
    tls_context_->set_verify_mode(ssl::verify_peer);
    if (options_.ca_file.empty()) {
      tls_context_->set_default_verify_paths();
    } else {
      tls_context_->load_verify_file(options_.ca_file);
    }
  }
}

// Here, where Room is complete: rooms_ holds them.
LoadRun::~LoadRun() = default;

tcp::endpoint LoadRun::source_for(std::size_t connection) const {
  if (!server_.address().is_loopback()) return tcp::endpoint(tcp::v4(), 0);
  const auto last = static_cast<unsigned>(1 + connection % static_cast<std::size_t>(options_.source_addresses));
  return tcp::endpoint(net::ip::address_v4((127U << 24) | last), 0);
}

void LoadRun::request_connect(std::function<void()> connect) {
  if (connections_ == 0 && connect_failures_ == 0 && pending_connects_ == 0) first_connect_ = Clock::now();
  if (pending_connects_ >= options_.max_pending_connects) {
    connect_queue_.push_back(std::move(connect));
    return;
  }
  ++pending_connects_;
  connect();
}

void LoadRun::connect_finished(bool ok) {
  --pending_connects_;
  if (ok) {
    ++connections_;
    last_connected_ = Clock::now();
  } else {
    ++connect_failures_;
  }
  if (!connect_queue_.empty() && !stopping()) {
    auto next = std::move(connect_queue_.front());
    connect_queue_.pop_front();
    ++pending_connects_;
    next();
  }
}

void LoadRun::action_done(std::size_t rules, Clock::time_point sent, Clock::time_point answered) {
  if (!measuring()) return;
  ++actions_;
  ++by_rules_[rules].actions;
  latency_.record(micros_between(sent, answered));
}

void LoadRun::console_update(Clock::time_point sent, Clock::time_point seen) {
  if (measuring()) console_.record(micros_between(sent, seen));
}

void LoadRun::refused(std::string_view code, std::string_view message) {
  if (refused_++ < kErrorsPrinted) std::cerr << "gofish-load: refused: " << code << ": " << message << "\n";
}

void LoadRun::error(std::string_view what, std::string_view detail) {
  if (errors_++ < kErrorsPrinted) std::cerr << "gofish-load: error: " << what << ": " << detail << "\n";
}

int LoadRun::run() {
  if (options_.server_pid) server_before_run_ = sample_process(*options_.server_pid);
  for (const int pid : options_.watch_pids) watched_before_run_.push_back(sample_process(pid));
  started_ = Clock::now();
  tick();
  io_.run();
  const auto report_json = report();
  if (!options_.quiet && options_.mode == Mode::kClass) {
    const auto& figures = report_json["class"];
    std::cout << "gofish-load class: " << figures["pupils"] << " pupils at " << figures["tables"]
              << " tables; ask -> event p99 " << figures["ask_to_event_ms"]["p99"] << " ms, move -> console p99 "
              << figures["move_to_console_ms"]["p99"] << " ms, " << report_json["errors"] << " errors\n";
  } else if (!options_.quiet) {
    std::cout << "gofish-load " << to_string(options_.mode) << ": " << report_json["actions_per_second"]
              << " actions/s, p99 " << report_json["latency_us"]["p99"] << " us, " << report_json["connections"]
              << " connections, " << report_json["errors"] << " errors, " << report_json["refused"]
              << " refused, " << report_json["rooms_moved"] << " rooms moved, " << report_json["resumes"]
              << " resumes\n";
  }
  std::cout << report_json.dump() << std::endl;
  return errors_ == 0 && refused_ == 0 ? 0 : 1;
}

void LoadRun::open_due_rooms() {
  const double elapsed = seconds_between(started_, Clock::now());
  const int rooms = room_objects();
  const auto due =
      options_.ramp_seconds <= 0
          ? rooms
          : std::min(rooms, static_cast<int>(elapsed / options_.ramp_seconds * static_cast<double>(rooms)) + 1);
  while (static_cast<int>(rooms_.size()) < due) {
    const std::size_t rules = rooms_.size() % options_.rules.size();
    ++by_rules_[rules].rooms;
    rooms_.push_back(std::make_unique<Room>(*this, rules));
    rooms_.back()->open();
  }
}

void LoadRun::tick() {
  const auto now = Clock::now();
  switch (phase_) {
    case Phase::kSettingUp: {
      open_due_rooms();
      const int rooms = room_objects();
      const bool ramped =
          static_cast<int>(rooms_.size()) == rooms && seconds_between(started_, now) >= options_.ramp_seconds;
      const bool late = now - started_ > std::chrono::duration<double>(options_.ramp_seconds) + kSetupTimeout;
      if (ramped && (rooms_ready_ == rooms || late)) {
        if (rooms_ready_ < rooms) {
          error("setup", options_.mode == Mode::kClass
                             ? std::string("the class's tables were not all in play in time")
                             : std::to_string(rooms - rooms_ready_) + " rooms were not ready in time");
        }
        begin_window();
      }
      break;
    }
    case Phase::kMeasuring:
      if (now >= window_start_ + std::chrono::duration<double>(options_.seconds)) return finish();
      break;
    case Phase::kDone:
      return;
  }
  ticker_.expires_after(kTick);
  ticker_.async_wait([this](beast::error_code ec) {
    if (!ec) tick();
  });
}

void LoadRun::begin_window() {
  phase_ = Phase::kMeasuring;
  window_start_ = Clock::now();
  latency_.clear();
  console_.clear();
  actions_ = 0;
  games_ = 0;
  for (auto& figures : by_rules_) figures.actions = figures.games = 0;
  if (options_.server_pid) server_at_start_ = sample_process(*options_.server_pid);
  for (const int pid : options_.watch_pids) watched_at_start_.push_back(sample_process(pid));
  self_at_start_ = sample_self();
}

void LoadRun::finish() {
  phase_ = Phase::kDone;
  window_end_ = Clock::now();
  if (options_.server_pid) server_at_end_ = sample_process(*options_.server_pid);
  for (const int pid : options_.watch_pids) watched_at_end_.push_back(sample_process(pid));
  self_at_end_ = sample_self();
  if (!server_at_end_ && options_.server_pid) error("server", "cannot read /proc for the server's process id");
  io_.stop();  // connections are cut when the process ends
}

nlohmann::json LoadRun::report() const {
  const double window = seconds_between(window_start_, window_end_);
  const double actions = static_cast<double>(actions_);
  nlohmann::json out;
  out["mode"] = to_string(options_.mode);
  out["url"] = options_.url;
  out["rooms"] = options_.rooms;
  out["players"] = options_.players;
  out["preset"] = options_.preset;
  out["table_rules"] = options_.table_rules;
  out["think_ms"] = options_.think_ms;
  out["bot"] = engine::to_string(options_.bot);
  out["seconds"] = window;
  out["rooms_ready"] = rooms_ready_;
  out["connections"] = connections_;
  out["connect_failures"] = connect_failures_;
  const double setup = seconds_between(first_connect_, last_connected_);
  out["connections_per_second"] = setup > 0 ? static_cast<double>(connections_) / setup : 0.0;
  out["actions"] = actions_;
  out["actions_per_second"] = window > 0 ? actions / window : 0.0;
  out["games"] = games_;
  out["latency_us"] = {{"p50", latency_.percentile(50)},   {"p90", latency_.percentile(90)},
                       {"p99", latency_.percentile(99)},   {"p999", latency_.percentile(99.9)},
                       {"max", latency_.max()},            {"mean", latency_.mean()}};
  out["errors"] = errors_;
  out["disagreements"] = disagreements_;
  out["refused"] = refused_;
  out["rooms_finishing_games"] =
      std::count_if(rooms_.begin(), rooms_.end(), [](const auto& room) { return room->games() > 0; });
  out["moves"] = moves_;
  out["rooms_moved"] = rooms_moved_;
  out["reconnects"] = reconnects_;
  out["resumes"] = resumes_;
  out["resume_snapshots"] = resume_snapshots_;
  // Per preset (a room's rules): rooms, and the actions and games of the window.
  if (options_.mode != Mode::kEcho) {
    out["presets"] = nlohmann::json::object();
    for (std::size_t i = 0; i < by_rules_.size(); ++i) {
      out["presets"][options_.rules[i].preset] = {
          {"rooms", by_rules_[i].rooms}, {"actions", by_rules_[i].actions}, {"games", by_rules_[i].games}};
    }
  }

  const auto cpu_figures = [&](const std::optional<ProcessSample>& from, const std::optional<ProcessSample>& to) {
    nlohmann::json figures;
    if (!from || !to) return figures;
    const double cpu_micros = static_cast<double>(to->cpu_micros - from->cpu_micros);
    figures["cpu_percent"] = window > 0 ? cpu_micros / 1e4 / window : 0.0;
    figures["cpu_us_per_action"] = actions > 0 ? cpu_micros / actions : 0.0;
    figures["rss_kib"] = to->rss_kib;
    figures["peak_rss_kib"] = to->peak_rss_kib;
    return figures;
  };
  out["server"] = cpu_figures(server_at_start_, server_at_end_);
  out["client"] = cpu_figures(self_at_start_, self_at_end_);
  if (!options_.watch_pids.empty()) {
    out["watched"] = nlohmann::json::object();
    for (std::size_t i = 0; i < watched_at_end_.size() && i < watched_at_start_.size(); ++i) {
      out["watched"][std::to_string(options_.watch_pids[i])] = cpu_figures(watched_at_start_[i], watched_at_end_[i]);
    }
  }
  if (options_.mode == Mode::kIdle && server_before_run_ && server_at_end_) {
    const auto grown = static_cast<double>(server_at_end_->rss_kib) - static_cast<double>(server_before_run_->rss_kib);
    out["idle"] = {{"rss_before_kib", server_before_run_->rss_kib},
                   {"rss_after_kib", server_at_end_->rss_kib},
                   {"kib_per_connection", connections_ > 0 ? grown / static_cast<double>(connections_) : 0.0}};
  }
  if (options_.mode == Mode::kClass) out["class"] = class_report();
  return out;
}

// As bench/class's Python client printed them: ask -> event and move ->
// console in milliseconds, and the servers' memory (the server's and every
// watched process's, summed: give the nodes' pids) before the class and at
// the end of the window, per pupil.
nlohmann::json LoadRun::class_report() const {
  const auto ms = [](std::uint64_t micros) { return static_cast<double>(micros) / 1000.0; };
  const int pupils = options_.rooms * options_.players;
  nlohmann::json out;
  out["tables"] = options_.rooms;
  out["pupils"] = pupils;
  out["ask_to_event_ms"] = {{"p50", ms(latency_.percentile(50))},
                            {"p99", ms(latency_.percentile(99))},
                            {"max", ms(latency_.max())},
                            {"count", latency_.count()}};
  out["move_to_console_ms"] = {{"p50", ms(console_.percentile(50))},
                               {"p99", ms(console_.percentile(99))},
                               {"max", ms(console_.max())},
                               {"count", console_.count()}};
  std::uint64_t before = 0;
  std::uint64_t during = 0;
  bool known = true;
  const auto add = [&](const std::optional<ProcessSample>& from, const std::optional<ProcessSample>& to) {
    if (!from || !to) {
      known = false;
      return;
    }
    before += from->rss_kib;
    during += to->rss_kib;
  };
  if (options_.server_pid) add(server_before_run_, server_at_end_);
  for (std::size_t i = 0; i < options_.watch_pids.size(); ++i) {
    add(i < watched_before_run_.size() ? watched_before_run_[i] : std::nullopt,
        i < watched_at_end_.size() ? watched_at_end_[i] : std::nullopt);
  }
  if (known && (options_.server_pid || !options_.watch_pids.empty())) {
    out["server_rss_kib"] = {
        {"before", before},
        {"during", during},
        {"per_pupil", (static_cast<double>(during) - static_cast<double>(before)) / static_cast<double>(pupils)}};
  }
  return out;
}

}  // namespace gofish::load
