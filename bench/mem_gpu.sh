#!/usr/bin/env bash
# hyalign mem on every --device choice, end to end (index file loaded, output written): a
# repeat-rich synthetic genome (bench/make_genome.cpp) and reads sampled from it
# (bench/make_reads.cpp), for each option set one run per device, timed, outputs compared.
# usage: bench/mem_gpu.sh BUILD_DIR [BASES (1e8)] [READS (1e7)] [ROUNDS (1)]
# DEVICES (default "cpu gpu auto"; gpu@MIB adds --gpu-memory MIB: the suffix array in pieces) and
# OPTION_SETS pick the runs: sets split by '|', each
# "READS:OPTIONS" (default "READS:-mumreference -l 20 -b|READS/10:-maxmatch -l 20 -b": -maxmatch
# prints every copy of a repeat, hundreds of lines per read here), or "COUNTxLENGTH:OPTIONS" for
# COUNT queries of LENGTH letters sampled from the genome (such as "400x100000:-maxmatch -l 20 -b",
# 19 GB of output on the default genome). WORK (a new temporary folder) holds the files; outputs
# are removed once compared.
set -euo pipefail
build=$(realpath "$1")
bases=${2:-100000000}
reads=${3:-10000000}
rounds=${4:-1}
devices=${DEVICES:-cpu gpu auto}
IFS='|' read -r -a option_sets <<<"${OPTION_SETS:-$reads:-mumreference -l 20 -b|$((reads / 10)):-maxmatch -l 20 -b}"
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
seconds() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
echo "# $(date -u +%F) $(uname -n), $(nproc) cores; $bases bases, $reads reads of 150 bp"
start=$EPOCHREALTIME
[ -s genome.fa ] || "$build/bench/hyalign_make_genome" "$bases" 24 1 >genome.fa
[ -s genome.hymi ] || "$build/hyalign" mem index genome.fa -o genome.hymi 2>index.err
[ -s reads.fa ] || "$build/bench/hyalign_make_reads" genome.fa "$reads" 150 0.01 1 >reads.fa
echo "inputs ready in $(seconds "$start") s: reads.fa $(stat -c %s reads.fa) bytes, genome.hymi $(stat -c %s genome.hymi) bytes"
for set in "${option_sets[@]}"; do
  count=${set%%:*} options=${set#*:}
  queries=reads.fa
  if [[ $count == *x* ]]; then
    queries=queries_$count.fa
    [ -s "$queries" ] || "$build/bench/hyalign_make_reads" genome.fa "${count%x*}" "${count#*x}" 0.01 3 >"$queries"
  elif [ "$count" -lt "$reads" ]; then
    queries=reads_$count.fa
    head -n $((2 * count)) reads.fa >"$queries"
  fi
  tag=$(echo "$options" | tr -d ' -')
  declare -A best=()
  for round in $(seq "$rounds"); do
    for device in $devices; do
      rm -f "out_${tag}_$device.txt"  # replacing a file of gigabytes would time its deletion too
      start=$EPOCHREALTIME
      device_options="--device ${device%@*}"
      [[ $device == *@* ]] && device_options+=" --gpu-memory ${device#*@}"
      "$build/hyalign" mem $device_options $options genome.hymi "$queries" -o "out_${tag}_$device.txt" 2>"run_${tag}_$device.err" ||
        { cat "run_${tag}_$device.err"; exit 1; }
      took=$(seconds "$start")
      echo "$count queries, $options --device $device (round $round): $took s end to end; $(grep -h 'matched' "run_${tag}_$device.err" | sed 's/^.*matched/matched/')"
      grep -hE '%|calling thread' "run_${tag}_$device.err" | sed 's/^[^ ]* [^ ]* */    /' || true
      if [ -z "${best[$device]:-}" ] || awk -v a="$took" -v b="${best[$device]}" 'BEGIN { exit !(a < b) }'; then best[$device]=$took; fi
    done
  done
  first=""
  for device in $devices; do
    if [ -z "$first" ]; then first=$device; continue; fi
    cmp -s "out_${tag}_$first.txt" "out_${tag}_$device.txt" && same=identical || same=DIFFERENT
    echo "$options: $device output $same to $first's ($(stat -c %s "out_${tag}_$device.txt") bytes)"
  done
  if [ -n "${best[cpu]:-}" ]; then
    for device in $devices; do
      [ "$device" = cpu ] && continue
      echo "$options: cpu / $device = $(awk -v a="${best[cpu]}" -v b="${best[$device]}" 'BEGIN { printf "%.2f", a / b }')x (best of $rounds)"
    done
  fi
  unset best
  rm -f out_"$tag"_*.txt
done
