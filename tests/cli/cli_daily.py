"""Two gofish-cli --daily --bot runs, one after the other, play today's deal
(--storage none: the tally in the server's memory) and print how their game
compares: the first is the day's first game, the second counts two, and the
best is the larger of the two. --daily with --join is refused."""
import re
import subprocess
import sys

from harness import Cli, Server, check, run

server_binary, cli_binary = sys.argv[1], sys.argv[2]

LINE = re.compile(r"Today's deal \((\d{4}-\d\d-\d\d)\): you made (\d+) sets?\. (.*) The best today: (\d+) sets?\.")


def play(server, name):
    client = Cli(cli_binary, server.url, "--daily", "--name", name, "--bot", "medium", "--no-color",
                 "--think-ms", "0")
    status = client.finish(120)
    check(status == 0, f"--daily {name} exited with {status}: {client.stderr}\n{client.output()}")
    found = [LINE.search(line) for line in client.lines]
    found = [m for m in found if m]
    check(len(found) == 1, f"--daily {name} printed no result line (or several):\n{client.output()}")
    check(any(line.startswith("Summary: 1 game played by") for line in client.lines),
          f"--daily {name} printed no summary:\n{client.output()}")
    return found[0]


def main():
    server = Server(server_binary)
    try:
        first = play(server, "Ann")
        check(first.group(3) == "Yours is the first game counted today.", f"the first game: {first.group(0)!r}")
        check(first.group(2) == first.group(4), f"the first game is the best: {first.group(0)!r}")
        second = play(server, "Ben")
        check(second.group(1) == first.group(1), "both games are of the same day")
        check(re.fullmatch(r"That beats \d+% of today's 2 games \(a tie counts as half\)\.", second.group(3)) is not None,
              f"the second game counts two: {second.group(0)!r}")
        check(int(second.group(4)) == max(int(first.group(2)), int(second.group(2))),
              f"the best of the two: {second.group(0)!r}")
        refused = subprocess.run([cli_binary, server.url, "--daily", "--join", "K7QXM"], capture_output=True, text=True,
                                 timeout=30)
        check(refused.returncode == 2 and "--daily" in refused.stderr, f"--daily --join: {refused.returncode} {refused.stderr}")
        print(first.group(0))
        print(second.group(0))
    finally:
        server.stop()


run(main)
