#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test.
#   scripts/test.sh             RelWithDebInfo build in build/
#   scripts/test.sh --sanitize  the same suite under ASan and UBSan, in build-asan/
#                               (without the browser tests, label e2e, and the container image, label image:
#                               they test the client and the packaging, not the server's memory; nor the
#                               resident-memory figures, label memory, which ASan's shadow memory inflates;
#                               nor the multinode tests, which hold whole clusters to time bounds (a 3 s
#                               p99 after a node is killed or frozen, a 2 s pause in a rolling restart, a 5 s
#                               throughput window) that the sanitizers' slowdown breaks; the two-node lease
#                               tests and deploy_systemd, label cluster, stay; nor the single-node tests that
#                               hold processes to such bounds, label timed: a room paused within 1 s of its
#                               disk failing); nor the WebAssembly engine and its parity test (the same
#                               engine, compiled by emscripten: nothing of the server's memory in it)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

# Debug information as line tables only (-g1): backtraces and the sanitizers'
# reports keep their files and lines, and the Beast-heavy files compile in
# about half the time that full debug information takes. -O1 rather than -O2:
# a fifth less compile time again (measured on the Beast-heavy and the
# JSON-heavy files alike), and the tests wait on sockets and clocks, not on
# the code's speed. The release build (docker/Dockerfile, the benchmarks'
# figures) stays -O2 or more.
build_dir=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
ctest_flags=()
if [[ ${1:-} == --sanitize ]]; then
  build_dir=build-asan
  flags=(-DCMAKE_BUILD_TYPE=Debug -DGOFISH_SANITIZE=ON "-DCMAKE_CXX_FLAGS_DEBUG=-g1" -DGOFISH_WASM=OFF)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest_flags=(-LE 'e2e|image|memory|multinode|timed')
else
  # The browser tests' npm dependencies, exactly as tests/web/package-lock.json pins them.
  npm ci --prefix tests/web --no-audit --no-fund --loglevel=error
fi

cmake -S . -B "$build_dir" -G Ninja "${flags[@]}"
cmake --build "$build_dir"
# Two tests at a time (GOFISH_TEST_JOBS): most of them wait on sockets, child
# processes and the page's pace rather than on a core. The tests that hold
# processes to time bounds (the cluster failovers, the load figures) share the
# lock cluster_clock (one at a time, beside one other test); the store-outage
# tests run alone;
# the browser groups share the lock browser; the image tests run alone, last.
ctest --test-dir "$build_dir" --output-on-failure --timeout 600 --parallel "${GOFISH_TEST_JOBS:-2}" "${ctest_flags[@]}"
