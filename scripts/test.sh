#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test.
#   scripts/test.sh             RelWithDebInfo build in build/
#   scripts/test.sh --sanitize  the same suite under ASan and UBSan, in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

build_dir=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [[ ${1:-} == --sanitize ]]; then
  build_dir=build-asan
  flags=(-DCMAKE_BUILD_TYPE=Debug -DGOFISH_SANITIZE=ON)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi

cmake -S . -B "$build_dir" -G Ninja "${flags[@]}"
cmake --build "$build_dir"
ctest --test-dir "$build_dir" --output-on-failure --timeout 600
