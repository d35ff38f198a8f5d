#include "server/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <sstream>

namespace gofish::server {

// prometheus-cpp's families and metrics are internally locked, and a metric's
// address is stable once added, so the fixed series are cached as references.
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
  // From 100 microseconds to about 1.6 seconds, doubling.
  prometheus::Histogram& action_latency =
      prometheus::BuildHistogram()
          .Name("gofish_action_latency_seconds")
          .Help("Time from a decision's arrival to its events being queued")
          .Register(registry)
          .Add({}, prometheus::Histogram::BucketBoundaries{
                       0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.0032, 0.0064, 0.0128,
                       0.0256, 0.0512, 0.1024, 0.2048, 0.4096, 0.8192, 1.6384});
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

void Metrics::action_applied() { impl_->actions.Increment(); }
void Metrics::action_refused(std::string_view reason) {
  impl_->actions_refused.Add({{"reason", std::string(reason)}}).Increment();
}
void Metrics::observe_action_latency(std::chrono::duration<double> latency) {
  impl_->action_latency.Observe(latency.count());
}

void Metrics::bytes_received(std::size_t bytes) {
  impl_->bytes_received.Increment(static_cast<double>(bytes));
}
void Metrics::bytes_sent(std::size_t bytes) {
  impl_->bytes_sent.Increment(static_cast<double>(bytes));
}

void Metrics::send_queue_closed() { impl_->send_queue_closes.Increment(); }

std::string Metrics::serialize() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, impl_->registry.Collect());
  return out.str();
}

}  // namespace gofish::server
