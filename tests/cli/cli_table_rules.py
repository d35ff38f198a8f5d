"""Table rules typed into the interactive gofish-cli, inside tmux, against the
real server and an easy bot: Ann answers every ask put to her with the answer
the client offers ('answer give' or the short form 'an fish'), lays down every
book the turn line says she can ('declare <rank>'), and asks on her turns,
game after game, until she has answered both ways and declared at least once.
Offering cards she does not hold is refused with the server's sentence."""
import re
import sys
import time

from harness import Server, check, run
from terminal import Terminal

server_binary, cli_binary = sys.argv[1], sys.argv[2]

PROMPT = re.compile(r"^(?:Your turn: ask (?P<who>.*) for a rank you hold: (?P<ranks>[0-9JQKA, ]+)\."
                    r"(?: You can lay down: (?P<sets>[0-9JQKA, ]+) \('declare <rank>'\)\.)?"
                    r"|You were asked: answer with 'answer (?P<answer>give|fish)'\.)$", re.M)


def main():
    server = Server(server_binary)
    term = None
    try:
        term = Terminal(f"{cli_binary} {server.url} --name Ann --seats 2 --bots easy --table-rules; "
                        "echo \"gofish-cli exited with $?\"; sleep 120")
        term.wait_for(r"^You are the host: type 'start' once every seat is filled\.$")
        term.type_line("start")
        term.wait_for(r"^Game 1 begins!$")
        answers = {"give": 0, "fish": 0}
        declared = 0
        wrong_answer_checked = False
        handled = 0
        game = 1
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            text = term.screen()
            prompts = list(PROMPT.finditer(text))
            tail = text[prompts[-1].end():] if prompts else text
            if len(prompts) == handled and re.search(r"^Game over! ", tail, re.M):
                if answers["give"] and answers["fish"] and declared and wrong_answer_checked:
                    break
                check(game < 8, f"eight games without both answers and a declaration: {answers}, {declared}")
                term.wait_for(r"^Type 'rematch' for another game, or 'quit'\.$")
                mark = term.here()
                term.type_line("rematch")
                game += 1
                term.wait_for(rf"^Game {game} begins!$", after=mark)
                continue
            if len(prompts) > handled:
                handled = len(prompts)
                prompt = prompts[-1]
                if prompt.group("answer"):
                    answer = prompt.group("answer")
                    if answer == "fish" and not wrong_answer_checked:
                        # Handing over cards you do not hold is refused (a false
                        # "Go fish" is allowed, and costs a penalty).
                        mark = term.here()
                        term.type_line("answer give")
                        term.wait_for(r"^Refused: .+$", after=mark)
                        wrong_answer_checked = True
                    mark = term.here()
                    term.type_line("answer give" if answer == "give" else "an fish")
                    term.wait_for(r'^You said "Here you go"\.$' if answer == "give" else r'^You said "Go fish!"\.$',
                                  after=mark)
                    answers[answer] += 1
                elif prompt.group("sets"):
                    rank = prompt.group("sets").split(",")[0].strip()
                    mark = term.here()
                    term.type_line(f"declare {rank}")
                    term.wait_for(r"^You made a book of \w+!$", after=mark)
                    declared += 1
                else:
                    seat = re.findall(r"\(seat (\d)\)", prompt.group("who"))[0]
                    rank = prompt.group("ranks").split(",")[0].strip()
                    term.type_line(f"ask {seat} {rank}")
            time.sleep(0.15)
        else:
            raise term.never_appeared("both answers and a declaration")
        term.type_line("quit")
        term.wait_for(r"^gofish-cli exited with 0$")
        print(f"{game} game(s): answered give {answers['give']}, fish {answers['fish']}; declared {declared}")
    finally:
        if term:
            term.close()
        server.stop()


run(main)
