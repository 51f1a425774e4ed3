#!/usr/bin/env bash
# One command for the GPU machine: build with CUDA, run the GPU tests, the golden tests on the GPU,
# the GPU benchmarks and end-to-end runs; prints a short table last.
# usage: scripts/gpu-check.sh [BUILD_DIR]   (run from anywhere; needs cmake, g++, nvcc, zlib, fmt, CLI11, gtest)
# SECTIONS (default "papara papara-e2e search") picks the parts to run (papara: GPU tests, goldens
# and benchmarks; papara-e2e: hyalign papara end to end on every device; search; mem: the mem GPU
# tests and bench/mem_gpu.sh; scale: papara (gut500 x SCALE_REPLICATE, 80) and search (SCALE_QUERIES,
# 1000, x the Swiss-Prot-shaped database) on one GPU, on every GPU in one process (--device gpu
# and auto) and under mpirun, one rank a GPU, SCALE_ROUNDS (2) rounds; map: the map GPU tests and bench/map_gpu.sh with MAP_BASES, MAP_PAIRS,
# MAP_DEVICES and MAP_GENOMES; start: small and large jobs of papara, search and mem on every
# device (bench/device_start.sh); search-sprot: search on a Swiss-Prot-shaped database, SPROT_COUNT
# sequences (570000), every device, SPROT_ROUNDS rounds (3), and with SPROT_MANY=N, N such queries
# on the GPU; search: SEARCH_ROUNDS (3) rounds of gpu and auto on a pseudo-database). REPLICATE (20),
# PROTEIN_COPIES (34000: 1e12 cells) and ROUNDS (3) size the end-to-end runs. parasail (the test oracle),
# the xxHash header, ISA-L and htslib are taken from .deps/*.deb when present, since the GPU machine has
# no package registry. To fill it, run `(mkdir -p .deps && cd .deps && apt-get download libparasail-dev
# libparasail8 libxxhash-dev libdivsufsort-dev libdivsufsort3 libisal-dev libisal2 libhts-dev libhts3
# libhtscodecs2 libdeflate-dev libdeflate0 liblzma-dev libncurses6 libtinfo6 minimap2 dwgsim samtools time)` where apt works, and
# carry .deps; the programs among them are put first on PATH. For the scale section's mpirun add Open
# MPI: openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libevent-core-2.1-7
# libevent-pthreads-2.1-7 libfabric1 libhwloc15 libibverbs1 libpmix2 libucx0 libpsm2-2
# libpsm-infinipath1 librdmacm1 libnl-3-200 libnl-route-3-200 libnuma1 libgfortran5 libmunge2
# libxnvctrl0 libpciaccess0 ocl-icd-libopencl1 libltdl7 (8 MB).
set -u
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
jobs=$(nproc)
sections=${SECTIONS:-papara papara-e2e search}
out=${OUT:-/tmp}
log() { printf '\n== %s\n' "$*"; }
want() { [[ " $sections " == *" $1 "* ]]; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f s", b - a }'; }  # wall time since $EPOCHREALTIME $1
# replicate FILE N: the FASTA records of FILE N times, renamed apart.
replicate() { awk -v n="$2" '{l[NR] = $0} END {for (r = 1; r <= n; ++r) for (i = 1; i <= NR; ++i) print (l[i] ~ /^>/ ? l[i] "_r" r : l[i])}' "$1"; }
# sprot_database: /tmp/sprot.fasta and its makedb database /tmp/sprot.hdb, SPROT_COUNT (570000)
# sequences shaped like Swiss-Prot's, made once per machine.
sprot_database() {
  [ -s /tmp/sprot.hdb ] && return
  "$build/bench/hyalign_make_proteins" "${SPROT_COUNT:-570000}" 1 >/tmp/sprot.fasta
  "$build/hyalign" search makedb -i /tmp/sprot.fasta -o /tmp/sprot.hdb 2>&1 | tail -n 1
}

log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
lscpu | grep -m1 'Model name'
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)'), $(nproc) cores"

prefix=()
if compgen -G ".deps/*.deb" >/dev/null; then
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/deps/usr)
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:/tmp/deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PATH=/tmp/deps/usr/bin:$PATH
  export PKG_CONFIG_SYSROOT_DIR=/tmp/deps PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig
fi
# Open MPI from .deps (openmpi-bin libopenmpi3 libopenmpi-dev openmpi-common and their libraries),
# moved from /usr: OPAL_PREFIX relocates Open MPI, the component path PMIx's plugins.
mpirun=$(command -v mpirun || true)
if [ -x /tmp/deps/usr/bin/mpirun.openmpi ]; then
  export OPAL_PREFIX=/tmp/deps/usr PMIX_MCA_mca_base_component_path=/tmp/deps/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
  export PMIX_MCA_pcompress_base_silence_warning=1
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH
  mpirun=/tmp/deps/usr/bin/mpirun.openmpi
  prefix+=(-DMPI_CXX_COMPILER=/tmp/deps/usr/bin/mpicxx.openmpi -DMPIEXEC_EXECUTABLE="$mpirun")
fi

log "build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON "${prefix[@]}" >/dev/null || exit 1
targets=(hyalign hyalign_tests hyalign_make_genome hyalign_make_reads)
want papara && targets+=(hyalign_bench_papara)
want search && targets+=(hyalign_bench_sw_gpu)
want search-sprot && targets+=(hyalign_bench_sw_gpu hyalign_make_proteins)
want scale && targets+=(hyalign_make_proteins)
want map && targets+=(hyalign_map_eval)
want start && targets+=(hyalign_make_proteins)
cmake --build "$build" -j"$jobs" --target "${targets[@]}" 2>&1 |
  grep -E 'error|warning: .*(papara|sw)' ; [ -x "$build/hyalign" ] || { echo "build failed"; exit 1; }
cuobjdump -sass "$build/src/CMakeFiles/hyalign_kernels.dir/kernels/cuda/sw_cuda.cu.o" >"$out/sw_cuda.sass" 2>&1

declare -A result
if want search; then
  log "Smith-Waterman: every kernel against parasail (GPU included)"
  "$build/tests/hyalign_tests" --gtest_filter='*SwKernelTest*:*SearchPipeline*' 2>&1 | grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests? ran|Failure'
  result[sw_tests]=${PIPESTATUS[0]}
  log "Smith-Waterman GPU benchmark: 20 queries x 1,000,000 copies of a length-256 protein"
  "$build/bench/hyalign_bench_sw_gpu" --write-fasta /tmp/pseudo256.fasta | tee /tmp/sw_bench.txt
  log "Smith-Waterman GPU benchmark: mixed lengths"
  "$build/bench/hyalign_bench_sw_gpu" --mixed | tee -a /tmp/sw_bench.txt
  log "end to end: hyalign search, 20 queries x the pseudo-database, top 10 with tracebacks"
  q=tests/data/sw/queries20.fasta
  "$build/hyalign" search makedb -i /tmp/pseudo256.fasta -o /tmp/pseudo256.hdb 2>&1 | tail -n 1
  # gpu and auto in turn, SEARCH_ROUNDS rounds (3): auto must not lose to the GPU alone
  for round in $(seq "${SEARCH_ROUNDS:-3}"); do
    for device in gpu auto $([[ $round == 1 ]] && echo all) $([[ $round == 1 && -n "${CPU_E2E:-}" ]] && echo cpu); do
      start=$EPOCHREALTIME
      "$build/hyalign" search --device "$device" -q $q -d /tmp/pseudo256.hdb -o "/tmp/search_$device.tsv" 2>"/tmp/search_$device.log"
      result[search_$device]="${result[search_$device]:+${result[search_$device]} }$(since "$start")"
      tail -n 4 "/tmp/search_$device.log"
    done
  done
  cmp -s /tmp/search_gpu.tsv /tmp/search_all.tsv && result[search_same]=yes || result[search_same]=NO
  log "end to end: the same database in 4 chunks of 64 MiB of residues (the next chunk is read while one is scored)"
  "$build/hyalign" search makedb -i /tmp/pseudo256.fasta -o /tmp/pseudo256_4.hdb --chunk-mb 64 2>&1 | tail -n 1
  start=$EPOCHREALTIME
  "$build/hyalign" search --device gpu -q $q -d /tmp/pseudo256_4.hdb -o /tmp/search_gpu4.tsv 2>/tmp/search_gpu4.log
  result[search_gpu_4_chunks]=$(since "$start")
  tail -n 2 /tmp/search_gpu4.log
  cmp -s /tmp/search_gpu.tsv /tmp/search_gpu4.tsv && result[search_same_4_chunks]=yes || result[search_same_4_chunks]=NO
fi

if want search-sprot; then
  log "search: 20 queries x a Swiss-Prot-shaped database (hyalign_make_proteins ${SPROT_COUNT:-570000}), top 10 with tracebacks"
  sprot_database
  "$build/bench/hyalign_bench_sw_gpu" --db /tmp/sprot.fasta --check-every 997 | tee -a /tmp/sw_bench.txt
  q=tests/data/sw/queries20.fasta
  for round in $(seq "${SPROT_ROUNDS:-3}"); do
    for device in gpu auto $([[ $round == 1 ]] && echo cpu); do
      start=$EPOCHREALTIME
      "$build/hyalign" search --device "$device" -q $q -d /tmp/sprot.hdb -o "/tmp/sprot_$device.tsv" 2>"/tmp/sprot_$device.log"
      result[sprot_$device]="${result[sprot_$device]:+${result[sprot_$device]} }$(since "$start")"
      grep -E 'searched|GPU|CPU|steps' "/tmp/sprot_$device.log"
    done
  done
  cmp -s /tmp/sprot_gpu.tsv /tmp/sprot_cpu.tsv && cmp -s /tmp/sprot_auto.tsv /tmp/sprot_cpu.tsv &&
    result[sprot_same]=yes || result[sprot_same]=NO
  if [ -n "${SPROT_MANY:-}" ]; then
    log "search: a proteome-style run, $SPROT_MANY Swiss-Prot-shaped queries x the same database, top 1"
    "$build/bench/hyalign_make_proteins" "$SPROT_MANY" 2 >/tmp/many.fasta
    start=$EPOCHREALTIME
    "$build/hyalign" search --device gpu -k 1 -q /tmp/many.fasta -d /tmp/sprot.hdb -o /tmp/many.tsv 2>/tmp/many.log
    result[sprot_many_gpu]=$(since "$start")
    grep -E 'searched|GPU|steps' /tmp/many.log
  fi
fi

if want papara; then
  log "PaPaRa GPU unit tests (GPU == scalar, hybrid scheduler)"
  "$build/tests/hyalign_tests" --gtest_filter='PaparaGpu*:HybridScheduler*:PaparaGpuSupport*:Scheduler*' 2>&1 | tail -n 15
  result[papara_unit]=${PIPESTATUS[0]}
  log "golden tests on the GPU"
  (cd "$build" && ctest -R 'cli_golden_device_(gpu|all)|cli_search' --output-on-failure >/tmp/golden_gpu.txt 2>&1)
  result[golden]=$?
  grep -E 'FAIL|golden:|tests passed' /tmp/golden_gpu.txt | head -n 20
  log "PaPaRa GPU benchmark (short reads, long reads, protein)"
  "$build/bench/hyalign_bench_papara" --gpu --replicate "${REPLICATE:-20}" | tee /tmp/gpu_bench.txt
fi

if want papara-e2e; then
  data=tests/data/papara/q2_16S
  pk=tests/data/papara/protein_Pkinase
  replicate "$data/gut500.fasta" "${REPLICATE:-20}" >/tmp/gut_reads.fasta
  replicate "$data/long200.fasta" "${REPLICATE:-20}" >/tmp/long_reads.fasta
  replicate "$pk/query.fasta" "${PROTEIN_COPIES:-34000}" >/tmp/protein_reads.fasta
  # e2e NAME READS PAPARA_ARGS...: hyalign papara on every device; wall times and whether outputs agree.
  e2e() {
    local name=$1 reads=$2
    shift 2
    log "end to end: hyalign papara $name ($(grep -c '>' "$reads") reads)"
    # gpu and auto alternate over ROUNDS rounds (short runs vary by about 10% on a lent machine);
    # the CPU alone runs once.
    local round device
    for round in $(seq "${ROUNDS:-3}"); do
      for device in gpu auto $([[ $round == 1 ]] && echo cpu); do
        local start=$EPOCHREALTIME
        "$build/hyalign" papara --device "$device" -j "$jobs" "$@" -q "$reads" -o "/tmp/e2e_${name}_$device.phy" \
          2>"/tmp/e2e_${name}_$device.log"
        result[${name}_$device]="${result[${name}_$device]:+${result[${name}_$device]} }$(since "$start")"
        grep -E 'read|scored|aligned|wrote|%' "/tmp/e2e_${name}_$device.log"
      done
    done
    cmp -s "/tmp/e2e_${name}_gpu.phy" "/tmp/e2e_${name}_cpu.phy" && cmp -s "/tmp/e2e_${name}_auto.phy" "/tmp/e2e_${name}_cpu.phy" &&
      result[${name}_same]=yes || result[${name}_same]=NO
  }
  e2e gut500x${REPLICATE:-20} /tmp/gut_reads.fasta -t "$data/ref.unrooted.nwk" -s "$data/ref.phy"
  e2e long200x${REPLICATE:-20} /tmp/long_reads.fasta -t "$data/ref.unrooted.nwk" -s "$data/ref.phy"
  e2e pkinase_x${PROTEIN_COPIES:-34000} /tmp/protein_reads.fasta -a -t "$pk/ref.tre" -s "$pk/ref.phy"
fi

if want mem; then
  log "mem GPU unit tests (GPU == CPU == the definition)"
  "$build/tests/hyalign_tests" --gtest_filter='Mem*' 2>&1 | grep -E '^\[  (PASSED|FAILED|SKIPPED|     OK) |tests? ran|Failure|Expected|Which'
  result[mem_unit]=${PIPESTATUS[0]}
  log "mem end to end on every device (MEM_BASES, MEM_READS, MEM_ROUNDS)"
  WORK=/tmp/memgpu bench/mem_gpu.sh "$build" "${MEM_BASES:-100000000}" "${MEM_READS:-10000000}" "${MEM_ROUNDS:-1}" |
    tee "$out/mem_gpu.txt"
  grep -q DIFFERENT "$out/mem_gpu.txt" && result[mem_same]=NO || result[mem_same]=yes
fi

if want start; then
  log "the devices' start: small and large jobs of papara, search and mem on every device (bench/device_start.sh)"
  "$build/tests/hyalign_tests" --gtest_filter='StartingDevices*:Scheduler*:Hybrid*:TileQueue*:*SwKernelTest*:*SearchPipeline*:PaparaGpu*:Mem*' 2>&1 |
    grep -E '^\[  (PASSED|FAILED) |Failure'
  result[start_unit]=${PIPESTATUS[0]}
  (cd "$build" && ctest -R 'cli_golden_device_(gpu|all)|cli_search' --output-on-failure >"$out/start_golden.txt" 2>&1)
  result[start_golden]=$?
  grep -E 'tests passed|FAIL' "$out/start_golden.txt"
  WORK=/tmp/device_start bench/device_start.sh "$build" | tee "$out/device_start.txt"
  grep -q DIFFERENT "$out/device_start.txt" && result[start_same]=NO || result[start_same]=yes
fi

if want map; then
  log "map GPU unit tests (GPU seeds == CPU seeds, GPU records == CPU records, fallbacks)"
  "$build/tests/hyalign_tests" --gtest_filter='SeedGpu*:MapRun*:MapSteps*:ExtendGpu*:ExtendFallback*' 2>&1 |
    grep -E '^\[  (PASSED|FAILED|SKIPPED|     OK) |tests? ran|Failure|Expected|Which'
  result[map_unit]=${PIPESTATUS[0]}
  log "map: the same records on every device and thread count, for each read set of the CPU tests"
  kleb=/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz
  [ -e "$kleb" ] || kleb=.deps/Klebs_HS11286.fna.xz
  bench/map_devices_agree.sh "$build" "$kleb" | tee "$out/map_agree.txt"
  result[map_agree]=${PIPESTATUS[0]}
  log "map end to end on every device against minimap2 (MAP_BASES, MAP_PAIRS, MAP_DEVICES, MAP_GENOMES)"
  for genome in ${MAP_GENOMES-synthetic}; do  # synthetic, or FASTA files
    [ "$genome" = synthetic ] && genome=""
    WORK="$build/mapgpu_$(basename "${genome:-synthetic}")" GENOME=$(realpath -q "$genome") \
      DEVICES="${MAP_DEVICES-cpu gpu all}" bench/map_gpu.sh "$build" "${MAP_BASES:-100000000}" "${MAP_PAIRS:-10000000}"
  done | tee "$out/map_gpu.txt"
  if [ -s "$out/map_gpu.txt" ]; then
    grep -q 'records of .*identical' "$out/map_gpu.txt" && ! grep -q DIFFERENT "$out/map_gpu.txt" && result[map_same]=yes ||
      result[map_same]=NO
  fi
fi

if want scale; then
  # nvidia-smi lists every GPU; CUDA_VISIBLE_DEVICES, where set, names the ones this run may use.
  visible=$(nvidia-smi --list-gpus | wc -l)
  [ -n "${CUDA_VISIBLE_DEVICES:-}" ] && visible=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
  gpus=${SCALE_GPUS:-$visible}
  log "scale-out over $gpus GPUs: one GPU, one process with every GPU, mpirun -np $gpus (SCALE_ROUNDS rounds)"
  data=tests/data/papara/q2_16S
  replicate "$data/gut500.fasta" "${SCALE_REPLICATE:-80}" >/tmp/scale_reads.fasta
  sprot_database
  "$build/bench/hyalign_make_proteins" "${SCALE_QUERIES:-1000}" 2 >/tmp/scale_queries.fasta
  papara_args=(papara -t "$data/ref.unrooted.nwk" -s "$data/ref.phy" -q /tmp/scale_reads.fasta)
  search_args=(search -q /tmp/scale_queries.fasta -d /tmp/sprot.hdb)
  declare -A threads_option=([papara]=-j [search]=-t)
  device=${SCALE_DEVICE:-gpu}
  # scaled TOOL HOW: one run (one: one GPU; one-auto: one GPU and the CPU as --device auto plans
  # them; gpus: every GPU; auto: every GPU and the CPU; mpi: a rank a GPU; mpi-ob1: the same with
  # Open MPI's shared-memory PML, whose start skips UCX's probing), its wall time, CPU time / wall (the host's busy cores) and its log
  scaled() {
    local tool=$1 how=$2 out=/tmp/scale_${1}_$2
    local -n tool_args=${tool}_args
    local run=("$build/hyalign" "${tool_args[@]}" --device "$device" -o "$out.out")
    case $how in
      one) run=(env CUDA_VISIBLE_DEVICES=0 "${run[@]}") ;;
      one-auto) run=(env CUDA_VISIBLE_DEVICES=0 "$build/hyalign" "${tool_args[@]}" -o "$out.out") ;;
      auto) run=("$build/hyalign" "${tool_args[@]}" -o "$out.out") ;;
      mpi) run=("$mpirun" --allow-run-as-root --bind-to none -np "$gpus" -x LD_LIBRARY_PATH "${run[@]}" "${threads_option[$tool]}" $((jobs / gpus))) ;;
      mpi-ob1) run=("$mpirun" --allow-run-as-root --bind-to none --mca pml ob1 -np "$gpus" -x LD_LIBRARY_PATH "${run[@]}" "${threads_option[$tool]}" $((jobs / gpus))) ;;
    esac
    /tmp/deps/usr/bin/time -f '%e %U %S' -o "$out.time" "${run[@]}" 2>"$out.log" || echo "$tool $how FAILED"
    read -r wall user sys < <(tail -n 1 "$out.time")
    result[scale_${tool}_$how]="${result[scale_${tool}_$how]:+${result[scale_${tool}_$how]} }$wall s"
    awk -v t="$tool $how" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%s: %s s wall, %.1f cores busy\n", t, w, (u + s) / w }'
    sed 's/^/    /' "$out.log"
  }
  hows="one one-auto gpus auto $([ -n "$mpirun" ] && echo mpi mpi-ob1)"
  for round in $(seq "${SCALE_ROUNDS:-2}"); do
    for tool in papara search; do for how in $hows; do scaled $tool $how; done; done
  done
  for tool in papara search; do for how in $hows; do
    cmp -s "/tmp/scale_${tool}_one.out" "/tmp/scale_${tool}_$how.out" && result[scale_${tool}_${how}_same]=yes ||
      result[scale_${tool}_${how}_same]=NO
  done; done
fi

log "summary"
for key in $(printf '%s\n' "${!result[@]}" | sort); do printf '%-24s %s\n' "$key" "${result[$key]}"; done
want search && grep -E 'GCUPS|checked' /tmp/sw_bench.txt
want papara && grep -E 'GPU benchmark|alone|hybrid' /tmp/gpu_bench.txt
exit 0
