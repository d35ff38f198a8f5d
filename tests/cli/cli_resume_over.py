"""A --bot client loses its connection in the middle of a game and cannot
get back before the game ends without it (a server bot takes its seat over
after the grace period); then the server restarts. The client resumes into
the finished game from a snapshot (the restored room has no events to
replay), a game it never saw end. That game counts as one it played: with
--games 1 it stops there, with no game too many; with --games 2 it asks for
the rematch itself, plays the next game and stops. (A client that did not ask
is what held a room in cluster_rolling_restart when a node stopped a few
milliseconds after a game's last move.)"""
import shutil
import sys
import tempfile
import time

from harness import Cli, Proxy, Server, check, run

server_binary, cli_binary = sys.argv[1], sys.argv[2]


def scenario(games):
    data_dir = tempfile.mkdtemp(prefix="gofish-cli-resume-over.")
    flags = ("--seat-grace-ms", "300")
    server = Server(server_binary, *flags, data_dir=data_dir)
    proxy = Proxy(server.port)
    bot = None
    try:
        bot = Cli(cli_binary, f"ws://127.0.0.1:{proxy.port}", "--name", "Robo", "--seats", "2", "--bots", "easy",
                  "--bot", "easy", "--games", str(games), "--start-when-full", "--no-color", "--think-ms", "150")
        bot.wait_for(r"^Game 1 begins!$")
        check(not any(line.startswith("Game over!") for line in bot.lines),
              "the game ended before the connection could be cut; nothing was tested")
        proxy.close_gate()
        # The server's bot takes the seat over and plays the game out.
        deadline = time.monotonic() + 60
        while not any("game 1 over" in line for line in server.log) and time.monotonic() < deadline:
            time.sleep(0.05)
        check(any("game 1 over" in line for line in server.log),
              "the game never ended without the client:\n" + "".join(server.log[-20:]))
        check(not any(line.startswith("Game over!") for line in bot.lines), "the client saw the game end")
        server.stop()
        # The client knows only the proxy, so the restarted server may listen on any free port.
        server = Server(server_binary, *flags, data_dir=data_dir)
        proxy.target_port = server.port
        proxy.open_gate()
        bot.wait_for(r"^Resumed your seat in room [2-9A-Z]{5}\.$", timeout=60)
        bot.wait_for(r"^Game 1 ended while you were away\. ", timeout=30)
        if games > 1:
            bot.wait_for(r"^Game 2 begins!$", timeout=30)
        status = bot.finish(120)
        check(status == 0, f"the bot client exited with {status}: {bot.stderr}\n{bot.output()}")
        played = [line for line in bot.lines if line.startswith("Summary: ")]
        check(len(played) == 1 and played[0].startswith(f"Summary: {games} game"),
              f"the summary names {games} game(s): {played}\n{bot.output()}")
        check(not any(line == f"Game {games + 1} begins!" for line in bot.lines),
              f"the client played a game too many:\n{bot.output()}")
        print(f"--games {games}: resumed into a game that ended without it, counted it" +
              (", asked for the rematch and played it" if games > 1 else " and stopped"))
    finally:
        if bot:
            bot.stop()
        proxy.close()
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def main():
    scenario(1)
    scenario(2)


run(main)
