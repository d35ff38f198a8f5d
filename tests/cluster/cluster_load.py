"""gofish-load through HAProxy in front of three nodes: rooms are created
round robin, their guests join at /ws?room=CODE and the room moves to the node
its code hashes to, which closes the host with 4001 `moved`; the host resumes
there. Requires no error, refusal or seat-tracker disagreement, every room
ready and finishing games in the window, some rooms moved, and a resume for
every move.

    cluster_load.py SERVER LOAD
"""
import json
import subprocess
import sys
import time

from cluster_harness import Cluster, check, run, say

server_binary, load_binary = sys.argv[1:3]
ROOMS = 24  # each lands on the room's home node by chance 1 time in 3: (1/3)^24 that none moves


def main():
    started = time.monotonic()
    cluster = Cluster(server_binary, nodes=3,
                      server_flags=["--bot-delay-ms=0", "--log-level=warn", "--message-rate=100000",
                                    "--message-burst=100000"])
    passed = False
    try:
        say(f"cluster up in {time.monotonic() - started:.1f} s: proxy {cluster.http_url}")
        done = subprocess.run([load_binary, "--url", f"{cluster.ws_url}/ws", "--rooms", str(ROOMS), "--players", "4",
                               "--seconds", "5", "--ramp-seconds", "1", "--preset", "all", "--quiet"],
                              capture_output=True, text=True, timeout=90)
        say(done.stderr.strip())
        lines = done.stdout.strip().splitlines()
        check(lines, f"gofish-load printed no report (exit {done.returncode})")
        report = json.loads(lines[-1])
        say(f"{report['actions_per_second']:.0f} actions/s, {report['games']} games, rooms moved "
            f"{report.get('rooms_moved')}, moves {report.get('moves')}, resumes {report.get('resumes')} "
            f"({report.get('resume_snapshots')} by snapshot), errors {report['errors']}")
        for figure in ("errors", "disagreements", "refused"):
            check(report[figure] == 0, f"{report[figure]} {figure}")
        check(done.returncode == 0, f"gofish-load exited with {done.returncode}")
        check(report["rooms_ready"] == ROOMS, f"{report['rooms_ready']} of {ROOMS} rooms ready")
        check(report["rooms_finishing_games"] == ROOMS,
              f"{report['rooms_finishing_games']} of {ROOMS} rooms finished a game in the window")
        check(report["rooms_moved"] > 0, "no room moved: every host was created on its room's home node")
        check(report["resumes"] == report["moves"] == report["reconnects"],
              f"{report['moves']} moves, {report['reconnects']} reconnects, {report['resumes']} resumes")
        passed = True
    finally:
        cluster.down(keep_logs=not passed)
    say(f"took {time.monotonic() - started:.1f} s")


run(main)
