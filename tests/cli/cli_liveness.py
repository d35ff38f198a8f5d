"""gofish-cli finds out a server that stops answering, and tries again:
- a try at connecting that gets no answer (no upgrade, or no welcome) is
  given up after --handshake-timeout-ms and made again, until
  --connect-timeout-ms (exit 3);
- a server that sends nothing while it waits for players, but is alive,
  answers the client's pings: the connection stays;
- a server frozen (SIGSTOP) mid-game is taken for gone after
  --liveness-timeout-ms; the client tries again, each try given up after the
  handshake timeout while the server stays frozen, and once the server runs
  again (SIGCONT) the seat is resumed and the game finishes."""
import base64
import hashlib
import os
import signal
import socket
import sys
import threading
import time

from harness import Cli, Server, check, run

server_binary, cli_binary = sys.argv[1], sys.argv[2]


class SilentServer:
    """Accepts connections and never answers a request; with upgrade=True it
    accepts the WebSocket upgrade and then never sends a frame. Counts the
    connections."""

    def __init__(self, upgrade):
        self.upgrade = upgrade
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.held = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            conn, _ = self.listener.accept()
            self.connections += 1
            self.held.append(conn)
            if not self.upgrade:
                continue
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                request += chunk
            key = [line.split(":", 1)[1].strip() for line in request.decode().split("\r\n")
                   if line.lower().startswith("sec-websocket-key:")][0]
            accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
            conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")


def unanswered_tries():
    for upgrade, sentence in ((False, "did not answer within"), (True, "did not answer the hello within")):
        silent = SilentServer(upgrade)
        started = time.monotonic()
        client = Cli(cli_binary, f"ws://127.0.0.1:{silent.port}", "--name", "Ann", "--handshake-timeout-ms", "300",
                     "--connect-timeout-ms", "1000")
        status = client.finish(20)
        took = time.monotonic() - started
        check(status == 3, f"exit {status}, not 3, from a server that never answers: {client.stderr}")
        check(sentence in client.stderr, f"gofish-cli did not say {sentence!r}: {client.stderr!r}")
        check(silent.connections >= 3, f"{silent.connections} tries in 1 s of 300 ms each, not 3 or 4")
        check(took < 5, f"gave up after {took:.1f} s, not about 1 s")
        print(f"{'no welcome' if upgrade else 'no upgrade'}: {silent.connections} tries, exit 3 after {took:.2f} s")


def quiet_server_stays(server):
    # A room that waits for players: nothing is sent, but the server answers pings.
    host = Cli(cli_binary, server.url, "--name", "Host", "--seats", "3", "--no-color", "--liveness-timeout-ms", "600")
    try:
        host.wait_for(r"Created room ([2-9A-Z]{5})\.")
        time.sleep(3)
        check(not any("stopped answering" in line or "Reconnect" in line for line in host.lines),
              "a quiet but live server was taken for gone:\n" + host.output())
        print("a room waiting for players for 3 s: the connection stayed (liveness 600 ms)")
    finally:
        host.stop()


def frozen_server_is_left_and_found_again(server):
    bot = Cli(cli_binary, server.url, "--name", "Robo", "--seats", "3", "--bots", "medium,easy", "--bot", "medium",
              "--games", "1", "--start-when-full", "--no-color", "--think-ms", "60", "--liveness-timeout-ms", "600",
              "--handshake-timeout-ms", "400")
    try:
        bot.wait_for(r"^Game 1 begins!$")
        deadline = time.monotonic() + 30
        while sum(" asked " in line for line in bot.lines) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        check(not any(line.startswith("Game over!") for line in bot.lines), "the game ended before the freeze")
        os.kill(server.proc.pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        try:
            bot.wait_for(r"The server stopped answering", timeout=10)
            noticed = time.monotonic() - frozen_at
            # Tries at reconnecting, each given up after 400 ms while it stays frozen.
            bot.wait_for(r"did not answer (within|the hello)", timeout=10)
            time.sleep(1)
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        bot.wait_for(r"Resumed your seat in room", timeout=20)
        status = bot.finish(120)
        check(status == 0, f"the bot client exited with {status}: {bot.stderr}\n{bot.output()}")
        check(noticed < 2.0, f"the frozen server was noticed {noticed:.2f} s after the freeze, not within 2 s")
        tries = sum("did not answer" in line for line in bot.lines)
        print(f"frozen server noticed after {noticed:.2f} s (liveness 600 ms); {tries} tries timed out while it "
              f"stayed frozen; the seat resumed after SIGCONT and the game finished")
    finally:
        bot.stop()


def main():
    unanswered_tries()
    server = Server(server_binary, bot_delay_ms=60)
    try:
        quiet_server_stays(server)
        frozen_server_is_left_and_found_again(server)
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
        server.stop()


run(main)
