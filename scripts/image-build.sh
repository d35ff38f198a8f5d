#!/usr/bin/env bash
# The container images of the image tests, built once a test run: the
# server's (docker/Dockerfile), PostgreSQL's (docker/postgres) and HAProxy's
# (docker/haproxy), as gofish:TAG, gofish-postgres:TAG and gofish-haproxy:TAG,
# with podman (scripts/container-setup.sh --podman makes it ready). The tests
# docker_image and compose_cluster use them; ctest's fixture gofish_images
# (tests/CMakeLists.txt) starts the build early, in the background at the
# lowest CPU priority, and removes the images at the end. (podman runs the
# build's containers in cgroups of their own, where a nice value does not
# hold them back: the scheduler weighs a container's group as one task of
# default priority, and the build took about a core's share beside the
# tests. So where the cgroup v1 cpu controller can be written, as root on
# this kind of machine, the containers go under a group of their own with
# cpu.shares 64, a sixteenth of a default task's weight: the build gets the
# time the tests leave idle, and little more while they keep both cores
# busy. Elsewhere the containers get podman's default group.)
#
#   scripts/image-build.sh start TAG DIR   build in the background and return;
#                                          DIR gets build.log, then status
#   scripts/image-build.sh wait DIR        wait for that build; exit with its status
#   scripts/image-build.sh build TAG DIR   build in the foreground
#   scripts/image-build.sh remove TAG DIR  stop a build still running, remove the images
#
# The server's image is built with --build-arg GOFISH_IMAGE_TESTS=0: the
# native tests it would run inside are those of this very test run, on the
# same source and the same Debian release, so they run once, outside.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 start|build TAG DIR | wait DIR | remove TAG DIR" >&2; exit 2; }
log() { printf 'image-build: %s\n' "$*"; }
(($# >= 2)) || usage
action=$1

images() { printf '%s\n' "localhost/gofish:$1" "localhost/gofish-postgres:$1" "localhost/gofish-haproxy:$1"; }

podman_ready() {
  local setup key value
  setup=$(scripts/container-setup.sh --podman) || return 1
  while IFS='=' read -r key value; do
    [[ $key =~ ^[A-Z_]+$ ]] && export "$key=$value"
  done <<<"$setup"
  # podman writes OCI images by default, and OCI has no HEALTHCHECK.
  export BUILDAH_FORMAT=docker
}

# A cpu group of low weight for the build's containers (see above): prints
# podman's --cgroup-parent flag, or nothing where it cannot be made.
low_weight_group() {
  local cpu=/sys/fs/cgroup/cpu group=$1
  [[ -w $cpu/cpu.shares && ! -e /sys/fs/cgroup/cgroup.controllers ]] || return 0
  { mkdir -p "$cpu/$group" && echo 64 > "$cpu/$group/cpu.shares"; } 2>/dev/null || return 0
  echo "--cgroup-parent=/$group"
}

# Removes that group from every hierarchy podman made it in, deepest first
# (only empty groups can go: conmon leaves its own a moment after podman
# returns, so a few tries a second apart).
drop_group() {
  local dir try
  [[ $1 =~ ^gofish-image-build-[A-Za-z0-9_.-]+$ ]] || return 0
  for try in 1 2 3 4 5; do
    for dir in /sys/fs/cgroup/*/"$1"; do
      [[ -d $dir ]] && find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null
    done
    compgen -G "/sys/fs/cgroup/*/$1" >/dev/null || return 0
    sleep 1
  done
  return 0
}

build() {
  local tag=$1 started=$SECONDS group="gofish-image-build-$1"
  podman_ready
  # Never a registry: every image is built here, on the base container-setup.sh made.
  local flags=(--pull=never --format docker)
  local parent
  parent=$(low_weight_group "$group")
  if [[ -n $parent ]]; then
    flags+=("$parent")
    trap "drop_group '$group'" EXIT
    log "the build's containers run in the cpu group /$group (cpu.shares 64)"
  fi
  log "building localhost/gofish:$tag from docker/Dockerfile"
  nice -n 19 podman build "${flags[@]}" --build-arg GOFISH_IMAGE_TESTS=0 -f docker/Dockerfile \
    -t "localhost/gofish:$tag" .
  log "building localhost/gofish-postgres:$tag and localhost/gofish-haproxy:$tag"
  nice -n 19 podman build "${flags[@]}" -t "localhost/gofish-postgres:$tag" docker/postgres
  nice -n 19 podman build "${flags[@]}" -t "localhost/gofish-haproxy:$tag" docker/haproxy
  log "built in $((SECONDS - started)) s"
}

case $action in
  start)
    (($# == 3)) || usage
    tag=$2 dir=$3
    mkdir -p "$dir"
    rm -f "$dir/status" "$dir/build.log"
    # Its own session, with no descriptor of the caller's: ctest waits for
    # the test's output to close, and must not wait for the build.
    setsid bash -c '"$0" build "$1" "$2" > "$2/build.log" 2>&1; echo $? > "$2/status.tmp"; mv "$2/status.tmp" "$2/status"' \
      "$0" "$tag" "$dir" < /dev/null > /dev/null 2>&1 &
    echo $! > "$dir/pid"
    log "started in the background (process $!); its log is $dir/build.log"
    ;;
  wait)
    dir=$2
    [[ -f $dir/pid ]] || { echo "image-build: no build was started in $dir" >&2; exit 1; }
    started=$SECONDS
    while [[ ! -f $dir/status ]]; do
      if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null && [[ ! -f $dir/status ]]; then
        echo "image-build: the build (process $(cat "$dir/pid")) ended without a status" >&2
        exit 1
      fi
      sleep 1
    done
    status=$(cat "$dir/status")
    if [[ $status != 0 ]]; then
      tail -n 60 "$dir/build.log" >&2
      echo "image-build: the build failed ($status); its log is $dir/build.log" >&2
      exit 1
    fi
    log "the images are ready (waited $((SECONDS - started)) s); $(grep -m1 'built in' "$dir/build.log" || true)"
    ;;
  build)
    (($# == 3)) || usage
    mkdir -p "$3"
    build "$2"
    ;;
  remove)
    (($# == 3)) || usage
    tag=$2 dir=$3
    pid=$(cat "$dir/pid" 2>/dev/null || true)
    # A process group of the build's own: never 1 or less (kill -- -1 would
    # signal every process), nor anything but a number.
    if [[ $pid =~ ^[0-9]+$ ]] && ((pid > 1)) && [[ ! -f $dir/status ]] && kill -0 "$pid" 2>/dev/null; then
      # The build's session: bash, podman and what podman runs.
      kill -TERM -- "-$pid" 2>/dev/null || true
      log "stopped the build still running"
    fi
    drop_group "gofish-image-build-$tag"
    podman_ready
    for image in $(images "$tag"); do
      podman image exists "$image" && podman image rm -f "$image" >/dev/null && log "removed $image"
    done
    rm -f "$dir/pid" "$dir/status"
    ;;
  *) usage ;;
esac
