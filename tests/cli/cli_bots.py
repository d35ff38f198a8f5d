"""Two gofish-cli --bot clients and a server bot play a room to the end,
watched by a spectator who came in by the invite link with --json; each
bot client's summary must name the winner the server announced in game_over.
Then a --bot client plays two card-asking games under table rules with a turn timer,
and a --games run whose host leaves stops with its summary instead of waiting."""
import sys

from harness import Cli, Server, check, run

server_binary, cli_binary = sys.argv[1], sys.argv[2]


def expected_summary(game_over, names):
    winners = [names[seat] for seat in game_over["winners"]]
    label = "winner" if len(winners) == 1 else "winners"
    return f"Game 1: {label}: {', '.join(winners)} ("


def main():
    server = Server(server_binary)
    clients = []
    try:
        host = Cli(cli_binary, server.url, "--name", "Host", "--create", "--seats", "3", "--bots", "medium",
                   "--bot", "hard", "--games", "1", "--start-when-full", "--no-color", "--think-ms", "0")
        clients.append(host)
        code = host.wait_for(r"Created room ([2-9A-Z]{5})\.").group(1)
        spectator = Cli(cli_binary, f"http://127.0.0.1:{server.port}/r/{code}", "--spectate", "--json",
                        "--name", "Watcher", "--games", "1")
        clients.append(spectator)
        spectator.wait_for(r'"type":"joined"')
        guest = Cli(cli_binary, server.url, "--join", code.lower(), "--name", "Guest", "--bot", "medium",
                    "--games", "1", "--no-color", "--think-ms", "0")
        clients.append(guest)
        for client in clients:
            status = client.finish(120)
            check(status == 0, f"{' '.join(client.args)} exited with {status}: {client.stderr}\n{client.output()}")

        messages = spectator.messages()
        check(all(isinstance(m, dict) and "type" in m for m in messages), "--json printed something else")
        check(len(messages) == len(spectator.lines), "the spectator's stdout holds lines that are not JSON")
        started = [m["event"] for m in messages if m["type"] == "event" and m["event"]["type"] == "game_started"]
        overs = [m["event"] for m in messages if m["type"] == "event" and m["event"]["type"] == "game_over"]
        check(len(started) == 1 and len(overs) == 1, "the spectator did not see exactly one game start and end")
        names = [player["name"] for player in started[0]["players"]]
        check(names == ["Host", "Medium bot", "Guest"], f"unexpected seating {names}")
        expected = expected_summary(overs[0], names)
        for client in (host, guest):
            summary = [line for line in client.lines if line.startswith("  Game 1:")]
            check(len(summary) == 1 and summary[0].strip().startswith(expected),
                  f"the summary of {client.args[2:4]} does not name the winner the server announced "
                  f"({expected!r}):\n{client.output()}")
        check(any(line.startswith("Summary: 1 game played by Host (seat 1) with the hard bot") for line in host.lines),
              "the host's summary header is missing")
        check(any(line.startswith("Summary: 1 game played by Guest (seat 3) with the medium bot") for line in guest.lines),
              "the guest's summary header is missing")
        print(f"room {code}: {expected}")

        # Card asks under table rules (answers and declarations are the bots'
        # decisions too), two games with a rematch between them.
        table = Cli(cli_binary, server.url, "--name", "Tabler", "--preset", "specific-card", "--table-rules",
                    "--seats", "3", "--bots", "easy,hard", "--timer", "30", "--bot", "medium", "--games", "2",
                    "--start-when-full",
                    "--no-color", "--think-ms", "0")
        clients.append(table)
        status = table.finish(120)
        check(status == 0, f"the table-rules game exited with {status}: {table.stderr}\n{table.output()}")
        check(not any("refused the bot's move" in line for line in table.lines),
              "the server refused a move the remote bot chose:\n" + table.output())
        check(sum(line.startswith("  Game ") for line in table.lines) == 2, "no summary of two games")
        check("You have 30 seconds to ask." in table.lines, "the room has no turn timer")
        check(any(line.startswith("Tabler won ") and line.endswith(" of 2.") for line in table.lines),
              "the summary does not count Tabler's wins")

        # A --games run whose host leaves after the first game: the guest
        # asks for a rematch, the server gives the empty seat a bot, and the
        # guest plays all three games.
        leaver = Cli(cli_binary, server.url, "--name", "Leaver", "--create", "--seats", "2", "--bot", "easy",
                     "--games", "1", "--start-when-full", "--no-color", "--think-ms", "0")
        clients.append(leaver)
        code = leaver.wait_for(r"Created room ([2-9A-Z]{5})\.").group(1)
        stayer = Cli(cli_binary, server.url, "--join", code, "--name", "Stayer", "--bot", "easy", "--games", "3",
                     "--no-color", "--think-ms", "0")
        clients.append(stayer)
        check(leaver.finish(60) == 0, f"the leaving host failed: {leaver.stderr}\n{leaver.output()}")
        status = stayer.finish(60)
        check(status == 0, f"the guest left alone exited with {status}: {stayer.stderr}\n{stayer.output()}")
        check(any(line.startswith("Summary: 3 games played by Stayer") for line in stayer.lines),
              "the guest did not play three games:\n" + stayer.output())
        check(any("Medium bot" in line for line in stayer.lines),
              "no bot took the empty seat:\n" + stayer.output())
    finally:
        for client in clients:
            client.stop()
        server.stop()


run(main)
