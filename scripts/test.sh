#!/usr/bin/env bash
# Installs what is missing, builds hyalign and its tests, runs the whole suite with ctest.
# usage: scripts/test.sh [--sanitize]
#   --sanitize  the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer (host code
#               only: CUDA is left out of this build, so the GPU tests skip), in build-sanitize/.
#               Left out there, to keep CI's two cores near 30 minutes: the PaPaRa golden runs
#               (with the scalar kernel over 13 minutes sanitized, with the machine's best, as
#               --device all runs without CUDA, 170 s against 12 s plain), cli_mpi (2.5
#               minutes; Open MPI's own allocations defeat the leak check there), and
#               mem_golden_mummer (most of its 85 s is MUMmer itself). The kernels still run
#               sanitized in the unit and property tests, mem against MUMmer in mem_fuzz_mummer,
#               and MPI and the MUMmer goldens unsanitized in the plain suite.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
options=()
exclude=()
if [ "${1:-}" = --sanitize ]; then
  build=build-sanitize
  # -O1 -g1 (line tables: ASan's reports keep file and line): half the compile time of -O2 -g on
  # the heaviest sources, with the speed ASan's authors advise.
  options=(-DHYALIGN_SANITIZE=ON -DHYALIGN_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
           "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
  exclude=(-E '^(cli_golden_scalar|cli_golden_avx2|cli_golden_avx512|cli_golden_device_all|cli_mpi|mem_golden_mummer)$')
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
fi
scripts/install-deps.sh
cmake -S . -B "$build" -DBUILD_TESTING=ON "${options[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target hyalign hyalign_tests
cd "$build"
status=0
ctest --output-on-failure -j"$(nproc)" "${exclude[@]}" 2>&1 | tee ctest.log || status=$?
# ctest lists skipped tests after its summary; repeat the summary so it is the closing line.
grep -E '^[0-9]+% tests passed' ctest.log | tail -n 1
exit "$status"
