#!/usr/bin/env bash
# Installs what this project needs on Debian 12 (bookworm), and nothing that is
# already there. Run as root. Debian packages only.
#   scripts/install-deps.sh          build and test dependencies
#   scripts/install-deps.sh --build  only what a build needs (used by docker/Dockerfile)
set -euo pipefail

build_packages=(
  g++ cmake ninja-build pkg-config
  libboost1.81-dev        # Asio and Beast (never libboost-dev: it conflicts)
  nlohmann-json3-dev libspdlog-dev libcli11-dev doctest-dev
  prometheus-cpp-dev libsqlite3-dev
)
test_packages=(
  python3 procps
)

wanted=("${build_packages[@]}")
if [[ ${1:-} != --build ]]; then
  wanted+=("${test_packages[@]}")
fi

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
