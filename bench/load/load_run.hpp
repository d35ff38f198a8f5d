// A whole load run: it opens the rooms (bench/load/room.hpp), paces their
// connections, walks through its phases (setting up, measuring, done) and
// writes the report. Every connection reports to it.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/load/latency_histogram.hpp"
#include "bench/load/load_options.hpp"
#include "bench/load/network.hpp"
#include "bench/load/proc_stats.hpp"
#include "engine/random.hpp"

namespace gofish::load {

class Room;

// What every connection reports to.
class LoadRun {
 public:
  explicit LoadRun(LoadOptions options);
  ~LoadRun();
  int run();

  net::io_context& io() { return io_; }
  const LoadOptions& options() const { return options_; }
  const std::string& host_header() const { return host_header_; }
  const std::string& echo_message() const { return echo_message_; }
  std::uint64_t next_seed() { return seeds_.next(); }
  bool measuring() const { return phase_ == Phase::kMeasuring; }
  bool stopping() const { return phase_ == Phase::kDone; }

  // Connections wait their turn here so at most max_pending_connects are being set up.
  void request_connect(std::function<void()> connect);
  void connect_finished(bool ok);
  tcp::endpoint source_for(std::size_t connection) const;
  const tcp::endpoint& server() const { return server_; }
  // For wss://: the context every connection's TLS uses (the authorities it
  // trusts); null for ws://.
  const std::shared_ptr<ssl::context>& tls_context() const { return tls_context_; }

  void room_ready() { ++rooms_ready_; }
  // `rules` indexes options().rules, the rules of the room.
  void action_done(std::size_t rules, Clock::time_point sent, Clock::time_point answered);
  void game_over(std::size_t rules) {
    if (!measuring()) return;
    ++games_;
    ++by_rules_[rules].games;
  }
  // A class run: the console showed, at `seen`, the change a decision sent
  // at `sent` made.
  void console_update(Clock::time_point sent, Clock::time_point seen);
  void refused(std::string_view code, std::string_view message);
  void error(std::string_view what, std::string_view detail);
  // The server said something a seat's own events contradict.
  void disagreement(std::string_view detail) {
    ++disagreements_;
    error("disagreement", detail);
  }
  std::size_t next_connection_index() { return connections_opened_++; }
  // A seat's connection was closed with 4001 `moved`; `first_of_room` for
  // the first such close in its room.
  void moved(bool first_of_room) {
    ++moves_;
    if (first_of_room) ++rooms_moved_;
  }
  // A seat's connection ended while the run went on (moved or not); it reconnects.
  void reconnecting() { ++reconnects_; }
  // A resume was answered: by replaying events or by a snapshot.
  void resumed() { ++resumes_; }
  void resumed_from_snapshot() { ++resume_snapshots_; }

 private:
  enum class Phase { kSettingUp, kMeasuring, kDone };
  void tick();
  void open_due_rooms();
  void begin_window();
  void finish();
  nlohmann::json report() const;
  // The Room objects of the run: one class, or --rooms rooms.
  int room_objects() const { return options_.mode == Mode::kClass ? 1 : options_.rooms; }
  // A class run's own figures (report()["class"]).
  nlohmann::json class_report() const;

  LoadOptions options_;
  net::io_context io_{1};
  net::steady_timer ticker_{io_};
  tcp::endpoint server_;
  std::shared_ptr<ssl::context> tls_context_;
  std::string host_header_;
  std::string echo_message_;  // what an echo peer sends: an ask's bytes
  engine::Rng seeds_;

  std::vector<std::unique_ptr<Room>> rooms_;
  Phase phase_ = Phase::kSettingUp;
  Clock::time_point started_;
  Clock::time_point window_start_;
  Clock::time_point window_end_;
  int rooms_ready_ = 0;

  std::deque<std::function<void()>> connect_queue_;
  int pending_connects_ = 0;
  std::size_t connections_opened_ = 0;
  std::uint64_t connections_ = 0;
  std::uint64_t connect_failures_ = 0;
  Clock::time_point first_connect_;
  Clock::time_point last_connected_;

  LatencyHistogram latency_;
  LatencyHistogram console_;  // a class run: decision -> console, in the window
  std::uint64_t actions_ = 0;
  std::uint64_t games_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t errors_ = 0;
  std::uint64_t disagreements_ = 0;
  // Over the whole run, set-up included (rooms move as guests join).
  std::uint64_t moves_ = 0;
  std::uint64_t rooms_moved_ = 0;
  std::uint64_t reconnects_ = 0;
  std::uint64_t resumes_ = 0;
  std::uint64_t resume_snapshots_ = 0;
  struct RulesFigures {
    int rooms = 0;
    std::uint64_t actions = 0;  // in the measuring window
    std::uint64_t games = 0;
  };
  std::vector<RulesFigures> by_rules_;  // one per options().rules

  std::optional<ProcessSample> server_before_run_;
  std::optional<ProcessSample> server_at_start_;
  std::optional<ProcessSample> server_at_end_;
  std::optional<ProcessSample> self_at_start_;
  std::optional<ProcessSample> self_at_end_;
  std::vector<std::optional<ProcessSample>> watched_before_run_;  // one per options().watch_pids
  std::vector<std::optional<ProcessSample>> watched_at_start_;
  std::vector<std::optional<ProcessSample>> watched_at_end_;
};


}  // namespace gofish::load
