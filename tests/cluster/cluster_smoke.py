"""scripts/cluster.sh up with three nodes; a room created through HAProxy,
joined and played to game over by gofish-cli bots through HAProxy; the
joining client asked for /ws?room=CODE; the stored transcript replays; down.

    cluster_smoke.py SERVER CLI SIM
"""
import sys
import time

from cluster_harness import (Cli, Cluster, asks_recorded, asks_seen, check, check_replays, check_stream, run, say,
                             stored_transcripts)

server_binary, cli_binary, sim_binary = sys.argv[1:4]


def main():
    started = time.monotonic()
    cluster = Cluster(server_binary, nodes=3, server_flags=["--bot-delay-ms=0", "--log-level=warn"])
    say(f"cluster up in {time.monotonic() - started:.1f} s: proxy {cluster.http_url}")
    players = []
    passed = False
    try:
        host = Cli(cli_binary, cluster.ws_url, "--name", "Host", "--seats", "3", "--bots", "medium", "--bot", "easy",
                   "--think-ms", "0", "--start-when-full")
        players.append(host)
        code = host.first("created")["code"]
        guest = Cli(cli_binary, cluster.ws_url, "--name", "Guest", "--join", code, "--bot", "hard", "--think-ms", "0")
        players.append(guest)
        for player in players:
            status = player.finish(60)
            check(status == 0, f"{' '.join(player.args)} exited with {status}: {player.stderr}")
            check(any(m.get("type") == "event" and m["event"].get("type") == "game_over" for _, m in player.messages),
                  f"{' '.join(player.args)} never saw game_over")
            events, _ = check_stream(player.args[-1], player.messages)
        say(f"room {code}: a game of {len(events)} events played to the end through HAProxy; "
            f"leases now {cluster.lease_holders()}")
        check(f"/ws?room={code} " in cluster.haproxy_log(), f"HAProxy never saw a request for /ws?room={code}")
        transcripts = stored_transcripts(cluster)
        check(len(transcripts) == 1, f"{len(transcripts)} stored transcripts, not 1")
        check(asks_seen(events) == asks_recorded(transcripts[0]),
              "the asks the guest saw are not the stored transcript's")
        check_replays(sim_binary, transcripts, cluster.dir)
        passed = True
    finally:
        for player in players:
            player.stop()
        cluster.down(keep_logs=not passed)
    say(f"smoke test took {time.monotonic() - started:.1f} s")


run(main)
