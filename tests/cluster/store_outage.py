"""Issue 30: the store fails under rooms of real clients (gofish-cli bots, a
spectator each), and nothing acknowledged is lost, no room version is
delivered with two contents, every game completes and replays.

    store_outage.py postgres      SERVER CLI SIM
        PostgreSQL, HAProxy and three nodes (scripts/cluster.sh); 24 rooms;
        PostgreSQL halted for 12 s mid-game, then started again.
    store_outage.py postgres-kill SERVER CLI SIM
        the same, then the node holding the most rooms killed (SIGKILL) just
        after PostgreSQL is back: the next owners rebuild the rooms from a
        journal that holds everything any client saw.
    store_outage.py sqlite        SERVER CLI SIM FAULT_LIBRARY
        one node on SQLite, 10 rooms; its data directory's writes fail (the
        LD_PRELOAD shim tests/server/fault_fs.c) as a full disk, then a file
        system remounted read-only, then a failing disk, 4 s each; then full
        again and SIGTERM: the server tries until --store-drain-ms, exits 4
        naming what it could not store, and is started again on the same
        port, where every seat resumes and every game finishes.

Checked, besides the games, streams and transcripts (cluster_harness.py):
every client of every room is told room_paused within 1 s of the store's
failure (measured from the moment the fault is set, so before the first
write fails) and room_resumed once the store is back; no client
receives an event between its room_paused and the store's return (nothing
was accepted or released meanwhile); each outage is logged once when it
starts and once when it ends.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from cluster_harness import (ROOT, CliTable, Cluster, Failure, check, check_games, finish_all, free_ports, name_of,
                             percentile, run, say)

mode = sys.argv[1]
server_binary, cli_binary, sim_binary = sys.argv[2:5]
fault_library = sys.argv[5] if len(sys.argv) > 5 else None

PRESETS = ["classic", "specific-card", "keep-playing", "bicycle", "authors", "pairs"]
THINK_MS = "100"
STORE_DRAIN_MS = 1500
OUTAGE_LIMIT_MS = 3000  # /healthz answers 503 past it (the SQLite test)


def asks_so_far(cli):
    return sum(1 for _, m in list(cli.messages) if m.get("type") == "event" and m["event"].get("type") == "asked")


def wait_for_asks(rooms, count, timeout=90):
    deadline = time.monotonic() + timeout
    while min(asks_so_far(room.watcher) for room in rooms) < count:
        check(time.monotonic() < deadline, f"not every room reached {count} asks in {timeout} s")
        time.sleep(0.1)


def make_rooms(count, endpoint, games):
    rooms = [CliTable(cli_binary, endpoint, PRESETS[i % len(PRESETS)], table_rules=i % 4 == 3,
                      games=games * (3 if PRESETS[i % len(PRESETS)] == "pairs" else 1), think_ms=THINK_MS)
             for i in range(count)]
    for room in rooms:
        room.watch()
    for room in rooms:
        room.watcher.first("joined")
    for room in rooms:
        room.join()
    return rooms


def check_outage(rooms, began, ended, limit_s, skip=(), moved_after=None):
    """Every client of every room (but those in `skip`) was told room_paused
    within `limit_s` of `began`, received no event from then until the store
    was back at `ended`, and was told room_resumed after that; but for a
    client that connected anew (a `welcome`) after `moved_after`, when a
    node was killed then: it resumed its seat on another node instead.
    Returns the delays of room_paused and the clients let off so."""
    delays, let_off = [], []
    for room in rooms:
        if room.code in skip:
            continue
        for client in room.clients():
            if client.proc.poll() is not None and client.proc.returncode == 0:
                # Done before the outage: its room had nothing left to play.
                last = client.messages[-1][0] if client.messages else 0
                if last < began:
                    continue
            name = f"room {room.label()} {client.args[client.args.index('--name') + 1]}"
            paused = [t for t, m in client.messages if m.get("type") == "room_paused" and t >= began]
            check(paused, f"{name} was never told room_paused after the store failed; from 2 s before it saw: " +
                  str([(round(t - began, 2), m.get("type"), m.get("code", m.get("event", {}).get("type", "")))
                       for t, m in client.messages if t > began - 0.5][:30]))
            delays.append(paused[0] - began)
            check(paused[0] - began <= limit_s, f"{name} was told room_paused {paused[0] - began:.2f} s after the "
                                                f"store failed, later than {limit_s} s")
            leaked = [m for t, m in client.messages if paused[0] < t < ended and m.get("type") in ("event", "turn")]
            check(not leaked, f"{name} received {len(leaked)} events or turns while paused: {leaked[:3]}")
            resumed = [t for t, m in client.messages if m.get("type") == "room_resumed" and t >= ended]
            if not resumed and moved_after is not None and any(
                    m.get("type") == "welcome" and t >= moved_after for t, m in client.messages):
                let_off.append(name)
                continue
            check(resumed, f"{name} was never told room_resumed after the store came back; from then on it saw: " +
                  str([(round(t - ended, 2), m.get("type"), m.get("code", m.get("reason", "")))
                       for t, m in client.messages if t >= ended][:30]))
    return delays, let_off


def check_cli_said(rooms):
    """gofish-cli put every room_paused and room_resumed it received into
    words (on stderr, beside --json's stdout), as a person at its prompt
    reads them. Call after finish_all, which collects stderr."""
    told = 0
    for room in rooms:
        for client in room.clients():
            for _, m in client.messages:
                if m.get("type") == "room_paused":
                    line = "Paused: " + m["message"]
                elif m.get("type") == "room_resumed":
                    line = m["message"]
                else:
                    continue
                check(line in client.stderr, f"room {room.label()} {name_of(client)} received {m['type']} but did "
                                             f"not print {line!r}; it printed:\n{client.stderr[-1500:]}")
                told += 1
    check(told > 0, "no client received room_paused or room_resumed")
    return told


def room_log_lines(cluster, failure, victim_rooms):
    """What the nodes logged of the room a failure names (its evidence in CI, where the logs are not kept)."""
    named = re.search(r"room ([2-9A-Z]{5}) ", failure)
    if not named:
        return ""
    code = named.group(1)
    lines = [f"{code} was {'' if code in victim_rooms else 'not '}among the killed node's rooms; the nodes logged:"]
    for k in range(1, 4):
        with open(os.path.join(cluster.dir, f"node{k}.log"), errors="replace") as log:
            lines += [f"node{k}: {line.rstrip()}" for line in log if code in line]
    return "\n".join(lines[:60])


def outage_lines(log_text):
    began = len(re.findall(r"storage: a write failed", log_text))
    ended = len(re.findall(r"storage: writing works again", log_text))
    return began, ended


# ---------------------------------------------------------------- PostgreSQL

def postgres(kill_after):
    started = time.monotonic()
    cluster = Cluster(server_binary, nodes=3, server_flags=[f"--bot-delay-ms={THINK_MS}", "--log-level=info"])
    state = os.path.join(cluster.dir, "postgres.state")
    rooms = []
    passed = False
    try:
        rooms = make_rooms(24, cluster, games=1)
        say(f"{len(rooms)} rooms through {cluster.http_url} in {time.monotonic() - started:.1f} s")
        wait_for_asks(rooms, 8)
        halted = time.monotonic()  # its sessions end as the halt begins
        subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "halt", state], check=True, timeout=60)
        say(f"PostgreSQL halted ({time.monotonic() - halted:.1f} s)")
        time.sleep(12)
        resuming = time.monotonic()  # nothing may reach a client before this
        subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "resume", state], check=True, timeout=60)
        back = time.monotonic()
        say(f"PostgreSQL back after {back - halted:.1f} s")
        victim_rooms, killed = set(), None
        if kill_after:
            time.sleep(0.5)
            holders = cluster.lease_holders()
            codes = {room.code for room in rooms}
            per_node = {}
            for code, node in holders.items():
                if code in codes:
                    per_node[node] = per_node.get(node, 0) + 1
            victim_node = max(per_node, key=per_node.get)
            victim_rooms = {code for code, node in holders.items() if node == victim_node and code in codes}
            say(f"SIGKILL {victim_node} holding {len(victim_rooms)} rooms, {time.monotonic() - back:.1f} s after "
                f"PostgreSQL came back")
            killed = time.monotonic()
            cluster.stop_node(int(victim_node.removeprefix("node")), "KILL")
        finish_all(rooms, started + 240)
        say(f"every game finished, {time.monotonic() - back:.1f} s after PostgreSQL came back")
        # A room whose node was killed may have been moved before its clients
        # heard room_resumed: they resumed elsewhere instead. So may a client
        # whose connection the kill cut though its room's lease named another
        # node half a second before; the line below names each such client.
        try:
            delays, let_off = check_outage(rooms, halted, resuming, 1.0, skip=victim_rooms, moved_after=killed)
        except Failure as failure:
            raise Failure(f"{failure}\n{room_log_lines(cluster, str(failure), victim_rooms)}") from None
        if let_off:
            say(f"connected anew after the kill, outside the killed node's rooms, so not told room_resumed: "
                f"{', '.join(let_off)}")
        say(f"room_paused after the halt: p50 {percentile(delays, 0.5):.2f} s, max {max(delays):.2f} s over "
            f"{len(delays)} clients")
        say(f"gofish-cli printed each of the {check_cli_said(rooms)} pause and resume messages it received")
        for k in range(1, 4):
            with open(os.path.join(cluster.dir, f"node{k}.log"), errors="replace") as log:
                text = log.read()
            began, ended = outage_lines(text)
            check(began <= 1 and ended <= began + 0, f"node{k} logged {began} outage starts and {ended} ends")
            check("what it recorded may not survive" not in text, f"node{k} logged a write as lost")
        check_games(rooms, cluster, sim_binary)
        passed = True
    finally:
        for room in rooms:
            for client in room.clients():
                client.stop()
        cluster.down(keep_logs=not passed)
    say(f"the PostgreSQL outage test took {time.monotonic() - started:.1f} s")


# ---------------------------------------------------------------- SQLite

class Node:
    """One gofish-server on SQLite whose data directory fails on demand."""

    def __init__(self, work_dir, port, admin_port):
        self.dir = work_dir
        self.data = os.path.realpath(os.path.join(work_dir, "data"))
        os.makedirs(self.data, exist_ok=True)
        self.control = os.path.join(work_dir, "fault")
        self.fault("off")
        self.port = port
        self.admin_port = admin_port  # the operator port: /metrics is answered there only
        self.log_path = os.path.join(work_dir, "server.log")
        self.proc = None

    @property
    def ws_url(self):
        return f"ws://127.0.0.1:{self.port}"

    @property
    def http_url(self):
        return f"http://127.0.0.1:{self.port}"

    def fault(self, word):
        with open(self.control + ".new", "w") as out:
            out.write(word)
        os.replace(self.control + ".new", self.control)

    def start(self):
        env = dict(os.environ, LD_PRELOAD=fault_library, GOFISH_FAULT_DIR=self.data,
                   GOFISH_FAULT_CONTROL=self.control)
        # A sanitizer build's runtime must otherwise come first in the process.
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [server_binary, "--bind", "127.0.0.1", "--port", str(self.port), "--admin-port", str(self.admin_port),
             "--data-dir", self.data,
             "--web-root", os.path.join(os.path.dirname(os.path.abspath(server_binary)), os.pardir, "web"), f"--bot-delay-ms={THINK_MS}",
             f"--store-drain-ms={STORE_DRAIN_MS}", f"--store-outage-limit-ms={OUTAGE_LIMIT_MS}", "--log-level=info"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if "listening on" in self.log_text():
                return
            check(self.proc.poll() is None, f"the server exited before listening:\n{self.log_text()}")
            time.sleep(0.05)
        raise Failure("the server did not listen in 30 s")

    def get(self, path, admin=False):
        """(status, body) of an HTTP GET on the main port, or the operator port; a 503 is an answer too."""
        base = f"http://127.0.0.1:{self.admin_port}" if admin else self.http_url
        try:
            with urllib.request.urlopen(base + path, timeout=5) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def metrics(self):
        """The gofish_ figures /metrics gives, by name (no labels)."""
        status, text = self.get("/metrics", admin=True)
        check(status == 200, f"/metrics: {status}")
        return {name: float(value) for name, value in re.findall(r"^(gofish_\w+) ([-\d.e+]+)$", text, re.M)}

    def log_text(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None


def sqlite_transcripts(node):
    done = subprocess.run(["sqlite3", os.path.join(node.data, "gofish.sqlite"),
                           "SELECT game_id FROM games WHERE finished_ms IS NOT NULL ORDER BY game_id"],
                          capture_output=True, text=True, timeout=30)
    check(done.returncode == 0, f"sqlite3: {done.stderr}")
    transcripts = []
    for game_id in done.stdout.split():
        with urllib.request.urlopen(f"{node.http_url}/api/games/{game_id}/transcript", timeout=10) as reply:
            transcripts.append(json.loads(reply.read()))
    return transcripts


def sqlite():
    check(fault_library and os.path.exists(fault_library), f"no fault library at {fault_library}")
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="gofish-outage.")
    node = Node(work, *free_ports(2))
    node.start()
    rooms = []
    passed = False
    try:
        # Two games a room (six for pairs) outlast the three outages, so the
        # SIGTERM below still finds every room in a game (checked there).
        rooms = make_rooms(10, node, games=2)
        say(f"{len(rooms)} rooms on {node.ws_url} in {time.monotonic() - started:.1f} s")
        wait_for_asks(rooms, 5)
        failures = 0
        for outage, (word, meaning) in enumerate(
                (("full", "a full disk"), ("rofs", "a read-only file system"), ("eio", "a failing disk")), 1):
            # Each moment is taken on the side that makes the checks strict:
            # the fault begins at most at `began`, ends at least at `ended`
            # (a client's reader may stamp the server's answer to the fault
            # before this thread runs again).
            began = time.monotonic()
            node.fault(word)
            # Within the outage limit: degraded, still 200; not ready.
            time.sleep(1.5)
            status, health = node.get("/healthz")
            check(status == 200 and re.match(r"degraded: \d+ records? of \d+ rooms? wait to be stored; the oldest "
                                             r"for [\d.]+ s \(rooms are paused, not closed\)", health),
                  f"/healthz 1.5 s into {meaning}: {status} {health!r}")
            status, ready = node.get("/readyz")
            check(status == 503 and "storage failing" in ready, f"/readyz during {meaning}: {status} {ready!r}")
            metrics = node.metrics()
            check(metrics["gofish_rooms_paused"] >= 1 and metrics["gofish_store_waiting_rooms"] >= 1
                  and metrics["gofish_store_waiting_records"] >= 1
                  and metrics["gofish_store_oldest_waiting_seconds"] > 0.5
                  and metrics["gofish_store_outages_total"] == outage
                  and metrics["gofish_store_write_failures_total"] > failures,
                  f"/metrics during {meaning}: {metrics}")
            # Past the limit: 503, and the rooms still paused, none closed.
            time.sleep(OUTAGE_LIMIT_MS / 1000 + 1.0 - 1.5)
            status, health = node.get("/healthz")
            check(status == 503 and health.startswith("degraded:"),
                  f"/healthz past --store-outage-limit-ms during {meaning}: {status} {health!r}")
            check(node.metrics()["gofish_rooms_paused"] >= 1, "no room is paused past the outage limit")
            ended = time.monotonic()
            node.fault("off")
            time.sleep(2)
            status, health = node.get("/healthz")
            check((status, health) == (200, "ok\n"), f"/healthz after {meaning}: {status} {health!r}")
            metrics = node.metrics()
            check(metrics["gofish_rooms_paused"] == 0 and metrics["gofish_store_waiting_records"] == 0
                  and metrics["gofish_store_oldest_waiting_seconds"] == 0
                  and metrics["gofish_store_outages_total"] == outage,
                  f"/metrics after {meaning}: {metrics}")
            failures = metrics["gofish_store_write_failures_total"]
            closed = [name_of(c) for room in rooms for c in room.clients()
                      if any(m.get("type") == "room_closed" and began <= t <= ended for t, m in c.messages)]
            check(not closed, f"rooms closed during {meaning}: {closed}")
            delays, _ = check_outage(rooms, began, ended, 1.0)
            say(f"{meaning}: every client paused within {max(delays):.2f} s (p50 {percentile(delays, 0.5):.2f} s), "
                f"saw nothing while paused, and went on")
        began_lines, ended_lines = outage_lines(node.log_text())
        check((began_lines, ended_lines) == (3, 3), f"{began_lines} outage starts and {ended_lines} ends logged, "
                                                    f"not 3 and 3")
        check("what it recorded may not survive" not in node.log_text(), "a write was logged as lost")

        # Full again, and SIGTERM while records wait: exit 4, naming them.
        node.fault("full")
        time.sleep(1.5)
        done = [room.label() for room in rooms if any(c.proc.poll() is not None for c in room.clients())]
        check(not done, f"rooms done with their games before the SIGTERM, so not resumed mid-game: {done}")
        stopping = time.monotonic()
        status = node.stop(signal.SIGTERM)
        took = time.monotonic() - stopping
        log = node.log_text()
        named = re.search(r"not stored within 1500 ms \(--store-drain-ms\): (\d+) records? of (\d+) rooms? in all", log)
        check(status == 4, f"SIGTERM during the outage: exit status {status}, not 4")
        check(named, "the log does not say what was not stored:\n" + log[-2000:])
        say(f"SIGTERM during the outage: exit 4 after {took:.1f} s; {named.group(1)} records of {named.group(2)} rooms "
            f"not stored, as the log says")
        node.fault("off")
        node.start()
        finish_all(rooms, started + 240, watchers_may_miss=True)
        say(f"started again: every seat resumed and every game finished, {time.monotonic() - stopping:.1f} s after "
            f"the SIGTERM")
        say(f"gofish-cli printed each of the {check_cli_said(rooms)} pause and resume messages it received")
        check_games(rooms, node, sim_binary, sqlite_transcripts(node))
        passed = True
    finally:
        for room in rooms:
            for client in room.clients():
                client.stop()
        node.stop()
        if passed:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"the server's log and data are in {work}", file=sys.stderr)
    say(f"the SQLite outage test took {time.monotonic() - started:.1f} s")


if mode == "postgres":
    run(lambda: postgres(False))
elif mode == "postgres-kill":
    run(lambda: postgres(True))
elif mode == "sqlite":
    run(sqlite)
else:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
