#!/usr/bin/env bash
# Installs what this project needs on Debian 12 (bookworm), and nothing that is
# already there. Run as root. Debian packages only. This is the one list: the
# README's commands, CI and docker/Dockerfile all install through it.
#   scripts/install-deps.sh                 everything: build, native tests, browser tests, image tests, benchmarks
#   scripts/install-deps.sh --build         only what a build needs
#   scripts/install-deps.sh --native-tests  a build and the C++ test suite (docker/Dockerfile's build stage)
#   scripts/install-deps.sh --browser-tests a build, the C++ tests, the browser client's tests (tests/web) and
#                                           the WebAssembly engine with its parity test (tests/wasm)
#   scripts/install-deps.sh --bench         a build and bench/run (pinning, profilers)
set -euo pipefail

build_packages=(
  g++ cmake ninja-build pkg-config
  libboost1.81-dev        # Asio and Beast (never libboost-dev: it conflicts)
  nlohmann-json3-dev libspdlog-dev libcli11-dev doctest-dev
  prometheus-cpp-dev libsqlite3-dev
  libpq-dev               # --storage postgres: libpq, PostgreSQL's C client library
  libedit-dev             # gofish-cli: line editing and history
  zlib1g-dev              # gzip for the web client's static files
  esbuild                 # bundles and minifies the browser client into the web root (clients/web/CMakeLists.txt)
  node-qrcode-generator   # the QR code of a class's join link, bundled into js/classroom.js (clients/web/CMakeLists.txt)
  libicu-dev              # display names: NFC, default-ignorables, confusable skeletons (protocol/text.cpp)
  libgoogle-perftools-dev # tcmalloc, the server's malloc (server/edge/memory_allocator.hpp)
  libssl-dev              # OpenSSL 3: TLS in the server (server/edge/tls_context.hpp) and gofish-cli
)
native_test_packages=(
  python3 procps tmux     # tmux: the terminal client's interactive test
  sqlite3                 # the README's online backup command, run by tests/server/restart_restore_test.cpp
  postgresql              # initdb and pg_ctl for the throwaway PostgreSQL of the cluster tests (scripts/pg-throwaway.sh)
  haproxy                 # the proxy in front of the cluster tests' nodes (scripts/cluster.sh, docker/haproxy.cfg)
  python3-yaml            # the cluster test's parse of docker/compose.cluster.yaml
  systemd                 # systemd-analyze verify for deploy/systemd's units (tests/cluster/check_systemd_units.py)
  openssl                 # the TLS tests make their own certificate authority (tests/server/tls_check.py, tests/cluster/tls_proxy.py)
  testssl.sh              # the TLS settings checked as an outsider would (tests/server/tls_check.py)
)
# The browser client's end-to-end tests (tests/web) drive Debian's chromium
# with npm's playwright-core. Node and npm come from Debian only when npm is
# missing: some machines have node (with its own npm) from elsewhere, and
# Debian's npm would conflict with it.
browser_test_packages=(chromium)
browser_test_packages+=(libnss3-tools)  # certutil: tests/web/e2e/tls.mjs makes its Chromium trust a test certificate authority
if ! command -v npm >/dev/null 2>&1; then
  browser_test_packages+=(nodejs npm)
fi
# The engine compiled to WebAssembly for the browser (clients/wasm, built when
# emscripten is there: GOFISH_WASM=AUTO) and its parity test (tests/wasm):
# emscripten, and node-acorn for emscripten's JavaScript optimizer. Not in
# --native-tests: docker/Dockerfile's build stage installs that list, and the
# image has no use for a second compiler.
wasm_packages=(emscripten node-acorn)
# The container tests build and run docker/Dockerfile (scripts/docker-test.sh)
# and docker/compose.cluster.yaml (tests/cluster/compose_cluster.py, with
# podman-compose) with podman, on a base image they make with debootstrap.
image_test_packages=(
  podman buildah runc debootstrap uidmap netavark aardvark-dns iptables curl ca-certificates podman-compose
)
# bench/run pins processes with taskset (util-linux) and renders with python3;
# perf and valgrind are for profiling the server under load; postgresql gives
# its durability table a --storage postgres row (bench/run skips it without).
bench_packages=(python3 util-linux linux-perf valgrind postgresql)

wanted=("${build_packages[@]}")
case ${1:-} in
  --build) ;;
  --native-tests) wanted+=("${native_test_packages[@]}") ;;
  --browser-tests) wanted+=("${native_test_packages[@]}" "${browser_test_packages[@]}" "${wasm_packages[@]}") ;;
  --bench) wanted+=("${bench_packages[@]}") ;;
  "") wanted+=("${native_test_packages[@]}" "${browser_test_packages[@]}" "${wasm_packages[@]}"
              "${image_test_packages[@]}" "${bench_packages[@]}") ;;
  *) echo "usage: $0 [--build | --native-tests | --browser-tests | --bench]" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: everything is installed"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing ${missing[*]}; run this script as root to install them" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
