#!/usr/bin/env bash
# The container engine of the image tests (scripts/docker-test.sh,
# tests/cluster/compose_cluster.py), made ready: docker where a Docker engine
# answers, podman otherwise (or always, with --podman). For podman it writes
# a configuration of its own (never the system's): runc as the runtime and
# explicit ulimits, which this kind of machine needs, and storage in a folder
# of its own. Where the base image (debian:bookworm-slim) is not already
# there it does not pull it from a registry: it makes it with debootstrap
# from Debian's package archive and tags it with that name.
#
#   scripts/container-setup.sh [--podman]
#
# Prints what the caller needs, one KEY=VALUE a line: state (the folder
# below), engine (docker or podman) and, for podman, CONTAINERS_CONF and
# CONTAINERS_STORAGE_CONF, to be exported before podman (or podman-compose)
# runs. Its own messages go to stderr.
#
# Environment: GOFISH_IMAGE_STATE (default /var/tmp/gofish-image-test) holds
# the podman configuration and storage and the base image between runs.
set -euo pipefail

want_podman=false
while (($#)); do
  case $1 in
    --podman) want_podman=true; shift ;;
    *) echo "usage: $0 [--podman]" >&2; exit 2 ;;
  esac
done

state=${GOFISH_IMAGE_STATE:-/var/tmp/gofish-image-test}
log() { printf 'container-setup: %s\n' "$*" >&2; }
mkdir -p "$state"
# Two tests setting up at once (two build folders) take turns.
exec 9>"$state/setup.lock"
flock 9

if ! $want_podman && command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=(docker)
  log "using the Docker engine"
  printf 'state=%s\nengine=docker\n' "$state"
else
  command -v podman >/dev/null || { log "neither a Docker engine nor podman is here (scripts/install-deps.sh installs podman)"; exit 1; }
  mkdir -p "$state/storage" "$state/run" "$state/conf"
  # runc, not crun (which Debian's podman would pick but does not install);
  # ulimits stated outright, because the defaults podman would copy ask for
  # more than this machine's hard limits allow. 16384 descriptors: HAProxy
  # does not start with fewer than docker/haproxy.cfg's "maxconn 4096" takes
  # (8224).
  cat > "$state/conf/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
  cat > "$state/conf/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$state/storage"
runroot = "$state/run"
EOF
  export CONTAINERS_CONF=$state/conf/containers.conf
  export CONTAINERS_STORAGE_CONF=$state/conf/storage.conf
  engine=(podman)
  log "using podman, configured in $state/conf"
  printf 'state=%s\nengine=podman\nCONTAINERS_CONF=%s\nCONTAINERS_STORAGE_CONF=%s\n' \
    "$state" "$CONTAINERS_CONF" "$CONTAINERS_STORAGE_CONF"
fi

# The base image, made here when it is missing: debootstrap's minbase of
# bookworm is what debian:bookworm-slim is built from.
if ! "${engine[@]}" image exists docker.io/library/debian:bookworm-slim 2>/dev/null \
   && ! "${engine[@]}" image inspect debian:bookworm-slim >/dev/null 2>&1; then
  log "making debian:bookworm-slim with debootstrap"
  rootfs=$(mktemp -d "$state/rootfs.XXXXXX")
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian > "$state/debootstrap.log" 2>&1 \
    || { tail -n 20 "$state/debootstrap.log" >&2; rm -rf "$rootfs"; exit 1; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | "${engine[@]}" import - docker.io/library/debian:bookworm-slim >/dev/null
  rm -rf "$rootfs"
fi
