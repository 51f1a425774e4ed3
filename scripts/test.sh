#!/usr/bin/env bash
# Installs what is missing, builds hyalign and its tests, runs the whole suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)" --target hyalign hyalign_tests
cd build
status=0
ctest --output-on-failure -j"$(nproc)" 2>&1 | tee ctest.log || status=$?
# ctest lists skipped tests after its summary; repeat the summary so it is the closing line.
grep -E '^[0-9]+% tests passed' ctest.log | tail -n 1
exit "$status"
