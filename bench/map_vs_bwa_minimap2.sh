#!/usr/bin/env bash
# hyalign map, bwa mem and minimap2 -ax sr side by side on the same simulated reads, same thread
# count, one run: wall time, read pairs (or reads) per second, peak memory, and accuracy per MAPQ
# threshold with dwgsim_eval's definition (bench/map_eval.cpp), plus whether hyalign places at
# least as many reads correctly as bwa mem and no more wrongly at each threshold.
# usage: bench/map_vs_bwa_minimap2.sh BUILD_DIR [PAIRS (100000)] [LENGTH (150)] [GENOME]
#   GENOME: a FASTA file, or `synthetic` (a repeat-rich 20 Mbp genome from hyalign_make_genome);
#           default the Klebsiella pneumoniae HS11286 assembly of kleborate-examples.
# env: MODE=paired|single (paired), THREADS (nproc), ERROR (0.005 per base), ROUNDS (3: the
#      median wall time of the mapping runs), SEED (11).
set -euo pipefail
build=$(realpath "$1")
pairs=${2:-100000}
length=${3:-150}
genome=${4:-/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz}
mode=${MODE:-paired} threads=${THREADS:-$(nproc)} error=${ERROR:-0.005} rounds=${ROUNDS:-3} seed=${SEED:-11}
hyalign=$build/hyalign eval=$build/bench/hyalign_map_eval
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/map_reads.sh"  # and into a temporary folder
case $genome in
  synthetic) "$build/bench/hyalign_make_genome" 20000000 4 7 >ref.fa ;;
  *) genome_fasta "$genome" ref.fa ;;
esac
simulate_reads "$mode" "$length" "$pairs" "$seed" "$error" ref.fa sim
reads=(sim.bwa.read*.fastq.gz) unit=$([ "$mode" = single ] && echo reads || echo pairs)
# timed NAME COMMAND...: runs it (output NAME.sam, log NAME.log), prints "wall_s peak_kb".
timed() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M' -o "$name.time" "$@" >"$name.sam" 2>"$name.log"
  cat "$name.time"
}
echo "# $(date -u +%F) $(uname -n), $(nproc) cores, commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# $pairs $unit of $length bp ($mode, dwgsim -e $error -r 0.001), genome $(basename "$genome") ($(grep -c '>' ref.fa) sequences, $(grep -v '>' ref.fa | tr -d '\n' | wc -c) bp), $threads threads, median of $rounds"
printf '%-10s %12s %12s\n' index "wall s" "peak MiB"
for tool in hyalign bwa minimap2; do
  case $tool in
    hyalign) set -- "$hyalign" map index -t "$threads" ref.fa -o ref.hymi ;;
    bwa) set -- bwa index ref.fa ;;
    minimap2) set -- minimap2 -x sr -t "$threads" -d ref.mmi ref.fa ;;
  esac
  read -r s kb < <(timed "index_$tool" "$@")
  printf '%-10s %12s %12.0f\n' "$tool" "$s" "$((kb / 1024))"
done
echo
printf '%-10s %12s %14s %12s %10s\n' map "wall s" "$unit/s" "peak MiB" quickcheck
declare -A wall
for tool in hyalign bwa minimap2; do
  case $tool in
    hyalign) set -- "$hyalign" map -t "$threads" ref.hymi "${reads[@]}" ;;
    bwa) set -- bwa mem -t "$threads" ref.fa "${reads[@]}" ;;
    minimap2) set -- minimap2 -ax sr -t "$threads" ref.mmi "${reads[@]}" ;;
  esac
  walls=() peak=0
  for round in $(seq "$rounds"); do
    read -r s kb < <(timed "$tool" "$@")
    walls+=("$s")
    peak=$((kb > peak ? kb : peak))
  done
  wall[$tool]=$(printf '%s\n' "${walls[@]}" | median)
  check=$(samtools quickcheck "$tool.sam" && echo ok || echo FAILED)
  printf '%-10s %12s %14.0f %12.0f %10s\n' "$tool" "${wall[$tool]}" "$(awk -v n="$pairs" -v s="${wall[$tool]}" 'BEGIN { print n / s }')" \
    "$((peak / 1024))" "$check"
  "$eval" --tsv "$tool.sam" >"$tool.eval"
done
awk -v h="${wall[hyalign]}" -v b="${wall[bwa]}" -v m="${wall[minimap2]}" 'BEGIN {
  printf "throughput: hyalign / minimap2 %.2fx, hyalign / bwa mem %.2fx\n\n", m / h, b / h }'
echo "accuracy (dwgsim_eval's definition, primary records; wrong includes random reads placed):"
printf '%-6s %24s %24s %24s   %s\n' MAPQ "hyalign correct/wrong" "bwa correct/wrong" "minimap2 correct/wrong" "hyalign vs bwa"
paste hyalign.eval bwa.eval minimap2.eval | awk -F '\t' 'NR > 1 {
  verdict = ($2 >= $8 && $3 <= $9) ? "ok" : "BEHIND"
  printf "%-6s %24s %24s %24s   %s\n", ">=" $1, $2 "/" $3, $8 "/" $9, $14 "/" $15, verdict }'
