#!/usr/bin/env bash
# Installs what is missing, builds hyalign and its tests, runs the whole suite with ctest.
# usage: scripts/test.sh [--sanitize]
#   --sanitize  the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer (host code
#               only: CUDA is left out of this build, so the GPU tests skip), in build-sanitize/
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
options=()
if [ "${1:-}" = --sanitize ]; then
  build=build-sanitize
  options=(-DHYALIGN_SANITIZE=ON -DHYALIGN_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
fi
scripts/install-deps.sh
cmake -S . -B "$build" -DBUILD_TESTING=ON "${options[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target hyalign hyalign_tests
cd "$build"
status=0
ctest --output-on-failure -j"$(nproc)" 2>&1 | tee ctest.log || status=$?
# ctest lists skipped tests after its summary; repeat the summary so it is the closing line.
grep -E '^[0-9]+% tests passed' ctest.log | tail -n 1
exit "$status"
