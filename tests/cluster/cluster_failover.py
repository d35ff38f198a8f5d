"""Issue 18's failover test. PostgreSQL, HAProxy and three nodes
(scripts/cluster.sh); 30 rooms over every preset, with and without table
rules, each with a server bot, a turn timer in every third room, a
spectator, and two seats played by gofish-cli --bot through HAProxy (the
short `pairs` games three in a row, the others one). Once every room has
ten decisions (asks its spectator saw), the node holding the
most rooms' leases (room_lease) is killed with SIGKILL. Then:
- every seat of its rooms played by gofish-cli resumes on a survivor, and the
  p99 of the time from the kill to the resumed seat (the client's `joined`
  with `resumed`) is at most 3 s;
- every game finishes (every client exits 0 after its game);
- no client is sent a room version with two contents, or skips one;
- no acknowledged decision is lost or doubled: the asks each client saw of
  each game, every version once, are exactly those of one stored transcript
  (a client whose resume got a snapshot instead of the missed events saw a
  part of them, in order), and the room's clients saw the same games;
- every stored transcript replays (gofish-sim --replay).

The nodes keep the lease scripts/cluster.sh gives them (--lease-ttl-ms,
2 s): a dead node's rooms are taken over once its lease runs out, 1.3 to
2 s after the kill as it renews every 667 ms, inside the 3 s allowed.

    cluster_failover.py SERVER CLI SIM
"""
import sys
import time

from cluster_harness import Cluster, failover_check, run, say

server_binary, cli_binary, sim_binary = sys.argv[1:4]

ROOMS = 30
DECISIONS_BEFORE_KILL = 10
MAX_P99_SECONDS = 3.0
THINK_MS = "50"  # the gofish-cli bots' pause before each decision; the server bots' is the same


def main():
    started = time.monotonic()
    cluster = Cluster(server_binary, nodes=3,
                      server_flags=[f"--bot-delay-ms={THINK_MS}", "--log-level=info"])
    rooms = []
    passed = False
    try:
        failover_check(cluster, cli_binary, sim_binary, ROOMS, THINK_MS, DECISIONS_BEFORE_KILL, MAX_P99_SECONDS,
                       finish_by=started + 150, rooms=rooms)
        passed = True
    finally:
        for room in rooms:
            for client in room.clients():
                client.stop()
        cluster.down(keep_logs=not passed)
    say(f"failover test took {time.monotonic() - started:.1f} s")


run(main)
