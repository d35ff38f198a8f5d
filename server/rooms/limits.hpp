// Every bound the server puts on a client, in one struct with its default and
// the reason for it. server/app/config.cpp turns each field into a command-line flag (and
// an environment variable); tests shrink them to make limits cheap to reach.
//
// The bounds the message parser enforces are the member `parse`, a
// protocol::ParseLimits with its defaults in protocol/limits.hpp (protocol/
// cannot see this header); the limits a client is told in `welcome` are
// welcome_limits(*this). Each default is typed once: here or there.
//
// On any overflow the server closes the connection with a reason rather than
// grow memory or silently drop game events.
//
// The limits "per address" key on the client's IP address (an IPv6 address
// by its /64 network, which one host usually holds whole): the peer's as
// the socket sees it, or, for a connection from a --trusted-proxy, the
// address its PROXY protocol header names (server/edge/http_session.cpp). Behind a
// proxy that is not trusted every client shares the proxy's address.
#pragma once

#include <chrono>
#include <cstddef>

#include "protocol/limits.hpp"

namespace gofish::protocol {
struct WelcomeLimits;  // protocol/messages.hpp
}

namespace gofish::server {

struct Limits {
  // ---- What the message parser enforces (protocol::parse_client_message) ----

  // Largest client message (parse.max_frame_bytes, --max-message-bytes: the
  // WebSocket layer closes a larger one with 1009 before it is parsed),
  // display names and chat lines (--max-name-chars, --max-chat-chars) and the
  // turn timer's bounds (--min/max-turn-timer-seconds).
  protocol::ParseLimits parse;

  // ---- WebSocket transport (enforced in server/edge/websocket_session.cpp) ----

  // Per-connection token bucket: a human clicks a few times a second, the CLI
  // and bots a little faster; a burst covers hello + join + reconnect resync.
  double message_rate_per_second = 10.0;
  std::size_t message_burst = 20;
  // Messages dropped in a row (each answered by at most one error) before a
  // flooding connection is closed with 1008.
  std::size_t rate_strikes_before_close = 20;
  // Outgoing queue per connection. An event is about 100 bytes, a snapshot
  // 2-3 KiB, a transcript 3-5 KiB; a whole four-seat game as a spectator gets
  // it, snapshot, turns and transcript included, is 20-40 KiB (rooms_games_test
  // prints it and checks it stays under half of this), which bounds what a
  // resume may replay at once. A client further behind is not reading and is
  // closed (1008) instead: the queue is what one connection can make the
  // server hold, so 200 that never read cost about 26 MiB here, not 200 MiB.
  std::size_t send_queue_messages = 256;
  std::size_t send_queue_bytes = 128 * 1024;
  // The kernel's send buffer per socket (SO_SNDBUF; Linux doubles it for its
  // bookkeeping). Left to itself the kernel grows it up to tcp_wmem's maximum
  // (4 MiB by default) for a peer that does not read: 800 MiB of kernel
  // memory for 200 such peers. 64 KiB holds several snapshots; 0 leaves the
  // kernel's autotuning on.
  std::size_t socket_send_buffer_bytes = 64 * 1024;
  // Reading an HTTP request's headers (also the keep-alive idle time), the
  // WebSocket upgrade, and the close handshake.
  std::chrono::milliseconds handshake_timeout{10'000};
  // A silent WebSocket is pinged after half of this and closed after all of
  // it; browsers answer pings by themselves, so only dead peers hit it.
  std::chrono::milliseconds idle_timeout{60'000};
  // Open WebSocket connections; the next one is closed with 1013.
  std::size_t max_connections = 1000;
  // Open WebSocket connections from one address;
  // the next one is closed with 1013. A classroom behind one NAT shares an
  // address, hence generous.
  std::size_t max_connections_per_address = 100;
  // This share of max_connections, and of the socket cap, is kept for
  // addresses that hold none yet, so that a few addresses filling the server
  // still leave a way in for everyone else.
  std::size_t newcomer_share_percent = 10;
  // TCP sockets from one address, WebSockets included: page loads,
  // keep-alive connections and sockets that never send a request besides
  // its WebSockets. Beyond it a new socket is accepted and closed at once.
  std::size_t max_sockets_per_address = 256;
  // File descriptors kept out of the socket cap, which is RLIMIT_NOFILE
  // (raised to its hard limit at start) minus this: the store's files, files
  // being served, the listener and the spare descriptor used to accept and
  // drop a connection when the process is out of them.
  std::size_t descriptor_reserve = 64;
  // An HTTP request (line + headers + body): we only serve GETs.
  std::size_t max_request_bytes = 8 * 1024;

  // ---- Rooms (enforced by the rooms layer) ----

  // Rooms in any state; a create beyond it is refused.
  std::size_t max_rooms = 200;
  // Rooms created from one address: a burst, then a steady rate (enough for a
  // classroom setting up its tables), and at most this many open at once (a
  // room counts until it closes). Beyond either, room/too_many_rooms.
  double room_create_rate_per_second = 0.5;
  std::size_t room_create_burst = 20;
  std::size_t max_rooms_per_address = 30;
  // Joins by a room code that names no room (or is no room code) and resumes
  // with an unknown seat token, per address: a burst of typing mistakes, then
  // one every 10 s. Beyond it every join from the address is refused
  // (room/too_many_attempts) until a token is back, so codes cannot be
  // guessed at 480 a second.
  double failed_join_rate_per_second = 0.1;
  std::size_t failed_join_burst = 10;
  // Watchers per room beyond its seats.
  std::size_t max_spectators_per_room = 16;
  // Chat lines per connection: a burst of a few, then one a second.
  double chat_rate_per_second = 1.0;
  std::size_t chat_burst = 5;
  // A disconnected player's seat is held this long for a reconnect.
  std::chrono::milliseconds seat_grace_period{120'000};
  // A room with nobody connected is removed after this.
  std::chrono::milliseconds room_idle_expiry{30 * 60'000};
  // ... and sooner if no game was ever started in it: a room created and
  // abandoned holds a slot of max_rooms for a minute, not half an hour.
  std::chrono::milliseconds unstarted_room_expiry{60'000};
  // Pause before a bot acts, so humans can follow; 0 in tests.
  std::chrono::milliseconds bot_delay{800};
  // Room events kept for resuming: a client whose last seen version is still
  // in this window gets the missed events replayed, an older one a fresh
  // snapshot. A whole game is one to a few hundred events.
  std::size_t room_history_events = 256;

  // ---- Several servers on one PostgreSQL database (--storage postgres) ----

  // A node's lease on each of its rooms lasts this long unless renewed; it
  // renews them all about once a second (a third of this, at most a
  // second). A node that stops renewing (crashed, paused, cut off) loses
  // its rooms to the next node asked for them after this long: short
  // enough that players wait a few seconds, long enough that a busy
  // database or a garbage-collecting VM does not make rooms flap.
  // 3 s keeps a crashed node's rooms back for at most that (issue 18 asks
  // for resumed seats within 5 s of a crash, p99), and tolerates two
  // missed renewals.
  std::chrono::milliseconds lease_ttl{3'000};

  // ---- Storage (--storage sqlite or postgres) ----

  // How long the store's writer waits, once the first records of a batch
  // have come, for other rooms' records to join them before it commits
  // (--store-commit-delay-us). A commit costs about the same for one action
  // as for fifty (SQLite writes at least the decision log's last page, 4
  // KiB, and a sync at checkpoints; PostgreSQL a flush), so a busy server
  // writes far less per action; what it costs is up to this much more time
  // before an action's answer goes out, far below what a person notices. The
  // wait ends early once the I/O threads have run everything that was ready
  // (StoreWriter::flush_now): a quiet server answers without it. 0 commits
  // as soon as the writer is free.
  std::chrono::microseconds store_commit_delay{1'000};
  // A write that fails is tried again until it is written, and the rooms
  // waiting for it pause (never closed, never dropped). Once the oldest
  // waiting record is this old, /healthz answers 503 ("degraded") so that a
  // supervisor or an alert sees it (--store-outage-limit-ms); the rooms stay
  // paused.
  std::chrono::milliseconds store_outage_limit{30'000};
  // On SIGTERM, how long the writer keeps trying records that still wait
  // for a failing store before the server gives up on them and exits with
  // code 4, naming them (--store-drain-ms). Nothing they held was sent.
  std::chrono::milliseconds store_drain{10'000};
  // With --storage postgres: how long a start waits for a database that
  // cannot be reached (it may be starting too) before it exits with code 3
  // (--store-connect-wait-ms; 0: no wait).
  std::chrono::milliseconds store_connect_wait{30'000};

  // ---- Process ----

  // Warnings a client can cause (a refused Origin, a flood, a full server)
  // are logged at most this many times a second for each kind, with a count
  // of those left out, and any text the client chose in them is cut to
  // max_logged_chars (escaped): one client cannot fill the disk.
  std::size_t client_warnings_per_second = 10;
  std::size_t max_logged_chars = 100;
  // After connections close, freed memory is handed back to the system
  // (malloc_trim) at most once per this period; 0 never.
  std::chrono::milliseconds memory_trim_interval{5'000};

  // On SIGTERM: time for queued messages and close handshakes to finish
  // before the remaining sockets are cut.
  std::chrono::milliseconds shutdown_grace{5'000};
};

// What `welcome` tells a client of `limits`: the only place WelcomeLimits is
// filled on the server, field by field from the configured values.
protocol::WelcomeLimits welcome_limits(const Limits& limits);

}  // namespace gofish::server
