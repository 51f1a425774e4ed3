#!/usr/bin/env bash
# hyalign map on each --device choice against minimap2 -ax sr, same machine, same reads, one run:
# a repeat-rich synthetic genome (bench/make_genome.cpp), read pairs simulated by dwgsim (one
# process per core, seeds apart), hyalign end to end to BAM, minimap2 to SAM (its fastest output).
# Prints wall time, pairs/s, peak memory, the GPU's kernel share, where hyalign's time went, whether
# every device wrote the same records, and accuracy (dwgsim_eval's definition, bench/map_eval.cpp).
# usage: bench/map_gpu.sh BUILD_DIR [BASES (1e8)] [PAIRS (1e7)]
# env: GENOME (a FASTA file, plain or .xz, instead of the synthetic genome; BASES is then unused),
#      DEVICES ("cpu gpu all"), THREADS (nproc), WORK (inputs are kept there and reused; default a
#      new temporary folder), EVAL (1; 0 skips the accuracy counts), MINIMAP2: 1 (default) runs it
#      first; 0 skips it; `start` starts it detached (setsid) and exits, for runs longer than one
#      command may take; `wait` waits for that run to end and takes its time (nothing else runs
#      meanwhile: a later call of the same session, on the same machine).
set -euo pipefail
build=$(realpath "$1")
bases=${2:-100000000}
pairs=${3:-10000000}
threads=${THREADS:-$(nproc)} devices=${DEVICES:-cpu gpu all}
here=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
seconds() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
echo "# $(date -u +%F) $(uname -n), $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"

start=$EPOCHREALTIME
if [ ! -s genome.fa ]; then
  case ${GENOME:-} in
    "") "$build/bench/hyalign_make_genome" "$bases" 24 7 >genome.fa ;;
    *.xz) xz -dc "$GENOME" >genome.fa ;;
    *) cp "$GENOME" genome.fa ;;
  esac
fi
[ -s genome.hymi ] || "$build/hyalign" map index -t "$threads" genome.fa -o genome.hymi 2>index.log
if [ "${MINIMAP2:-1}" != 0 ] && [ ! -s genome.mmi ]; then minimap2 -x sr -t "$threads" -d genome.mmi genome.fa 2>/dev/null; fi
if [ ! -s reads_1.fq.gz ]; then
  for k in $(seq 0 $((threads - 1))); do
    n=$((pairs / threads + (k < pairs % threads ? 1 : 0)))
    dwgsim -z $((1000 + k)) -N "$n" -1 150 -2 150 -e 0.005 -E 0.005 -r 0.001 -d 500 -s 50 -S 2 -o 1 genome.fa "part$k" \
      >/dev/null 2>&1 &
  done
  wait
  for end in 1 2; do
    for k in $(seq 0 $((threads - 1))); do cat "part$k.bwa.read$end.fastq.gz"; done >"reads_$end.fq.gz"
  done
  rm -f part*
fi
echo "inputs ready in $(seconds "$start") s: $(grep -v '>' genome.fa | tr -d '\n' | wc -c) bp in $(grep -c '>' genome.fa) sequences, $pairs pairs of 150 bp, $threads threads"

# timed NAME COMMAND...: wall seconds and peak MiB of COMMAND (stdout to NAME.out, stderr to NAME.log).
timed() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M %U %S' -o "$name.time" "$@" >"$name.out" 2>"$name.log" || { cat "$name.log"; exit 1; }
  read -r wall kb user sys <"$name.time"
  printf '%-22s %8.1f s %12.0f pairs/s %8.0f MiB peak %9.1f s CPU\n' "$name" "$wall" "$(awk -v n="$pairs" -v s="$wall" 'BEGIN { print n / s }')" \
    "$((kb / 1024))" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')"
}
declare -A wall
minimap2_run=(minimap2 -ax sr -t "$threads" genome.mmi reads_1.fq.gz reads_2.fq.gz)
case ${MINIMAP2:-1} in
  1)
    timed minimap2 "${minimap2_run[@]}"
    mv minimap2.out minimap2.sam ;;
  start)
    rm -f minimap2.time minimap2.done
    setsid nohup bash -c "$(declare -f timed); pairs=$pairs; timed minimap2 ${minimap2_run[*]} >minimap2.report; touch minimap2.done" \
      >/dev/null 2>&1 </dev/null &
    echo "minimap2 started in the background in $work"
    exit 0 ;;
  wait)
    while [ ! -e minimap2.done ]; do sleep 2; done
    mv -f minimap2.out minimap2.sam 2>/dev/null || true
    echo "$(cat minimap2.report) (run alone before these, same machine)" ;;
esac
[ -s minimap2.time ] && [ "${MINIMAP2:-1}" != 0 ] && wall[minimap2]=$(cut -d ' ' -f 1 minimap2.time)
for device in $devices; do
  rm -f "hyalign_$device.bam"
  timed "hyalign_$device" "$build/hyalign" map --device "$device" -t "$threads" genome.hymi reads_1.fq.gz reads_2.fq.gz \
    -o "hyalign_$device.bam"
  wall[$device]=$(cut -d ' ' -f 1 "hyalign_$device.time")
  grep -E 'wall seconds|kernels|notice|threads, |GPUs mapped' "hyalign_$device.log" | sed 's/^.*map: /    /'
done

first=""
for device in $devices; do
  samtools quickcheck "hyalign_$device.bam" || echo "hyalign_$device.bam FAILS samtools quickcheck"
  samtools view "hyalign_$device.bam" | md5sum | cut -c 1-12 >"hyalign_$device.md5"
  if [ -z "$first" ]; then first=$device; continue; fi
  cmp -s "hyalign_$first.md5" "hyalign_$device.md5" && same=identical || same=DIFFERENT
  echo "records of --device $device: $same to --device $first's ($(cat "hyalign_$device.md5"))"
done
if [ -n "${wall[minimap2]:-}" ]; then
  for device in $devices; do
    echo "minimap2 / hyalign --device $device: $(awk -v a="${wall[minimap2]}" -v b="${wall[$device]}" 'BEGIN { printf "%.2f", a / b }')x"
  done
fi
if [ "${EVAL:-1}" = 1 ]; then
  echo "accuracy, correct/wrong at MAPQ >= 0, 1, 10, 20, 30, 60 (wrong includes dwgsim's random reads placed):"
  for tool in "hyalign_$first.bam" ${wall[minimap2]:+minimap2.sam}; do
    printf '  %-18s %s\n' "$tool" "$("$build/bench/hyalign_map_eval" --tsv "$tool" | awk -F '\t' 'NR > 1 { printf "%s/%s ", $2, $3 }')"
  done
fi
