"""A frozen node (issue 30). PostgreSQL, HAProxy and three nodes
(scripts/cluster.sh); the rooms of cluster_failover (30 over every preset,
each with a server bot, a spectator and two seats played by gofish-cli
--bot through HAProxy). Once every room has ten decisions, the node holding
the most rooms' leases is frozen with SIGSTOP: its sockets stay open and
its kernel still accepts connections, but it answers nothing. Its clients
find out by their liveness check (gofish-cli pings a quiet server and
leaves one silent for 1.5 s), HAProxy by its health checks, and another
node takes each room once the frozen node's lease has run out. Then:
- HAProxy marks the frozen node down within 1.5 s;
- every seat of its rooms played by gofish-cli resumes on another node, and
  the p99 of the time from the freeze to the resumed seat (the client's
  `joined` with `resumed`) is at most 3 s;
- once every seat has resumed, the node runs again (SIGCONT): it writes
  nothing more for the rooms it lost, and its log says they were taken
  over after its lease ran out, not that it handed them over;
- every game finishes, no client is sent a room version with two
  contents, the asks each client saw are those of the stored transcripts,
  and every transcript replays (cluster_harness.check_games).

    cluster_frozen.py SERVER CLI SIM
"""
import os
import re
import sys
import threading
import time

from cluster_harness import (Cluster, busiest_node, check, check_games, finish_all, percentile, resume_times, run, say,
                             start_outage_rooms, games_over)

server_binary, cli_binary, sim_binary = sys.argv[1:4]

ROOMS = 30
DECISIONS_BEFORE_FREEZE = 10
MAX_P99_SECONDS = 3.0
MAX_DOWN_SECONDS = 1.5  # docker/haproxy.cfg: 0.75 to 1 s, and some room for a loaded machine
THINK_MS = "50"


def watch_down(cluster, node, since, seen):
    """Records in seen["down"] how long after `since` HAProxy first reports `node` DOWN."""
    deadline = since + 20
    while time.monotonic() < deadline:
        try:
            if cluster.haproxy_sees().get(node, "").startswith("DOWN"):
                seen["down"] = time.monotonic() - since
                return
        except OSError:
            pass
        time.sleep(0.02)


def main():
    started = time.monotonic()
    cluster = Cluster(server_binary, nodes=3,
                      server_flags=[f"--bot-delay-ms={THINK_MS}", "--log-level=info"])
    rooms = []
    passed = False
    frozen = None
    try:
        rooms = start_outage_rooms(cli_binary, cluster, ROOMS, THINK_MS, DECISIONS_BEFORE_FREEZE)
        frozen, frozen_node, affected, per_node = busiest_node(cluster, rooms)
        # A room whose games were all played before the freeze has no seat to resume.
        affected = [room for room in affected if not games_over(room)]
        check(affected, f"{frozen_node} holds no room in play")
        say(f"leases per node {dict(per_node)}; every room has {DECISIONS_BEFORE_FREEZE} decisions or is over; "
            f"SIGSTOP {frozen_node} (pid {cluster.pid(frozen)}) holding {len(affected)} rooms in play")
        frozen_at = time.monotonic()
        cluster.stop_node(frozen, "STOP")
        seen = {}
        watcher = threading.Thread(target=watch_down, args=(cluster, frozen_node, frozen_at, seen), daemon=True)
        watcher.start()

        # Every seat of its rooms resumed elsewhere, while it stays frozen.
        deadline = frozen_at + 30
        while True:
            try:
                latencies = resume_times(affected, frozen_at, frozen_node, cluster)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        watcher.join(20)
        woken_at = time.monotonic()
        cluster.stop_node(frozen, "CONT")
        frozen = None
        p99 = percentile(latencies, 0.99)
        down = seen.get("down")
        say(f"HAProxy marked {frozen_node} down {down:.2f} s after the freeze" if down is not None
            else f"HAProxy never marked {frozen_node} down")
        say(f"freeze -> resumed seat over {len(latencies)} seats of {len(affected)} rooms: "
            f"p50 {percentile(latencies, 0.5):.2f} s, p99 {p99:.2f} s, max {max(latencies):.2f} s "
            f"(lease TTL {cluster.lease_ttl_ms()} ms); SIGCONT {woken_at - frozen_at:.1f} s after the freeze")
        check(down is not None and down <= MAX_DOWN_SECONDS,
              f"HAProxy did not mark the frozen node down within {MAX_DOWN_SECONDS} s")
        check(p99 <= MAX_P99_SECONDS, f"p99 freeze -> resumed seat {p99:.2f} s is over {MAX_P99_SECONDS} s")

        finish_all(rooms, started + 150, watchers_may_miss=True)
        say(f"every game finished, {time.monotonic() - frozen_at:.1f} s after the freeze")

        # What the woken node said of the rooms it lost.
        with open(os.path.join(cluster.dir, f"{frozen_node}.log"), errors="replace") as log:
            text = log.read()
        for room in affected:
            said = [line for line in text.splitlines() if re.search(rf"\broom {room.code}\b", line)]
            check(not any("handed over" in line for line in said),
                  f"{frozen_node} says it handed room {room.code} over, though its lease ran out first:\n"
                  + "\n".join(said))
            check(any(re.search(r"lease ran out .* took it over|no longer holds its lease", line) for line in said),
                  f"{frozen_node} does not say room {room.code} was taken over:\n" + "\n".join(said))
        check_games(rooms, cluster, sim_binary)
        passed = True
    finally:
        if frozen is not None:
            cluster.stop_node(frozen, "CONT")
        for room in rooms:
            for client in room.clients():
                client.stop()
        cluster.down(keep_logs=not passed)
    say(f"frozen node test took {time.monotonic() - started:.1f} s")


run(main)
