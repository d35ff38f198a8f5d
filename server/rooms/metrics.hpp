// Every Prometheus metric the server exports, defined in one place. The API is
// plain calls so the rooms layer needs no prometheus-cpp include; all methods
// are thread-safe. Served as text at GET /metrics on the main port (we never
// start prometheus-cpp's own HTTP exposer).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/messages.hpp"

namespace gofish::server {

class StoreHealth;

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // gofish_connections: open WebSocket connections.
  void connection_opened();
  void connection_closed();
  // gofish_connections_refused_total{reason}: connections refused or cut
  // short by a limit. A WebSocket upgrade: origin (not allowed),
  // shutting_down, full (max_connections, or only the newcomers' share left),
  // address_full (max_connections_per_address). A socket, closed as soon as
  // accepted: sockets_full (the socket cap, or only the newcomers' share
  // left), address_sockets (max_sockets_per_address), descriptors (the
  // process had none left), proxy_header (a --trusted-proxy connection whose
  // PROXY protocol header was missing, malformed or late).
  void connection_refused(std::string_view reason);
  // gofish_room_requests_refused_total{reason}: creates and joins refused by
  // a per-address limit: create_rate, address_rooms, failed_joins.
  void room_request_refused(std::string_view reason);

  // gofish_rooms{state}: rooms by state. Move a room with -1 on the old state
  // and +1 on the new one.
  void rooms_changed(protocol::RoomState state, std::int64_t delta);

  // gofish_rooms_set_aside: rooms kept in the store that the server could
  // not rebuild on start (gofish-server --list-set-aside names them).
  void rooms_set_aside(std::size_t count);

  // gofish_games_started_total, gofish_games_finished_total.
  void game_started();
  void game_finished();

  // gofish_actions_total: decisions applied; gofish_actions_refused_total{reason}
  // with the protocol's error code (a closed set, so bounded cardinality).
  void action_applied();
  void action_refused(std::string_view reason);
  // gofish_action_latency_seconds: from a decision's arrival to its events queued.
  void observe_action_latency(std::chrono::duration<double> latency);

  // gofish_received_bytes_total / gofish_sent_bytes_total: WebSocket payload bytes.
  void bytes_received(std::size_t bytes);
  void bytes_sent(std::size_t bytes);

  // gofish_send_queue_closes_total: clients closed for not reading.
  void send_queue_closed();

  // gofish_rooms_paused: rooms paused because a write failed or the node's
  // leases could not be confirmed (room_pause.cpp).
  void room_paused(std::int64_t delta);
  // Read when /metrics is: gofish_store_write_failures_total (failed tries
  // to write), gofish_store_outages_total, gofish_store_waiting_records and
  // gofish_store_waiting_rooms (after failed writes),
  // gofish_store_oldest_waiting_seconds (0 when none waits) and
  // gofish_store_leases_unconfirmed (1 while the node's leases could have
  // run out). `health` outlives the metrics' readers.
  void watch_store(const StoreHealth* health);

  // The Prometheus text exposition format (version 0.0.4).
  std::string serialize() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gofish::server
