#!/usr/bin/env bash
# Jobs small and large of every tool on every --device choice, to show what the devices' start
# costs: a job shorter than CUDA's start should take with `auto` about what it takes on the CPU,
# a large one about what it takes on the GPUs (or less). For each job, the best of ROUNDS (3) wall
# times per device, auto / cpu and auto / gpu, and whether every device wrote the same output.
# usage: bench/device_start.sh BUILD_DIR
# Jobs named *_pipe read their queries or reads from a pipe and *_gz from gzip files, whose size
# `auto` cannot know ahead: it holds the GPUs back until the work read shows the job is large enough
# (with a file's size it leaves the GPUs out of a job too small for them; map's FASTQ is 2.3 bytes a
# letter, so its bound is loose and the GPUs start: once ready, too few batches are left to try them).
# JOBS picks jobs by name (default: all of those below); DEVICES (default "cpu gpu auto all");
# WORK (a new temporary folder) holds the inputs and outputs.
set -euo pipefail
build=$(realpath "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3}
devices=${DEVICES:-cpu gpu auto all}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
seconds() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || echo -; }
# replicate FILE N: the FASTA records of FILE N times, renamed apart.
replicate() { awk -v n="$2" '{l[NR] = $0} END {for (r = 1; r <= n; ++r) for (i = 1; i <= NR; ++i) print (l[i] ~ /^>/ ? l[i] "_r" r : l[i])}' "$1"; }

papara_data=$repo/tests/data/papara/q2_16S
queries20=$repo/tests/data/sw/queries20.fasta
declare -A job=(
  [papara_gut500x1]="papara -t $papara_data/ref.unrooted.nwk -s $papara_data/ref.phy -q gut500x1.fasta"
  [papara_gut500x20]="papara -t $papara_data/ref.unrooted.nwk -s $papara_data/ref.phy -q gut500x20.fasta"
  [search_1x20k]="search -q query1.fasta -d proteins20k.fasta"
  [search_20x2k]="search -q $queries20 -d proteins2k.fasta"
  [search_20x200k]="search -q $queries20 -d proteins200k.hdb"
  [mem_10k]="mem -maxmatch -l 20 -b genome.hymi reads10k.fa"
  [mem_1m]="mem -mumreference -l 20 -b genome.hymi reads1m.fa"
  [map_10k]="map genome.hymi reads10k.fa"
  [map_200k]="map genome.hymi reads200k.fa"
  [map_1m]="map genome.hymi reads1m.fa"
  [map_300k_fastq]="map genome.hymi reads300k.fq"
  [search_20x2k_pipe]="search -q - -d proteins2k.fasta"
  [map_200k_pipe]="map genome.hymi -"
  [map_1m_pipe]="map genome.hymi -"
  [search_20x200k_pipe]="search -q - -d proteins200k.hdb"
  [search_20x2k_db_pipe]="search -q $queries20 -d -"
  [search_20x2k_db_gz]="search -q $queries20 -d proteins2k.fasta.gz"
  [search_20x200k_db_pipe]="search -q $queries20 -d -"
  [search_20x200k_db_gz]="search -q $queries20 -d proteins200k.fasta.gz"
  [mem_10k_pipe]="mem -maxmatch -l 20 -b genome.hymi -"
  [mem_10k_gz]="mem -maxmatch -l 20 -b genome.hymi reads10k.fa.gz"
  [mem_1m_gz]="mem -mumreference -l 20 -b genome.hymi reads1m.fa.gz"
  [mem_1m_pipe]="mem -mumreference -l 20 -b genome.hymi -"
  [map_10k_pipe]="map genome.hymi -"
  [map_10k_gz]="map genome.hymi reads10k.fa.gz"
  [map_1m_gz]="map genome.hymi reads1m.fa.gz"
)
declare -A piped=([search_20x2k_pipe]=$queries20 [search_20x200k_pipe]=$queries20 [search_20x2k_db_pipe]=proteins2k.fasta [search_20x200k_db_pipe]=proteins200k.fasta [mem_10k_pipe]=reads10k.fa [mem_1m_pipe]=reads1m.fa
  [map_10k_pipe]=reads10k.fa [map_200k_pipe]=reads200k.fa [map_1m_pipe]=reads1m.fa)
order=(papara_gut500x1 papara_gut500x20 search_1x20k search_20x2k search_20x200k mem_10k mem_1m map_10k map_200k map_1m
  map_300k_fastq search_20x2k_pipe search_20x200k_pipe search_20x2k_db_pipe search_20x2k_db_gz search_20x200k_db_pipe search_20x200k_db_gz mem_10k_pipe mem_10k_gz mem_1m_pipe mem_1m_gz map_10k_pipe map_10k_gz
  map_200k_pipe map_1m_pipe map_1m_gz)
wanted=(${JOBS:-${order[@]}})

start=$EPOCHREALTIME
for n in 1 20; do [ -s gut500x$n.fasta ] || replicate "$papara_data/gut500.fasta" $n >gut500x$n.fasta; done
[ -s proteins2k.fasta ] || "$build/bench/hyalign_make_proteins" 2000 3 >proteins2k.fasta
[ -s proteins20k.fasta ] || "$build/bench/hyalign_make_proteins" 20000 5 >proteins20k.fasta
[ -s query1.fasta ] || awk '/^>/ { n++ } n == 1' "$queries20" >query1.fasta
[ -s proteins200k.hdb ] || { "$build/bench/hyalign_make_proteins" 200000 4 >proteins200k.fasta &&
  "$build/hyalign" search makedb -i proteins200k.fasta -o proteins200k.hdb 2>/dev/null; }
[ -s genome.fa ] || "$build/bench/hyalign_make_genome" 20000000 24 1 >genome.fa
[ -s genome.hymi ] || "$build/hyalign" mem index genome.fa -o genome.hymi 2>/dev/null
[ -s reads1m.fa ] || "$build/bench/hyalign_make_reads" genome.fa 1000000 150 0.01 1 >reads1m.fa
[ -s reads10k.fa ] || head -n 20000 reads1m.fa >reads10k.fa
[ -s reads200k.fa ] || head -n 400000 reads1m.fa >reads200k.fa
for f in reads10k.fa reads1m.fa proteins2k.fasta proteins200k.fasta; do [ -s $f.gz ] || gzip -1 -c $f >$f.gz; done
[ -s reads300k.fq ] || head -n 600000 reads1m.fa |
  awk '/^>/ { print "@" substr($0, 2); next } { q = $0; gsub(/./, "I", q); print; print "+"; print q }' >reads300k.fq
echo "# $(date -u +%F) $(uname -n), $(nproc) cores; inputs ready in $(seconds "$start") s; best of $rounds rounds"

printf '%-18s' job; for d in $devices; do printf ' %8s' "$d s"; done; printf ' %10s %10s  %s\n' "auto/cpu" "auto/gpu" outputs
for name in "${wanted[@]}"; do
  declare -A best=()
  for round in $(seq "$rounds"); do
    # every other round in reverse order: a device run just after another may be slower (the
    # cores' clocks), and so is not always the same one
    order_now=$devices
    [ $((round % 2)) = 0 ] && order_now=$(echo "$devices" | tr ' ' '\n' | tac | tr '\n' ' ')
    for d in $order_now; do
      t0=$EPOCHREALTIME
      # shellcheck disable=SC2086  # the job's arguments are words
      cat "${piped[$name]:-/dev/null}" | "$build/hyalign" ${job[$name]} --device "$d" -o "out_${name}_$d" 2>"log_${name}_$d" ||
        { cat "log_${name}_$d"; exit 1; }
      took=$(seconds "$t0")
      if [ -z "${best[$d]:-}" ] || awk -v a="$took" -v b="${best[$d]}" 'BEGIN { exit !(a < b) }'; then best[$d]=$took; fi
    done
  done
  same=identical
  # map's @PG line holds its command line, --device included
  for d in $devices; do cmp -s <(grep -v '^@PG' "out_${name}_cpu") <(grep -v '^@PG' "out_${name}_$d") || same="$d DIFFERENT"; done
  printf '%-18s' "$name"; for d in $devices; do printf ' %8s' "${best[$d]}"; done
  printf ' %10s %10s  %s\n' "$(ratio "${best[auto]:-}" "${best[cpu]:-}")" "$(ratio "${best[auto]:-}" "${best[gpu]:-}")" "$same"
  grep -hE 'devices ready|kernel set up|% of the cells|steps|map: .*threads, |map: the GPUs|or gpu uses' "log_${name}_auto" | sed 's/^ */    auto: /' || true
  unset best
  rm -f out_"${name}"_*
done
