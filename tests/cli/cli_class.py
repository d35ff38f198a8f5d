"""A class from the terminal (issue 34): a teacher's gofish-cli creates a
class with a roster and runs its console by typed commands; pupils are
gofish-cli --class --bot clients. Two rounds: seating, a pupil moved between
rounds, every table's game played to the end and told on the console, the
class closed after the last round. Refusals: a name not on the roster, a
name already claimed, a code no class has, a pupil and a table the console
does not know."""
import os
import re
import sys
import tempfile
import time

from harness import Cli, Failure, Server, check, run

server_binary, cli_binary = sys.argv[1], sys.argv[2]

ROSTER = ["Ann", "Ben", "Cleo", "Dev", "Eve", "Finn"]


def pupil(server, code, name, games=2):
    return Cli(cli_binary, server.url, "--class", code, "--name", name, "--bot", "easy", "--games", str(games),
               "--no-color", "--think-ms", "0")


def main():
    clients = []
    with tempfile.TemporaryDirectory() as scratch:
        # A class's results come from its tables' stored games: SQLite.
        server = Server(server_binary, data_dir=os.path.join(scratch, "data"))
        roster = os.path.join(scratch, "roster.txt")
        with open(roster, "w") as out:
            out.write("\n".join(ROSTER) + "\n\n")
        try:
            teacher = Cli(cli_binary, server.url, "--create-class", "Class 3B", "--roster", roster, "--seats", "4",
                          "--class-bots", "easy", "--rounds", "2", "--no-color", typing=True)
            clients.append(teacher)
            code = teacher.wait_for(r"Created the class Class 3B: its code is ([2-9A-Z]{6})\.").group(1)
            teacher.wait_for(r"--class " + code + r" --name NAME")
            teacher.wait_for(r"^Pupils: 0 joined, 0 connected\.$")

            # Refusals, each with its exit status and sentence.
            stranger = pupil(server, code, "Zed")
            check(stranger.finish(30) == 7 and "not on this class's list" in stranger.stderr,
                  f"a name not on the roster: {stranger.proc.returncode} {stranger.stderr}")
            nowhere = pupil(server, "ZZZZZZ", "Ann")
            check(nowhere.finish(30) == 4 and "No class has the code ZZZZZZ" in nowhere.stderr,
                  f"a code no class has: {nowhere.proc.returncode} {nowhere.stderr}")

            pupils = [pupil(server, code.lower() if i == 0 else code, name) for i, name in enumerate(ROSTER[:5])]
            clients += pupils
            for p, name in zip(pupils, ROSTER):
                p.wait_for(r"^Joined the class Class 3B as " + name + r"\.$")
                teacher.wait_for(r"^" + name + r" joined\.$")
            again = pupil(server, code, "ann")
            check(again.finish(30) == 7 and "already has that name" in again.stderr,
                  f"a claimed name: {again.proc.returncode} {again.stderr}")

            mark = teacher.type("move zed 1")
            teacher.wait_for(r"No pupil is called 'zed'", since=mark)
            mark = teacher.type("dance")
            teacher.wait_for(r"'dance' is not a command", since=mark)

            # Round 1: five pupils at two tables of four, bots in the free seats.
            mark = teacher.type("seat")
            teacher.wait_for(r"^Seating for the next round: 5 pupils at 2 tables\.$", since=mark)
            mark = teacher.type("start")
            teacher.wait_for(r"^Round 1 started at 2 tables\.$", since=mark)
            for p in pupils:
                p.wait_for(r"^Round 1: you sit at table [12] \(room [2-9A-Z]{5}\), seat [1-4]\.$")
            for table in (1, 2):
                try:
                    teacher.wait_for(r"^Table " + str(table) + r" finished: ", timeout=90, since=mark)
                except Failure as failure:
                    teacher.type("class")
                    time.sleep(1)
                    failure = Failure(f"{failure}\n--- the console now:\n{teacher.output()}")
                    raise Failure(f"{failure}\n" + "\n".join(f"--- {name}:\n{p.output()}" for p, name in zip(pupils, ROSTER)))
            mark = teacher.type("class")
            teacher.wait_for(r"^Table 1  room [2-9A-Z]{5}  FINISHED", since=mark)
            teacher.wait_for(r"^Table 2  room [2-9A-Z]{5}  FINISHED", since=mark)
            mark = teacher.type("end")
            teacher.wait_for(r"^Round 1 is over\.", since=mark)

            # Round 2, Ann moved to the other table first.
            ann_table = int(pupils[0].wait_for(r"^Round 1: you sit at table ([12])").group(1))
            other = 3 - ann_table
            mark = teacher.type("seat")
            teacher.wait_for(r"^Seating for the next round: ", since=mark)
            mark = teacher.type("move ann 9")
            teacher.wait_for(r"^Refused: ", since=mark)
            mark = teacher.type(f"move ann {other}")
            teacher.wait_for(r"^Seating for the next round: ", since=mark)
            mark = teacher.type("class")
            teacher.wait_for(r"1\. Ann at table " + str(other), since=mark)
            # Between rounds: a line to every pupil, the chat off for the next
            # round; no round to pause.
            mark = teacher.type("message Round two is next")
            for p in pupils:
                p.wait_for(r"^Your teacher says: Round two is next$")
            teacher.type("chat off")
            teacher.type("pause")
            teacher.wait_for(r"^Refused: ", since=mark)
            check(sum(1 for line in teacher.lines[mark:] if line.startswith("Refused: ")) == 1,
                  "a refusal besides the pause between rounds:\n" + teacher.output())
            started = teacher.type("start")
            teacher.wait_for(r"^Round 2 started at 2 tables\.$", since=started)
            mark = teacher.type("pause")
            teacher.wait_for(r"^Every table is paused\.$", since=mark)
            teacher.type("resume")
            teacher.wait_for(r"^Every table plays on\.$", since=mark)
            pupils[0].wait_for(r"^Round 2: you sit at table " + str(other) + r" ")
            for p, name in zip(pupils, ROSTER):
                status = p.finish(120)
                check(status == 0, f"{name} exited with {status}: {p.stderr}\n{p.output()}")
                check(any(line.startswith(f"Summary: 2 games played by {name}") for line in p.lines),
                      f"{name} did not play both rounds:\n{p.output()}")
            for table in (1, 2):
                teacher.wait_for(r"^Table " + str(table) + r" finished: ", timeout=90, since=started)
            mark = teacher.type("results")
            teacher.wait_for(r"^Results of the class Class 3B:$", since=mark)
            for round_number in (1, 2):
                for table in (1, 2):
                    teacher.wait_for(rf"^  Round {round_number}, table {table}: #1 ", since=mark)
            for name in ROSTER[:5]:
                teacher.wait_for(rf"^  {name}: 2 games, \d+ sets?, \d+ wins?\.$", since=mark)
            mark = teacher.type("end")
            teacher.wait_for(r"^The class is over", since=mark)
            mark = teacher.type("start")
            teacher.wait_for(r"^Refused: ", since=mark)
            teacher.type("quit")
            check(teacher.finish(30) == 0, f"the teacher's console exited with {teacher.proc.returncode}: "
                                           f"{teacher.stderr}")
            print(f"class {code}: two rounds at two tables, {len(pupils)} pupils, console lines: "
                  f"{sum(1 for line in teacher.lines if re.match(r'^(Table|Round|.* joined)', line))}")
        finally:
            for client in clients:
                client.stop()
            server.stop()


run(main)
