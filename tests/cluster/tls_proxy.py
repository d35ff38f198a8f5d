"""TLS at the proxy, as docker/compose.cluster.yaml has it, on this machine:
a gofish-server on 127.0.0.1 that trusts PROXY headers from 127.0.0.2 only,
and HAProxy in front of it with the configuration scripts/haproxy-config.sh
writes with --tls-cert (docker/haproxy.cfg's TLS lines): HTTPS and WSS on
one port from a certificate for 127.0.0.1 (and the name gofish.test) issued
by an authority this test makes with openssl, plain HTTP on another port,
reaching the server from 127.0.0.2 with a PROXY header.

- gofish-cli over wss://127.0.0.1 with --ca-file hosts a room with a server
  bot and plays it to the end as a bot, a guest coming in by the invite
  link https://127.0.0.1:PORT/r/CODE (the host name checked as an IP
  address); both see the game end;
- gofish-cli without --ca-file is refused (no authority it trusts issued the
  certificate), and with the right authority but another host name
  (wss://localhost, not in the certificate) too, each with a sentence and
  exit status 3, before a room is made; so is ws:// to the TLS port, with a
  sentence that points at wss://;
- the page over HTTPS carries HSTS; the plain port answers 308 to the same
  path over HTTPS.
The server refuses a connection from 127.0.0.2 without a PROXY header, so
HAProxy's health check and the game show the header is sent.

    tls_proxy.py SERVER CLI
"""
import http.client
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

from cluster_harness import ROOT, Cli, Failure, check, free_ports, make_test_authority, run, say, stop_process

server_binary, cli_binary = sys.argv[1], sys.argv[2]


def wait_for(what, condition, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise Failure(f"gave up waiting for {what}")


def log_text(path):
    with open(path, errors="replace") as log:
        return log.read()


def refused(args, sentence):
    """gofish-cli with `args` exits 3 at once, saying `sentence`."""
    started = time.monotonic()
    client = Cli(cli_binary, *args, "--name", "Mallory", "--seats", "2", "--bots", "easy", "--bot", "easy")
    status = client.finish(30)
    check(status == 3 and sentence in client.stderr,
          f"gofish-cli {' '.join(args)} exited {status}, not 3 with {sentence!r}: {client.stderr!r}")
    check(not any(m.get("type") == "created" for _, m in client.messages),
          f"gofish-cli {' '.join(args)} made a room though it refused the certificate")
    say(f"refused in {time.monotonic() - started:.2f} s: {client.stderr.strip()}")


def main():
    work = tempfile.mkdtemp(prefix="gofish-tls-proxy.")
    server = haproxy = None
    passed = False
    try:
        ca_file, pem = make_test_authority(work, names=("gofish.test",), addresses=("127.0.0.1",))
        plain_port, tls_port, stats_port = free_ports(3)

        server_log = os.path.join(work, "server.log")
        with open(server_log, "w") as log:
            server = subprocess.Popen(
                [server_binary, "--bind", "127.0.0.1", "--port", "0", "--data-dir", os.path.join(work, "data"),
                 "--web-root", os.path.join(os.path.dirname(os.path.abspath(server_binary)), os.pardir, "web"),
                 "--trusted-proxy", "127.0.0.2", "--bot-delay-ms", "0"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for("the server to listen", lambda: "listening on 127.0.0.1:" in log_text(server_log)
                 or server.poll() is not None)
        check(server.poll() is None, f"the server exited:\n{log_text(server_log)}")
        text = log_text(server_log)
        node_port = int(text.split("listening on 127.0.0.1:", 1)[1].split()[0].rstrip(",.;"))

        config = subprocess.run(
            [os.path.join(ROOT, "scripts", "haproxy-config.sh"), "--tls-cert", pem,
             "--tls-listen", f"127.0.0.1:{tls_port}", "--listen", f"127.0.0.1:{plain_port}",
             "--stats", f"127.0.0.1:{stats_port}", "--source", "127.0.0.2", "--maxconn", "256",
             f"node1=127.0.0.1:{node_port}"], capture_output=True, text=True)
        check(config.returncode == 0, f"scripts/haproxy-config.sh --tls-cert failed: {config.stderr}")
        config_path = os.path.join(work, "haproxy.cfg")
        with open(config_path, "w") as out:
            out.write(config.stdout)
        haproxy_log = os.path.join(work, "haproxy.log")
        with open(haproxy_log, "w") as log:
            haproxy = subprocess.Popen(["haproxy", "-db", "-f", config_path], stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL,
                                       env=dict(os.environ, GOFISH_HTTPS_PORT=str(tls_port)))

        def node_up():
            check(haproxy.poll() is None, f"HAProxy exited:\n{log_text(haproxy_log)}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{stats_port}/stats;csv", timeout=2) as reply:
                    rows = reply.read().decode().splitlines()
            except OSError:
                return False
            return any(row.startswith("nodes,node1,") and row.split(",")[17] == "UP" for row in rows)

        wait_for("HAProxy to see the server up (its PROXY health check)", node_up)
        say(f"HAProxy: TLS on 127.0.0.1:{tls_port}, plain on {plain_port}, the server on {node_port}")

        # The certificate refused: no authority the client trusts, then the wrong host name.
        refused([f"wss://127.0.0.1:{tls_port}"], "no authority this client trusts issued it")
        refused([f"wss://localhost:{tls_port}", "--ca-file", ca_file], "it is not issued for that name")
        # Plain ws:// to the TLS port: a sentence that points at wss://.
        refused([f"ws://127.0.0.1:{tls_port}"], f"use wss://127.0.0.1:{tls_port}")

        # A game over wss://, a guest by the https:// invite link.
        host = Cli(cli_binary, f"wss://127.0.0.1:{tls_port}", "--ca-file", ca_file, "--name", "Host", "--seats", "3",
                   "--bots", "medium", "--bot", "medium", "--think-ms", "0", "--start-when-full", "--games", "1")
        code = host.first("created")["code"]
        guest = Cli(cli_binary, f"https://127.0.0.1:{tls_port}/r/{code}", "--ca-file", ca_file, "--name", "Guest",
                    "--bot", "easy", "--think-ms", "0", "--games", "1")
        for client in (host, guest):
            status = client.finish(60)
            check(status == 0, f"{' '.join(client.args)} exited {status}: {client.stderr}")
            overs = [m for _, m in client.messages if m.get("type") == "event" and m["event"]["type"] == "game_over"]
            check(len(overs) == 1, f"{' '.join(client.args)} saw {len(overs)} game_over events, not 1")
        say(f"room {code}: a game played to the end over wss:// through HAProxy's TLS")
        # The page over HTTPS, with HSTS; the plain port only redirects.
        context = ssl.create_default_context(cafile=ca_file)
        with urllib.request.urlopen(f"https://127.0.0.1:{tls_port}/", timeout=5, context=context) as page:
            hsts = page.headers.get("Strict-Transport-Security", "")
            check(page.status == 200 and hsts.startswith("max-age="),
                  f"GET / over HTTPS: {page.status}, Strict-Transport-Security {hsts!r}")
        plain = http.client.HTTPConnection("127.0.0.1", plain_port, timeout=5)
        plain.request("GET", f"/r/{code}?x=1", headers={"Host": f"127.0.0.1:{plain_port}"})
        answer = plain.getresponse()
        location = answer.getheader("Location")
        plain.close()
        check(answer.status == 308 and location == f"https://127.0.0.1:{tls_port}/r/{code}?x=1",
              f"the plain port answered {answer.status} {location}, not 308 to the same path over HTTPS")
        say("HTTPS carries HSTS, and plain HTTP redirects to it")
        passed = True
    finally:
        for process in (haproxy, server):
            stop_process(process)
        if passed:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"the test's logs are in {work}", file=sys.stderr)


if __name__ == "__main__":
    run(main)
