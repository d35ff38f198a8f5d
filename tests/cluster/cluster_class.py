"""Issue 34, item 7: a class on a cluster, and the loss of its node mid-round.
PostgreSQL, HAProxy and three nodes (scripts/cluster.sh). A teacher's
gofish-cli creates a class through the proxy (one round, tables of four);
eight gofish-cli --bot pupils join it by its code and play. Every socket of
the class names the class's code (/ws?room=CODE), so the proxy keeps the
class and its tables on one node. A spectator then watches each table by the
table's own code through the proxy (gofish-cli --join TABLE --spectate, as
the console's Watch link opens /?room=TABLE): the proxy may send it to
another node, which must not take the table away from its class but answer
room/class_table with the class's code, by which the spectator connects
again. The test checks that the event's lease and both tables' leases are
that node's, with both spectators watching and every pupil having seen a few
asks since; that the teacher's console keeps hearing both tables (each table's
finish); and that a spectator the proxy sent elsewhere was told the class's
code. Then that node is killed with SIGKILL. Then:
- the event's lease is another node's, and the tables' leases with it;
- the teacher's console comes back (it resumes with the teacher token): the
  roster (eight pupils joined), both tables, each table's finish, and the
  class's results once the round is ended;
- every pupil's game finishes (each gofish-cli exits 0 after its game);
- no acknowledged decision is lost or doubled: each pupil saw no room
  version with two contents, and the asks it saw of its game are those of
  exactly one stored transcript (all of them, when it saw every version; in
  order, when its resume got a snapshot), and every transcript replays.
On a server that refuses classes on a cluster (create_event answered
event/unavailable) the teacher never gets a code, and the test fails there.

    cluster_class.py SERVER CLI SIM
"""
import os
import re
import sys
import time

from cluster_harness import (Cli, Cluster, Failure, asks_recorded, asks_so_far, check, check_replays,
                             check_stream, games_seen, is_subsequence, run, say, stored_transcripts)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "cli"))
from harness import Cli as TypedCli  # noqa: E402  (the terminal client's harness: a console typed into)
from harness import Failure as CliFailure  # noqa: E402

server_binary, cli_binary, sim_binary = sys.argv[1:4]

PUPILS = 8
ASKS_BEFORE_KILL = 3  # each pupil's, as it saw them
PUPIL_THINK_MS = "150"


def main():
    started = time.monotonic()
    cluster = Cluster(server_binary, nodes=3, server_flags=["--bot-delay-ms=50", "--log-level=info"])
    clients = []
    passed = False
    try:
        teacher = TypedCli(cli_binary, cluster.ws_url, "--create-class", "Cluster class", "--seats", "4",
                           "--class-bots", "easy", "--rounds", "1", "--no-color", typing=True)
        clients.append(teacher)
        code = teacher.wait_for(r"its code is ([2-9A-Z]{6})\.").group(1)
        pupils = [Cli(cli_binary, cluster.ws_url, "--class", code, "--name", f"Pupil{i + 1}", "--bot", "easy",
                      "--games", "1", "--think-ms", PUPIL_THINK_MS) for i in range(PUPILS)]
        clients += pupils
        for i in range(PUPILS):
            teacher.wait_for(rf"^Pupil{i + 1} joined\.$")
        mark = teacher.type("seat")
        teacher.wait_for(r"^Seating for the next round: 8 pupils at 2 tables\.$", since=mark)
        mark = teacher.type("start")
        teacher.wait_for(r"^Round 1 started at 2 tables\.$", since=mark)
        seats = [p.first("event_seat") for p in pupils]
        tables = sorted({seat["room"] for seat in seats})
        check(len(tables) == 2, f"the pupils were seated in {len(tables)} rooms, not 2")

        # Each table watched by its own code through the proxy.
        watchers = [Cli(cli_binary, cluster.ws_url, "--join", table, "--spectate", "--name", f"Watcher{k + 1}",
                        "--games", "1") for k, table in enumerate(tables)]
        clients += watchers
        for watcher in watchers:
            watcher.first("joined")
        asks_then = [asks_so_far(p) for p in pupils]
        deadline = time.monotonic() + 60
        while any(asks_so_far(w) < 1 for w in watchers) or \
                any(asks_so_far(p) < max(ASKS_BEFORE_KILL, seen + 1) for p, seen in zip(pupils, asks_then)):
            check(time.monotonic() < deadline, "the tables did not get going in 60 s")
            time.sleep(0.05)
        holders = cluster.lease_holders()
        owner = holders.get(code)
        check(owner is not None, f"no lease for the event {code}: {holders}")
        check(all(holders.get(room) == owner for room in tables),
              f"the event's tables are not on its node {owner} with spectators watching them by their own codes: "
              f"{[(room, holders.get(room)) for room in tables]}")
        redirected = [k for k, w in enumerate(watchers)
                      if any(m.get("type") == "error" and m.get("code") == "room/class_table" for _, m in w.messages)]
        for k in redirected:
            told = [m for _, m in watchers[k].messages if m.get("code") == "room/class_table"][0]
            check(told.get("event") == code, f"Watcher{k + 1} was told to route by {told.get('event')}, not {code}")
        say(f"both tables watched by their own codes, still on {owner}; "
            f"{len(redirected)} of the spectators were told the class's code by another node")
        victim = int(owner.removeprefix("node"))
        say(f"class {code} and its tables {tables} on {owner}; every pupil has seen {ASKS_BEFORE_KILL} asks; "
            f"SIGKILL {owner} ({cluster.node_process(victim)})")
        killed = len(teacher.lines)
        killed_at = time.monotonic()
        cluster.kill_node(victim)

        for i, p in enumerate(pupils):
            status = p.finish(max(0.1, killed_at + 90 - time.monotonic()))
            check(status == 0, f"Pupil{i + 1} exited with {status}: {p.stderr}")
        say(f"every pupil's game finished, {time.monotonic() - killed_at:.1f} s after the kill")
        for table in (1, 2):
            teacher.wait_for(rf"^Table {table} finished: ", timeout=30, since=killed)
        mark = teacher.type("class")
        teacher.wait_for(r"^Pupils: 8 joined, ", since=mark)
        for table in (1, 2):
            teacher.wait_for(rf"^Table {table}  room [2-9A-Z]{{5}}  FINISHED", since=mark)
        moved = cluster.lease_holders()
        check(moved.get(code) not in (None, owner), f"the event's lease after the kill: {moved.get(code)}")
        mark = teacher.type("end")
        teacher.wait_for(r"^The class is over", since=mark)
        mark = teacher.type("results")
        teacher.wait_for(r"^Results of the class Cluster class:$", since=mark)
        for table in (1, 2):
            teacher.wait_for(rf"^  Round 1, table {table}: #1 ", since=mark)
        say(f"the console came back on {moved.get(code)}: roster, tables, their finish and the results")

        transcripts = stored_transcripts(cluster)
        check(len(transcripts) == 2, f"{len(transcripts)} stored transcripts for 2 tables")
        recorded = [asks_recorded(t) for t in transcripts]
        whole = 0
        for i, p in enumerate(pupils):
            name = f"Pupil{i + 1}"
            events, skips = check_stream(name, p.messages)
            seen = games_seen(events)
            check(len(seen) <= 1, f"{name} saw {len(seen)} games")
            for asks in seen:
                if skips == 0:
                    matches = [k for k, stored in enumerate(recorded) if stored == asks]
                    whole += 1
                else:
                    matches = [k for k, stored in enumerate(recorded) if is_subsequence(asks, stored)]
                check(len(matches) == 1, f"{name}: the {len(asks)} asks it saw are in {len(matches)} stored "
                                         f"transcripts, not exactly one")
        say(f"{whole} pupils saw every version of their game and exactly its stored asks; the others a part, "
            f"in order")
        check_replays(sim_binary, transcripts, cluster.dir)
        teacher.type("quit")
        check(teacher.finish(30) == 0, f"the teacher's console exited with {teacher.proc.returncode}")
        passed = True
    except (Failure, CliFailure) as failure:
        raise Failure(f"{failure}\n--- the teacher's console:\n"
                      + "\n".join(clients[0].lines[-40:] if clients else [])) from None
    finally:
        for client in clients:
            client.stop()
        cluster.down(keep_logs=not passed)
    say(f"class failover test took {time.monotonic() - started:.1f} s")


run(main)
