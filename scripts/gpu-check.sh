#!/usr/bin/env bash
# One command for the GPU machine: build with CUDA, run the GPU tests and golden tests on the GPU,
# the GPU benchmark, and end-to-end runs; prints a short table last.
# usage: scripts/gpu-check.sh [BUILD_DIR]   (run from anywhere; needs cmake, g++, nvcc, zlib, fmt, CLI11, gtest)
set -u
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
jobs=$(nproc)
log() { printf '\n== %s\n' "$*"; }

log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
lscpu | grep -m1 'Model name'
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores"

log "build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null || exit 1
cmake --build "$build" -j"$jobs" --target hyalign hyalign_tests hyalign_bench_papara 2>&1 | grep -E 'error|warning: .*papara' ; \
  [ -x "$build/hyalign" ] || { echo "build failed"; exit 1; }

log "GPU unit tests (GPU == scalar, hybrid scheduler)"
"$build/tests/hyalign_tests" --gtest_filter='PaparaGpu*:HybridScheduler*:PaparaGpuSupport*' 2>&1 | tail -n 15
unit=${PIPESTATUS[0]}

log "golden tests on the GPU"
(cd "$build" && ctest -R 'cli_golden_device_(gpu|all)' --output-on-failure >/tmp/golden_gpu.txt 2>&1)
golden=$?
grep -E 'FAIL|golden:|tests passed' /tmp/golden_gpu.txt | head -n 20

log "GPU benchmark"
"$build/bench/hyalign_bench_papara" --gpu --replicate "${REPLICATE:-20}" | tee /tmp/gpu_bench.txt

log "end to end (hyalign papara, q2_16S reference, gut500 × ${REPLICATE:-20})"
data=tests/data/papara/q2_16S
reads=$(mktemp --suffix=.fasta)
for r in $(seq 1 "${REPLICATE:-20}"); do sed "s/^>\(.*\)/>\1_r$r/" "$data/gut500.fasta"; done >"$reads"
declare -A wall
for device in gpu all cpu; do
  start=$EPOCHREALTIME
  "$build/hyalign" papara --device "$device" -j "$jobs" -t "$data/ref.unrooted.nwk" -s "$data/ref.phy" -q "$reads" \
    -o "/tmp/e2e_$device.phy" 2>"/tmp/e2e_$device.log"
  wall[$device]=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
  grep -E 'scored|%' "/tmp/e2e_$device.log"
done
cmp -s /tmp/e2e_gpu.phy /tmp/e2e_cpu.phy && cmp -s /tmp/e2e_all.phy /tmp/e2e_cpu.phy && same=yes || same=NO

log "summary"
printf '%-44s %s\n' "GPU unit tests exit code" "$unit" "golden on GPU (ctest exit code)" "$golden" \
  "end-to-end outputs gpu == all == cpu" "$same"
for device in gpu all cpu; do printf '%-44s %.2f s\n' "end to end wall, --device $device" "${wall[$device]}"; done
tail -n 6 /tmp/gpu_bench.txt
