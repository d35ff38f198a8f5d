"""A --bot client plays through a TCP proxy that cuts its connection in the
middle of the game, twice; the client must resume its seat with its token
(the server replays what it missed) and the game must reach its end with
the winner the server announced in the summary. Then a person's interactive
client (in tmux) loses its connection on its turn: it resumes by itself,
shows the turn again, and the ask typed after it is played."""
import sys
import time

from harness import Cli, Proxy, Server, check, run
from terminal import Terminal

server_binary, cli_binary = sys.argv[1], sys.argv[2]


def count(client, text):
    return sum(text in line for line in client.lines)


def main():
    # A short bot delay so the game lasts long enough to be cut twice.
    server = Server(server_binary, bot_delay_ms=60)
    proxy = Proxy(server.port)
    bot = None
    term = None
    try:
        bot = Cli(cli_binary, f"ws://127.0.0.1:{proxy.port}", "--name", "Robo", "--seats", "3", "--bots",
                  "medium,easy", "--bot", "medium", "--games", "1", "--start-when-full", "--no-color",
                  "--think-ms", "60")
        bot.wait_for(r"^Game 1 begins!$")
        for cut in (1, 2):
            asked_before = count(bot, " asked ")
            deadline = time.monotonic() + 30
            # Two asks apart: a game lasts thirty asks or more, and a short one (about twenty)
            # must not end before the second cut.
            while count(bot, " asked ") < asked_before + 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            check(not any(line.startswith("Game over!") for line in bot.lines),
                  "the game ended before the connection could be cut; nothing was tested:\n" + bot.output())
            proxy.cut()
            bot.wait_for(r"Reconnecting to resume the seat\.\.\.$")
            deadline = time.monotonic() + 30
            while count(bot, "Resumed your seat in room") < cut and time.monotonic() < deadline:
                time.sleep(0.05)
            check(count(bot, "Resumed your seat in room") == cut, f"the seat was not resumed after cut {cut}:\n"
                  + bot.output())
        status = bot.finish(120)
        check(status == 0, f"the bot client exited with {status}: {bot.stderr}\n{bot.output()}")
        check(proxy.accepted == 3, f"expected three connections (two resumes), saw {proxy.accepted}")
        over = [line for line in bot.lines if line.startswith("Game over! ")]
        summary = [line.strip() for line in bot.lines if line.startswith("  Game 1: winner")]
        check(len(over) == 1 and len(summary) == 1, "the game did not end once with a summary:\n" + bot.output())
        check(not any(line.startswith("Game 2 begins!") for line in bot.lines), "a second game began")
        # The narrated end and the summary name the same winners.
        names = summary[0].split(": ", 2)[2].split(" (scores")[0]
        announced = over[0][len("Game over! "):]
        expected = "You win!" if names == "Robo" else (f"{names} wins!" if ", " not in names else None)
        if expected:
            check(announced == expected, f"summary {summary[0]!r} disagrees with {over[0]!r}")
        print(f"resumed twice; {summary[0]}")

        # A person at the keyboard: the connection drops while it is Ann's turn.
        term = Terminal(f"{cli_binary} ws://127.0.0.1:{proxy.port} --name Ann --seats 2 --bots easy; "
                        "echo \"gofish-cli exited with $?\"; sleep 120")
        term.wait_for(r"^You are the host: type 'start' once every seat is filled\.$")
        term.type_line("start")
        term.wait_for(r"^Your turn: ask ", timeout=30)
        mark = term.here()
        proxy.cut()
        term.wait_for(r"Reconnecting to resume the seat\.\.\.$", after=mark)
        term.wait_for(r"^Resumed your seat in room [2-9A-Z]{5}\.$", after=mark)
        prompt = term.wait_for(r"^Your turn: ask .*\(seat (\d)\) for a rank you hold: ([0-9JQKA]+)", after=mark)
        mark = term.here()
        term.type_line(f"ask {prompt.group(1)} {prompt.group(2)}")
        term.wait_for(r"^You asked Easy bot for \w+\.$", after=mark)
        term.type_line("quit")
        term.wait_for(r"^gofish-cli exited with 0$")
        check(proxy.accepted == 5, f"expected two connections for Ann (one resume), saw {proxy.accepted - 3}")
        print("the interactive client resumed on its turn and played the ask typed after it")
    finally:
        if bot:
            bot.stop()
        if term:
            term.close()
        proxy.close()
        server.stop()


run(main)
