#!/usr/bin/env python3
"""docker/haproxy.cfg is the one HAProxy configuration, and everything that
shows or uses one agrees with it:
- HAProxy accepts it (haproxy -c, with a throwaway certificate where compose
  mounts the real one); it hashes ?room= consistently, checks /readyz,
  retries a request elsewhere when its node fails (option redispatch 1,
  retry-on), and sends PROXY headers; it ends TLS (1.2 at least) from the
  mounted certificate, redirects plain HTTP and adds HSTS;
- what scripts/haproxy-config.sh writes, for scripts/cluster.sh (its
  haproxy-config) and for machines of one's own, is the same configuration,
  directive for directive, but for the addresses, HAProxy's source address
  and compose's resolvers, with no TLS lines (plain) or the file's with
  another certificate (--tls-cert); HAProxy accepts it too;
- README.md's example ("Behind a proxy") is the file's backend section, line
  for line, without its comments;
- docker/compose.cluster.yaml runs PostgreSQL, three nodes with their own
  node ids on that database, and HAProxy with this configuration, the nodes'
  names being the configuration's servers; its nodes' lease is the one
  scripts/cluster.sh gives its nodes;
- it pulls nothing from a container registry: every service is built here
  (the nodes from docker/Dockerfile, PostgreSQL and HAProxy from
  docker/postgres and docker/haproxy), every Dockerfile starting from
  debian:bookworm-slim; HAProxy's image reads the configuration where
  compose mounts it, and PostgreSQL's keeps its data where compose puts
  the volume, made with the user, password and database the nodes log in
  with;
- the nodes publish no port (only the compose network reaches them) and
  trust PROXY headers from private networks only, the same on each, and
  bind their operator port (/metrics) to the container's address; the
  statistics page is published on 127.0.0.1 only; HAProxy mounts a
  certificate where the configuration reads it and publishes 8443;
- docker/compose.yaml, the single server, is the same in small: HAProxy's
  image (the cluster's, by the same name) with docker/haproxy-single.cfg,
  which is exactly what scripts/haproxy-config.sh --compose --tls-cert
  writes for that server (HAProxy accepts it), the certificate mounted
  where it reads it, 8443 and 8080 published, the statistics on 127.0.0.1
  only; the server built from docker/Dockerfile (the cluster's image name),
  publishing no port, trusting PROXY headers from the private networks the
  cluster's nodes trust, its operator port on the container's address, and
  not ending TLS itself (that way is in the file's comments only).

    check_docker_cluster.py REPOSITORY-ROOT
"""
import difflib
import ipaddress
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

root = pathlib.Path(sys.argv[1])
config_path = root / "docker" / "haproxy.cfg"
compose_path = root / "docker" / "compose.cluster.yaml"
problems = []
CERT_PATH = "/etc/haproxy/certs/gofish.pem"  # where compose mounts the certificate, and HAProxy reads it

# A throwaway certificate (self-signed, for a check only) in place of the mounted one.
scratch = pathlib.Path(tempfile.mkdtemp(prefix="check-haproxy."))
test_pem = scratch / "test.pem"
made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                       "/CN=localhost", "-keyout", str(scratch / "key.pem"), "-out", str(scratch / "cert.pem")],
                      capture_output=True, text=True)
if made.returncode != 0:
    sys.exit("check_docker_cluster: openssl could not make a test certificate:\n" + made.stderr)
test_pem.write_text((scratch / "cert.pem").read_text() + (scratch / "key.pem").read_text())

config = config_path.read_text()
with_test_cert = scratch / "haproxy.cfg"
with_test_cert.write_text(config.replace(f" crt {CERT_PATH} ", f" crt {test_pem} "))
check = subprocess.run(["haproxy", "-c", "-f", str(with_test_cert)], capture_output=True, text=True)
if check.returncode != 0:
    problems.append("haproxy -c rejects docker/haproxy.cfg (with a test certificate):\n" + check.stdout + check.stderr)

for line in ["balance url_param room", "hash-type consistent", "option httpchk GET /readyz", "timeout tunnel",
             "option redispatch 1", "retry-on ", "timeout server ", "timeout check ",
             f"bind :8443 ssl crt {CERT_PATH} ", "bind :8080", "ssl-default-bind-options ssl-min-ver TLSv1.2",
             'http-request redirect location "https://', 'http-response set-header Strict-Transport-Security "max-age=']:
    if not re.search(r"^\s*" + re.escape(line), config, re.M):
        problems.append(f"docker/haproxy.cfg has no '{line}'")
servers = re.findall(r"^\s*server\s+(\S+)\s+(\S+):8080\b", config, re.M)
if any(name != host for name, host in servers):
    problems.append(f"each server line names its compose service twice: {servers}")
for line in config.splitlines():
    if re.match(r"^\s*server\s", line) and not ("send-proxy-v2" in line and "check-send-proxy" in line):
        problems.append("a server line without send-proxy-v2 check-send-proxy (the nodes expect a PROXY header): "
                        + line.strip())



def directives(text):
    """The configuration's lines that say something: no comments, no blank lines, spaces evened out."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            lines.append((line[:len(line) - len(line.lstrip())], " ".join(stripped.split())))
    return lines


def section(lines, header):
    """The lines of the section that begins with `header` (its own line included)."""
    out = []
    for indent, line in lines:
        if out and not indent:
            break
        if out or (not indent and line == header):
            out.append(line)
    return out


TLS_LINE = re.compile(r"^(ssl-default-bind-|bind \S+ ssl |http-request redirect location \"https:|"
                      r"http-response set-header Strict-Transport-Security )")


def check_written(what, command, listen, stats, servers, source, tls=None, compose=False):
    """`command` prints docker/haproxy.cfg written out for `servers` ([(name, address)]),
    listening on `listen` and `stats`, reaching the nodes from `source` (or None); with
    `tls` (PEM, ADDRESS:PORT) HTTPS from that certificate on that address, else no TLS;
    with `compose`, compose's resolvers kept. Returns what it printed (None when it failed)."""
    written = subprocess.run(command, capture_output=True, text=True)
    if written.returncode != 0:
        problems.append(f"{what} failed:\n" + written.stdout + written.stderr)
        return None
    path = pathlib.Path(tempfile.mkdtemp(prefix="check-haproxy.")) / "haproxy.cfg"
    # HAProxy reads the certificate at once: a test one in place of the mounted one.
    path.write_text(written.stdout.replace(f" crt {CERT_PATH} ", f" crt {test_pem} "))
    check = subprocess.run(["haproxy", "-c", "-f", str(path)], capture_output=True, text=True)
    if check.returncode != 0:
        problems.append(f"haproxy -c rejects what {what} writes:\n" + check.stdout + check.stderr)
    shutil.rmtree(path.parent, ignore_errors=True)

    # Both, with what may differ put in the same words: the addresses HAProxy
    # listens on and reaches the nodes at, maxconn, compose's resolvers (the
    # file's only) and the source address (the written one's only).
    def evened(lines, written):
        out = []
        in_resolvers = False
        for indent, line in lines:
            if not indent:
                in_resolvers = line.startswith("resolvers ")
            if not compose and (in_resolvers or (not written and line.startswith("default-server ")
                                                 and " resolvers " in f" {line} ")):
                continue
            if written and source and line == f"source {source}":
                continue
            if not tls and TLS_LINE.match(line):
                continue
            if tls:
                line = line.replace(f"bind {tls[1]} ssl crt {tls[0]} ", f"bind :8443 ssl crt {CERT_PATH} ")
            line = re.sub(r"^maxconn \d+$", "maxconn N", line)
            line = re.sub(r"^bind (:8080|" + re.escape(listen) + ")$", "bind PROXY", line)
            line = re.sub(r"^bind (:8404|" + re.escape(stats) + ")$", "bind STATS", line)
            line = re.sub(r"^server (\S+) \S+", r"server NAME ADDRESS", line)
            out.append(line)
        # As many server lines as there are nodes: one of each kind.
        return [line for i, line in enumerate(out) if not (line.startswith("server ") and out[i - 1] == line)]

    file_lines = evened(directives(config), written=False)
    written_lines = evened(directives(written.stdout), written=True)
    if file_lines != written_lines:
        diff = difflib.unified_diff(file_lines, written_lines, "docker/haproxy.cfg", what, lineterm="")
        problems.append(f"{what} writes another configuration than docker/haproxy.cfg:\n" + "\n".join(diff))
    found = re.findall(r"^\s*server\s+(\S+)\s+(\S+)", written.stdout, re.M)
    if found != servers:
        problems.append(f"{what}'s server lines {found} are not {servers}")
    if source and f"source {source}" not in section(directives(written.stdout), "backend nodes"):
        problems.append(f"{what}'s backend does not reach the nodes from {source}, the address they trust")
    has_tls = any(TLS_LINE.match(line) for _, line in directives(written.stdout))
    if has_tls != bool(tls):
        problems.append(f"{what} writes a configuration {'with' if has_tls else 'without'} TLS")
    has_resolvers = any(line.startswith("resolvers ") for _, line in directives(written.stdout))
    if has_resolvers != compose:
        problems.append(f"{what} writes a configuration {'with' if has_resolvers else 'without'} compose's resolvers")
    return written.stdout


# What scripts/cluster.sh writes, for three nodes on made-up ports (nothing starts).
node_ports = ["18081", "18082", "18083"]
check_written("scripts/cluster.sh haproxy-config",
              [str(root / "scripts" / "cluster.sh"), "haproxy-config", "18080", "18404", *node_ports],
              "127.0.0.1:18080", "127.0.0.1:18404",
              [(f"node{k}", f"127.0.0.1:{port}") for k, port in enumerate(node_ports, 1)], "127.0.0.2")
# ... and for machines of one's own, as docs/OPERATIONS.md writes /etc/haproxy/haproxy.cfg.
check_written("scripts/haproxy-config.sh",
              [str(root / "scripts" / "haproxy-config.sh"), "--stats", "127.0.0.1:8404", "node1=10.0.0.11:8080",
               "node2=10.0.0.12:8080"],
              ":8080", "127.0.0.1:8404", [("node1", "10.0.0.11:8080"), ("node2", "10.0.0.12:8080")], None)
# ... and with TLS from a certificate of one's own (the test tls_proxy runs one).
check_written("scripts/haproxy-config.sh --tls-cert",
              [str(root / "scripts" / "haproxy-config.sh"), "--tls-cert", str(test_pem), "--tls-listen", ":443",
               "--listen", ":80", "node1=10.0.0.11:8080"],
              ":80", ":8404", [("node1", "10.0.0.11:8080")], None, tls=(str(test_pem), ":443"))

# README's example is the file's backend, line for line, without the comments.
readme = (root / "README.md").read_text()
behind = re.search(r"^### Behind a proxy\n(.*?)^#", readme, re.M | re.S)
blocks = re.findall(r"^```\n(.*?)^```", behind.group(1), re.M | re.S) if behind else []
config_lines = [line.rstrip() for line in config.splitlines() if line.strip() and not line.strip().startswith("#")]
begin = config_lines.index("backend nodes") if "backend nodes" in config_lines else len(config_lines)
end = next((i for i in range(begin + 1, len(config_lines)) if not config_lines[i][:1].isspace()), len(config_lines))
backend = config_lines[begin:end]
if not blocks:
    problems.append("README.md's \"Behind a proxy\" has no HAProxy example")
else:
    example = [line.rstrip() for line in blocks[0].splitlines() if line.strip()]
    if example != backend:
        diff = difflib.unified_diff(backend, example, "docker/haproxy.cfg", "README.md", lineterm="")
        problems.append("README.md's HAProxy example is not docker/haproxy.cfg's backend without its comments:\n"
                        + "\n".join(diff))

compose = yaml.safe_load(compose_path.read_text())
services = compose.get("services", {})
nodes = sorted(name for name in services if re.fullmatch(r"node\d+", name))
if sorted(name for name, _ in servers) != nodes or len(nodes) != 3:
    problems.append(f"HAProxy's servers {servers} are not the compose file's three nodes {nodes}")
if "postgres" not in services or "haproxy" not in services:
    problems.append("the compose file needs the services postgres and haproxy")
node_ids = set()
for name in nodes:
    service = services[name]
    environment = service.get("environment", {})
    if service.get("build", {}).get("dockerfile") != "docker/Dockerfile":
        problems.append(f"{name} is not built from docker/Dockerfile")
    if environment.get("GOFISH_STORAGE") != "postgres" or "@postgres:5432/" not in environment.get("GOFISH_POSTGRES_URL", ""):
        problems.append(f"{name} does not keep its rooms in the postgres service")
    node_ids.add(environment.get("GOFISH_NODE_ID"))
if node_ids != set(nodes):
    problems.append(f"node ids {sorted(map(str, node_ids))} are not the services' names {nodes}")
# The nodes are reached through the compose network only, and trust PROXY
# headers from private networks, whichever compose makes (podman-compose 1.0
# honours no fixed subnet or address).
trusted = {services[name].get("environment", {}).get("GOFISH_TRUSTED_PROXY") for name in nodes}
if len(trusted) != 1:
    problems.append(f"the nodes trust different proxies: {sorted(map(str, trusted))}")
for name in nodes:
    if services[name].get("ports"):
        problems.append(f"{name} publishes ports {services[name]['ports']}: only HAProxy should be reached from outside")
    for network in str(services[name].get("environment", {}).get("GOFISH_TRUSTED_PROXY", "")).split(","):
        try:
            if not ipaddress.ip_network(network.strip()).is_private:
                problems.append(f"{name} trusts {network!r} for PROXY headers, which is not a private network")
        except ValueError:
            problems.append(f"{name} trusts {network!r} for PROXY headers, which is not a network")
# The operator port (/metrics) on the container's address, for a scraper on
# the compose network, and published nowhere (no node publishes a port).
for name in nodes:
    if services[name].get("environment", {}).get("GOFISH_ADMIN_BIND") != "0.0.0.0":
        problems.append(f"{name} does not bind its operator port to the container's address (GOFISH_ADMIN_BIND)")
# HAProxy ends TLS: the certificate mounted where the configuration reads it, 8443 published.
def mount_target(volume):
    """Where a volume line mounts its source; the source may be "${VARIABLE:-default}", colon and all."""
    target = re.search(r":(/[^:]+)(:ro|:rw)?$", str(volume))
    return target.group(1) if target else None


if CERT_PATH not in [mount_target(volume) for volume in services.get("haproxy", {}).get("volumes", [])]:
    problems.append(f"the haproxy service mounts no certificate at {CERT_PATH}, which docker/haproxy.cfg reads")
if not any(str(port).endswith(":8443") for port in services.get("haproxy", {}).get("ports", [])):
    problems.append("the haproxy service does not publish its TLS port 8443")

# The single-node file: one server behind HAProxy, which ends TLS, the same
# images as the cluster's; docker/haproxy-single.cfg is what
# scripts/haproxy-config.sh writes for it.
SINGLE_CONFIG_COMMAND = ["--compose", "--tls-cert", CERT_PATH, "gofish=gofish:8080"]
single_config = root / "docker" / "haproxy-single.cfg"
written = check_written("scripts/haproxy-config.sh " + " ".join(SINGLE_CONFIG_COMMAND),
                        [str(root / "scripts" / "haproxy-config.sh"), *SINGLE_CONFIG_COMMAND],
                        ":8080", ":8404", [("gofish", "gofish:8080")], None, tls=(CERT_PATH, ":8443"), compose=True)
if written is not None and (not single_config.is_file() or single_config.read_text() != written):
    problems.append("docker/haproxy-single.cfg is not what scripts/haproxy-config.sh "
                    + " ".join(SINGLE_CONFIG_COMMAND) + " writes (write it again with that command)")
single_compose = yaml.safe_load((root / "docker" / "compose.yaml").read_text())
single = single_compose.get("services", {})
if sorted(single) != ["gofish", "haproxy"]:
    problems.append(f"docker/compose.yaml's services are {sorted(single)}, not gofish and haproxy")
server = single.get("gofish", {})
server_environment = server.get("environment", {})
if server.get("build", {}).get("dockerfile") != "docker/Dockerfile" or server.get("image") != services.get(
        "node1", {}).get("image", "gofish:${GOFISH_TAG:-latest}"):
    problems.append("docker/compose.yaml's gofish is not built from docker/Dockerfile as the cluster's nodes' image")
if server.get("ports"):
    problems.append(f"docker/compose.yaml's gofish publishes {server['ports']}: only HAProxy should be reached")
if server_environment.get("GOFISH_TRUSTED_PROXY") not in trusted:
    problems.append(f"docker/compose.yaml's gofish trusts {server_environment.get('GOFISH_TRUSTED_PROXY')!r} for "
                    f"PROXY headers, not what the cluster's nodes trust ({sorted(map(str, trusted))})")
if server_environment.get("GOFISH_ADMIN_BIND") != "0.0.0.0":
    problems.append("docker/compose.yaml's gofish does not bind its operator port to the container's address")
if any(key in server_environment for key in ("GOFISH_TLS_CERT", "GOFISH_TLS_KEY", "GOFISH_HTTP_REDIRECT_PORT")):
    problems.append("docker/compose.yaml's gofish ends TLS itself: HAProxy does, in that file")
proxy = single.get("haproxy", {})
if proxy.get("build") != services.get("haproxy", {}).get("build") or proxy.get("image") != services.get(
        "haproxy", {}).get("image"):
    problems.append("docker/compose.yaml's haproxy is not the cluster's HAProxy image")
proxy_mounts = {mount_target(volume): str(volume).split(":")[0] for volume in proxy.get("volumes", [])}
if proxy_mounts.get("/etc/haproxy/haproxy.cfg") != "./haproxy-single.cfg":
    problems.append(f"docker/compose.yaml's haproxy does not mount docker/haproxy-single.cfg at "
                    f"/etc/haproxy/haproxy.cfg: {proxy.get('volumes')}")
if CERT_PATH not in proxy_mounts:
    problems.append(f"docker/compose.yaml's haproxy mounts no certificate at {CERT_PATH}")
proxy_ports = [str(port) for port in proxy.get("ports", [])]
for port in ("8443", "8080"):
    if not any(published.endswith(":" + port) for published in proxy_ports):
        problems.append(f"docker/compose.yaml's haproxy does not publish {port}")
if not all(port.startswith("127.0.0.1:") for port in proxy_ports if port.endswith(":8404")):
    problems.append(f"docker/compose.yaml's haproxy publishes its statistics beyond 127.0.0.1: {proxy_ports}")
if "GOFISH_HTTPS_PORT" not in proxy.get("environment", {}):
    problems.append("docker/compose.yaml's haproxy has no GOFISH_HTTPS_PORT for its redirect")
if proxy.get("depends_on") != ["gofish"]:
    problems.append(f"docker/compose.yaml's haproxy depends on {proxy.get('depends_on')}, not gofish")

# The nodes' lease is scripts/cluster.sh's, which the cluster tests hold to their times.
script_ttl = re.search(r"^lease_ttl_ms=(\d+)$", (root / "scripts" / "cluster.sh").read_text(), re.M)
for name in nodes:
    ttl = services[name].get("environment", {}).get("GOFISH_LEASE_TTL_MS")
    if not script_ttl or ttl != script_ttl.group(1):
        problems.append(f"{name}'s GOFISH_LEASE_TTL_MS {ttl!r} is not scripts/cluster.sh's lease_ttl_ms "
                        f"{script_ttl.group(1) if script_ttl else None!r}")


def dockerfile(service):
    """The path of the service's Dockerfile, as compose finds it (context and dockerfile beside the compose file)."""
    build = services.get(service, {}).get("build")
    if isinstance(build, str):
        build = {"context": build}
    if not build:
        return None
    return (compose_path.parent / build.get("context", ".") / build.get("dockerfile", "Dockerfile")).resolve()


def instruction(text, name):
    """The arguments of each `name` instruction of a Dockerfile, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    return [line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
            for line in joined.splitlines() if line.split(None, 1)[:1] == [name]]


# Nothing from a registry: every service is built here, on debian:bookworm-slim.
dockerfiles = {}
for service in services:
    path = dockerfile(service)
    if path is None:
        problems.append(f"{service} is not built here (no build:), so it would be pulled from a registry")
        continue
    if not path.is_file():
        problems.append(f"{service}'s Dockerfile {path} is missing")
        continue
    dockerfiles[service] = path.read_text()
    for base in instruction(dockerfiles[service], "FROM"):
        image = base.split()[0]
        stages = [line.split()[-1] for line in instruction(dockerfiles[service], "FROM") if " AS " in line.upper()]
        if image != "debian:bookworm-slim" and image not in stages:
            problems.append(f"{service}'s Dockerfile starts from {image}, not debian:bookworm-slim")
if dockerfile("postgres") and dockerfile("postgres").parent.name != "postgres":
    problems.append("the postgres service is not built from docker/postgres")
if dockerfile("haproxy") and dockerfile("haproxy").parent.name != "haproxy":
    problems.append("the haproxy service is not built from docker/haproxy")


def mounted_at(service, source):
    """Where the service mounts `source` (a named volume or a path), or None."""
    for volume in services.get(service, {}).get("volumes", []):
        parts = str(volume).split(":")
        if parts[0] == source and len(parts) > 1:
            return parts[1]
    return None


# HAProxy's image reads the one configuration where compose mounts it.
entrypoint = instruction(dockerfiles.get("haproxy", ""), "ENTRYPOINT")
words = json.loads(entrypoint[-1]) if entrypoint else []
reads = words[words.index("-f") + 1] if "-f" in words[:-1] else None
if mounted_at("haproxy", "./haproxy.cfg") is None:
    problems.append("the haproxy service does not mount docker/haproxy.cfg")
elif mounted_at("haproxy", "./haproxy.cfg") != reads:
    problems.append(f"the haproxy service mounts docker/haproxy.cfg at {mounted_at('haproxy', './haproxy.cfg')}, "
                    f"but its image reads {reads}")
stats = [str(port) for port in services.get("haproxy", {}).get("ports", []) if str(port).endswith(":8404")]
if not stats or not all(port.startswith("127.0.0.1:") for port in stats):
    problems.append(f"HAProxy's statistics page is published as {stats}, not on 127.0.0.1 only")

# PostgreSQL's image keeps its data in the volume compose gives it, and is
# made with the user, password and database the nodes' URL names.
postgres = services.get("postgres", {})
data_volumes = [v.strip('[]" ') for v in instruction(dockerfiles.get("postgres", ""), "VOLUME")]
data_mounts = [str(v).split(":")[1] for v in postgres.get("volumes", [])
               if ":" in str(v) and str(v).split(":")[0] in (compose.get("volumes") or {})]
if not data_volumes or data_volumes[-1] not in data_mounts:
    problems.append(f"the postgres service's named volume is mounted at {data_mounts}, not at its image's VOLUME "
                    f"{data_volumes}")
environment = postgres.get("environment", {})
for name in nodes:
    url = re.match(r"postgresql://([^:]+):([^@]+)@postgres:5432/(\S+)$",
                   services[name].get("environment", {}).get("GOFISH_POSTGRES_URL", ""))
    if not url or (url.group(1), url.group(2), url.group(3)) != (
            environment.get("POSTGRES_USER"), environment.get("POSTGRES_PASSWORD"), environment.get("POSTGRES_DB")):
        problems.append(f"{name}'s GOFISH_POSTGRES_URL is not the postgres service's POSTGRES_USER, "
                        "POSTGRES_PASSWORD and POSTGRES_DB")

shutil.rmtree(scratch, ignore_errors=True)
for problem in problems:
    print("check_docker_cluster:", problem)
print("check_docker_cluster:", "ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
