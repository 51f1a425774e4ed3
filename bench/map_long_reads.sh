#!/usr/bin/env bash
# hyalign map, bwa mem and minimap2 -ax sr on single reads of 1 to 10 kb (the long end of what
# short-read mappers are given), same reads and thread count, one run: wall time (median of ROUNDS),
# reads per second, ratios, peak memory, and the share of primary records within 50 letters of
# where the read came from (hyalign_make_reads names it: sequence_position_strand_number).
# dwgsim is not used: its FASTQ records of reads this long are broken.
# usage: bench/map_long_reads.sh BUILD_DIR [LENGTH...]   (1000 2000 5000 10000)
# env: LETTERS (4000000 read letters a length), ERROR (0.01 per base), THREADS (nproc), ROUNDS (3),
#      GENOME (FASTA[.xz]; default the Klebsiella pneumoniae HS11286 assembly of kleborate-examples),
#      BASELINE (another hyalign binary, e.g. an earlier commit's, timed in the same run as `baseline`)
set -euo pipefail
build=$(realpath "$1")
shift
[ $# -gt 0 ] || set -- 1000 2000 5000 10000
letters=${LETTERS:-4000000} error=${ERROR:-0.01} threads=${THREADS:-$(nproc)} rounds=${ROUNDS:-3}
genome=${GENOME:-/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/map_reads.sh"  # and into a temporary folder
index_genome "$genome" "$build/hyalign" "$threads"
minimap2 -x sr -t "$threads" -d ref.mmi ref.fa 2>/dev/null

# placed SAM: the share of primary records within 50 letters of the read's origin, in percent.
placed() {
  samtools view -F 0x900 "$1" | awk -F '\t' '{ n++; split($1, f, "_"); k = length(f)
    origin = f[k - 2]; sequence = substr($1, 1, length($1) - length(f[k - 2] f[k - 1] f[k]) - 3)
    if (!and($2, 4) && $3 == sequence && $4 - origin <= 50 && origin - $4 <= 50) ok++ }
    END { printf "%.2f", n ? 100 * ok / n : 0 }'
}
echo "# $(date -u +%F) $(uname -n), $(nproc) cores, commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# genome $(basename "$genome"), $letters read letters a length, $error errors per base, $threads threads, median of $rounds"
printf '%7s %-9s %8s %9s %10s %10s %9s %9s\n' length tool "wall s" reads/s "hy x this" "peak MiB" "placed %" "reads"
for length in "$@"; do
  count=$((letters / length))
  "$build/bench/hyalign_make_reads" ref.fa "$count" "$length" "$error" 3 >reads.fa
  declare -A wall=()
  for tool in hyalign ${BASELINE:+baseline} bwa minimap2; do
    case $tool in
      hyalign) set -- "$build/hyalign" map -t "$threads" ref.hymi reads.fa ;;
      baseline) set -- "$BASELINE" map -t "$threads" ref.hymi reads.fa ;;
      bwa) set -- bwa mem -t "$threads" ref.fa reads.fa ;;
      minimap2) set -- minimap2 -ax sr -t "$threads" ref.mmi reads.fa ;;
    esac
    times=() peak=0
    for round in $(seq "$rounds"); do
      /usr/bin/time -f '%e %M' -o time.txt "$@" >"$tool.sam" 2>/dev/null
      read -r s kb <time.txt
      times+=("$s")
      peak=$((kb > peak ? kb : peak))
    done
    wall[$tool]=$(printf '%s\n' "${times[@]}" | median)
    printf '%7d %-9s %8.2f %9.0f %10s %10d %9s %9d\n' "$length" "$tool" "${wall[$tool]}" \
      "$(echo "$count / ${wall[$tool]}" | bc -l)" "$(echo "${wall[$tool]} / ${wall[hyalign]}" | bc -l | xargs printf '%.2f')" \
      "$((peak / 1024))" "$(placed "$tool.sam")" "$count"
  done
done
