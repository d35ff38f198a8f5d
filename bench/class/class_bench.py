"""A class of 30 tables of 4 (issue 34, "Measured"): a teacher creates a
class, 120 pupils join it by its code and play at a person's pace, and the
teacher's console stays open. Measures:
- ask -> event: from a pupil sending its ask to the first event of it
  reaching that pupil (p50, p99, max);
- move -> console: from a pupil's ask to the first event_state in which its
  table's line has changed since the ask (the console is pushed at most
  every 250 ms);
- the server's memory (RSS) before the class and with it in play, and the
  difference per pupil.
One server (SQLite, durable) or three nodes behind HAProxy
(scripts/cluster.sh, PostgreSQL). Every socket names the class's code
(/ws?room=CODE), as the clients do. Loopback only; bounded in time.

    class_bench.py SERVER [--cluster] [--tables 30] [--seconds 60] [--think-ms 1500]
"""
import argparse
import asyncio
import base64
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

# A class shares one address (a school's), as these pupils share loopback.
PER_ADDRESS = ["--max-connections-per-address", "1000"]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "tests", "cluster"))


class Socket:
    """The least of a WebSocket client: text frames, masked, no extensions."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port, code):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /ws?room={code} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"no upgrade: {head[:80]!r}")
        return cls(reader, writer)

    def send(self, message):
        data = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        n = len(data)
        header += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
        self.writer.write(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    async def receive(self):
        message = b""
        while True:
            first, second = await self.reader.readexactly(2)
            n = second & 0x7F
            if n == 126:
                n = int.from_bytes(await self.reader.readexactly(2), "big")
            elif n == 127:
                n = int.from_bytes(await self.reader.readexactly(8), "big")
            data = await self.reader.readexactly(n)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("closed")
            if opcode in (0x0, 0x1):  # a text frame, or a continuation of one
                message += data
                if first & 0x80:
                    return json.loads(message)


class Stats:
    def __init__(self):
        self.asks = []          # ask -> event, seconds
        self.console = []       # move -> console, seconds
        self.measuring = False
        self.stop = False


class Bench:
    """One class: its teacher's console and its pupils."""

    def __init__(self, port, tables, think_ms, stats):
        self.port, self.tables, self.think_ms = port, tables, think_ms
        self.stats = stats
        self.pending = {}       # room -> [ask times not yet seen on the console]
        self.table_lines = {}   # room -> its last line in event_state
        self.code = None
        self.moves = 0

    async def hello(self, socket):
        socket.send({"type": "hello", "protocol": 1, "client": "class-bench"})
        while (await socket.receive()).get("type") != "welcome":
            pass

    async def teacher(self, created):
        socket = await Socket.open(self.port, "")
        await self.hello(socket)
        socket.send({"type": "create_event", "id": 1, "name": "Bench class", "table_size": 4,
                     "rules": {"preset": "classic"}, "bots": "easy", "rounds": 1})
        while True:
            message = await socket.receive()
            if message.get("type") == "event_created":
                break
        self.code = message["code"]
        token = message["token"]
        socket.writer.close()
        # The console, on a socket that names the class (as the browser's does).
        socket = await Socket.open(self.port, self.code)
        await self.hello(socket)
        socket.send({"type": "resume_event", "id": 2, "code": self.code, "token": token})
        created.set_result(self.code)
        self.console_socket = socket
        while not self.stats.stop:
            message = await socket.receive()
            if message.get("type") != "event_state":
                continue
            now = time.monotonic()
            for table in message["event"].get("tables", []):
                room = table.get("room")
                line = json.dumps(table, sort_keys=True)
                if room is None or self.table_lines.get(room) == line:
                    continue
                self.table_lines[room] = line
                for sent in self.pending.pop(room, []):
                    if self.stats.measuring:
                        self.stats.console.append(now - sent)

    async def command(self, message):
        self.console_socket.send(message)

    async def pupil(self, i, joined):
        socket = await Socket.open(self.port, self.code)
        await self.hello(socket)
        socket.send({"type": "join_event", "id": 1, "code": self.code, "name": f"Pupil {i + 1}"})
        room = None
        seat = None
        sent_at = None
        joined_once = False
        while not self.stats.stop:
            message = await socket.receive()
            kind = message.get("type")
            if kind == "event_joined" and not joined_once:
                joined_once = True
                joined.release()
            elif kind == "event_seat":
                room, seat = message["room"], message["seat"]
                socket.send({"type": "resume", "id": 2, "token": message["token"]})
            elif kind == "event" and sent_at is not None:
                if self.stats.measuring:
                    self.stats.asks.append(time.monotonic() - sent_at)
                sent_at = None
            elif kind == "turn" and message.get("seat") == seat and "legal" in message:
                ask = message["legal"].get("ask")
                if not ask:
                    continue
                await asyncio.sleep(random.uniform(0.5, 1.5) * self.think_ms / 1000)
                if self.stats.stop:
                    break
                decision = {"type": "ask", "id": 3, "target": random.choice(ask["targets"])}
                if "ranks" in ask:
                    decision["rank"] = random.choice(ask["ranks"])
                else:
                    decision["card"] = random.choice(ask["cards"])
                sent_at = time.monotonic()
                self.pending.setdefault(room, []).append(sent_at)
                self.moves += 1
                socket.send(decision)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(fraction * len(ordered) + 0.999999) - 1))] if ordered else 0.0


async def run(port, pids, tables, classes, seconds, think_ms):
    stats = Stats()
    before = sum(rss_kib(p) for p in pids)
    benches = [Bench(port, tables // classes, think_ms, stats) for _ in range(classes)]
    tasks = []
    for bench in benches:
        created = asyncio.get_running_loop().create_future()
        tasks.append(asyncio.create_task(bench.teacher(created)))
        await created
        joined = asyncio.Semaphore(0)
        for i in range(bench.tables * 4):
            tasks.append(asyncio.create_task(bench.pupil(i, joined)))
        for _ in range(bench.tables * 4):
            await asyncio.wait_for(joined.acquire(), 60)
    pupils = sum(bench.tables * 4 for bench in benches)
    for bench in benches:
        await bench.command({"type": "seat_pupils", "id": 10})
    await asyncio.sleep(0.5)
    for bench in benches:
        await bench.command({"type": "start_round", "id": 11})
    await asyncio.sleep(5)  # every table dealt and under way
    stats.measuring = True
    started = time.monotonic()
    await asyncio.sleep(seconds)
    during = sum(rss_kib(p) for p in pids)
    stats.measuring = False
    elapsed = time.monotonic() - started
    stats.stop = True
    for task in tasks:
        task.cancel()
    failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
    await asyncio.gather(*tasks, return_exceptions=True)
    ms = lambda s: round(s * 1000, 2)  # noqa: E731
    return {
        "classes": classes, "tables": tables, "pupils": pupils, "think_ms": think_ms, "seconds": round(elapsed, 1),
        "connections_lost": len(failed),
        "asks": len(stats.asks), "asks_per_second": round(len(stats.asks) / elapsed, 1),
        "ask_to_event_ms": {"p50": ms(percentile(stats.asks, 0.5)), "p99": ms(percentile(stats.asks, 0.99)),
                            "max": ms(max(stats.asks, default=0))},
        "move_to_console_ms": {"p50": ms(percentile(stats.console, 0.5)),
                               "p99": ms(percentile(stats.console, 0.99)),
                               "max": ms(max(stats.console, default=0)), "count": len(stats.console)},
        "server_rss_kib": {"before": before, "during": during,
                           "per_pupil": round((during - before) / pupils, 1)},
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("server")
    parser.add_argument("--cluster", action="store_true")
    parser.add_argument("--tables", type=int, default=30)
    # One class of 30 tables of 4 by default (a class takes up to 120
    # pupils: protocol/README.md, create_event); --classes splits them.
    parser.add_argument("--classes", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think-ms", type=int, default=1500)
    args = parser.parse_args()
    if args.cluster:
        from cluster_harness import Cluster
        cluster = Cluster(args.server, nodes=3, server_flags=["--log-level=warn", *PER_ADDRESS])
        try:
            port = int(cluster.env["proxy_port"])
            pids = [cluster.pid(k) for k in (1, 2, 3)]
            result = asyncio.run(run(port, pids, args.tables, args.classes, args.seconds, args.think_ms))
            result["setup"] = "three nodes behind HAProxy, PostgreSQL"
        finally:
            cluster.down(keep_logs=False)
    else:
        with tempfile.TemporaryDirectory() as data:
            server = subprocess.Popen([args.server, "--port", "0", "--bind", "127.0.0.1", "--storage", "sqlite",
                                       "--data-dir", data, "--log-level", "info", *PER_ADDRESS],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                port = None
                while port is None:
                    line = server.stdout.readline()
                    if not line:
                        raise RuntimeError("the server stopped before listening")
                    found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
                    if found:
                        port = int(found.group(1))
                threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
                result = asyncio.run(run(port, [server.pid], args.tables, args.classes, args.seconds, args.think_ms))
                result["setup"] = "one server, SQLite"
            finally:
                server.terminate()
                server.wait(30)
    print(json.dumps(result))


main()
