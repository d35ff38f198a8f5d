#!/usr/bin/env python3
"""TLS on gofish-server's public port, tested from outside as a client sees it.

    tls_check.py SERVER WEB_ROOT CASE [CLI]

Each case starts the real gofish-server on 127.0.0.1 with a certificate from
a test certificate authority this script makes with the `openssl` command
(trusted by this script's clients only; nothing here skips verification):

  basics      https answers with the page's security headers; /metrics is 404
              there and answered on the operator port; the plain-HTTP port
              redirects to https; plain HTTP on the TLS port gets nothing;
              a whole game against a bot over wss.
  reload      players keep playing while the certificate files are replaced
              and SIGHUP sent: nobody is disconnected, every player goes on
              playing, and the next handshake gets the new certificate; a
              broken file on a second SIGHUP keeps the new one in use.
  handshakes  silent, garbage and trickled handshakes from one address are
              closed within the handshake timeout, that address can hold no
              more sockets than its cap meanwhile, and a player from another
              address connects and plays unharmed.
  testssl     Debian's testssl.sh against the port: no protocol or cipher it
              flags, and no vulnerability (BREACH aside: see below).
  cli         gofish-cli (the CLI argument) over wss:// with --ca-file hosts a
              room with a bot and plays it to the end as a bot; without
              --ca-file it is refused (exit status 3, a sentence), before any
              room is made.

The last line is "ok: CASE" or "FAILED: ...".
"""

import base64
import json
import os
import re
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


# ---- the test certificate authority ----

def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_ca(directory):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-out", "ca.pem", "-days", "2", "-subj", "/CN=gofish test authority", cwd=directory)
    return os.path.join(directory, "ca.pem")


def make_certificate(directory, name, common_name):
    """A server certificate for 127.0.0.1 and localhost, signed by the CA in
    `directory`; returns (certificate path, key path)."""
    with open(os.path.join(directory, name + ".ext"), "w") as ext:
        ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                  "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", name + ".key",
            "-out", name + ".csr", "-subj", "/CN=" + common_name, cwd=directory)
    openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext", cwd=directory)
    return os.path.join(directory, name + ".pem"), os.path.join(directory, name + ".key")


def client_context(ca_file):
    context = ssl.create_default_context(cafile=ca_file)  # verifies the chain and the host name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


# ---- the server ----

class Server:
    def __init__(self, binary, web_root, work, cert, key, extra=()):
        self.log_path = os.path.join(work, "server.log")
        self.log = open(self.log_path, "w")
        args = [binary, "--port", "0", "--bind", "127.0.0.1", "--storage", "none", "--web-root", web_root,
                "--threads", "2", "--bot-delay-ms", "0", "--tls-cert", cert, "--tls-key", key,
                "--http-redirect-port", "0", *extra]
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            text = self.text()
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", text)
            if found:
                self.port = int(found.group(1))
                self.admin_port = int(re.search(r"operator endpoints on 127\.0\.0\.1:(\d+)", text).group(1))
                self.redirect_port = int(re.search(r"plain http on 127\.0\.0\.1:(\d+)", text).group(1))
                return
            check(self.process.poll() is None, "gofish-server exited at start:\n" + text)
            time.sleep(0.02)
        raise Failure("gofish-server never said it was listening:\n" + self.text())

    def text(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()

    def wait_for_log(self, pattern, after=0, limit=5.0):
        deadline = time.time() + limit
        while time.time() < deadline:
            if re.search(pattern, self.text()[after:]):
                return
            time.sleep(0.02)
        raise Failure(f"the log never said {pattern!r}:\n" + self.text()[after:])

    def metrics(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.admin_port}/metrics", timeout=5) as response:
            text = response.read().decode()
        values = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                values[name] = float(value)
        return values

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        check(self.process.returncode == 0, f"gofish-server exited with {self.process.returncode}:\n" + self.text())


def tls_connect(port, context, host="localhost", source="127.0.0.1", timeout=10):
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    return context.wrap_socket(raw, server_hostname=host)


def get(sock, path, host):
    """All the server sends back to one GET on `sock`, until it closes."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def https_get(port, context, path):
    """(status, headers with lower-case names, body) of one GET over TLS."""
    with tls_connect(port, context) as sock:
        data = get(sock, path, f"localhost:{port}")
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def plain_get(port, path, host="localhost"):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        return get(sock, path, host).decode(errors="replace")


# ---- a WebSocket client over TLS, and a player ----

class Closed(Exception):
    pass


class WebSocket:
    def __init__(self, port, context, source="127.0.0.1"):
        self.sock = tls_connect(port, context, source=source)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /ws HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.read_some()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        check(head.startswith(b"HTTP/1.1 101"), f"no WebSocket upgrade: {head!r}")

    def read_some(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise Closed("the server closed the connection")
        return chunk

    def send(self, message):
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def need(self, count):
        while len(self.buffer) < count:
            self.buffer += self.read_some()

    def receive(self):
        """The next text message, as JSON; answers pings on the way."""
        while True:
            self.need(2)
            opcode, length = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F
            at = 2
            if length == 126:
                self.need(4)
                length, at = struct.unpack("!H", self.buffer[2:4])[0], 4
            elif length == 127:
                self.need(10)
                length, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
            self.need(at + length)
            payload, self.buffer = self.buffer[at:at + length], self.buffer[at + length:]
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 0
                raise Closed(f"closed by the server: {code} {payload[2:].decode(errors='replace')}")
            if opcode == 0x9:
                mask = os.urandom(4)
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask +
                                  bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
                continue
            if opcode == 0x1:
                return json.loads(payload)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Player:
    """Creates a room with one easy bot and plays game after game (always the
    first legal ask) until told to stop; counts the games it finished."""

    def __init__(self, port, context, name, source="127.0.0.1"):
        self.ws = WebSocket(port, context, source)
        self.name = name
        self.games = 0
        self.turns = 0
        self.error = None
        self.stopping = False
        self.ws.send({"type": "hello", "protocol": 1, "client": "tls_check"})
        welcome = self.ws.receive()
        check(welcome["type"] == "welcome", "no welcome")
        # Within the server's rate, as welcome.limits asks (no bursts here).
        self.interval = 1.0 / welcome["limits"]["pace_messages_per_second"]
        self.last_sent = 0.0
        self.send({"type": "create_room", "id": 1, "name": name, "seats": 2, "bots": [{"seat": 1, "level": "easy"}]})
        self.send({"type": "start", "id": 2})
        self.thread = threading.Thread(target=self.play, daemon=True)

    def send(self, message):
        wait = self.last_sent + self.interval - time.time()
        if wait > 0:
            time.sleep(wait)
        self.last_sent = time.time()
        self.ws.send(message)

    def play(self):
        try:
            next_id = 3
            while not self.stopping:
                message = self.ws.receive()
                kind = message.get("type")
                if kind == "error":
                    raise Failure(f"{self.name}: error {message}")
                if kind == "turn" and message.get("seat") == 0 and "legal" in message:
                    ask = message["legal"]["ask"]
                    self.send({"type": "ask", "id": next_id, "target": ask["targets"][0], "rank": ask["ranks"][0]})
                    next_id += 1
                    self.turns += 1
                elif kind == "event" and message["event"]["type"] == "game_over":
                    self.games += 1
                    self.send({"type": "start", "id": next_id})
                    next_id += 1
        except Exception as error:  # reported by finish()
            if not self.stopping:
                self.error = error

    def finish(self):
        self.stopping = True
        self.ws.close()
        self.thread.join(timeout=5)
        check(self.error is None, f"{self.name} stopped playing: {self.error!r}")


def until(condition, limit, what):
    deadline = time.time() + limit
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise Failure(f"not within {limit} s: {what}")


# ---- the cases ----

EXPECTED_HEADERS = {
    "content-security-policy": "frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "permissions-policy": "camera=()",
    "strict-transport-security": "max-age=31536000",
    "x-content-type-options": "nosniff",
}


def case_basics(server, context, work):
    for path in ["/", "/r/ABCDE", "/js/app.js", "/style.css", "/no-such-file", "/healthz"]:
        status, headers, _ = https_get(server.port, context, path)
        check(status in (200, 404), f"{path}: {status}")
        for name, part in EXPECTED_HEADERS.items():
            check(part in headers.get(name, ""), f"{path}: {name} is {headers.get(name)!r}, wanted {part!r} in it")
    check(https_get(server.port, context, "/metrics")[0] == 404, "/metrics is answered on the public port")
    check("gofish_connections" in urllib.request.urlopen(
        f"http://127.0.0.1:{server.admin_port}/metrics", timeout=5).read().decode(), "no metrics on the admin port")
    check(plain_get(server.admin_port, "/").startswith("HTTP/1.1 404"), "the admin port serves the page")
    redirect = plain_get(server.redirect_port, "/r/ABCDE?x=1", host=f"localhost:{server.redirect_port}")
    check(redirect.startswith("HTTP/1.1 308") and
          f"Location: https://localhost:{server.port}/r/ABCDE?x=1\r\n" in redirect, f"redirect: {redirect!r}")
    check(plain_get(server.redirect_port, "/", host="bad host!").startswith("HTTP/1.1 400"),
          "a redirect to a malformed host")
    # Plain HTTP on the TLS port: no HTTP answer.
    answer = plain_get(server.port, "/")
    check(not answer.startswith("HTTP/"), f"plain HTTP answered on the TLS port: {answer[:80]!r}")
    with tls_connect(server.port, context) as sock:
        check(sock.version() in ("TLSv1.2", "TLSv1.3"), f"negotiated {sock.version()}")
        check(sock.selected_alpn_protocol() is None, "ALPN chosen without being asked")
    player = Player(server.port, context, "Ann")
    player.thread.start()
    until(lambda: player.games >= 1 or player.error, 30, "a game over wss")
    player.finish()
    print(f"basics: headers on 6 paths, redirect, admin port; a game of {player.turns} turns over wss")


def certificate_serial(port, context):
    with tls_connect(port, context) as sock:
        return sock.getpeercert()["serialNumber"]


def case_reload(server, context, work):
    cert, key = server.cert, server.key
    before = certificate_serial(server.port, context)
    players = [Player(server.port, context, f"P{i}") for i in range(4)]
    for player in players:
        player.thread.start()
    until(lambda: all(p.turns >= 3 for p in players) or any(p.error for p in players), 20, "every player plays")
    new_cert, new_key = make_certificate(work, "second", "localhost (second)")
    # Replaced as a certificate renewal would: a new file moved over the old.
    shutil.copy(new_cert, cert + ".new")
    shutil.copy(new_key, key + ".new")
    os.replace(key + ".new", key)
    os.replace(cert + ".new", cert)
    turns = [p.turns for p in players]
    mark = len(server.text())
    server.process.send_signal(signal.SIGHUP)
    server.wait_for_log(r"TLS: certificate reloaded: .*second", after=mark)
    after = certificate_serial(server.port, context)
    check(after != before, "the next handshake still gets the old certificate")
    until(lambda: all(p.turns >= t + 5 for p, t in zip(players, turns)) or any(p.error for p in players), 20,
          "every player plays on after the reload")
    # A broken file: the reload is refused and the certificate in use stays.
    with open(cert, "w") as broken:
        broken.write("not a certificate\n")
    mark = len(server.text())
    server.process.send_signal(signal.SIGHUP)
    server.wait_for_log(r"TLS: certificate not reloaded", after=mark)
    check(certificate_serial(server.port, context) == after, "a failed reload changed the certificate")
    games = sum(p.games for p in players)
    for player in players:
        player.finish()
    check(server.metrics().get("gofish_connections", -1) >= 0, "metrics after the reloads")
    print(f"reload: 4 players through two SIGHUPs, {games} games; serial {before} -> {after}")


def case_handshakes(server, context, work):
    timeout = 0.6  # --handshake-timeout-ms 600
    cap = 6        # --max-sockets-per-address 6
    began = time.time()
    # From 127.0.0.2, as many stalled handshakes as its cap: four silent,
    # two trickling a real ClientHello a byte at a time (the deadline covers
    # the whole handshake, not each read).
    silent = [socket.create_connection(("127.0.0.1", server.port), source_address=("127.0.0.2", 0))
              for _ in range(cap - 2)]
    trickled = [socket.create_connection(("127.0.0.1", server.port), source_address=("127.0.0.2", 0))
                for _ in range(2)]
    # From 127.0.0.3, handshake records of noise: refused at once.
    garbage = []
    for _ in range(2):
        sock = socket.create_connection(("127.0.0.1", server.port), source_address=("127.0.0.3", 0))
        sock.sendall(b"\x16\x03\x01\x00\x10" + os.urandom(16))
        garbage.append(sock)
    hello = ssl.create_default_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    machine = hello.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        machine.do_handshake()
    except ssl.SSLWantReadError:
        pass
    client_hello = outgoing.read()
    # The address's sockets are all taken: one more is closed at once.
    time.sleep(0.1)
    extra = socket.create_connection(("127.0.0.1", server.port), source_address=("127.0.0.2", 0))
    extra.settimeout(2)
    t0 = time.time()
    check(extra.recv(1) == b"", "a socket over the address's cap was served")
    check(time.time() - t0 < 1.0, "a socket over the cap was not closed at once")
    extra.close()
    # Meanwhile a player from another address connects and plays.
    t0 = time.time()
    player = Player(server.port, context, "Ann", source="127.0.0.1")
    connect_seconds = time.time() - t0
    player.thread.start()
    sent = 0
    closed = {}
    pending = {id(s): s for s in silent + garbage + trickled}
    for sock in pending.values():
        sock.setblocking(False)
    while pending and time.time() - began < timeout + 3:
        for sock in trickled:
            if id(sock) in pending and sent < len(client_hello):
                try:
                    sock.send(client_hello[sent:sent + 1])
                except OSError:
                    pass
        sent += 1
        for key, sock in list(pending.items()):
            try:
                data = sock.recv(4096)
                if data == b"":
                    closed[key] = time.time() - began
                    del pending[key]
            except BlockingIOError:
                pass
            except OSError:
                closed[key] = time.time() - began
                del pending[key]
        time.sleep(0.05)
    check(not pending, f"{len(pending)} stalled handshakes were still open after {timeout + 3} s")
    slowest = max(closed.values())
    check(slowest < timeout + 1.5, f"a stalled handshake took {slowest:.2f} s to be closed")
    for sock in silent + garbage + trickled:
        sock.close()
    until(lambda: player.turns >= 5 or player.error, 20, "the other address's player plays")
    player.finish()
    check(connect_seconds < 2, f"the other address's player took {connect_seconds:.2f} s to connect")
    metrics = server.metrics()
    timed_out = metrics.get('gofish_connections_refused_total{reason="tls_timeout"}', 0)
    failed = metrics.get('gofish_connections_refused_total{reason="tls_handshake"}', 0)
    over_cap = metrics.get('gofish_connections_refused_total{reason="address_sockets"}', 0)
    check(timed_out >= cap and failed >= 2 and over_cap >= 1,
          f"refusals counted: tls_timeout {timed_out}, tls_handshake {failed}, address_sockets {over_cap}")
    # The address has its sockets back.
    with tls_connect(server.port, context, source="127.0.0.2") as sock:
        check(sock.version() is not None, "127.0.0.2 cannot connect after its stalled handshakes ended")
    print(f"handshakes: {cap} stalled from one address and 2 of noise from another closed within {slowest:.2f} s "
          f"(timeout {timeout} s); "
          f"the other address connected in {connect_seconds:.2f} s and played {player.turns} turns")


# testssl.sh's finding ids that are about the HTTP the page sends, not the TLS:
# BREACH is reported whenever a page is gzip-compressed; it needs a secret in
# a compressed response that also reflects what an attacker sends, and the
# page's files are static (no secret, nothing reflected).
NOT_ABOUT_TLS = {"BREACH"}
FLAGGED = {"LOW", "MEDIUM", "HIGH", "CRITICAL"}


def case_testssl(server, context, work):
    testssl = shutil.which("testssl") or shutil.which("testssl.sh")
    check(testssl, "testssl.sh is not installed (scripts/install-deps.sh installs Debian's testssl.sh)")
    report = os.path.join(work, "testssl.json")
    result = subprocess.run([testssl, "--quiet", "--color", "0", "--warnings", "off", "--ip", "one",
                             "--jsonfile", report, "--protocols", "--std", "--pfs", "--vulnerable",
                             f"127.0.0.1:{server.port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    check(os.path.exists(report), f"testssl.sh wrote no report (exit {result.returncode}):\n{result.stdout}")
    with open(report) as file:
        findings = json.load(file)
    flagged = [f for f in findings if f.get("severity") in FLAGGED and f.get("id") not in NOT_ABOUT_TLS]
    protocols = {f["id"]: f["finding"] for f in findings if f["id"] in ("SSLv2", "SSLv3", "TLS1", "TLS1_1", "TLS1_2",
                                                                          "TLS1_3")}
    print("testssl.sh: " + "; ".join(f"{k} {v}" for k, v in protocols.items()))
    for finding in findings:
        if finding.get("id", "").startswith("cipherlist_") or finding.get("id") in NOT_ABOUT_TLS:
            print(f"  {finding['id']}: {finding['severity']}: {finding['finding']}")
    check(protocols.get("TLS1_2", "").startswith("offered") and protocols.get("TLS1_3", "").startswith("offered"),
          f"TLS 1.2 and 1.3 not both offered: {protocols}")
    for old in ("SSLv2", "SSLv3", "TLS1", "TLS1_1"):
        check(protocols.get(old, "").startswith("not offered"), f"{old}: {protocols.get(old)}")
    check(not flagged, "testssl.sh flagged: " + "; ".join(f"{f['id']} ({f['severity']}): {f['finding']}"
                                                          for f in flagged))
    print(f"testssl: {len(findings)} findings, none flagged {sorted(FLAGGED)} (BREACH aside)")


def case_cli(server, context, work):
    check(server.cli, "the cli case needs gofish-cli's path as the fourth argument")
    url = f"wss://localhost:{server.port}"
    refused = subprocess.run([server.cli, url, "--name", "Eve", "--seats", "2", "--bots", "easy", "--bot", "easy"],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    check(refused.returncode == 3 and "certificate" in refused.stderr,
          f"gofish-cli without --ca-file: exit {refused.returncode}, {refused.stderr!r}")
    played = subprocess.run([server.cli, url, "--ca-file", server.ca, "--json", "--no-color", "--name", "Ann",
                             "--seats", "2", "--bots", "easy", "--bot", "easy", "--think-ms", "0",
                             "--start-when-full", "--games", "1"],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    check(played.returncode == 0, f"gofish-cli over wss: exit {played.returncode}: {played.stderr[-500:]}")
    over = [line for line in played.stdout.splitlines() if '"game_over"' in line]
    check(over, "gofish-cli saw no game_over over wss")
    print(f"cli: refused without --ca-file ({refused.stderr.strip()[:100]}); a bot game over wss with --ca-file")


CASES = {
    "basics": (case_basics, []),
    "reload": (case_reload, []),
    "handshakes": (case_handshakes, ["--handshake-timeout-ms", "600", "--max-sockets-per-address", "6",
                                     "--max-connections-per-address", "4"]),
    "testssl": (case_testssl, []),
    "cli": (case_cli, []),
}


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[3] not in CASES:
        print(__doc__, file=sys.stderr)
        return 2
    binary, web_root, name = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="gofish-tls-")
    server = None
    try:
        ca = make_ca(work)
        cert, key = make_certificate(work, "first", "localhost")
        run, extra = CASES[name]
        server = Server(binary, web_root, work, cert, key, extra)
        server.cert, server.key, server.ca = cert, key, ca
        server.cli = sys.argv[4] if len(sys.argv) == 5 else None
        run(server, client_context(ca), work)
        server.stop()
        server = None
        print(f"ok: {name}")
        return 0
    except (Failure, AssertionError, OSError, subprocess.CalledProcessError) as error:
        print(f"FAILED: {name}: {error}")
        if server:
            print("--- server log (last 40 lines) ---")
            print("\n".join(server.text().splitlines()[-40:]))
        return 1
    finally:
        if server:
            server.process.kill()
            server.process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
