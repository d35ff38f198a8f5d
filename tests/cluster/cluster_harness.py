"""Shared pieces of the cluster tests: scripts/cluster.sh driven through its
subcommands (a throwaway PostgreSQL, gofish nodes and HAProxy on 127.0.0.1),
gofish-cli processes whose every server message (--json) is kept with the
moment it was read, and the checks every test makes of what they saw. Only
processes started here are stopped, by their own handles or by cluster.sh,
which signals only the pids it recorded."""
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

    def stop_node(self, k, signal="TERM"):
        self.run_script("stop-node", self.dir, str(k), "--signal", signal)

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
        self.host = Cli(cli_binary, cluster.ws_url, *args)
        self.code = self.guest = self.watcher = None

    def watch(self):
        self.code = self.host.first("created")["code"]
        self.watcher = Cli(self.cli_binary, self.cluster.ws_url, "--name", "Watcher", "--join", self.code,
                           "--spectate", "--games", str(self.games))

    def join(self):
        self.guest = Cli(self.cli_binary, self.cluster.ws_url, "--name", "Guest", "--join", self.code, "--bot", "easy",
                         "--think-ms", self.think_ms, "--games", str(self.games))

    def clients(self):
        return [c for c in (self.host, self.guest, self.watcher) if c]

    def label(self):
        return f"{self.code} ({self.preset}{', table rules' if self.table_rules else ''})"


def check_stream(name, messages):
    """What one client saw across all its connections: no room version with two
    contents, and between snapshots no version skipped. Returns the events in
    order, each version once, and how many snapshots skipped versions (a
    resume whose gap the server no longer had as events)."""
    contents = {}
    events = []
    skips = 0
    last_v = None
    for _, message in messages:
        if message.get("type") == "room":
            if last_v is not None and message["v"] > last_v:
                skips += 1
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
            with urllib.request.urlopen(url, timeout=10) as reply:
                transcripts.append(json.loads(reply.read()))
        except urllib.error.HTTPError as error:
            raise Failure(f"GET {url}: {error.code} {error.read().decode(errors='replace')}")
    return transcripts


def ask_key(action):
    return (action["seat"], action["target"], action.get("rank"), action.get("card"))


def asks_seen(events):
    """The asks in `events`, as a transcript lists them."""
    return [ask_key(event) for event in events if event.get("type") == "asked"]


def games_seen(events):
    """The asks of each game in `events` seen from its start (game_started) to its end (game_over)."""
    games = []
    current = None
    for event in events:
        kind = event.get("type")
        if kind == "game_started":
            current = []
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


def run(main):
    """Runs a test's main(), printing the failure and exiting non-zero when it fails."""
    try:
        main()
    except Failure as failure:
        print(f"FAILED: {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
    print("passed")
