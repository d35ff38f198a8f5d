"""A whole game typed into the interactive gofish-cli as a person would,
inside a detached tmux (its own socket, fixed size) against the real server
and two server bots. The screen is read with capture-pane and checked at
several points: the waiting room, help, chat, the table, the hand, a refused ask
with the server's sentence and a hint, every turn until game over, the log,
and the exit."""
import re
import sys
import time

from harness import Server, check, run
from terminal import Terminal

server_binary, cli_binary = sys.argv[1], sys.argv[2]
term = None


def screen():
    return term.screen()


def here():
    return term.here()


def type_line(text):
    term.type_line(text)


def wait_for(pattern, timeout=20, after=0):
    return term.wait_for(pattern, timeout, after)


TURN = re.compile(r"^Your turn: ask (.*) for a rank you hold: ([0-9JQKA, ]+)\.$", re.M)


def play_turns(checked_refusal):
    """Plays every turn of the current game; returns whether the refused ask
    was checked (it is checked at the first turn this session gets)."""
    text = screen()
    game_start = list(re.finditer(r"^Game \d+ begins!$", text, re.M))[-1].start()
    handled = len(TURN.findall(text[:game_start]))
    asks = 0
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        text = screen()
        turns = list(TURN.finditer(text))
        over = re.search(r"^Game over! .*$", text[turns[-1].end():] if turns else text, re.M)
        if over and len(turns) == handled:
            return checked_refusal, asks
        if len(turns) > handled:
            turn = turns[-1]
            seats = re.findall(r"\(seat (\d)\)", turn.group(1))
            ranks = [r.strip() for r in turn.group(2).split(",")]
            check(seats and ranks, f"cannot read the turn line {turn.group(0)!r}")
            if not checked_refusal:
                missing = next(r for r in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
                               if r not in ranks)
                mark = here()
                type_line("hand")
                wait_for(r"^Your hand \(\d+ cards?\):$", after=mark)
                mark = here()
                type_line(f"ask {seats[0]} {missing}")
                wait_for(r"^Refused: You can only ask for a rank you hold, and you have no \w+\. "
                         r"Ask for a rank in your hand; 'hand' shows it\.$", after=mark)
                checked_refusal = True
            handled = len(turns)
            target = seats[asks % len(seats)]
            type_line(f"ask {target} {ranks[asks % len(ranks)]}")
            asks += 1
        time.sleep(0.15)
    raise term.never_appeared("Game over!")


def main():
    global term
    server = Server(server_binary)
    try:
        term = Terminal(f"{cli_binary} {server.url} --name Ann --seats 3 --bots medium,easy; "
                        "echo \"gofish-cli exited with $?\"; sleep 120")
        wait_for(r"^Created room [2-9A-Z]{5}\. Others join with: gofish-cli ws://127\.0\.0\.1:\d+ --join [2-9A-Z]{5}")
        wait_for(r"^  Seat 2  Medium bot$")
        wait_for(r"^You are the host: type 'start' once every seat is filled\.$")
        wait_for(r"^gofish> $")

        type_line("help")
        wait_for(r"^  ask <player> <rank> .*\[a\]$")
        wait_for(r"^  quit .*\[q\]$")

        mark = here()
        type_line("say good_luck")
        wait_for(r"^Ann: Good luck!$", after=mark)
        mark = here()
        type_line("s nice table")
        wait_for(r"^Ann: nice table$", after=mark)

        mark = here()
        type_line("start")
        wait_for(r"^Game 1 begins!$", after=mark)
        wait_for(r"^You got (five|seven) cards\.$", after=mark)
        mark = here()
        type_line("t")
        wait_for(r"^  Seat 2  Medium bot: \d+ cards?, books: .*\(score \d+\)", after=mark)
        wait_for(r"^Stock: \d+ cards\.", after=mark)
        mark = here()
        type_line("rules")
        wait_for(r"^Rules \(classic\): ", after=mark)

        checked_refusal = False
        total_asks = 0
        for game in range(1, 4):
            checked_refusal, asks = play_turns(checked_refusal)
            total_asks += asks
            wait_for(r"^Game over! (You win!|.* wins!|A tie: .* share the win\.)$")
            wait_for(r"^Type 'rematch' for another game, or 'quit'\.$")
            if checked_refusal and total_asks > 0:
                break
            # The deal ended the game before Ann's first turn (rare): play another.
            mark = here()
            type_line("rematch")
            wait_for(rf"^Game {game + 1} begins!$", after=mark)
        check(checked_refusal and total_asks > 0, "Ann never got a turn in three games")

        mark = here()
        type_line("log")
        wait_for(r"^Game over! ", after=mark)
        mark = here()
        type_line("table")
        wait_for(r"^Game \d+ is over\. ", after=mark)
        type_line("quit")
        wait_for(r"^gofish-cli exited with 0$")
        print(f"played {total_asks} asks by typing; the screen ends:")
        print("\n".join(screen().rstrip().splitlines()[-6:]))
    finally:
        if term:
            term.close()
        server.stop()


run(main)
