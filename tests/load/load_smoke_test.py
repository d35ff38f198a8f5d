#!/usr/bin/env python3
"""gofish-load end to end: a real gofish-server (port 0, no storage) played in
closed loop, paced, idle and as one small class (--mode class), and the echo
server, each for a moment; then
every preset at once (--preset all), strict and with table rules, and one
preset alone at another table size. Checks the JSON last line: actions
happened, no errors, no disagreement between a turn and a seat's own events,
no refused actions, ordered percentiles, server CPU read from /proc; and that
every preset played games to the end and into the next game. No figure is
checked against a target.

usage: load_smoke_test.py SERVER LOAD ECHO WEB_ROOT
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")


def start(command, log_path):
    """Starts a server that prints 'listening on 127.0.0.1:PORT'; returns (process, port)."""
    log = open(log_path, "w+")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log.seek(0)
        found = LISTENING.search(log.read())
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    log.seek(0)
    sys.exit(f"FAIL: {command[0]} did not start:\n{log.read()}")


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# A sanitized build runs several times slower (CMake sets this for it), so
# each run lasts this many times longer to play as many games.
TIME_SCALE = float(os.environ.get("GOFISH_TEST_TIME_SCALE", "1"))


def run_load(load, port, pid, *args):
    args = list(args)
    for i, arg in enumerate(args[:-1]):
        if arg == "--seconds":
            args[i + 1] = str(float(args[i + 1]) * TIME_SCALE)
    command = [load, "--url", f"ws://127.0.0.1:{port}/ws", "--server-pid", str(pid), "--quiet", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    lines = result.stdout.strip().splitlines()
    if not lines:
        sys.exit(f"FAIL: {' '.join(command)} printed nothing; stderr:\n{result.stderr}")
    report = json.loads(lines[-1])
    print(f"{' '.join(args)}\n  -> {lines[-1]}")
    if result.stderr:
        print(f"  stderr: {result.stderr.strip()}")
    return report


problems = []


def expect(condition, what):
    if not condition:
        problems.append(what)


def check_traffic(report, label, measurable_cpu=True):
    expect(report["actions"] > 0, f"{label}: no actions")
    expect(report["errors"] == 0, f"{label}: {report['errors']} errors")
    expect(report.get("disagreements") == 0, f"{label}: {report.get('disagreements')} disagreements")
    expect(report["refused"] == 0, f"{label}: {report['refused']} refused actions")
    latency = report["latency_us"]
    order = [latency[k] for k in ("p50", "p90", "p99", "p999", "max")]
    expect(order == sorted(order) and order[0] > 0, f"{label}: percentiles out of order: {latency}")
    # /proc counts CPU in 10 ms ticks: a run that costs the server about one
    # tick (the paced second) may read 0, so there only the figure's presence is checked.
    cpu = report["server"].get("cpu_us_per_action")
    expect(cpu is not None and (cpu > 0 or not measurable_cpu), f"{label}: no server CPU figure")
    expect(report["client"].get("cpu_percent") is not None, f"{label}: no client CPU figure")


def check_presets(report, label, presets):
    """Every preset in `presets` had rooms, and played more games to the end
    in the window than it has rooms: some room finished a game it started
    after the one before it was over."""
    check_traffic(report, label)
    played = report["presets"]
    expect(sorted(played) == sorted(presets), f"{label}: presets {sorted(played)}, expected {sorted(presets)}")
    for name in presets:
        figures = played.get(name, {"rooms": 0, "games": 0, "actions": 0})
        expect(figures["rooms"] > 0 and figures["actions"] > 0, f"{label}: {name} was not played: {figures}")
        expect(figures["games"] > figures["rooms"], f"{label}: {name} finished no game after a first: {figures}")


PRESETS = ["classic", "specific-card", "keep-playing", "bicycle", "authors", "pairs"]


def main():
    server, load, echo, web_root = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as scratch:
        process, port = start([server, "--port", "0", "--bind", "127.0.0.1", "--storage", "none", "--data-dir",
                               scratch, "--web-root", web_root, "--threads", "1", "--message-rate", "100000",
                               "--message-burst", "100000", "--log-level", "info"], f"{scratch}/server.log")
        try:
            closed = run_load(load, port, process.pid, "--rooms", "4", "--players", "4", "--think-ms", "0",
                              "--seconds", "3", "--ramp-seconds", "0.2", "--source-addresses", "2")
            check_traffic(closed, "closed loop")
            expect(closed["connections"] == 16, "closed loop: not 16 connections")
            expect(closed["games"] > 0, "closed loop: no game finished (no rematch seen)")
            expect(closed["preset"] == "classic" and list(closed["presets"]) == ["classic"],
                   "closed loop: not classic by default")
            every = run_load(load, port, process.pid, "--preset", "all", "--rooms", "6", "--players", "4",
                             "--seconds", "3", "--ramp-seconds", "0")
            check_presets(every, "every preset", PRESETS)
            table = run_load(load, port, process.pid, "--preset", "all", "--table-rules", "--rooms", "6",
                             "--players", "3", "--bot", "medium", "--seconds", "3", "--ramp-seconds", "0")
            check_presets(table, "every preset, table rules", PRESETS)
            expect(table["table_rules"] is True, "table rules: not reported")
            alone = run_load(load, port, process.pid, "--preset", "specific-card", "--rooms", "2", "--players", "2",
                             "--seconds", "2", "--ramp-seconds", "0")
            check_presets(alone, "specific-card alone", ["specific-card"])
            paced = run_load(load, port, process.pid, "--rooms", "2", "--players", "3", "--think-ms", "20",
                             "--seconds", "1", "--ramp-seconds", "0")
            check_traffic(paced, "paced", measurable_cpu=False)
            expect(paced["latency_us"]["p50"] < 20_000 or paced["actions"] < 60, "paced: think time counted as latency")
            idle = run_load(load, port, process.pid, "--mode", "idle", "--rooms", "5", "--players", "4", "--seconds",
                            "0.5", "--ramp-seconds", "0")
            expect(idle["errors"] == 0 and idle["connections"] == 20, f"idle: {idle}")
            expect("kib_per_connection" in idle.get("idle", {}), "idle: no memory per connection")
            # One class of 2 tables of 4 (bench/class at a small size): the
            # teacher's two sockets (creating, then the console) and 8 pupils.
            klass = run_load(load, port, process.pid, "--mode", "class", "--rooms", "2", "--players", "4",
                             "--think-ms", "40", "--seconds", "2", "--ramp-seconds", "0")
            # Paced (a pupil thinks 20 to 60 ms): about a tick of the server's CPU, as the paced run.
            check_traffic(klass, "class", measurable_cpu=False)
            expect(klass["connections"] == 10, f"class: {klass['connections']} connections, not 10")
            figures = klass.get("class", {})
            expect(figures.get("pupils") == 8 and figures.get("tables") == 2, f"class: {figures}")
            expect(figures.get("move_to_console_ms", {}).get("count", 0) > 0, "class: the console showed no move")
            expect(figures.get("ask_to_event_ms", {}).get("count", 0) == klass["actions"],
                   "class: asks measured are not the actions")
            expect("per_pupil" in figures.get("server_rss_kib", {}), "class: no memory per pupil")
        finally:
            stop(process)

        process, port = start([echo, "--port", "0"], f"{scratch}/echo.log")
        try:
            echoed = run_load(load, port, process.pid, "--mode", "echo", "--rooms", "4", "--players", "4",
                              "--seconds", "1", "--ramp-seconds", "0")
            check_traffic(echoed, "echo")
        finally:
            stop(process)

    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
