"""Shared pieces of the terminal client's end-to-end tests: the real
gofish-server on 127.0.0.1 (any free port, no storage, no bot delay), and
gofish-cli processes with bounded waits. Only processes started here are
stopped, by their own handles."""
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "scripts"))
from free_ports import free_port  # noqa: E402 (the tests import it from here)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def web_root(binary):
    """The built browser client beside the server's build directory: <build>/web for <build>/server/gofish-server."""
    return os.path.join(os.path.dirname(os.path.abspath(binary)), os.pardir, "web")


class Server:
    def __init__(self, binary, *extra, bot_delay_ms=0, port=0, data_dir=None):
        # With a data_dir, the rooms are kept in SQLite there (a restart restores them).
        storage = ["--storage", "sqlite", "--data-dir", data_dir] if data_dir else ["--storage", "none"]
        self.proc = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", *storage, "--bot-delay-ms", str(bot_delay_ms),
             "--web-root", web_root(binary), "--log-level", "info", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.log = []
        deadline = time.monotonic() + 20
        self.port = None
        while self.port is None:
            line = self.proc.stdout.readline()
            check(line, "the server stopped before listening:\n" + "".join(self.log))
            check(time.monotonic() < deadline, "the server never said where it listens")
            self.log.append(line)
            match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stdout:
            self.log.append(line)

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Proxy:
    """A TCP proxy from 127.0.0.1:port to the server at target_port, to take a
    client's connection away: cut() drops every open connection (the client
    may reconnect at once); close_gate() drops them and refuses new ones until
    open_gate(). accepted counts the connections it has forwarded."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.open = []
        self.accepted = 0
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
                refused = not self.gate_open
            if refused:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, upstream]
                self.accepted += 1
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            ends, self.open = self.open, []
        for end in ends:
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def close_gate(self):
        with self.lock:
            self.gate_open = False
        self.cut()

    def open_gate(self):
        with self.lock:
            self.gate_open = True

    def close(self):
        self.close_gate()
        self.listener.close()


class Cli:
    """A gofish-cli process whose stdout is read line by line in the background."""

    def __init__(self, binary, *args, typing=False):
        """With `typing`, its stdin is a pipe that type() writes lines into."""
        self.args = [binary, *args]
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE if typing else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.stderr = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern, timeout=30, since=0):
        """The first match among the lines printed (from line `since` on)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines[since:]:
                match = re.search(pattern, line)
                if match:
                    return match
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise Failure(f"'{pattern}' never appeared in the output of {' '.join(self.args)}:\n" + self.output())

    def type(self, line):
        """Types a line; returns how many lines were printed before it, for wait_for's `since`."""
        mark = len(self.lines)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return mark

    def finish(self, timeout=90):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self._reader.join(5)
            raise Failure(f"{' '.join(self.args)} did not finish in {timeout} s:\n" + self.output())
        self._reader.join(5)
        self.stderr = self.proc.stderr.read()
        return self.proc.returncode

    def output(self):
        return "\n".join(self.lines[-40:])

    def messages(self):
        return [json.loads(line) for line in self.lines if line.startswith("{")]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def run(main):
    """Runs a test's main(), printing the failure and exiting non-zero when it fails."""
    try:
        main()
    except Failure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
    print("passed")
