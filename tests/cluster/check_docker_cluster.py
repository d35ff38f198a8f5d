#!/usr/bin/env python3
"""docker/haproxy.cfg and docker/compose.cluster.yaml agree with each other and
with what the cluster needs: HAProxy accepts the configuration (haproxy -c),
it hashes ?room= consistently and checks /readyz, and the compose file runs
PostgreSQL, three nodes with their own node ids on that database, and HAProxy
with this configuration, the nodes' names being the configuration's servers.

    check_docker_cluster.py REPOSITORY-ROOT
"""
import pathlib
import re
import subprocess
import sys

import yaml

root = pathlib.Path(sys.argv[1])
config_path = root / "docker" / "haproxy.cfg"
compose_path = root / "docker" / "compose.cluster.yaml"
problems = []

check = subprocess.run(["haproxy", "-c", "-f", str(config_path)], capture_output=True, text=True)
if check.returncode != 0:
    problems.append("haproxy -c rejects docker/haproxy.cfg:\n" + check.stdout + check.stderr)

config = config_path.read_text()
for line in ["balance url_param room", "hash-type consistent", "option httpchk GET /readyz", "timeout tunnel"]:
    if not re.search(r"^\s*" + re.escape(line), config, re.M):
        problems.append(f"docker/haproxy.cfg has no '{line}'")
servers = re.findall(r"^\s*server\s+(\S+)\s+(\S+):8080\b", config, re.M)
if any(name != host for name, host in servers):
    problems.append(f"each server line names its compose service twice: {servers}")
for line in config.splitlines():
    if re.match(r"^\s*server\s", line) and not ("send-proxy-v2" in line and "check-send-proxy" in line):
        problems.append("a server line without send-proxy-v2 check-send-proxy (the nodes expect a PROXY header): "
                        + line.strip())

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
volumes = services.get("haproxy", {}).get("volumes", [])
if not any(str(v).startswith("./haproxy.cfg:") for v in volumes):
    problems.append("the haproxy service does not mount docker/haproxy.cfg")

for problem in problems:
    print("check_docker_cluster:", problem)
print("check_docker_cluster:", "ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
