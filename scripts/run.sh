#!/usr/bin/env bash
# The README's run command: installs what is missing, builds a release, and
# starts gofish-server with the browser client. Extra arguments go to the
# server (see `gofish-server --help`), e.g. scripts/run.sh --port 9000
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --build

cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGOFISH_BUILD_TESTS=OFF
cmake --build build-release --target gofish-server

port=${GOFISH_PORT:-8080}
for ((i = 1; i <= $#; i++)); do
  if [[ ${!i} == --port ]]; then j=$((i + 1)); port=${!j}; fi
  if [[ ${!i} == --port=* ]]; then port=${!i#--port=}; fi
done
echo "Starting gofish-server: open http://localhost:${port}/ in a browser (Ctrl-C stops it)."
exec build-release/server/gofish-server --web-root build-release/web "$@"
