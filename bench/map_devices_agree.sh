#!/usr/bin/env bash
# Whether hyalign map writes the same records on every --device choice and thread count, for the
# CPU issue's read sets: dwgsim reads (100 and 150 bp, paired and single) from the Klebsiella
# pneumoniae HS11286 assembly, and pairs from the repeat-rich synthetic genome. Prints one md5 (the
# SAM less its @PG line) per run and a verdict per set; exits 1 when any set differs.
# usage: bench/map_devices_agree.sh BUILD_DIR [KLEBSIELLA.fna(.xz)] [PAIRS (100000)]
# env: RUNS (default "cpu:16 gpu:16 all:16 auto:16 gpu:3 all:7", DEVICE:THREADS), SEED (11).
set -euo pipefail
build=$(realpath "$1")
genome=${2:-/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz}
pairs=${3:-100000}
runs=${RUNS:-cpu:16 gpu:16 all:16 auto:16 gpu:3 all:7}
seed=${SEED:-11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $genome in
  *.xz) xz -dc "$genome" >"$work/kleb.fa" ;;
  *) cp "$genome" "$work/kleb.fa" ;;
esac
cd "$work"
"$build/bench/hyalign_make_genome" 20000000 4 7 >synthetic.fa
different=0
# set NAME GENOME LENGTH PAIRED
for set in "PE150 kleb 150 1" "PE100 kleb 100 1" "SE150 kleb 150 0" "SE100 kleb 100 0" "synthetic_PE150 synthetic 150 1"; do
  read -r name ref length paired <<<"$set"
  [ -s "$ref.hymi" ] || "$build/hyalign" map index "$ref.fa" -o "$ref.hymi" 2>/dev/null
  if [ "$paired" = 1 ]; then
    dwgsim -z "$seed" -N "$pairs" -1 "$length" -2 "$length" -e 0.005 -E 0.005 -r 0.001 -d 500 -s 50 -S 2 -o 1 \
      "$ref.fa" "$name" >/dev/null 2>&1
    reads=("$name.bwa.read1.fastq.gz" "$name.bwa.read2.fastq.gz")
  else
    dwgsim -z "$seed" -N "$pairs" -1 "$length" -2 0 -e 0.005 -r 0.001 -o 1 "$ref.fa" "$name" >/dev/null 2>&1
    reads=("$name.bwa.read1.fastq.gz")
  fi
  sums=()
  for run in $runs; do
    "$build/hyalign" map --device "${run%:*}" -t "${run#*:}" "$ref.hymi" "${reads[@]}" 2>"$name.log" |
      grep -v '^@PG' | md5sum | cut -c 1-8 >"$name.md5"
    sums+=("$run=$(cat "$name.md5")")
  done
  verdict=same
  for s in "${sums[@]}"; do [ "${s#*=}" = "${sums[0]#*=}" ] || verdict=DIFFERENT; done
  [ "$verdict" = same ] || different=1
  unit=reads
  [ "$paired" = 1 ] && unit=pairs
  echo "$name ($pairs $unit): ${sums[*]}: $verdict"
done
exit "$different"
