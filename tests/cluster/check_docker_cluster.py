#!/usr/bin/env python3
"""docker/haproxy.cfg is the one HAProxy configuration, and everything that
shows or uses one agrees with it:
- HAProxy accepts it (haproxy -c); it hashes ?room= consistently, checks
  /readyz, retries a request elsewhere when its node fails (option
  redispatch 1, retry-on), and sends PROXY headers;
- what scripts/cluster.sh writes (its haproxy-config) is the same
  configuration, directive for directive, but for its loopback addresses,
  HAProxy's source address and compose's resolvers; HAProxy accepts it too;
- README.md's example ("Behind a proxy") is the file's backend section, line
  for line, without its comments;
- docker/compose.cluster.yaml runs PostgreSQL, three nodes with their own
  node ids on that database, and HAProxy with this configuration, the nodes'
  names being the configuration's servers; its nodes' lease is the one
  scripts/cluster.sh gives its nodes.

    check_docker_cluster.py REPOSITORY-ROOT
"""
import difflib
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

check = subprocess.run(["haproxy", "-c", "-f", str(config_path)], capture_output=True, text=True)
if check.returncode != 0:
    problems.append("haproxy -c rejects docker/haproxy.cfg:\n" + check.stdout + check.stderr)

config = config_path.read_text()
for line in ["balance url_param room", "hash-type consistent", "option httpchk GET /readyz", "timeout tunnel",
             "option redispatch 1", "retry-on ", "timeout server ", "timeout check "]:
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


# What scripts/cluster.sh writes, for three nodes on made-up ports (nothing starts).
proxy_port, stats_port, node_ports = "18080", "18404", ["18081", "18082", "18083"]
derived = subprocess.run([str(root / "scripts" / "cluster.sh"), "haproxy-config", proxy_port, stats_port, *node_ports],
                         capture_output=True, text=True)
if derived.returncode != 0:
    problems.append("scripts/cluster.sh haproxy-config failed:\n" + derived.stdout + derived.stderr)
else:
    derived_path = pathlib.Path(tempfile.mkdtemp(prefix="check-haproxy.")) / "haproxy.cfg"
    derived_path.write_text(derived.stdout)
    check = subprocess.run(["haproxy", "-c", "-f", str(derived_path)], capture_output=True, text=True)
    if check.returncode != 0:
        problems.append("haproxy -c rejects what scripts/cluster.sh writes:\n" + check.stdout + check.stderr)
    shutil.rmtree(derived_path.parent, ignore_errors=True)

    # Both files, with what may differ put in the same words: the addresses
    # HAProxy listens on and reaches the nodes at, maxconn (fitted to the
    # descriptor limit), compose's resolvers (the file's only) and the
    # source address (the script's only).
    def evened(lines, ours):
        out = []
        in_resolvers = False
        for indent, line in lines:
            if not indent:
                in_resolvers = line.startswith("resolvers ")
            if in_resolvers or (not ours and line.startswith("default-server ") and " resolvers " in f" {line} "):
                continue
            if ours and line == "source 127.0.0.2":
                continue
            line = re.sub(r"^maxconn \d+$", "maxconn N", line)
            line = re.sub(r"^bind (:8080|127\.0\.0\.1:" + proxy_port + ")$", "bind PROXY", line)
            line = re.sub(r"^bind (:8404|127\.0\.0\.1:" + stats_port + ")$", "bind STATS", line)
            line = re.sub(r"^server (\S+) \S+", r"server \1 ADDRESS", line)
            out.append(line)
        return out

    file_lines = evened(directives(config), ours=False)
    script_lines = evened(directives(derived.stdout), ours=True)
    if file_lines != script_lines:
        diff = difflib.unified_diff(file_lines, script_lines, "docker/haproxy.cfg", "scripts/cluster.sh haproxy-config",
                                    lineterm="")
        problems.append("scripts/cluster.sh writes another configuration than docker/haproxy.cfg:\n" + "\n".join(diff))
    script_servers = re.findall(r"^\s*server\s+(\S+)\s+(\S+)", derived.stdout, re.M)
    if script_servers != [(f"node{k}", f"127.0.0.1:{port}") for k, port in enumerate(node_ports, 1)]:
        problems.append(f"scripts/cluster.sh's server lines {script_servers} are not nodeK at 127.0.0.1 and its port")
    if "source 127.0.0.2" not in section(directives(derived.stdout), "backend nodes"):
        problems.append("scripts/cluster.sh's backend does not reach the nodes from 127.0.0.2, the address they trust")

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
# The nodes trust exactly HAProxy's fixed address for PROXY headers.
haproxy_address = (((services.get("haproxy", {}).get("networks") or {}).get("default") or {}).get("ipv4_address"))
for name in nodes:
    trusted = services[name].get("environment", {}).get("GOFISH_TRUSTED_PROXY")
    if not haproxy_address or trusted != haproxy_address:
        problems.append(f"{name} trusts {trusted!r} for PROXY headers, not HAProxy's fixed address {haproxy_address!r}")
# The nodes' lease is scripts/cluster.sh's, which the cluster tests hold to their times.
script_ttl = re.search(r"^lease_ttl_ms=(\d+)$", (root / "scripts" / "cluster.sh").read_text(), re.M)
for name in nodes:
    ttl = services[name].get("environment", {}).get("GOFISH_LEASE_TTL_MS")
    if not script_ttl or ttl != script_ttl.group(1):
        problems.append(f"{name}'s GOFISH_LEASE_TTL_MS {ttl!r} is not scripts/cluster.sh's lease_ttl_ms "
                        f"{script_ttl.group(1) if script_ttl else None!r}")
volumes = services.get("haproxy", {}).get("volumes", [])
if not any(str(v).startswith("./haproxy.cfg:") for v in volumes):
    problems.append("the haproxy service does not mount docker/haproxy.cfg")

for problem in problems:
    print("check_docker_cluster:", problem)
print("check_docker_cluster:", "ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
