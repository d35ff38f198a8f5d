"""docker/compose.cluster.yaml run for real, with Debian's podman-compose,
under the failover check of cluster_failover; and before it
docker/compose.yaml, the single server behind HAProxy, with one bot game.

podman is made ready as scripts/docker-test.sh has it
(scripts/container-setup.sh --podman: a configuration and storage of its
own, and the base image debian:bookworm-slim made with debootstrap), so
nothing comes from a container registry: the compose file builds its three
images (the nodes from docker/Dockerfile, PostgreSQL and HAProxy from
Debian's packages) on that base. The project, its images' tag, its
database password, its published ports (on 127.0.0.1, free ones) and
HAProxy's certificate (from a test authority made with openssl; the
clients trust it with --ca-file) are this run's own: the clients play over
wss:// and the transcripts are read over https://, and the plain port is
checked to redirect. An override file beside the compose file's, in this run's
folder, gives the nodes what scripts/cluster.sh gives its own: the
per-address limits raised (every client here is one address) and the bots'
50 ms.

Once HAProxy sees the three nodes up (and PostgreSQL's image passes its
health check), the failover check (cluster_harness.failover_check, as
cluster_failover runs it): rooms of gofish-cli bots with a spectator
through HAProxy, the container of the node holding the most leases
killed (podman kill, SIGKILL), every seat of its rooms resumed with a p99
of kill to resumed seat within 3 s, every game finished, no room version
with two contents, the asks seen equal to the stored transcripts (found
with psql in the PostgreSQL container, served by the nodes' API through
HAProxy), every transcript replayed. Then `podman-compose down -v` and the
rest of what this run made (its network, its images), failed or not; a
failed run keeps its logs (each container's, the build's) in its folder.

Before the cluster, on the same images, docker/compose.yaml as a project of
its own (about half a minute): HAProxy ending TLS from a certificate of the
same authority, the one server behind it with the PROXY protocol and no
port of its own. Once HAProxy sees the server up: the plain port redirects
(308) to HTTPS; the page over HTTPS carries HSTS and the server's
Content-Security-Policy, /metrics is 404 there; a connection to the server
from HAProxy's container without a PROXY header is refused; gofish-cli with
--ca-file hosts a room over wss:// and plays a whole game with server bots
(their delay 0). Then `podman-compose down -v`. A failure there is reported
after the cluster's check has run too.

With GOFISH_PREBUILT_TAG set (the test suite sets it: its fixture
gofish_images, scripts/image-build.sh, builds the three images once for
this test and docker_image) the run uses gofish:TAG, gofish-postgres:TAG and
gofish-haproxy:TAG as they are, builds nothing and leaves the images to
the fixture.

    compose_cluster.py CLI SIM
"""
import http.client
import json
import os
import secrets
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from cluster_harness import ROOT, Failure, check, failover_check, free_ports, make_test_authority, run, say

# cluster_failover's numbers. Its 30 rooms fit here too, on two cores that
# also carry podman's port forwarding and a PostgreSQL that syncs its WAL
# (the image keeps fsync on, as an operator's should; the throwaway
# PostgreSQL of cluster_failover does not).
ROOMS = 30
DECISIONS_BEFORE_KILL = 10
MAX_P99_SECONDS = 3.0
THINK_MS = "50"  # the gofish-cli bots' pause before each decision; the server bots' is the same
COMPOSE_FILE = os.path.join(ROOT, "docker", "compose.cluster.yaml")
SERVICES = ["postgres", "node1", "node2", "node3", "haproxy"]
PROJECT_PREFIX = "gofish-compose-test-"
# docker/compose.yaml: one server behind HAProxy, a project of its own.
SINGLE_COMPOSE_FILE = os.path.join(ROOT, "docker", "compose.yaml")
SINGLE_SERVICES = ["gofish", "haproxy"]
SINGLE_PROJECT_PREFIX = "gofish-compose-single-test-"


def run_names(pid):
    """The project, the images' tag and the images of the run of process `pid`."""
    tag = f"compose-test-{pid}"
    return (f"{PROJECT_PREFIX}{pid}", tag,
            [f"localhost/{name}:{tag}" for name in ("gofish", "gofish-postgres", "gofish-haproxy")])


class ComposeCluster:
    """The compose file's cluster as this run's project: the cluster object
    failover_check expects, and the steps to bring it up and down. With
    `images_of` (another ComposeCluster), docker/compose.yaml's single
    server instead, on that one's images and certificate authority, building
    and removing no image."""

    def __init__(self, images_of=None):
        self.single = images_of is not None
        self.compose_file = SINGLE_COMPOSE_FILE if self.single else COMPOSE_FILE
        self.services = SINGLE_SERVICES if self.single else SERVICES
        self.backends = ["gofish"] if self.single else ["node1", "node2", "node3"]
        self.dir = tempfile.mkdtemp(prefix="gofish-compose-single-test." if self.single else "gofish-compose-test.")
        self.project, self.tag, self.images = run_names(os.getpid())
        # Images built before this run (scripts/image-build.sh), used and left as they are.
        self.prebuilt = os.environ.get("GOFISH_PREBUILT_TAG", "")
        if self.prebuilt:
            self.tag = self.prebuilt
        if self.single:
            self.project = f"{SINGLE_PROJECT_PREFIX}{os.getpid()}"
            self.tag, self.images = images_of.tag, []
        self.proxy_port, self.stats_port, self.tls_port = free_ports(3)
        # HAProxy ends TLS with a certificate from an authority of this run's own.
        if self.single:
            self.ca_file, pem = images_of.ca_file, images_of.pem
        else:
            self.ca_file, pem = make_test_authority(self.dir)
        self.pem = pem
        self.ssl_context = ssl.create_default_context(cafile=self.ca_file)
        setup = subprocess.run([os.path.join(ROOT, "scripts", "container-setup.sh"), "--podman"],
                               capture_output=True, text=True)
        check(setup.returncode == 0, f"scripts/container-setup.sh --podman failed:\n{setup.stderr}")
        self.env = dict(os.environ)
        for line in setup.stdout.splitlines():
            key, _, value = line.partition("=")
            if key.isupper():
                self.env[key] = value
        self.env.update({
            "GOFISH_TAG": self.tag,
            "GOFISH_PUBLISHED_PORT": f"127.0.0.1:{self.proxy_port}",
            "GOFISH_PUBLISHED_TLS_PORT": f"127.0.0.1:{self.tls_port}",
            "GOFISH_HTTPS_PORT": str(self.tls_port),
            "GOFISH_TLS_CERT": pem,
            "GOFISH_STATS_PORT": str(self.stats_port),
            "GOFISH_DB_PASSWORD": secrets.token_urlsafe(18),
            # podman writes OCI images by default, and OCI has no HEALTHCHECK.
            "BUILDAH_FORMAT": "docker",
        })
        self.override = os.path.join(self.dir, "compose.test.yaml")
        limits = {
            "GOFISH_BOT_DELAY_MS": THINK_MS,
            "GOFISH_MAX_CONNECTIONS_PER_ADDRESS": "1000",
            "GOFISH_MAX_SOCKETS_PER_ADDRESS": "2000",
            "GOFISH_MAX_ROOMS_PER_ADDRESS": "200",
            "GOFISH_ROOM_CREATE_RATE": "100",
            "GOFISH_ROOM_CREATE_BURST": "200",
            "GOFISH_FAILED_JOIN_RATE": "100",
            "GOFISH_FAILED_JOIN_BURST": "200",
        }
        if self.single:
            # One game of server bots, played as fast as they go.
            limits = {"GOFISH_BOT_DELAY_MS": "0"}
        with open(self.override, "w") as out:
            json.dump({"services": {name: {"environment": limits} for name in self.backends}}, out, indent=2)
        self.made = False  # whether `up` ran, so that down() has something to take down

    # podman and podman-compose, with this run's configuration and environment.

    def podman(self, *args, timeout=60, check_status=True):
        done = subprocess.run(["podman", *args], capture_output=True, text=True, env=self.env, timeout=timeout)
        if check_status and done.returncode != 0:
            raise Failure(f"podman {shlex.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def compose(self, *args, log, timeout):
        """podman-compose on the compose file and this run's override; its output goes to `log` in the folder."""
        command = ["podman-compose", "-p", self.project, "-f", self.compose_file, "-f", self.override,
                   # Never a registry: every image is built here, on the base made from Debian's archive;
                   # no intermediate image is kept, so removing the three images removes all it built.
                   # The node image's own test run is docker_image's to make (docker/Dockerfile).
                   "--podman-build-args=--pull=never --layers=false --build-arg GOFISH_IMAGE_TESTS=0",
                   "--podman-run-args=--pull=never",
                   # A container's anonymous volumes (the images' VOLUMEs) go with it.
                   "--podman-rm-args=-v", *args]
        with open(os.path.join(self.dir, log), "a") as out:
            out.write(f"$ {shlex.join(command)}\n")
            out.flush()
            done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=self.env, timeout=timeout,
                                  cwd=ROOT)
        if done.returncode != 0:
            raise Failure(f"podman-compose {shlex.join(args)} failed ({done.returncode}); see {self.dir}/{log}")

    def container(self, service):
        names = self.podman("ps", "-a", "--filter", f"label=io.podman.compose.project={self.project}",
                            "--filter", f"label=com.docker.compose.service={service}", "--format", "{{.Names}}").split()
        check(len(names) == 1, f"service {service}: containers {names}, not one")
        return names[0]

    def image_exists(self, image):
        return subprocess.run(["podman", "image", "exists", image], env=self.env).returncode == 0

    # Up and down.

    def build(self):
        """The three images, each built once (the nodes share theirs); podman-compose 1.0 does not
        report a failed build, so the images' presence is checked."""
        started = time.monotonic()
        self.made = True
        if self.prebuilt:
            images = [f"localhost/{name}:{self.prebuilt}" for name in ("gofish", "gofish-postgres", "gofish-haproxy")]
            for image in images:
                check(self.image_exists(image), f"no image {image} (scripts/image-build.sh builds it)")
            say("images built before this run: " + ", ".join(images))
            self.images = []  # not this run's to remove
            return
        self.compose("build", "postgres", "node1", "haproxy", log="build.log", timeout=2400)
        for image in self.images:
            check(self.image_exists(image), f"podman-compose build made no {image}; see {self.dir}/build.log")
        sizes = {image.split("/")[1].split(":")[0]:
                 int(self.podman("image", "inspect", "--format", "{{.Size}}", image)) for image in self.images}
        say(f"images built in {time.monotonic() - started:.0f} s: " +
            ", ".join(f"{name} {size / 1e6:.0f} MB" for name, size in sizes.items()))

    def up(self):
        started = time.monotonic()
        self.made = True
        self.compose("up", "-d", log="up.log", timeout=300)
        for service in self.services:
            state = self.podman("inspect", "--format", "{{.State.Status}}", self.container(service)).strip()
            check(state == "running", f"{service} is {state} after up; see {self.dir}/up.log")
        deadline = time.monotonic() + 120
        seen = {}
        wanted = {name: "UP" for name in self.backends}
        while time.monotonic() < deadline:
            try:
                seen = self.haproxy_sees()
            except OSError:
                seen = {}
            if seen == wanted:
                break
            time.sleep(0.25)
        check(seen == wanted, f"HAProxy does not see {', '.join(self.backends)} up within 120 s of "
                              f"podman-compose up: {seen}")
        say(f"{self.project} up, HAProxy on 127.0.0.1:{self.tls_port} (TLS) sees {seen}, "
            f"{time.monotonic() - started:.1f} s after podman-compose up")
        # Plain HTTP is only a redirect to the same path over HTTPS.
        plain = http.client.HTTPConnection("127.0.0.1", self.proxy_port, timeout=5)
        plain.request("GET", "/r/K7QXM")
        answer = plain.getresponse()
        location = answer.getheader("Location")
        plain.close()
        check(answer.status == 308 and location == f"https://127.0.0.1:{self.tls_port}/r/K7QXM",
              f"HAProxy's plain port answers {answer.status} {location}, not 308 to HTTPS")
        say(f"the plain port redirects to {location}")
        if self.single:
            return
        # PostgreSQL's image answers its own health check (podman runs it
        # on request here: its timers need systemd).
        postgres = self.container("postgres")
        health = subprocess.run(["podman", "healthcheck", "run", postgres], capture_output=True, text=True,
                                env=self.env, timeout=30)
        check(health.returncode == 0, f"the postgres image's health check fails: {health.stdout}{health.stderr}")
        say("the postgres container passes its health check")

    def save_logs(self):
        for service in self.services:
            try:
                name = self.container(service)
            except Failure:
                continue
            done = subprocess.run(["podman", "logs", name], capture_output=True, text=True, env=self.env, timeout=60)
            with open(os.path.join(self.dir, f"{service}.log"), "w") as out:
                out.write(done.stdout + done.stderr)

    def down(self, keep_logs):
        """Everything this run made, gone: its containers and volumes
        (podman-compose down -v), then whatever of them, its network (which
        podman-compose 1.0 leaves) and its images remain. The base image and
        podman's configuration stay for the next run, as scripts/docker-test.sh
        leaves them."""
        if not self.made:
            shutil.rmtree(self.dir, ignore_errors=True)
            return
        if keep_logs:
            self.save_logs()
        problems = []
        try:
            self.compose("down", "-v", log="down.log", timeout=300)
        except (Failure, subprocess.TimeoutExpired) as failure:
            problems.append(str(failure))
        problems += self.remove(self.project, self.images)
        for problem in problems:
            print(problem, file=sys.stderr)
        if keep_logs or problems:
            print(f"the compose cluster's logs are in {self.dir}", file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def remove(self, project, images):
        """Removes what is left of `project` (containers, volumes, its network) and `images`;
        says what containers and volumes it found."""
        found = []
        label = f"label=io.podman.compose.project={project}"
        containers = self.podman("ps", "-a", "-q", "--filter", label, check_status=False).split()
        if containers:
            found.append(f"{project}: containers left: {containers}")
            self.podman("rm", "-f", "-v", *containers, check_status=False)
        volumes = self.podman("volume", "ls", "-q", "--filter", label, check_status=False).split()
        if volumes:
            found.append(f"{project}: volumes left: {volumes}")
            self.podman("volume", "rm", "-f", *volumes, check_status=False)
        network = f"{project}_default"
        if subprocess.run(["podman", "network", "exists", network], env=self.env).returncode == 0:
            self.podman("network", "rm", "-f", network, check_status=False)
        for image in images:
            if self.image_exists(image):
                self.podman("image", "rm", "-f", image, check_status=False)
        return found

    def remove_stale(self):
        """What runs of this test left when they were killed before their own
        down() (a ctest timeout): projects named after a process that is gone."""
        projects = set()
        prefixes = (PROJECT_PREFIX, SINGLE_PROJECT_PREFIX)
        for project in self.podman("ps", "-a", "--filter", "label=io.podman.compose.project", "--format",
                                   '{{index .Labels "io.podman.compose.project"}}', check_status=False).split():
            if project.startswith(prefixes):
                projects.add(project)
        for network in self.podman("network", "ls", "--format", "{{.Name}}", check_status=False).split():
            if network.startswith(prefixes) and network.endswith("_default"):
                projects.add(network.removesuffix("_default"))
        for line in self.podman("images", "--format", "{{.Tag}}", check_status=False).split():
            if line.startswith("compose-test-") and line.removeprefix("compose-test-").isdigit():
                projects.add(PROJECT_PREFIX + line.removeprefix("compose-test-"))
        for project in sorted(projects):
            single = project.startswith(SINGLE_PROJECT_PREFIX)
            pid = project.removeprefix(SINGLE_PROJECT_PREFIX if single else PROJECT_PREFIX)
            if not pid.isdigit() or process_alive(int(pid)):
                continue
            say(f"removing what an interrupted run (process {pid}) left")
            self.remove(project, [] if single else run_names(int(pid))[2])

    # What failover_check asks of a cluster.

    @property
    def ws_url(self):
        return f"wss://127.0.0.1:{self.tls_port}"

    @property
    def http_url(self):
        return f"https://127.0.0.1:{self.tls_port}"

    def haproxy_sees(self):
        """{server: HAProxy's status of it (UP, DOWN, ...)}, from its statistics."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=2) as reply:
            rows = [row.split(",") for row in reply.read().decode().splitlines()]
        return {row[1]: row[17] for row in rows
                if len(row) > 17 and row[0] == "nodes" and row[1] not in ("FRONTEND", "BACKEND")}

    # What the single server's run checks.

    def check_single(self, cli_binary):
        """docker/compose.yaml's HAProxy and server, up (see the module's comment)."""
        request = urllib.request.Request(f"{self.http_url}/")
        with urllib.request.urlopen(request, timeout=10, context=self.ssl_context) as reply:
            headers = reply.headers
            check(reply.status == 200, f"GET / over HTTPS: {reply.status}")
        check((headers.get("Strict-Transport-Security") or "").startswith("max-age="),
              f"the page over HTTPS has no HSTS header: {dict(headers)}")
        check("frame-ancestors 'none'" in (headers.get("Content-Security-Policy") or ""),
              f"the page over HTTPS has not the server's Content-Security-Policy: {dict(headers)}")
        try:
            with urllib.request.urlopen(f"{self.http_url}/metrics", timeout=10, context=self.ssl_context) as reply:
                status = reply.status
        except urllib.error.HTTPError as error:
            status = error.code
        check(status == 404, f"/metrics through HAProxy answers {status}, not 404")
        say("the page over HTTPS carries HSTS and the Content-Security-Policy; /metrics there is 404")
        # The server takes connections from the compose network only with a
        # PROXY header: HAProxy's container asks it for /healthz without one.
        probe = ("exec 3<>/dev/tcp/gofish/8080 || exit 7; "
                 "printf 'GET /healthz HTTP/1.1\\r\\nHost: gofish\\r\\nConnection: close\\r\\n\\r\\n' >&3; "
                 "head -n 1 <&3")
        done = subprocess.run(["podman", "exec", self.container("haproxy"), "timeout", "10", "bash", "-c", probe],
                              capture_output=True, text=True, env=self.env, timeout=30)
        # 0: closed after the request; 124: held open; 141 (SIGPIPE): the
        # connection opened (exit 7 otherwise) and was closed before the
        # request was written. Each is a reached server refusing it.
        check(done.returncode in (0, 124, 141), f"HAProxy's container does not reach gofish:8080 "
                                            f"({done.returncode}): {done.stderr}")
        check(" 200 " not in done.stdout,
              f"the server answers a connection without a PROXY header: {done.stdout!r} {done.stderr!r}")
        say(f"the server refuses a connection without a PROXY header ({done.stdout.strip() or 'closed'})")
        started = time.monotonic()
        game = subprocess.run([cli_binary, self.ws_url, "--ca-file", self.ca_file, "--name", "Robo", "--create",
                               "--preset", "classic", "--seats", "3", "--bots", "medium,easy", "--bot", "hard",
                               "--games", "1", "--start-when-full", "--no-color"],
                              capture_output=True, text=True, timeout=120)
        check(game.returncode == 0 and "winner" in game.stdout.lower(),
              f"gofish-cli's bot game over {self.ws_url} exited {game.returncode}:\n{game.stdout[-2000:]}"
              f"{game.stderr[-2000:]}")
        say(f"a bot game over {self.ws_url} with --ca-file played to the end in "
            f"{time.monotonic() - started:.1f} s: {game.stdout.strip().splitlines()[-1]}")

    def sql(self, query):
        """`query` run by psql in the PostgreSQL container, over its socket."""
        done = subprocess.run(["podman", "exec", self.container("postgres"), "psql", "-U", "gofish", "-d", "gofish",
                               "-AtX", "-c", query], capture_output=True, text=True, env=self.env, timeout=30)
        if done.returncode != 0:
            raise Failure(f"psql in the postgres container failed on {query!r}: {done.stderr}")
        return [line for line in done.stdout.splitlines() if line]

    def lease_holders(self):
        return dict(line.split("|") for line in self.sql("SELECT code, node FROM room_lease"))

    def lease_ttl_ms(self, k=1):
        environment = self.podman("inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}",
                                  self.container(f"node{k}"))
        for line in environment.splitlines():
            if line.startswith("GOFISH_LEASE_TTL_MS="):
                return int(line.partition("=")[2])
        return 3000  # gofish-server's default

    def kill_node(self, k):
        self.podman("kill", self.container(f"node{k}"))

    def node_process(self, k):
        return f"container {self.container(f'node{k}')}"


def process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def stop_on_signal(signum, frame):
    raise Failure(f"stopped by signal {signum}")


def main():
    cli_binary, sim_binary = sys.argv[1:3]
    started = time.monotonic()
    check(shutil.which("podman-compose"), "podman-compose is not installed (scripts/install-deps.sh installs it)")
    # A SIGTERM (ctest stopping the test, Ctrl-C's SIGINT) still takes the cluster down.
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    cluster = ComposeCluster()
    cluster.remove_stale()
    rooms = []
    passed = False
    single_failure = None
    try:
        cluster.build()
        single = ComposeCluster(images_of=cluster)
        single_passed = False
        try:
            single_started = time.monotonic()
            single.up()
            single.check_single(cli_binary)
            single_passed = True
        except (Failure, OSError, subprocess.TimeoutExpired) as failure:
            single_failure = failure
            print(f"docker/compose.yaml: {failure}", file=sys.stderr, flush=True)
        finally:
            single.down(keep_logs=not single_passed)
        say(f"docker/compose.yaml checked and taken down in {time.monotonic() - single_started:.1f} s"
            + ("" if single_passed else " (failed)"))
        cluster.up()
        check_started = time.monotonic()
        failover_check(cluster, cli_binary, sim_binary, ROOMS, THINK_MS, DECISIONS_BEFORE_KILL, MAX_P99_SECONDS,
                       finish_by=check_started + 150, rooms=rooms)
        say(f"the failover check took {time.monotonic() - check_started:.1f} s")
        passed = True
        if single_failure:
            raise Failure(f"docker/compose.yaml: {single_failure}")
    finally:
        for room in rooms:
            for client in room.clients():
                client.stop()
        down_started = time.monotonic()
        cluster.down(keep_logs=not passed)
        say(f"taken down in {time.monotonic() - down_started:.1f} s")
    say(f"compose cluster test took {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    run(main)
