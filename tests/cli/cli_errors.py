"""Every error gofish-cli names: each prints its sentence on stderr and exits
with its own status (documented in --help and the README)."""
import base64
import hashlib
import json
import socket
import struct
import sys
import threading

from harness import Cli, Server, check, free_port, run

server_binary, cli_binary = sys.argv[1], sys.argv[2]


def expect(args, status, sentence, timeout=30):
    client = Cli(cli_binary, *args)
    got = client.finish(timeout)
    check(got == status, f"gofish-cli {' '.join(args)} exited with {got}, not {status}; stderr: {client.stderr}")
    check(sentence in client.stderr,
          f"gofish-cli {' '.join(args)} did not say {sentence!r} on stderr; it said: {client.stderr!r}")
    print(f"exit {status}: {client.stderr.strip()}")


class FakeServer:
    """Just enough WebSocket to answer a hello with a welcome from protocol version 2."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.listener.accept()
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                request += conn.recv(4096)
            key = [line.split(":", 1)[1].strip() for line in request.decode().split("\r\n")
                   if line.lower().startswith("sec-websocket-key:")][0]
            accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
            conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
            conn.recv(4096)  # the client's hello
            welcome = json.dumps({
                "type": "welcome", "id": 1, "server": "gofish", "version": "9.0.0", "protocol": 2,
                "limits": {"max_frame_bytes": 4096, "messages_per_second": 10.0, "message_burst": 20,
                           "chats_per_second": 1.0, "chat_burst": 5, "max_name_chars": 24, "max_chat_chars": 200,
                           "max_id_bytes": 64, "min_turn_timer_seconds": 10, "max_turn_timer_seconds": 300,
                           "max_spectators": 16, "idle_timeout_ms": 60000, "seat_grace_ms": 120000}}).encode()
            header = bytes([0x81, 126]) + struct.pack("!H", len(welcome)) if len(welcome) > 125 \
                else bytes([0x81, len(welcome)])
            conn.sendall(header + welcome)
            try:
                conn.settimeout(5)
                conn.recv(4096)  # the client's close
            except OSError:
                pass


class RecordingServer:
    """Refuses every WebSocket upgrade (404) and keeps each request's target."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.targets = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            conn, _ = self.listener.accept()
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    request += chunk
                self.targets.append(request.decode().split(" ")[1])
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def room_in_the_target():
    """A client that knows its room's code asks for /ws?room=CODE, which steers a
    proxy in front of several servers (protocol/README.md); one that creates a
    room asks for /ws."""
    recorder = RecordingServer()
    url = f"ws://127.0.0.1:{recorder.port}"
    cases = [([url], "/ws"), ([url, "--join", "23456"], "/ws?room=23456"),
             ([url, "--join", "mvnfx"], "/ws?room=MVNFX"),
             ([f"http://127.0.0.1:{recorder.port}/r/23456"], "/ws?room=23456"),
             ([url, "--join", "23456", "--spectate"], "/ws?room=23456"),
             ([url, "--join", "23456", "--bot", "easy"], "/ws?room=23456")]
    for args, target in cases:
        expect(args, 3, "did not accept a WebSocket at /ws")
        check(recorder.targets[-1] == target,
              f"gofish-cli {' '.join(args)} asked for {recorder.targets[-1]}, not {target}")
        print(f"{' '.join(args[1:]) or '(create)'}: {target}")


def main():
    room_in_the_target()
    expect(["--bot", "clever"], 2, "--bot is easy, medium or hard")
    expect(["--timer", "5"], 2, "--timer is 0 (no timer) or 10 to 300 seconds.")
    expect(["--seats", "3", "--bots", "easy,easy,easy"], 2, "--bots names more bots than the 2 free seats.")
    expect(["--preset", "poker"], 2, "There is no preset called 'poker'.")
    expect(["--spectate"], 2, "--spectate needs a room")
    expect(["ftp://fish.example.org"], 2, "is not a server address")
    expect(["ws://127.0.0.1:8080", "--ca-file", __file__], 2, "--ca-file is for a wss:// or https:// server")
    expect(["wss://127.0.0.1:8443", "--ca-file", "/nonexistent/ca.pem"], 2, "--ca-file")
    expect([f"ws://127.0.0.1:{free_port()}", "--name", "Ann"], 3, "Cannot reach the server at 127.0.0.1:")
    fake = FakeServer()
    expect([f"ws://127.0.0.1:{fake.port}", "--name", "Ann"], 6,
           "The server speaks protocol version 2 and this gofish-cli speaks version 1")

    server = Server(server_binary)
    host = None
    try:
        expect([server.url, "--join", "K0QXM"], 4, "'K0QXM' is not a room code")
        # TLS to a port that speaks plain HTTP: a sentence, at once.
        expect([f"wss://127.0.0.1:{server.port}", "--name", "Ann"], 3, "does it speak TLS on that port?")
        expect([server.url, "--join", "23456", "--name", "Bob"], 4, "23456")
        expect([f"http://127.0.0.1:{server.port}/r/23456", "--name", "Bob"], 4, "23456")
        expect([server.url, "--name", "Ann", "--protocol-version", "2"], 6,
               "This server speaks protocol 1, and the client asked for 2")
        # A room of two, the host and a server bot: full from the start.
        host = Cli(cli_binary, server.url, "--name", "Host", "--seats", "2", "--bots", "easy", "--bot", "easy",
                   "--no-color")
        code = host.wait_for(r"Created room ([2-9A-Z]{5})\.").group(1)
        expect([server.url, "--join", code, "--name", "Bob"], 5, "Every seat in that room is taken")
    finally:
        if host:
            host.stop()
        server.stop()


run(main)
