#!/usr/bin/env python3
"""The systemd units of deploy/systemd (docs/OPERATIONS.md), tested on a
machine where systemd does not run (a container, CI):
- systemd-analyze verify accepts gofish@.service (as gofish@node1, its
  ExecStart pointed at this build's server) and Debian's haproxy.service with
  the drop-in deploy/systemd/haproxy.service.d/gofish.conf;
- the node's command line, run with the environment the unit gives it
  (its Environment= with %i as node1, then the example environment files
  gofish.env and node1.env in place of /etc/gofish's), serves a game on a
  throwaway PostgreSQL: /readyz and /healthz answer 200, a gofish-cli bot
  game plays to its end and is stored, the node is node1 (the instance
  name) with the environment file's lease, and SIGTERM (the unit's KillSignal) ends it with code 0 within the unit's
  TimeoutStopSec, its leases released;
- the unit's restart policy fits the server's exit codes: a bad value exits
  2, which RestartPreventExitStatus lists, and a database that cannot be
  reached exits 3, which it does not (another start may find it);
- the shared environment file gives the lease scripts/cluster.sh and the
  compose file give theirs.
Only what must differ here is changed: the database's URL, the address and
port (127.0.0.1 and a free one), the data directory (StateDirectory= makes
/var/lib/gofish/%i under systemd), the web client (an installed server finds
it under its prefix; this build's, wherever its build folder is, is given
the repository's), and the bots' delay (0, for a short game).

    check_systemd_units.py REPOSITORY-ROOT SERVER CLI
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

root, server_binary, cli_binary = (os.path.abspath(arg) for arg in sys.argv[1:4])
units = os.path.join(root, "deploy", "systemd")
sys.path.insert(0, os.path.join(root, "scripts"))
from free_ports import free_port  # noqa: E402
problems = []


def say(message):
    print("check_systemd_units:", message, flush=True)


def unit_settings(path):
    """{(section, key): [values]} of a unit file, in order."""
    settings = {}
    section = None
    with open(path) as unit:
        for line in unit:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
                continue
            key, _, value = line.partition("=")
            settings.setdefault((section, key.strip()), []).append(value.strip())
    return settings


def environment_file(path):
    """The assignments of a systemd EnvironmentFile: KEY=VALUE lines, # and ; comments, optional quotes."""
    assignments = {}
    with open(path) as env:
        for line in env:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            key, _, value = line.partition("=")
            words = shlex.split(value)
            assignments[key.strip()] = words[0] if words else ""
    return assignments


def verify(unit_path):
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", unit_path], capture_output=True, text=True)
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0 or output:
        problems.append(f"systemd-analyze verify {os.path.basename(unit_path)} ({done.returncode}): {output}")
    else:
        say(f"systemd-analyze verify {os.path.basename(unit_path)}: no complaint")


def http_status(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""


def main(work):
    instance = "node1"
    unit_path = os.path.join(units, "gofish@.service")
    settings = unit_settings(unit_path)
    exec_start = shlex.split(settings[("Service", "ExecStart")][0])
    # The unit's command line, with this build's server in place of the installed one.
    command = [server_binary] + [word.replace("%i", instance) for word in exec_start[1:]]

    if shutil.which("systemd-analyze"):
        with open(unit_path) as unit:
            text = unit.read().replace(f"ExecStart={exec_start[0]}", f"ExecStart={server_binary}", 1)
        instance_path = os.path.join(work, f"gofish@{instance}.service")
        with open(instance_path, "w") as unit:
            unit.write(text)
        verify(instance_path)
        debian = "/lib/systemd/system/haproxy.service"
        if os.path.exists(debian):
            os.makedirs(os.path.join(work, "haproxy.service.d"))
            shutil.copy(debian, work)
            shutil.copy(os.path.join(units, "haproxy.service.d", "gofish.conf"), os.path.join(work, "haproxy.service.d"))
            verify(os.path.join(work, "haproxy.service"))
        else:
            problems.append("no Debian haproxy.service to verify the drop-in with (install the haproxy package)")
    else:
        problems.append("no systemd-analyze (Debian's systemd package; scripts/install-deps.sh installs it)")

    # The environment the unit gives the server: Environment=, then each EnvironmentFile=,
    # the example files of deploy/systemd standing for /etc/gofish's.
    environment = {}
    for line in settings.get(("Service", "Environment"), []):
        for word in shlex.split(line.replace("%i", instance)):
            key, _, value = word.partition("=")
            environment[key] = value
    for line in settings.get(("Service", "EnvironmentFile"), []):
        optional = line.startswith("-")
        name = os.path.basename(line.lstrip("-").replace("%i", instance))
        example = os.path.join(units, name)
        if not os.path.exists(example):
            if not optional:
                problems.append(f"no example {name} in deploy/systemd for the unit's EnvironmentFile={line}")
            continue
        environment.update(environment_file(example))
        say(f"EnvironmentFile={line}: deploy/systemd/{name}")
    script_ttl = re.search(r"^lease_ttl_ms=(\d+)$", open(os.path.join(root, "scripts", "cluster.sh")).read(), re.M)
    if not script_ttl or environment.get("GOFISH_LEASE_TTL_MS") != script_ttl.group(1):
        problems.append(f"gofish.env's GOFISH_LEASE_TTL_MS {environment.get('GOFISH_LEASE_TTL_MS')!r} is not "
                        f"scripts/cluster.sh's lease_ttl_ms")
    if environment.get("GOFISH_NODE_ID") != instance:
        problems.append(f"the unit does not name the node after its instance: GOFISH_NODE_ID="
                        f"{environment.get('GOFISH_NODE_ID')!r}")

    state = os.path.join(work, "postgres.state")
    subprocess.run([os.path.join(root, "scripts", "pg-throwaway.sh"), "start", state], check=True)
    try:
        url = next(line.split("=", 1)[1].strip() for line in open(state) if line.startswith("url="))
        port = free_port()
        environment.update({"GOFISH_POSTGRES_URL": url, "GOFISH_BIND": "127.0.0.1", "GOFISH_PORT": str(port),
                            "GOFISH_DATA_DIR": os.path.join(work, "data"), "GOFISH_BOT_DELAY_MS": "0",
                            "GOFISH_WEB_ROOT": os.path.join(os.path.dirname(server_binary), os.pardir, "web")})
        # Only what systemd gives a service, and the unit's own.
        base = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
        log_path = os.path.join(work, "node1.log")
        with open(log_path, "w") as log:
            node = subprocess.Popen(command, env={**base, **environment}, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while http_status(port, "/readyz")[0] != 200:
                if node.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the node never became ready (exit {node.poll()}):\n" + open(log_path).read())
                time.sleep(0.1)
            health = http_status(port, "/healthz")
            if health[0] != 200:
                problems.append(f"/healthz answered {health}")
            say(f"{' '.join(command)} with the unit's environment: /readyz 200, /healthz {health[0]}")
            game = subprocess.run([cli_binary, f"ws://127.0.0.1:{port}", "--name", "Ops", "--seats", "2", "--bots",
                                   "easy", "--bot", "easy", "--games", "1", "--start-when-full", "--think-ms", "0",
                                   "--no-color"], capture_output=True, text=True, timeout=120)
            if game.returncode != 0:
                problems.append(f"a bot game through the node exited {game.returncode}: {game.stderr}")
            finished = subprocess.run(["psql", url, "-AtX", "-c",
                                       "SELECT count(*) FROM games WHERE finished_ms IS NOT NULL"],
                                      capture_output=True, text=True).stdout.strip()
            # The node's id is the instance name, and its lease the environment file's.
            named = (f"this server is node {instance}; it holds its rooms by leases of "
                     f"{environment.get('GOFISH_LEASE_TTL_MS')} ms") in open(log_path).read()
            if finished != "1" or not named:
                problems.append(f"after the game: {finished} finished games stored; the log names node {instance} "
                                f"with the file's lease: {named}")
            else:
                say(f"a bot game played to its end and was stored; the node is {instance} with a "
                    f"{environment.get('GOFISH_LEASE_TTL_MS')} ms lease")
            stop_limit = float(re.sub(r"s$", "", settings[("Service", "TimeoutStopSec")][0]))
            kill_signal = settings.get(("Service", "KillSignal"), ["SIGTERM"])[0]
            stopping = time.monotonic()
            node.send_signal(getattr(signal, kill_signal))
            status = node.wait(timeout=stop_limit)
            took = time.monotonic() - stopping
            released = f"every lease of node {instance} released" in open(log_path).read()
            if status != 0 or not released:
                problems.append(f"{kill_signal}: exit {status}, leases released: {released}")
            else:
                say(f"{kill_signal}: exit 0 after {took:.2f} s (TimeoutStopSec {stop_limit:.0f} s), leases released")
        finally:
            if node.poll() is None:
                node.kill()
                node.wait()

        # The restart policy against the server's exit codes.
        prevented = " ".join(settings.get(("Service", "RestartPreventExitStatus"), [])).split()
        if settings.get(("Service", "Restart")) != ["on-failure"]:
            problems.append(f"Restart={settings.get(('Service', 'Restart'))}, not on-failure")
        bad_value = subprocess.run(command, env={**base, **environment, "GOFISH_LEASE_TTL_MS": "1"},
                                   capture_output=True, text=True, timeout=30)
        unreachable = subprocess.run(command, env={**base, **environment,
                                                   "GOFISH_POSTGRES_URL": f"postgresql://gofish@127.0.0.1:{free_port()}/x",
                                                   "GOFISH_STORE_CONNECT_WAIT_MS": "0"},
                                     capture_output=True, text=True, timeout=30)
        if bad_value.returncode != 2 or "2" not in prevented:
            problems.append(f"a bad value exits {bad_value.returncode}; RestartPreventExitStatus={prevented}")
        if unreachable.returncode != 3 or "3" in prevented:
            problems.append(f"an unreachable database exits {unreachable.returncode}; "
                            f"RestartPreventExitStatus={prevented}")
        say(f"a bad value exits {bad_value.returncode} (not restarted), an unreachable database "
            f"{unreachable.returncode} (restarted)")
    finally:
        subprocess.run([os.path.join(root, "scripts", "pg-throwaway.sh"), "stop", state])


work_dir = tempfile.mkdtemp(prefix="check-systemd.")
try:
    main(work_dir)
except Exception as error:  # the failure is the test's result, with its evidence
    problems.append(f"{type(error).__name__}: {error}")
for problem in problems:
    say(problem)
say("ok" if not problems else f"{len(problems)} problem(s); files in {work_dir}")
if not problems:
    shutil.rmtree(work_dir, ignore_errors=True)
sys.exit(1 if problems else 0)
