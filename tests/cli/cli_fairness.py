"""A served game's deal checked by the terminal client (docs/FAIRNESS.md).

gofish-cli plays one game as a bot against a bot on the real gofish-server
(SQLite storage in a scratch folder), contributing to the deal by itself. Its
--json output shows the commitment before the deal and no seed before the
game is over. The finished game's transcript, as GET
/api/games/<id>/transcript serves it (before and after a restart), carries
the seed and the client's contribution, and `gofish-cli verify` checks it fair; the same file with two
cards swapped, or with a seed that does not match the commitment, fails with
the sentence that says so."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import urllib.request

from harness import Cli, Server, check, run

server_binary, cli_binary = sys.argv[1], sys.argv[2]


def verify(path):
    return subprocess.run([cli_binary, "verify", path], capture_output=True, text=True, timeout=30)


def main():
    with tempfile.TemporaryDirectory() as work:
        server = Server(server_binary, data_dir=work)
        try:
            client = Cli(cli_binary, server.url, "--name", "Ann", "--seats", "2", "--bots", "easy", "--bot", "easy",
                         "--games", "1", "--think-ms", "0", "--start-when-full", "--json")
            status = client.finish(120)
            check(status == 0, f"the game exited with {status}: {client.stderr}")
            messages = [json.loads(line) for line in client.lines if line.startswith("{")]
            rooms = [m for m in messages if m.get("type") == "room"]
            check(rooms and rooms[0].get("next_deal"), "the first room snapshot carries no next_deal")
            commitment = rooms[0]["next_deal"]["commitment"]
            over = next(i for i, m in enumerate(messages)
                        if m.get("type") == "event" and m["event"].get("type") == "game_over")
            before = json.dumps(messages[:over + 1])
            check('"seed"' not in before, "a seed went out before the game was over")
            committed = [m for m in messages[over:] if m.get("type") == "event"
                         and m["event"].get("type") == "deal_committed"]
            check(committed and committed[0]["event"]["commitment"] != commitment,
                  "no fresh commitment after the game")

            with sqlite3.connect(os.path.join(work, "gofish.sqlite")) as db:
                ids = [row[0] for row in db.execute("SELECT game_id FROM games")]
            check(len(ids) == 1, f"one game kept, not {ids}")
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/games/{ids[0]}/transcript",
                                        timeout=10) as reply:
                transcript = json.loads(reply.read())
        finally:
            server.stop()
        # A restart keeps the deal's record: the stored set-up holds it.
        server = Server(server_binary, data_dir=work)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/games/{ids[0]}/transcript",
                                        timeout=10) as reply:
                again = json.loads(reply.read())
        finally:
            server.stop()
        check(again.get("fairness") == transcript.get("fairness"), "the restarted server serves another fairness record")

        fairness = transcript.get("fairness")
        check(fairness and fairness["commitment"] == commitment, f"the served fairness record: {fairness}")
        check(fairness["contributions"][0] is not None and fairness["contributions"][1] is None,
              f"Ann contributed and the bot did not: {fairness['contributions']}")
        served = os.path.join(work, "served.json")
        with open(served, "w") as out:
            json.dump(transcript, out)
        good = verify(served)
        check(good.returncode == 0 and good.stdout.strip() == "This deal was fair: checked.",
              f"verify of the served game: {good.returncode} {good.stdout!r} {good.stderr!r}")

        swapped = dict(transcript, deck=list(transcript["deck"]))
        swapped["deck"][50], swapped["deck"][51] = swapped["deck"][51], swapped["deck"][50]
        path = os.path.join(work, "swapped.json")
        with open(path, "w") as out:
            json.dump(swapped, out)
        bad = verify(path)
        check(bad.returncode == 1 and bad.stderr.startswith(
            "The deck is not the one the seed and the contributions give: card 51 is "),
              f"verify of a swapped card: {bad.returncode} {bad.stderr!r}")

        wrong = dict(transcript, fairness=dict(fairness, seed="00" * 32))
        path = os.path.join(work, "wrong-seed.json")
        with open(path, "w") as out:
            json.dump(wrong, out)
        bad = verify(path)
        check(bad.returncode == 1 and bad.stderr.strip() ==
              "The seed does not match the commitment: this is not the seed the server committed to before the deal.",
              f"verify of a wrong seed: {bad.returncode} {bad.stderr!r}")

        # A shared deal whose seed is not revealed yet (docs/FAIRNESS.md,
        # "Shared deals"): a plain sentence and no failure; an ordinary deal
        # without its seed still fails.
        shared = {k: v for k, v in fairness.items() if k != "seed"}
        shared.update(contributions=[], shared=True, day="2026-11-30")
        path = os.path.join(work, "not-revealed.json")
        with open(path, "w") as out:
            json.dump(dict(transcript, fairness=shared), out)
        pending = verify(path)
        check(pending.returncode == 0 and pending.stdout.startswith("Not checked yet: ") and
              "once the day of today's deal (2026-11-30, UTC) is over" in pending.stdout,
              f"verify of a shared deal not revealed yet: {pending.returncode} {pending.stdout!r} {pending.stderr!r}")
        path = os.path.join(work, "no-seed.json")
        with open(path, "w") as out:
            json.dump(dict(transcript, fairness={k: v for k, v in fairness.items() if k != "seed"}), out)
        unrevealed = verify(path)
        check(unrevealed.returncode == 1, f"verify of a room's deal without its seed: {unrevealed.returncode}")
        print(good.stdout.strip())
        print(bad.stderr.strip())
        print(pending.stdout.strip())


run(main)
