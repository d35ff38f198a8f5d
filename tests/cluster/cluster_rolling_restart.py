"""Issue 18's rolling restart: PostgreSQL, HAProxy and three nodes
(scripts/cluster.sh, its 2 s lease); 12 rooms over every preset,
with and without table rules, each with a server bot, a spectator (the
room's watcher) and two seats played by gofish-cli --bot through HAProxy,
playing game after game. Each node in turn gets SIGTERM (it drains: its
rooms' leases are released and its clients told `shutting_down`), and is
started again once it has exited; the next waits until HAProxy sees it up
and a few seconds have passed. Then:
- no room is lost: every room's watcher sees it go on after the last
  restart, every client still runs, and every room's lease is a live node's;
- no room pauses for more than 2 s: the largest gap between consecutive
  messages a room's watcher received, from just before each SIGTERM until
  the node is back, is printed per restart and must be at most 2 s;
- no client is sent a room version with two contents, or skips one;
- every finished game's stored transcript replays (gofish-sim --replay).

    cluster_rolling_restart.py SERVER CLI SIM
"""
import sys
import time

from cluster_harness import (CliTable, Cluster, Failure, check, check_replays, check_stream, run, say, stored_transcripts)

server_binary, cli_binary, sim_binary = sys.argv[1:4]

ROOMS = 12
PRESETS = ["classic", "specific-card", "keep-playing", "bicycle", "authors", "pairs"]
THINK_MS = "50"
MAX_PAUSE_SECONDS = 2.0
SETTLE_SECONDS = 3.0  # between one node back and the next SIGTERM


class Room(CliTable):
    def __init__(self, index, cluster):
        super().__init__(cli_binary, cluster, PRESETS[index % len(PRESETS)], table_rules=index >= len(PRESETS),
                         games=1000, think_ms=THINK_MS)

    def largest_gap(self, start, end):
        """The longest time between consecutive messages the watcher got in [start, end],
        counting from its last message before start."""
        times = [t for t, m in list(self.watcher.messages) if m.get("type") in ("event", "room")]
        before = [t for t in times if t < start]
        inside = [t for t in times if start <= t <= end]
        points = before[-1:] + inside + [end]
        return max(b - a for a, b in zip(points, points[1:]))


def main():
    started = time.monotonic()
    cluster = Cluster(server_binary, nodes=3,
                      server_flags=[f"--bot-delay-ms={THINK_MS}", "--log-level=info"])
    rooms = []
    passed = False
    try:
        rooms = [Room(i, cluster) for i in range(ROOMS)]
        # Every watcher at once (see cluster_failover.py).
        for room in rooms:
            room.watch()
        for room in rooms:
            room.watcher.first("joined")
        for room in rooms:
            room.join()
        for room in rooms:
            room.guest.first("joined")
        time.sleep(SETTLE_SECONDS)
        say(f"{ROOMS} rooms playing through {cluster.http_url}, {time.monotonic() - started:.1f} s after the start")

        for k in range(1, cluster.nodes + 1):
            held = sum(1 for node in cluster.lease_holders().values() if node == f"node{k}")
            terminated_at = time.monotonic()
            cluster.stop_node(k, "TERM")
            exited_at = time.monotonic()
            cluster.start_node(k)
            back_at = time.monotonic()
            time.sleep(SETTLE_SECONDS)
            gaps = {room.code: room.largest_gap(terminated_at - 0.5, back_at) for room in rooms}
            worst = max(gaps, key=gaps.get)
            say(f"node{k} (held {held} rooms): SIGTERM -> exited {exited_at - terminated_at:.2f} s, "
                f"-> up again (HAProxy) {back_at - terminated_at:.2f} s; largest pause a watcher saw "
                f"{gaps[worst]:.2f} s (room {worst}), median {sorted(gaps.values())[len(gaps) // 2]:.2f} s")
            check(gaps[worst] <= MAX_PAUSE_SECONDS,
                  f"room {worst} paused {gaps[worst]:.2f} s around node{k}'s restart, more than {MAX_PAUSE_SECONDS} s")

        last_restart = time.monotonic() - SETTLE_SECONDS
        for room in rooms:
            for client in room.clients():
                if client.proc.poll() is not None:
                    raise Failure(f"room {room.label()}: {' '.join(client.args)} exited ({client.proc.returncode}): "
                                  f"{client.proc.stderr.read()}")
            check(any(t > last_restart for t, m in room.watcher.messages if m.get("type") == "event"),
                  f"room {room.label()} did not go on after the last restart")
        holders = cluster.lease_holders()
        for room in rooms:
            check(holders.get(room.code) in {f"node{k}" for k in range(1, cluster.nodes + 1)},
                  f"room {room.code} has no live node's lease: {holders.get(room.code)}")
        for room in rooms:
            for client in room.clients():
                client.stop()
            for client in room.clients():
                check_stream(f"room {room.label()} {client.args[client.args.index('--name') + 1]}", client.messages)
        games = sum(sum(1 for _, m in room.watcher.messages
                        if m.get("type") == "event" and m["event"].get("type") == "game_over") for room in rooms)
        say(f"every room went on after every restart; its watchers saw {games} games end")
        transcripts = stored_transcripts(cluster)
        check(transcripts, "no finished game was stored")
        check_replays(sim_binary, transcripts, cluster.dir)
        passed = True
    finally:
        for room in rooms:
            for client in room.clients():
                client.stop()
        cluster.down(keep_logs=not passed)
    say(f"rolling restart test took {time.monotonic() - started:.1f} s")


run(main)
