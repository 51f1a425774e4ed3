#!/usr/bin/env bash
# hyalign mem at genome scale: a repeat-rich synthetic genome (bench/make_genome.cpp), its index
# built and written (time, peak memory, bytes per base), then reads simulated from it (dwgsim)
# matched from the index file (queries/s). One line per step, with the numbers.
# usage: bench/mem_scale.sh BUILD_DIR [BASES (1e9)] [READS (1000000)] [THREADS (all)] [mummer options...]
set -euo pipefail
build=$(realpath "$1")
bases=${2:-1000000000}
reads=${3:-1000000}
threads=${4:-0}
shift $(( $# < 4 ? $# : 4 ))
options=("$@")
[ ${#options[@]} -eq 0 ] && options=(-mumreference -l 20 -b)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
measure() {  # measure LABEL COMMAND...: wall seconds and peak resident memory of COMMAND
  local label=$1
  shift
  /usr/bin/time -f "$label: %e s wall, %M KiB peak" "$@" 2>"$label.err" || { cat "$label.err"; exit 1; }
  tail -n 1 "$label.err"
}
echo "# $(date -u +%F) $(uname -n), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
measure genome "$build/bench/hyalign_make_genome" "$bases" 24 1 >genome.fa
measure index "$build/hyalign" mem index -t "$threads" genome.fa -o genome.hymi
grep -h 'indexed\|wrote' index.err
echo "index file: $(stat -c %s genome.hymi) bytes, $(awk -v b="$(stat -c %s genome.hymi)" -v n="$bases" 'BEGIN { printf "%.2f", b / n }') bytes per base"
dwgsim -z 9 -N "$reads" -1 150 -2 0 -e 0.01 -r 0.001 genome.fa sim >/dev/null 2>&1
zcat sim.bwa.read1.fastq.gz | awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2' >reads.fa
rm -f sim.*
measure match "$build/hyalign" mem -t "$threads" "${options[@]}" genome.hymi reads.fa -o matches.txt
grep -h 'read index\|matched' match.err
seconds=$(sed -n 's/.*matches (\([0-9.]*\) s).*/\1/p' match.err)
echo "queries/s (matching phase, ${options[*]}): $(awk -v r="$reads" -v s="$seconds" 'BEGIN { printf "%.0f", r / s }')"
