"""A --bot client loses its connection in the middle of a game and cannot
get back before the game ends without it (a server bot takes its seat over
after the grace period); then the server restarts. The client resumes into
the finished game from a snapshot (the restored room has no events to
replay), a game it never saw end: it must ask for the rematch itself, play
the next game and stop. This is what held a room in cluster_rolling_restart
when a node stopped a few milliseconds after a game's last move."""
import socket
import tempfile
import threading
import time

from harness import Cli, Server, check, run

import sys
server_binary, cli_binary = sys.argv[1], sys.argv[2]


class GatedProxy:
    """Forwards 127.0.0.1:port to the server at target_port; close_gate()
    drops every open connection and refuses new ones until open_gate()."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.open = []
        self.gate_open = True
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if not self.gate_open:
                    client.close()
                    continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pipe(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close_gate(self):
        with self.lock:
            self.gate_open = False
            for end in self.open:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()
            self.open = []

    def open_gate(self):
        with self.lock:
            self.gate_open = True

    def close(self):
        self.close_gate()
        self.listener.close()


def free_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def main():
    data_dir = tempfile.mkdtemp(prefix="gofish-cli-resume-over.")
    port = free_port()
    flags = ("--seat-grace-ms", "300")
    server = Server(server_binary, *flags, port=port, data_dir=data_dir)
    proxy = GatedProxy(port)
    bot = None
    try:
        bot = Cli(cli_binary, f"ws://127.0.0.1:{proxy.port}", "--name", "Robo", "--seats", "2", "--bots", "easy",
                  "--bot", "easy", "--games", "1", "--start-when-full", "--no-color", "--think-ms", "150")
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
        server = Server(server_binary, *flags, port=port, data_dir=data_dir)
        proxy.open_gate()
        bot.wait_for(r"^Resumed your seat in room [2-9A-Z]{5}\.$", timeout=60)
        bot.wait_for(r"^Game 2 begins!$", timeout=30)
        status = bot.finish(120)
        check(status == 0, f"the bot client exited with {status}: {bot.stderr}\n{bot.output()}")
        print("resumed into a game that ended without it, asked for the rematch and played it")
    finally:
        if bot:
            bot.stop()
        proxy.close()
        server.stop()


run(main)
