#include "server/rooms/metrics.hpp"

#include "server/store/store_health.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <sstream>
#include <vector>

namespace gofish::server {

namespace {

// gofish_action_latency_seconds' buckets: from 100 microseconds to about 1.6
// seconds, doubling.
constexpr std::array<double, 15> kLatencyBounds{0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.0032, 0.0064, 0.0128,
                                                0.0256, 0.0512, 0.1024, 0.2048, 0.4096, 0.8192, 1.6384};

// What a series counted since it was last handed to prometheus-cpp.
std::uint64_t taken(const std::atomic<std::uint64_t>& total, std::uint64_t& handed) {
  const std::uint64_t now = total.load(std::memory_order_relaxed);
  const std::uint64_t delta = now - handed;
  handed = now;
  return delta;
}

}  // namespace

// prometheus-cpp's families and metrics are internally locked, and a metric's
// address is stable once added, so the fixed series are cached as references.
//
// The series that move on every action or message (actions, bytes, the
// action latency) are counted in relaxed atomics instead, one add each, and
// handed to prometheus-cpp's objects when /metrics is read: its counters
// change a double by compare-and-swap and its histogram takes a mutex, which
// cost the I/O thread about 0.6 us per action under bench/run's load (perf).
struct Metrics::Impl {
  prometheus::Registry registry;

  prometheus::Gauge& connections =
      prometheus::BuildGauge()
          .Name("gofish_connections")
          .Help("Open WebSocket connections")
          .Register(registry)
          .Add({});
  prometheus::Family<prometheus::Counter>& connections_refused =
      prometheus::BuildCounter()
          .Name("gofish_connections_refused_total")
          .Help("Connections refused by a limit, by reason")
          .Register(registry);
  prometheus::Family<prometheus::Counter>& room_requests_refused =
      prometheus::BuildCounter()
          .Name("gofish_room_requests_refused_total")
          .Help("Room creates and joins refused by a per-address limit, by reason")
          .Register(registry);
  prometheus::Family<prometheus::Gauge>& rooms = prometheus::BuildGauge()
                                                     .Name("gofish_rooms")
                                                     .Help("Rooms by state")
                                                     .Register(registry);
  prometheus::Gauge& rooms_waiting = rooms.Add({{"state", "waiting"}});
  prometheus::Gauge& rooms_playing = rooms.Add({{"state", "playing"}});
  prometheus::Gauge& rooms_over = rooms.Add({{"state", "over"}});
  prometheus::Gauge& rooms_set_aside = prometheus::BuildGauge()
                                           .Name("gofish_rooms_set_aside")
                                           .Help("Rooms kept in the store that could not be rebuilt on start")
                                           .Register(registry)
                                           .Add({});
  prometheus::Counter& games_started = prometheus::BuildCounter()
                                           .Name("gofish_games_started_total")
                                           .Help("Games started")
                                           .Register(registry)
                                           .Add({});
  prometheus::Counter& games_finished = prometheus::BuildCounter()
                                            .Name("gofish_games_finished_total")
                                            .Help("Games played to the end")
                                            .Register(registry)
                                            .Add({});
  prometheus::Counter& actions = prometheus::BuildCounter()
                                     .Name("gofish_actions_total")
                                     .Help("Game decisions applied")
                                     .Register(registry)
                                     .Add({});
  prometheus::Family<prometheus::Counter>& actions_refused =
      prometheus::BuildCounter()
          .Name("gofish_actions_refused_total")
          .Help("Game decisions refused, by error code")
          .Register(registry);
  prometheus::Histogram& action_latency =
      prometheus::BuildHistogram()
          .Name("gofish_action_latency_seconds")
          .Help("Time from a decision's arrival to its events being queued")
          .Register(registry)
          .Add({}, prometheus::Histogram::BucketBoundaries(kLatencyBounds.begin(), kLatencyBounds.end()));
  prometheus::Counter& bytes_received = prometheus::BuildCounter()
                                            .Name("gofish_received_bytes_total")
                                            .Help("WebSocket payload bytes received")
                                            .Register(registry)
                                            .Add({});
  prometheus::Counter& bytes_sent = prometheus::BuildCounter()
                                        .Name("gofish_sent_bytes_total")
                                        .Help("WebSocket payload bytes sent")
                                        .Register(registry)
                                        .Add({});
  prometheus::Counter& send_queue_closes =
      prometheus::BuildCounter()
          .Name("gofish_send_queue_closes_total")
          .Help("Connections closed because their send queue overflowed")
          .Register(registry)
          .Add({});

  prometheus::Gauge& rooms_paused = prometheus::BuildGauge()
                                        .Name("gofish_rooms_paused")
                                        .Help("Rooms paused until the store saves what they did")
                                        .Register(registry)
                                        .Add({});
  prometheus::Counter& store_failures = prometheus::BuildCounter()
                                            .Name("gofish_store_write_failures_total")
                                            .Help("Tries to write to the store that failed (each is tried again)")
                                            .Register(registry)
                                            .Add({});
  prometheus::Counter& store_outages = prometheus::BuildCounter()
                                           .Name("gofish_store_outages_total")
                                           .Help("Times writing to the store began to fail")
                                           .Register(registry)
                                           .Add({});
  prometheus::Gauge& store_waiting_records = prometheus::BuildGauge()
                                                 .Name("gofish_store_waiting_records")
                                                 .Help("Records waiting to be written after a failed write")
                                                 .Register(registry)
                                                 .Add({});
  prometheus::Gauge& store_waiting_rooms = prometheus::BuildGauge()
                                               .Name("gofish_store_waiting_rooms")
                                               .Help("Rooms with records waiting to be written after a failed write")
                                               .Register(registry)
                                               .Add({});
  prometheus::Gauge& store_oldest_waiting = prometheus::BuildGauge()
                                                .Name("gofish_store_oldest_waiting_seconds")
                                                .Help("Age of the oldest record waiting to be written (0: none)")
                                                .Register(registry)
                                                .Add({});
  prometheus::Gauge& store_leases_unconfirmed =
      prometheus::BuildGauge()
          .Name("gofish_store_leases_unconfirmed")
          .Help("1 while this node's room leases could have run out unrenewed")
          .Register(registry)
          .Add({});
  const StoreHealth* store_health = nullptr;
  std::uint64_t store_failures_handed = 0;
  std::uint64_t store_outages_handed = 0;

  void read_store() {
    if (!store_health) return;
    const auto report = store_health->report();
    store_failures.Increment(static_cast<double>(report.failures - store_failures_handed));
    store_failures_handed = report.failures;
    store_outages.Increment(static_cast<double>(report.outages - store_outages_handed));
    store_outages_handed = report.outages;
    store_waiting_records.Set(static_cast<double>(report.records));
    store_waiting_rooms.Set(static_cast<double>(report.rooms));
    store_oldest_waiting.Set(report.oldest_age ? std::chrono::duration<double>(*report.oldest_age).count() : 0.0);
    store_leases_unconfirmed.Set(report.leases_lapsed ? 1.0 : 0.0);
  }

  // The hot series, and what of them prometheus-cpp has been handed.
  std::atomic<std::uint64_t> actions_count{0};
  std::atomic<std::uint64_t> bytes_received_count{0};
  std::atomic<std::uint64_t> bytes_sent_count{0};
  std::array<std::atomic<std::uint64_t>, kLatencyBounds.size() + 1> latency_counts{};  // the last: +Inf
  std::atomic<std::uint64_t> latency_sum_ns{0};
  std::mutex handing;
  std::uint64_t actions_handed = 0;
  std::uint64_t bytes_received_handed = 0;
  std::uint64_t bytes_sent_handed = 0;
  std::array<std::uint64_t, kLatencyBounds.size() + 1> latency_handed{};
  std::uint64_t latency_sum_ns_handed = 0;

  void hand_over() {
    std::lock_guard lock(handing);
    actions.Increment(static_cast<double>(taken(actions_count, actions_handed)));
    bytes_received.Increment(static_cast<double>(taken(bytes_received_count, bytes_received_handed)));
    bytes_sent.Increment(static_cast<double>(taken(bytes_sent_count, bytes_sent_handed)));
    std::vector<double> buckets;
    for (std::size_t i = 0; i < latency_counts.size(); ++i) {
      buckets.push_back(static_cast<double>(taken(latency_counts[i], latency_handed[i])));
    }
    action_latency.ObserveMultiple(buckets, static_cast<double>(taken(latency_sum_ns, latency_sum_ns_handed)) / 1e9);
    read_store();
  }

  prometheus::Gauge& rooms_in(protocol::RoomState state) {
    switch (state) {
      case protocol::RoomState::kWaiting:
        return rooms_waiting;
      case protocol::RoomState::kPlaying:
        return rooms_playing;
      case protocol::RoomState::kOver:
        return rooms_over;
    }
    return rooms_over;
  }
};

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {}
Metrics::~Metrics() = default;

void Metrics::connection_opened() { impl_->connections.Increment(); }
void Metrics::connection_closed() { impl_->connections.Decrement(); }
void Metrics::connection_refused(std::string_view reason) {
  impl_->connections_refused.Add({{"reason", std::string(reason)}}).Increment();
}

void Metrics::room_request_refused(std::string_view reason) {
  impl_->room_requests_refused.Add({{"reason", std::string(reason)}}).Increment();
}

void Metrics::rooms_changed(protocol::RoomState state, std::int64_t delta) {
  auto& gauge = impl_->rooms_in(state);
  if (delta >= 0) {
    gauge.Increment(static_cast<double>(delta));
  } else {
    gauge.Decrement(static_cast<double>(-delta));
  }
}

void Metrics::rooms_set_aside(std::size_t count) { impl_->rooms_set_aside.Set(static_cast<double>(count)); }

void Metrics::game_started() { impl_->games_started.Increment(); }
void Metrics::game_finished() { impl_->games_finished.Increment(); }

void Metrics::action_applied() { impl_->actions_count.fetch_add(1, std::memory_order_relaxed); }
void Metrics::action_refused(std::string_view reason) {
  impl_->actions_refused.Add({{"reason", std::string(reason)}}).Increment();
}
void Metrics::observe_action_latency(std::chrono::duration<double> latency) {
  const double seconds = latency.count();
  // Prometheus' buckets are "less than or equal to" their bound.
  const auto bucket = std::lower_bound(kLatencyBounds.begin(), kLatencyBounds.end(), seconds) - kLatencyBounds.begin();
  impl_->latency_counts[static_cast<std::size_t>(bucket)].fetch_add(1, std::memory_order_relaxed);
  impl_->latency_sum_ns.fetch_add(static_cast<std::uint64_t>(std::max(0.0, seconds) * 1e9), std::memory_order_relaxed);
}

void Metrics::bytes_received(std::size_t bytes) {
  impl_->bytes_received_count.fetch_add(bytes, std::memory_order_relaxed);
}
void Metrics::bytes_sent(std::size_t bytes) { impl_->bytes_sent_count.fetch_add(bytes, std::memory_order_relaxed); }

void Metrics::send_queue_closed() { impl_->send_queue_closes.Increment(); }

void Metrics::room_paused(std::int64_t delta) {
  if (delta >= 0) {
    impl_->rooms_paused.Increment(static_cast<double>(delta));
  } else {
    impl_->rooms_paused.Decrement(static_cast<double>(-delta));
  }
}

void Metrics::watch_store(const StoreHealth* health) {
  std::lock_guard lock(impl_->handing);
  impl_->store_health = health;
}

std::string Metrics::serialize() const {
  impl_->hand_over();
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, impl_->registry.Collect());
  return out.str();
}

}  // namespace gofish::server
