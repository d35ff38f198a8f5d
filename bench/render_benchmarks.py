#!/usr/bin/env python3
"""Writes docs/BENCHMARKS.md from the JSON lines bench/run collected.

Everything above MARKER is generated from one run; everything below it is
written by hand (how the figures were improved, profiles) and copied from the
previous file unchanged.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

MARKER = "<!-- Written by hand below this line: bench/run keeps it as it is. -->"

# Issue 7's targets on the 2-core machine.
TARGET_ACTIONS = 20_000
TARGET_CLOSED_P99_MS = 10
TARGET_PACED_PLAYERS = 10_000
TARGET_PACED_P99_MS = 5
TARGET_IDLE_KIB = 16
TARGET_ECHO_RATIO = 0.40
# Issue 18's, for each store at 100 rooms, closed loop.
TARGET_STORE_SHARE = 0.80
TARGET_STORE_BYTES = 1_000


def command_output(*command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_rows(server_core, load_core, build, load_at_start):
    lscpu = command_output("lscpu")
    model = re.search(r"Model name:\s*(.+)", lscpu)
    memory_kib = 0
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                memory_kib = int(line.split()[1])
    debian = Path("/etc/debian_version")
    compiler = command_output("c++", "--version").splitlines()
    return [
        ("CPU", f"{model.group(1) if model else platform.processor()}, {os.cpu_count()} cores"),
        ("memory", f"{memory_kib / 1024 / 1024:.1f} GiB"),
        ("OS", f"Debian {debian.read_text().strip() if debian.exists() else '?'}, kernel {platform.release()}"),
        ("compiler", f"{compiler[0] if compiler else '?'}; {build}"),
        ("pinning", f"server and echo server `taskset -c {server_core}`, gofish-load and the engine benchmark "
                    f"`taskset -c {load_core}`"),
        ("load average (1, 5, 15 min)", f"at the start {load_at_start}; at the end "
                                        + " ".join(f"{x:.2f}" for x in os.getloadavg())),
    ]


def load_results(directory):
    results = {}
    for path in Path(directory).glob("*.json"):
        args_path = path.with_suffix(".args")
        report = json.loads(path.read_text())
        report["_args"] = args_path.read_text().strip() if args_path.exists() else ""
        results[path.stem] = report
    return results


def ms(micros):
    return f"{micros / 1000:.2f}"


def number(value):
    return f"{value:,.0f}"


def met(ok):
    return "**met**" if ok else "**missed**"


def latency_cells(report):
    latency = report["latency_us"]
    return [ms(latency[k]) for k in ("p50", "p90", "p99", "p999", "max")]


def server_cells(report):
    server = report.get("server") or {}
    client = report.get("client") or {}
    return [f"{server.get('cpu_percent', 0):.0f}%", f"{server.get('cpu_us_per_action', 0):.0f}",
            f"{server.get('rss_kib', 0) / 1024:.0f}", f"{client.get('cpu_percent', 0):.0f}%"]


def cpu_ratio(server_report, echo_report):
    """The echo server's CPU per echo over the server's CPU per action: the
    throughput ratio the two would have if each had a whole core to itself."""
    server = (server_report.get("server") or {}).get("cpu_us_per_action", 0)
    echo = (echo_report.get("server") or {}).get("cpu_us_per_action", 0)
    return echo / server if server > 0 else 0


def load_label(report):
    pace = "closed loop" if report["think_ms"] == 0 else f"paced, {report['think_ms']} ms think"
    return f"{report['rooms']:,} rooms × {report['players']} ({report['connections']:,} connections), {pace}"


# What "bytes written per action" counts for each store (bench/run, written_sample).
WRITTEN_MEASURE = {
    "none": "the bytes the server process passed to write calls (`wchar` in `/proc/PID/io`)",
    "sqlite": "the bytes the server process passed to write calls (`wchar` in `/proc/PID/io`): the WAL, the "
              "checkpoints that copy it into the database file, and the log",
    "postgres": "the WAL the PostgreSQL cluster generated (the difference of `pg_current_wal_lsn()`), full-page "
                "images included",
}


# bench/run's durability runs: each store at its default durability, then at
# the other's (SQLite flushing every commit; PostgreSQL's sessions not waiting
# for the flush), and PostgreSQL with four writer connections.
DURABLE_STORAGES = ("none", "sqlite", "sqlite-full", "postgres", "postgres-async", "postgres-4")
DURABLE_LABELS = {
    "sqlite-full": "`--storage sqlite --sqlite-synchronous full`",
    "postgres-async": "`--storage postgres`, `synchronous_commit` off",
    "postgres-4": "`--storage postgres --postgres-writers 4`",
}


def written_per_action(report, storage):
    written = report.get("written")
    if not written or written.get("actions", 0) <= 0:
        return None
    key = "wal_bytes" if storage.startswith("postgres") else "file_bytes"
    return written[key] / written["actions"]


def fmt_core(core):
    return f"{core:.0f} µs of the server's core per action" if core else "core time not measured"


def core_per_action(report):
    """Microseconds the server's core was busy per action over the whole run
    (the server, its writer thread and, with PostgreSQL, the database), or
    None where bench/run did not sample it."""
    written = report.get("written")
    if not written or written.get("actions", 0) <= 0 or not written.get("core_seconds"):
        return None
    return written["core_seconds"] * 1e6 / written["actions"]


def table(header, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def render(results, command, server_core, load_core, build, load_at_start):
    out = []
    closed = sorted((name for name in results if name.startswith("server-closed")),
                    key=lambda name: results[name]["rooms"])
    paced = results.get("server-paced")
    idle = results.get("idle")
    durable = {storage: results.get(f"durable-{storage}") for storage in DURABLE_STORAGES}
    engine = results.get("engine")

    # ---- targets
    best = max((results[name] for name in closed), key=lambda r: r["actions_per_second"], default=None)
    fast_enough = [results[name] for name in closed
                   if results[name]["actions_per_second"] >= TARGET_ACTIONS
                   and results[name]["latency_us"]["p99"] <= TARGET_CLOSED_P99_MS * 1000]
    ratios = []
    cpu_ratios = []
    for name in closed:
        echo = results.get(name.replace("server-", "echo-", 1))
        if echo and echo["actions_per_second"] > 0:
            ratios.append(results[name]["actions_per_second"] / echo["actions_per_second"])
            cpu_ratios.append(cpu_ratio(results[name], echo))
    target_rows = []
    if best:
        target_rows.append((f"≥ {TARGET_ACTIONS:,} actions/s with p99 ≤ {TARGET_CLOSED_P99_MS} ms",
                            f"best {number(best['actions_per_second'])} actions/s at p99 "
                            f"{ms(best['latency_us']['p99'])} ms ({best['rooms']} rooms, closed loop)",
                            met(bool(fast_enough))))
    if paced:
        paced_ok = (paced["connections"] >= TARGET_PACED_PLAYERS
                    and paced["latency_us"]["p99"] <= TARGET_PACED_P99_MS * 1000
                    and paced["errors"] == 0)
        target_rows.append((f"{TARGET_PACED_PLAYERS:,} players in 2,500 rooms at a person's pace, p99 ≤ "
                            f"{TARGET_PACED_P99_MS} ms",
                            f"{paced['connections']:,} players, p99 {ms(paced['latency_us']['p99'])} ms, "
                            f"{paced['errors']} errors", met(paced_ok)))
    if idle and "idle" in idle:
        per = idle["idle"]["kib_per_connection"]
        target_rows.append((f"≤ {TARGET_IDLE_KIB} KiB of server memory per idle player",
                            f"{per:.1f} KiB ({idle['connections']:,} players)", met(per <= TARGET_IDLE_KIB)))
    if ratios:
        target_rows.append((f"server throughput ≥ {TARGET_ECHO_RATIO:.0%} of the echo baseline",
                            ", ".join(f"{r:.0%}" for r in ratios) + " (by CPU per action: "
                            + ", ".join(f"{r:.0%}" for r in cpu_ratios if r) + ")",
                            met(min(ratios) >= TARGET_ECHO_RATIO)))

    # Issue 18's targets: durability at 100 rooms, closed loop.
    store_rows = []
    for storage in ("sqlite", "postgres"):
        report, base = durable[storage], durable["none"]
        if not report or not base or base["actions_per_second"] <= 0:
            continue
        share = report["actions_per_second"] / base["actions_per_second"]
        per_action = written_per_action(report, storage)
        # The share of actions/s is the target's measure; when the load client
        # rather than the server limits the no-storage run, it flatters the
        # store, so the share by the server core's busy time per action must
        # reach the target too.
        core, core_base = core_per_action(report), core_per_action(base)
        core_share = core_base / core if core and core_base else None
        store_rows.append((f"`--storage {storage}`: ≥ {TARGET_STORE_SHARE:.0%} of the no-storage actions/s and "
                           f"≤ {TARGET_STORE_BYTES:,} bytes written per action",
                           f"{share:.0%} ({number(report['actions_per_second'])} against "
                           f"{number(base['actions_per_second'])} actions/s"
                           + (f"; {core_share:.0%} by the server core's busy time per action" if core_share else "")
                           + "), "
                           + (f"{per_action:,.0f} bytes per action" if per_action is not None
                              else "bytes not measured")
                           + f" ({load_label(report)}; see [Durability cost](#durability-cost))",
                           met(share >= TARGET_STORE_SHARE and (core_share is None or core_share >= TARGET_STORE_SHARE)
                               and per_action is not None and per_action <= TARGET_STORE_BYTES)))

    out.append("# Benchmarks\n")
    out.append("Every figure above the hand-written part comes from one run of the command below on the machine "
               "below; run it again to check them. These are benchmarks, not timed tests: nothing in the test "
               "suite depends on them. The machine is shared with other work, so figures move by tens of percent "
               "between runs; the load average is given below.\n")
    out.append(f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC.\n")
    out.append("## Targets\n")
    out.append(table(["target (issue 7)", "measured", ""], target_rows, ["---", "---", "---"]) + "\n")
    if store_rows:
        out.append(table(["target (issue 18, at 100 rooms closed loop)", "measured", ""], store_rows,
                         ["---", "---", "---"]) + "\n")

    out.append("## Machine\n")
    out.append(table(["", ""], machine_rows(server_core, load_core, build, load_at_start), ["---", "---"]) + "\n")

    out.append("## Command\n")
    out.append(f"```sh\n{command}\n```\n")
    out.append("Without `--bin-dir` it builds a Release in `build-bench/`. Then it runs, each against a fresh "
               "process:\n")
    for name in sorted(results):
        out.append(f"* `{name}`: `{results[name]['_args']}`")
    out.append("\nA run marked \"best of N\" was made N times, each against a fresh process, and the one with the "
               "most actions/s is kept: other work on a shared machine only slows a run down.")
    out.append("\nThe server runs with `--threads 1 --storage none` (unless said otherwise), the per-connection "
               "message rate raised (`--message-rate 100000 --message-burst 100000`) so a closed-loop player is "
               "not throttled, and the connection and room caps raised. `gofish-load` spreads its connections "
               "over 127.0.0.1 to 127.0.0.8. `bench/run --quick` runs tiny loads in well under a minute (the "
               "ctest `bench_run_quick` does, writing to the build directory).\n")

    if engine:
        out.append("## Engine\n")
        out.append(f"`gofish-bench-engine`: {engine['preset']}, {engine['players']} players, every seat playing "
                   "the easy policy, one core, rates per CPU second (best of "
                   f"{engine['repeat']}). How it was measured and optimised is in the hand-written part below.\n")
        rows = []
        for key, label in (("bare", "bare: legal, choose, apply"),
                           ("views", "with views: plus every seat's and the spectator's view and events")):
            if key in engine:
                rows.append((label, f"**{number(engine[key]['decisions_per_s'])}**",
                             number(engine[key]['games_per_s'])))
        out.append(table(["workload", "decisions/s", "games/s"], rows) + "\n")
        if "memory" in engine:
            memory = engine["memory"]
            out.append(f"Memory per game state: {memory['sizeof_game'] + memory['mid_heap_max']:,} bytes mid-game "
                       f"(`sizeof(Game)` {memory['sizeof_game']} B plus {memory['mid_heap_max']:,} B of vectors).\n")

    out.append("## Server at several loads\n")
    out.append("Each player is a WebSocket connection that decides with the engine's easy bot on its own seat view, "
               "built from the events the server sends that seat. An action is an accepted ask; its latency runs "
               "from sending the ask to receiving the `asked` event that answers it. The echo server gets the same "
               "connections, in the same rooms, taking turns the same way, each sending a message the size of an "
               "ask; its actions are echoes. CPU is per second of wall time (100% is one core); the load client's "
               "own CPU is given so you can see whether it, rather than the server, was the limit.\n")
    rows = []
    for name in closed + (["server-paced"] if paced else []):
        report = results[name]
        echo = results.get(name.replace("server-", "echo-", 1))
        ratio = (f"{report['actions_per_second'] / echo['actions_per_second']:.0%}"
                 if echo and echo["actions_per_second"] > 0 else "")
        by_cpu = f"{cpu_ratio(report, echo):.0%}" if echo else ""
        rows.append([load_label(report), f"**{number(report['actions_per_second'])}**", *latency_cells(report),
                     *server_cells(report), f"{report['errors']} / {report['refused']}",
                     number(echo["actions_per_second"]) if echo else "", ms(echo["latency_us"]["p99"]) if echo else "",
                     ratio, by_cpu])
    out.append(table(["load", "actions/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "server CPU",
                      "server µs/action", "server RSS MiB", "client CPU", "errors / refused", "echo/s", "echo p99 ms",
                      "ratio to echo", "ratio by CPU"], rows) + "\n")
    out.append("The closed-loop rows keep one ask outstanding per room, so latency there is mostly queueing: "
               "rooms divided by throughput. The latency of a lightly loaded server is in the 10-room row and "
               "the paced row. With few rooms a process can be bound by round trips rather than CPU (neither it "
               "nor the load client near 100%), and on this shared machine other work can take part of the "
               "server's core; \"ratio by CPU\" (the echo server's CPU per echo over the server's CPU per "
               "action) compares the two as if each had its core to itself.\n")

    if durable["none"] and durable["sqlite"]:
        stores = [storage for storage in DURABLE_STORAGES if durable[storage]]
        out.append("## Durability cost\n")
        out.append("The same closed-loop load against `--storage none`, `--storage sqlite` (every room event "
                   "committed before it is sent; `--sqlite-synchronous normal`)"
                   + (" and `--storage postgres` (the same, on a throwaway PostgreSQL cluster on this machine, "
                      "pinned to the server's core, with PostgreSQL's default durability: fsync and "
                      "synchronous_commit on, so a flush per commit)" if durable["postgres"] else "")
                   + (". Each store also ran at the other's default durability (the rows with "
                      "`--sqlite-synchronous full` and with `synchronous_commit` off; see below)"
                      if durable["sqlite-full"] and durable["postgres-async"] else "")
                   + ". The storages take turns, one run each, round after round, so that other work on the "
                   "machine falls on all of them alike; the best run of each is kept.\n")
        rows = []
        for storage in stores:
            report = durable[storage]
            per_action = written_per_action(report, storage)
            label = DURABLE_LABELS.get(storage, f"`--storage {storage}`")
            core = core_per_action(report)
            rows.append([label, load_label(report), f"**{number(report['actions_per_second'])}**",
                         *latency_cells(report), *server_cells(report)[:2],
                         f"{core:.0f}" if core is not None else "", server_cells(report)[3],
                         f"{report['errors']} / {report['refused']}",
                         f"{per_action:,.0f}" if per_action is not None else ""])
        none_rate = durable["none"]["actions_per_second"]
        share = {k: durable[k]["actions_per_second"] / none_rate if none_rate > 0 else 0 for k in stores}
        cpu = {k: (durable[k].get("server") or {}).get("cpu_us_per_action", 0) for k in stores}
        p99 = {k: ms(durable[k]["latency_us"]["p99"]) for k in stores}
        out.append(table(["storage", "load", "actions/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms",
                          "server CPU", "server µs/action", "server core µs/action", "client CPU",
                          "errors / refused", "bytes written per action"],
                         rows) + "\n")
        out.append("**Server core µs/action** is the time the server's core was busy (user, system and interrupt "
                   "time in `/proc/stat`) over the whole `gofish-load` run, per action applied: the server, its "
                   "writer thread and, with PostgreSQL, the database's processes, which are pinned to the same "
                   "core. **Client CPU** is the load client's, on the other core: near 100% the client, not the "
                   "server, set the pace of that run.\n")
        client_none = ((durable["none"].get("client") or {}).get("cpu_percent", 0))
        core = {k: core_per_action(durable[k]) for k in stores}
        if core["none"]:
            shares = ", ".join(f"{label} {core['none'] / core[k]:.0%}" for k, label in
                               (("sqlite", "SQLite"), ("postgres", "PostgreSQL")) if k in core and core[k])
            out.append((f"The no-storage run was limited by the load client (its core at {client_none:.0f}%), so "
                        "its actions/s are what the client could drive, not what the server could serve, and the "
                        "shares of them below flatter the stores. " if client_none >= 95 else "")
                       + "If the server's core were the limit, each store's share would be the no-storage run's "
                       f"core time per action over its own: {shares}.\n")
        out.append("**Bytes written per action** is measured over the whole `gofish-load` run (room set-up, ramp "
                   "and measuring window), divided by the actions the server applied in that time (the "
                   "difference of `gofish_actions_total` on its `/metrics`). For `none` and `sqlite` it is "
                   f"{WRITTEN_MEASURE['sqlite']}; for `postgres` it is {WRITTEN_MEASURE['postgres']} (PostgreSQL "
                   "writes its tables' pages again later, at checkpoints, which this leaves out; the server "
                   "process itself writes next to nothing).\n")
        out.append(f"With SQLite the server made {share['sqlite']:.0%} of the actions/s it made without, at "
                   f"{cpu['sqlite']:.0f} µs of CPU per action instead of {cpu['none']:.0f} (the writer thread shares "
                   f"the server's core); p99 went from {p99['none']} ms to {p99['sqlite']} ms. CPU per action is the "
                   "steadier figure on a shared machine.\n")
        if durable["postgres"]:
            out.append(f"With PostgreSQL it made {share['postgres']:.0%} of them, at {cpu['postgres']:.0f} µs of its "
                       f"own CPU per action (PostgreSQL's processes, on the same core, are not counted in it); p99 "
                       f"was {p99['postgres']} ms. Each batch is one transaction sent in one round trip (libpq's "
                       "pipeline mode), so the flush per commit is shared by every action in the batch.\n")
            if durable["postgres-4"]:
                out.append(f"With four writer connections committing side by side (`--postgres-writers 4`; "
                           f"the default is one) it made {share['postgres-4']:.0%}, at {cpu['postgres-4']:.0f} µs "
                           f"per action; p99 was {p99['postgres-4']} ms.\n")
            if durable["sqlite-full"] and durable["postgres-async"]:
                out.append("The two defaults differ in what a commit waits for. SQLite's (`--sqlite-synchronous "
                           "normal`) returns once the commit is in the operating system's hands: a crash of the "
                           "server process loses nothing, a power cut may lose the last batches. PostgreSQL's "
                           "(`synchronous_commit` on) returns once the commit is flushed to disk, as SQLite's "
                           "`full` does. So each store was also run at the other's level: SQLite flushing every "
                           f"commit made {share['sqlite-full']:.0%} of the no-storage actions/s "
                           f"({fmt_core(core['sqlite-full'])}), and PostgreSQL with the server's sessions not "
                           f"waiting for the flush (`synchronous_commit` off, through `?options=` in the URL) "
                           f"made {share['postgres-async']:.0%} ({fmt_core(core['postgres-async'])}). "
                           "`synchronous_commit` off is weaker than SQLite's `normal`: a crash of PostgreSQL "
                           "itself, not only of its machine, may lose the last commits (up to three times "
                           "`wal_writer_delay`). The targets above are judged at each store's default.\n")
        else:
            out.append("PostgreSQL was not measured: this machine has no PostgreSQL server binaries "
                       "(Debian's `postgresql`, from `scripts/install-deps.sh --bench`).\n")

    if idle and "idle" in idle:
        out.append("## Idle memory per connection\n")
        figures = idle["idle"]
        out.append(f"{idle['connections']:,} players seated in {idle['rooms']:,} waiting rooms of {idle['players']}, "
                   f"held for {idle['seconds']:.0f} s: the server's resident memory (VmRSS) went from "
                   f"{figures['rss_before_kib']:,} KiB before the first connection to {figures['rss_after_kib']:,} "
                   f"KiB, **{figures['kib_per_connection']:.1f} KiB per connected player** (room included). "
                   f"Errors: {idle['errors']}.\n")
        out.append("## Connection set-up\n")
        out.append(f"In the idle test the {idle['connections']:,} connections open with no ramp, at most 256 "
                   "being set up at once (TCP connect and WebSocket upgrade): "
                   f"**{number(idle['connections_per_second'])} connections/s**.\n")
    out.extend(tls_section(results))
    return "\n".join(out)


def tls_section(results):
    """The cost of the server's own TLS: the same closed-loop load and idle
    test with and without it (bench/run's tls-plain, tls-on, idle, idle-tls)."""
    plain, tls, idle, idle_tls = (results.get(name) for name in ("tls-plain", "tls-on", "idle", "idle-tls"))
    if not (plain and tls):
        return []
    out = ["## TLS cost\n",
           "The same closed-loop load against `--storage none` without TLS and with the server's own TLS "
           "(`--tls-cert`, `--tls-key`: an ECDSA P-256 certificate from a test authority bench/run makes; "
           "TLS 1.3, which `gofish-load` negotiates with the server, verifying the certificate), taking turns, "
           "the best run of each kept; then the idle test with TLS.\n"]
    rows = []
    for label, report in (("plain (`ws://`)", plain), ("TLS (`wss://`)", tls)):
        core = core_per_action(report)
        rows.append([label, load_label(report), f"**{number(report['actions_per_second'])}**",
                     *latency_cells(report), *server_cells(report)[:2],
                     f"{core:.0f}" if core is not None else "", server_cells(report)[3],
                     f"{report['errors']} / {report['refused']}"])
    out.append(table(["connection", "load", "actions/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms",
                      "server CPU", "server µs/action", "server core µs/action", "client CPU",
                      "errors / refused"], rows) + "\n")
    cpu = {name: (report.get("server") or {}).get("cpu_us_per_action", 0) for name, report in
           (("plain", plain), ("tls", tls))}
    if cpu["plain"] > 0:
        out.append(f"With TLS the server spent {cpu['tls']:.0f} µs of CPU per action against {cpu['plain']:.0f} "
                   f"without: **{cpu['tls'] / cpu['plain']:.2f}×**; it made "
                   f"{tls['actions_per_second'] / plain['actions_per_second']:.0%} of the plain run's actions/s, "
                   f"p99 {ms(tls['latency_us']['p99'])} ms against {ms(plain['latency_us']['p99'])} ms.\n")
    if idle and idle_tls and "idle" in idle and "idle" in idle_tls:
        per_plain = idle["idle"]["kib_per_connection"]
        per_tls = idle_tls["idle"]["kib_per_connection"]
        out.append(f"Idle, {idle_tls['connections']:,} players seated as in the idle test above: "
                   f"**{per_tls:.1f} KiB per connected player with TLS** against {per_plain:.1f} KiB without "
                   f"({per_tls - per_plain:+.1f} KiB: Boost.Asio's TLS stream keeps four 17 KiB buffers for each "
                   f"connection, its own input and output and the two halves of its BIO pair, whether it is busy "
                   f"or not); connections "
                   f"set up at {number(idle_tls['connections_per_second'])}/s with TLS against "
                   f"{number(idle['connections_per_second'])}/s without (a TLS 1.3 handshake each, verified by "
                   f"the client). Errors: {idle_tls['errors']}.\n")
    return out


def hand_written(previous):
    path = Path(previous)
    if path.exists():
        text = path.read_text()
        if MARKER in text:
            return text[text.index(MARKER):]
    return MARKER + "\n\n## Server performance work\n\nNothing recorded yet.\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--previous", required=True, help="the file being replaced, for its hand-written part")
    parser.add_argument("--build", default="", help="the build type and directory, for the Machine section")
    parser.add_argument("--load-at-start", default="?", help="/proc/loadavg when bench/run began")
    parser.add_argument("--server-core", default="0")
    parser.add_argument("--load-core", default="1")
    args = parser.parse_args()
    results = load_results(args.results)
    print(render(results, args.command, args.server_core, args.load_core, args.build, args.load_at_start))
    print(hand_written(args.previous), end="")
    # A run with errors or refused actions still gets its figures written,
    # but bench/run reports it as a failure.
    failed = [name for name, report in sorted(results.items())
              if report.get("errors", 0) or report.get("refused", 0)]
    for name in failed:
        print(f"render_benchmarks: {name}: {results[name]['errors']} errors, {results[name]['refused']} refused",
              file=sys.stderr)
    return 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
