#!/usr/bin/env bash
# hyalign map over MPI ranks on one machine: the same gzip pairs mapped by 1, 2, 4 ... ranks that
# share the machine's cores (-t cores / ranks each), wall time (median of ROUNDS), pairs per second,
# and each rank's seconds waiting for its reads; the output must be the same at every rank count.
# Ranks read only their own batches and pass over the others' (ReadInput::pass_over), so the
# reading a rank does shrinks as ranks are added.
# usage: bench/map_mpi.sh BUILD_DIR [RANKS...]   (1 2 4)
# env: PAIRS (1000000 pairs of 150 bp), ROUNDS (3), THREADS (nproc: all ranks together),
#      GENOME (FASTA[.xz]; default the Klebsiella pneumoniae HS11286 assembly of kleborate-examples),
#      BASELINE (another hyalign binary, e.g. an earlier commit's, timed in the same run as `baseline`),
#      MPIRUN (the launcher and its options before -np; default mpirun),
#      READS (the dwgsim prefix of pairs already made, READS.bwa.read1.fastq.gz and read2, instead of PAIRS new pairs)
set -euo pipefail
build=$(realpath "$1")
shift
[ $# -gt 0 ] || set -- 1 2 4
pairs=${PAIRS:-1000000} rounds=${ROUNDS:-3} threads=${THREADS:-$(nproc)}
genome=$(realpath "${GENOME:-/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz}")
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/map_reads.sh"  # and into a temporary folder
genome_fasta "$genome" ref.fa
"$build/hyalign" map index -t "$threads" ref.fa -o ref.hymi 2>/dev/null
if [ -n "${READS:-}" ]; then
  for end in 1 2; do ln -s "$(realpath "$READS.bwa.read$end.fastq.gz")" "pe.bwa.read$end.fastq.gz"; done
  pairs=$(($(zcat -f pe.bwa.read1.fastq.gz | wc -l) / 4))
else
  simulate_reads paired 150 "$pairs" 21 0.005 ref.fa pe
fi
echo "# $(date -u +%F) $(uname -n), $(nproc) cores, commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# $pairs pairs of 150 bp, $threads threads shared by the ranks, median of $rounds, mpirun --bind-to none"
printf '%6s %-9s %8s %10s %11s %s\n' ranks binary "wall s" pairs/s "x baseline" "each rank's s waiting for reads"
for ranks in "$@"; do
  declare -A wall=()
  for binary in ${BASELINE:+baseline} hyalign; do
    program=$build/hyalign
    [ "$binary" = baseline ] && program=$BASELINE
    times=()
    for round in $(seq "$rounds"); do
      start=$EPOCHREALTIME
      ${MPIRUN:-mpirun} --oversubscribe --allow-run-as-root --bind-to none -np "$ranks" \
        "$program" map -t $((threads / ranks > 0 ? threads / ranks : 1)) ref.hymi pe.bwa.read1.fastq.gz \
        pe.bwa.read2.fastq.gz -o "$binary.$ranks.sam" 2>log.txt
      times+=("$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')")
    done
    wall[$binary]=$(printf '%s\n' "${times[@]}" | median)
    # Each rank's wait, from the log's rank lines (else rank 0's, from the job's line).
    waits=$(grep -o '^  rank .* [0-9.]* s waiting for reads' log.txt | awk '{ printf "%s ", $(NF - 4) }' || true)
    [ -n "$waits" ] || waits="rank 0: $(grep -o 'waiting for reads [0-9.]*' log.txt | awk '{ print $4 }')"
    printf '%6d %-9s %8.2f %10.0f %11s %s\n' "$ranks" "$binary" "${wall[$binary]}" \
      "$(awk -v n="$pairs" -v s="${wall[$binary]}" 'BEGIN { print n / s }')" \
      "$(awk -v b="${wall[baseline]:-}" -v s="${wall[$binary]}" \
        'BEGIN { if (b == "") print "-"; else printf "%.2f", b / s }')" \
      "${waits:-?}"
  done
  grep -v '^@PG' "hyalign.$ranks.sam" | md5sum | cut -c1-8 >"md5.$ranks"
done
echo "# SAM without @PG, md5 by ranks: $(for r in "$@"; do printf '%s=%s ' "$r" "$(cat "md5.$r")"; done)"
