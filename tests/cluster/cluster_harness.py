"""Shared pieces of the cluster tests: scripts/cluster.sh driven through its
subcommands (a throwaway PostgreSQL, gofish nodes and HAProxy on 127.0.0.1),
gofish-cli processes whose every server message (--json) is kept with the
moment it was read, the checks every test makes of what they saw, and the
failover check itself, which runs on scripts/cluster.sh's nodes
(cluster_failover) and on docker/compose.cluster.yaml's containers
(compose_cluster). Only processes started here are stopped, by their own
handles or by cluster.sh, which signals only the pids it recorded."""
import collections
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from free_ports import free_ports  # noqa: E402 (the tests import it from here)
CLUSTER_SH = os.path.join(ROOT, "scripts", "cluster.sh")


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def say(message):
    print(message, flush=True)


class Cluster:
    """scripts/cluster.sh up in a temporary directory; down() takes it all down."""

    def __init__(self, server_binary, nodes=3, server_flags=()):
        self.dir = tempfile.mkdtemp(prefix="gofish-cluster-test.")
        self.nodes = nodes
        self.run_script("up", self.dir, "--nodes", str(nodes), "--server", server_binary, "--", *server_flags)
        self.read_env()

    def run_script(self, *args, timeout=120):
        done = subprocess.run([CLUSTER_SH, *args], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise Failure(f"cluster.sh {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        return done.stdout

    def read_env(self):
        self.env = {}
        with open(os.path.join(self.dir, "cluster.env")) as env:
            for line in env:
                key, _, value = line.rstrip("\n").partition("=")
                words = shlex.split(value)
                self.env[key] = words[0] if words else ""

    @property
    def ws_url(self):
        return f"ws://127.0.0.1:{self.env['proxy_port']}"

    @property
    def http_url(self):
        return self.env["proxy_url"]

    def pid(self, k):
        return int(self.env[f"node{k}_pid"])

    def lease_ttl_ms(self, k=1):
        """Node k's --lease-ttl-ms, as its command line gives it (the last one), or the server's default."""
        words = shlex.split(self.env[f"node{k}_command"])
        ttl = 3000  # gofish-server's default
        for i, word in enumerate(words):
            if word == "--lease-ttl-ms" and i + 1 < len(words):
                ttl = int(words[i + 1])
            elif word.startswith("--lease-ttl-ms="):
                ttl = int(word.partition("=")[2])
        return ttl

    def haproxy_sees(self):
        """{node id: HAProxy's status of it (UP, DOWN, ...)}, from its statistics."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.env['stats_port']}/stats;csv", timeout=2) as reply:
            rows = reply.read().decode().splitlines()
        return {row.split(",")[1]: row.split(",")[17] for row in rows if row.startswith("nodes,node")}

    def stop_node(self, k, signal="TERM"):
        self.run_script("stop-node", self.dir, str(k), "--signal", signal)

    def kill_node(self, k):
        """Node k gone at once, as in a crash (SIGKILL)."""
        self.stop_node(k, "KILL")

    def node_process(self, k):
        return f"pid {self.pid(k)}"

    def start_node(self, k):
        self.run_script("start-node", self.dir, str(k))
        self.read_env()

    def sql(self, query):
        done = subprocess.run(["psql", self.env["postgres_url"], "-AtX", "-c", query], capture_output=True, text=True,
                              timeout=30)
        if done.returncode != 0:
            raise Failure(f"psql failed on {query!r}: {done.stderr}")
        return [line for line in done.stdout.splitlines() if line]

    def lease_holders(self):
        """{room code: node id} of every room lease."""
        return dict(line.split("|") for line in self.sql("SELECT code, node FROM room_lease"))

    def haproxy_log(self):
        with open(os.path.join(self.dir, "haproxy.log"), errors="replace") as log:
            return log.read()

    def down(self, keep_logs):
        """Takes the cluster down; removes its directory unless keep_logs (a failed test's evidence)."""
        try:
            self.run_script("down", self.dir)
        except Failure as failure:
            print(failure, file=sys.stderr)
            keep_logs = True
        if keep_logs:
            print(f"the cluster's logs are in {self.dir}", file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


class Cli:
    """A gofish-cli --json process; every line it prints is kept with the
    monotonic time it was read."""

    def __init__(self, binary, *args):
        self.args = [binary, "--json", "--no-color", *args]
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.messages = []  # (time, message dict)
        self.stderr = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            now = time.monotonic()
            try:
                self.messages.append((now, json.loads(line)))
            except json.JSONDecodeError:
                self.messages.append((now, {"type": "unreadable", "line": line}))

    def first(self, kind, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for _, message in list(self.messages):
                if message.get("type") == kind:
                    return message
            if self.proc.poll() is not None and not self._reader.is_alive():
                raise Failure(f"{' '.join(self.args)} exited ({self.proc.returncode}) before a {kind}: "
                              f"{self.proc.stderr.read()}")
            time.sleep(0.05)
        raise Failure(f"no {kind} from {' '.join(self.args)} in {timeout} s")

    def finish(self, timeout):
        try:
            self.proc.wait(timeout=max(timeout, 0.1))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self._reader.join(5)
            raise Failure(f"{' '.join(self.args)} did not finish in time; it last saw: "
                          f"{[m for _, m in self.messages[-5:]]}")
        self._reader.join(5)
        self.stderr = self.proc.stderr.read()
        return self.proc.returncode

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class CliTable:
    """A room of three seats played through the proxy by gofish-cli processes:
    the host (a medium gofish-cli bot, who creates it with a medium server
    bot and starts it once full), a watching spectator, and a guest (an easy
    gofish-cli bot). The spectator joins before the guest fills the table,
    so it sees every game from its start; start every table's spectator
    before any guest (watch(), then join()), so their joins move rooms
    between nodes at the same time."""

    def __init__(self, cli_binary, cluster, preset, table_rules, games, think_ms, extra_host_args=()):
        self.cli_binary, self.cluster = cli_binary, cluster
        self.preset, self.table_rules, self.games, self.think_ms = preset, table_rules, games, think_ms
        args = ["--name", "Host", "--seats", "3", "--bots", "medium", "--preset", preset, "--bot", "medium",
                "--think-ms", think_ms, "--start-when-full", "--games", str(games), *extra_host_args]
        if table_rules:
            args.append("--table-rules")
        self.host = Cli(cli_binary, cluster.ws_url, *cli_tls_args(cluster), *args)
        self.code = self.guest = self.watcher = None

    def watch(self):
        self.code = self.host.first("created")["code"]
        self.watcher = Cli(self.cli_binary, self.cluster.ws_url, *cli_tls_args(self.cluster), "--name", "Watcher",
                           "--join", self.code, "--spectate", "--games", str(self.games))

    def join(self):
        self.guest = Cli(self.cli_binary, self.cluster.ws_url, *cli_tls_args(self.cluster), "--name", "Guest", "--join",
                         self.code, "--bot", "easy", "--think-ms", self.think_ms, "--games", str(self.games))

    def clients(self):
        return [c for c in (self.host, self.guest, self.watcher) if c]

    def label(self):
        return f"{self.code} ({self.preset}{', table rules' if self.table_rules else ''})"


def stop_process(process, grace=15):
    """SIGTERM, then SIGKILL after `grace` seconds; nothing if it has exited."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def make_test_authority(directory, names=("localhost",), addresses=("127.0.0.1",)):
    """A certificate authority of the test's own and a server certificate it issued for `names`
    and `addresses`, made with openssl in `directory`. Returns (the authority's certificate, one PEM
    with the server's certificate and its key: what HAProxy's crt reads),
    paths both. The files are readable by all: a throwaway key, and a container's user may read it."""
    def openssl(*args):
        done = subprocess.run(["openssl", *args], capture_output=True, text=True, cwd=directory, timeout=60)
        if done.returncode != 0:
            raise Failure(f"openssl {' '.join(args)} failed: {done.stderr}")

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=gofish test authority", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", f"/CN={names[0]}")
    alt = ",".join([f"DNS:{name}" for name in names] + [f"IP:{address}" for address in addresses])
    with open(os.path.join(directory, "server.ext"), "w") as ext:
        ext.write(f"subjectAltName={alt}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
                  "keyUsage=critical,digitalSignature\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "server.ext")
    pem = os.path.join(directory, "server.pem")
    with open(pem, "w") as out:
        for part in ("server.crt", "server.key"):
            with open(os.path.join(directory, part)) as f:
                out.write(f.read())
    os.chmod(pem, 0o644)
    return os.path.join(directory, "ca.pem"), pem


def cli_tls_args(cluster):
    """gofish-cli's arguments for the cluster's certificate authority, when it is reached over wss://
    (the compose file's HAProxy ends TLS; scripts/cluster.sh's speaks plain HTTP)."""
    ca_file = getattr(cluster, "ca_file", None)
    return ["--ca-file", ca_file] if ca_file else []


PRESETS = ["classic", "specific-card", "keep-playing", "bicycle", "authors", "pairs"]


class OutageRoom(CliTable):
    """A room of the tests that take a node away mid-game (cluster_failover,
    cluster_frozen): its preset by its index over every preset, table rules
    in every other round of them, a turn timer in every third room, and the
    short `pairs` games three in a row (the others one)."""

    def __init__(self, index, cli_binary, cluster, think_ms):
        preset = PRESETS[index % len(PRESETS)]
        self.timer = 10 if index % 3 == 0 else 0
        super().__init__(cli_binary, cluster, preset, table_rules=(index // len(PRESETS)) % 2 == 1,
                         games=3 if preset == "pairs" else 1, think_ms=think_ms,
                         extra_host_args=("--timer", str(self.timer)))

    def label(self):
        return super().label()[:-1] + (", timer)" if self.timer else ")")


def asks_so_far(cli):
    return sum(1 for _, m in list(cli.messages) if m.get("type") == "event" and m["event"].get("type") == "asked")


def name_of(client):
    return client.args[client.args.index("--name") + 1]


def games_over(room):
    """Whether every client of `room` has exited: its games are all played (a
    pairs room can play its three games in fewer asks than the tests wait for)."""
    return all(client.proc.poll() is not None for client in room.clients())


def start_outage_rooms(cli_binary, cluster, count, think_ms, decisions):
    """`count` OutageRooms through the proxy, returned once each has `decisions`
    asks or has played all its games."""
    started = time.monotonic()
    rooms = [OutageRoom(i, cli_binary, cluster, think_ms) for i in range(count)]
    # Every spectator at once: their joins (through the proxy, to the node
    # each code hashes to) move many rooms between the same nodes at the
    # same time, each node waiting for the others' leases while it hands its
    # own rooms over. None may be answered room/not_found.
    for room in rooms:
        room.watch()
    for room in rooms:
        room.watcher.first("joined")
    for room in rooms:
        room.join()
    say(f"{count} rooms created through {cluster.http_url} in {time.monotonic() - started:.1f} s")
    deadline = time.monotonic() + 60
    while any(asks_so_far(room.watcher) < decisions and not games_over(room) for room in rooms):
        check(time.monotonic() < deadline, f"not every room reached {decisions} decisions in 60 s:\n" +
              "\n".join(f"{r.label()}: {asks_so_far(r.watcher)} asks; " + "; ".join(
                  f"{name_of(c)} exit {c.proc.poll()} last saw "
                  f"{[m.get('type') + ':' + str(m.get('event', m.get('code', '')))[:80] for _, m in c.messages[-3:]]}"
                  for c in r.clients()) for r in rooms if asks_so_far(r.watcher) < decisions and not games_over(r)))
        time.sleep(0.1)
    return rooms


def busiest_node(cluster, rooms):
    """The node holding the most of `rooms`' leases: (its number, its id, its rooms, leases per node)."""
    holders = cluster.lease_holders()
    codes = {room.code for room in rooms}
    per_node = collections.Counter(node for code, node in holders.items() if code in codes)
    node, _ = per_node.most_common(1)[0]
    return int(node.removeprefix("node")), node, [room for room in rooms if holders.get(room.code) == node], per_node


def finish_all(rooms, until, watchers_may_miss=False):
    """Waits for every client to exit 0, at the latest at monotonic time `until`.
    With `watchers_may_miss` (after a room moved: a node lost, frozen or
    restarted), a spectator may exit 7 because its room closed: the players'
    clients resume first, a game can end before the spectator is back (seen
    at 124 ms after a frozen node's room was restored), and gofish-cli counts
    only the games it saw end. Its players must still have finished every
    game."""
    for room in rooms:
        for client in room.clients():
            status = client.finish(max(1, until - time.monotonic()))
            if watchers_may_miss and client is room.watcher and status == 7 and "has closed" in client.stderr:
                continue
            check(status == 0, f"room {room.label()}: {' '.join(client.args)} exited with {status}: {client.stderr}")


def resume_times(rooms, since, gone_node, cluster):
    """For each seat of `rooms` played by gofish-cli, the time from `since` to
    its first resumed `joined` after it; every room's lease is another node's
    than `gone_node` by now.
    A seat whose client has exited 0 without resuming had played its last
    game before the kill cut it off (it could not have finished a game it was
    cut off from without resuming: it would have exited otherwise, which
    finish_all fails on): it has nothing to resume. A room can end between
    the check that picks the rooms in play and the kill, its last messages
    reaching the client after `since`."""
    times = []
    holders = cluster.lease_holders()
    for room in rooms:
        for seat in (room.host, room.guest):
            resumed = [t for t, m in seat.messages if t > since and m.get("type") == "joined" and m.get("resumed")]
            if seat.proc.poll() == 0 and not resumed:
                continue
            check(resumed, f"room {room.label()}: {seat.args[-5:]} never resumed its seat")
            times.append(resumed[0] - since)
        check(holders.get(room.code) != gone_node, f"room {room.code} is still leased to {gone_node}")
    return times


def check_games(rooms, cluster, sim_binary, transcripts=None):
    """No acknowledged decision is lost or doubled, and every stored game replays
    (`transcripts`: the stored ones, read through the cluster's database when
    not given):
    - every game is stored (each room's `games`);
    - each client saw no room version with two contents, and skipped none
      but by a snapshot;
    - the asks each client saw of each game, every version once, are
      exactly those of one stored transcript (a client whose resume got a
      snapshot instead of the missed events saw a part of them, in order),
      and the room's clients saw the same games;
    - every stored transcript replays (gofish-sim --replay)."""
    if transcripts is None:
        transcripts = stored_transcripts(cluster)
    played = {room.code: games_played(room) for room in rooms}
    games = sum(played.values())
    extra = [f"{room.label()}: {played[room.code]} of {room.games}" for room in rooms if played[room.code] > room.games]
    if extra:
        say(f"rooms whose clients missed a game's end in a snapshot and played one more: {', '.join(extra)}")
    check(len(transcripts) == games, f"{len(transcripts)} stored transcripts for {games} games")
    recorded = [asks_recorded(t) for t in transcripts]
    whole = partial = 0
    no_witness = []  # rooms where every client resumed from a snapshot
    for room in rooms:
        # Each game a client saw whole (every version) matches exactly one
        # transcript; the games of a client that saw only part of the room's
        # versions are matched by their asks in order, among those.
        whole_games = set()
        partial_games = []
        for client in room.clients():
            name = f"room {room.label()} {name_of(client)}"
            events, skips = check_stream(name, client.messages)
            seen = games_seen(events)
            if skips == 0:
                found = []
                for asks in seen:
                    matches = [i for i, stored in enumerate(recorded) if stored == asks]
                    check(len(matches) == 1, f"{name}: the {len(asks)} asks seen of a game are those of "
                                             f"{len(matches)} stored transcripts, not exactly one")
                    found.append(matches[0])
                check(len(found) == room.games, f"{name} saw {len(found)} whole games of {room.games}")
                whole_games.add(tuple(found))
                whole += 1
            else:
                for asks in seen:
                    matches = {i for i, stored in enumerate(recorded) if is_subsequence(asks, stored)}
                    check(matches, f"{name}: the asks seen of a game are in no stored transcript")
                    partial_games.append((name, matches))
                partial += 1
        check(len(whole_games) <= 1, f"room {room.label()}: its clients saw different games: {whole_games}")
        if whole_games:
            games_of_room = set(next(iter(whole_games)))
            for name, matches in partial_games:
                check(matches & games_of_room, f"{name} saw a game its room's players did not")
        else:
            no_witness.append(room.code)
    say(f"{whole} clients saw every version of their games and exactly their stored asks; "
        f"{partial} resumed from a snapshot and saw a part of them, in order"
        f"{f' (in {len(no_witness)} rooms every client did: ' + ', '.join(no_witness) + ')' if no_witness else ''}")
    check_replays(sim_binary, transcripts, cluster.dir)


def check_stream(name, messages):
    """What one client saw across all its connections: no room version with two
    contents, and between snapshots no version skipped. Returns the events in
    order, each version once, with a {"type": "snapshot", "game_number": N}
    where a snapshot skipped versions, and how many snapshots did (a resume
    whose gap the server no longer had as events)."""
    contents = {}
    events = []
    skips = 0
    last_v = None
    for _, message in messages:
        if message.get("type") == "room":
            if last_v is not None and message["v"] > last_v:
                skips += 1
                events.append({"type": "snapshot", "game_number": message.get("game_number")})
            last_v = message["v"] if last_v is None else max(last_v, message["v"])
            continue
        if message.get("type") != "event":
            continue
        v = message["v"]
        text = json.dumps(message["event"], sort_keys=True)
        if v in contents:
            check(contents[v] == text, f"{name} got version {v} with two contents:\n{contents[v]}\n{text}")
            continue
        contents[v] = text
        check(last_v is None or v == last_v + 1, f"{name} skipped from version {last_v} to {v} without a snapshot")
        last_v = v
        events.append(message["event"])
    return events, skips


def is_subsequence(part, whole):
    it = iter(whole)
    return all(item in it for item in part)


def percentile(values, fraction):
    """The nearest-rank percentile: the smallest value at or above `fraction` of them."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def stored_transcripts(cluster):
    """Every finished game in the cluster's database (the test's own), by its
    transcript as the transcript API serves it through HAProxy: the store
    keeps a game's set-up and decisions, and a node plays them again. A room
    that closes detaches its games, so they are not found by room."""
    transcripts = []
    for game_id in cluster.sql("SELECT game_id FROM games WHERE finished_ms IS NOT NULL ORDER BY game_id"):
        url = f"{cluster.http_url}/api/games/{game_id}/transcript"
        try:
            with urllib.request.urlopen(url, timeout=10, context=getattr(cluster, "ssl_context", None)) as reply:
                transcripts.append(json.loads(reply.read()))
        except urllib.error.HTTPError as error:
            raise Failure(f"GET {url}: {error.code} {error.read().decode(errors='replace')}")
    return transcripts


def ask_key(action):
    return (action["seat"], action["target"], action.get("rank"), action.get("card"))


def asks_seen(events):
    """The asks in `events`, as a transcript lists them."""
    return [ask_key(event) for event in events if event.get("type") == "asked"]


def games_played(room):
    """How many games `room` played to their end: the games its clients were
    asked to play, or more when a client resumed from a snapshot that showed
    a game already over (gofish-cli counts only the ends it saw as events, so
    it plays one more game). The number of the last game any client of the
    room saw end, by its game_started or its snapshot's game_number."""
    played = room.games
    for client in room.clients():
        number = None
        for _, message in client.messages:
            if message.get("type") == "room":
                number = message.get("game_number", number)
            elif message.get("type") == "event":
                event = message.get("event", {})
                if event.get("type") == "game_started":
                    number = event.get("game", number)
                elif event.get("type") == "game_over" and number is not None:
                    played = max(played, number)
    return played


def games_seen(events):
    """The asks of each game in `events` seen from its start (game_started) to
    its end (game_over). A game whose end was skipped (a snapshot of a later
    game came instead: the client was away as it ended) is left out, so the
    asks of two games are never taken for one."""
    games = []
    current = None
    number = None
    for event in events:
        kind = event.get("type")
        if kind == "game_started":
            current = []
            number = event.get("game")
        elif kind == "snapshot":
            if current is not None and event.get("game_number") != number:
                current = None
        elif kind == "asked" and current is not None:
            current.append(ask_key(event))
        elif kind == "game_over" and current is not None:
            games.append(current)
            current = None
    return games


def asks_recorded(transcript):
    return [ask_key(action) for action in transcript["actions"] if "target" in action]


def check_replays(sim_binary, transcripts, work_dir):
    """Every transcript replays to its recorded result (gofish-sim --replay)."""
    path = os.path.join(work_dir, "transcripts.jsonl")
    with open(path, "w") as out:
        for transcript in transcripts:
            out.write(json.dumps(transcript) + "\n")
    done = subprocess.run([sim_binary, "--replay", path], capture_output=True, text=True, timeout=120)
    check(done.returncode == 0, f"gofish-sim --replay {path}: {done.stdout}{done.stderr}")
    say(done.stdout.strip())


def failover_check(cluster, cli_binary, sim_binary, room_count, think_ms, decisions, max_p99_seconds, finish_by,
                   rooms):
    """Issue 18's failover check on `cluster`, scripts/cluster.sh's or the
    compose file's: anything with ws_url, http_url, dir, sql(),
    lease_holders(), lease_ttl_ms(), kill_node(k) and node_process(k).
    `room_count` OutageRooms through the proxy (added to `rooms`, whose
    clients the caller stops); once every room has `decisions` asks, the
    node holding the most rooms' leases is killed. Then every seat of its
    rooms played by gofish-cli resumes on a survivor, with the p99 of kill
    to resumed seat at most `max_p99_seconds`; every client exits 0 by the
    monotonic time `finish_by`; and check_games holds."""
    rooms.extend(start_outage_rooms(cli_binary, cluster, room_count, think_ms, decisions))
    victim, victim_node, affected, per_node = busiest_node(cluster, rooms)
    # A room whose games were all played before the kill has no seat to resume.
    over = [room for room in affected if games_over(room)]
    affected = [room for room in affected if room not in over]
    say(f"leases per node {dict(per_node)}; every room has {decisions} decisions or is over; "
        f"SIGKILL {victim_node} ({cluster.node_process(victim)}) holding {len(affected)} rooms in play"
        + (f" and {len(over)} over" if over else ""))
    check(affected, f"{victim_node} holds no room in play")
    killed_at = time.monotonic()
    cluster.kill_node(victim)

    finish_all(rooms, finish_by, watchers_may_miss=True)
    say(f"every game finished, {time.monotonic() - killed_at:.1f} s after the kill")

    latencies = resume_times(affected, killed_at, victim_node, cluster)
    p99 = percentile(latencies, 0.99)
    say(f"kill -> resumed seat over {len(latencies)} seats of {len(affected)} rooms: "
        f"p50 {percentile(latencies, 0.5):.2f} s, p99 {p99:.2f} s, max {max(latencies):.2f} s "
        f"(lease TTL {cluster.lease_ttl_ms()} ms)")
    check(p99 <= max_p99_seconds, f"p99 kill -> resumed seat {p99:.2f} s is over {max_p99_seconds} s")

    check_games(rooms, cluster, sim_binary)


def run(main):
    """Runs a test's main(), printing the failure and exiting non-zero when it fails."""
    try:
        main()
    except Failure as failure:
        print(f"FAILED: {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
    print("passed")
