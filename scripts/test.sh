#!/usr/bin/env bash
# Installs what is missing, builds hyalign and its tests, runs the whole suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)" --target hyalign hyalign_tests
cd build
ctest --output-on-failure -j"$(nproc)"
