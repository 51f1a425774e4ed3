#!/usr/bin/env bash
# hyalign map against bwa mem over many simulated read sets (seeds x paired/single x 150/100 bp),
# set by set, and bwa mem against itself with each set's reads in reverse order. bwa breaks ties
# between equal copies with a hash of the read's index in the input, so the second comparison shows
# how far a set's counts move by chance alone. Accuracy is dwgsim_eval's (bench/map_eval.cpp). Last,
# the ends whose primary record hyalign places unlike bwa mem, set by set.
# usage: bench/map_sets_vs_bwa.sh BUILD_DIR [SEED...]   (seeds 14 15 16 17 18)
# env: READS (100000 reads or pairs a set), THREADS (nproc), ERROR (0.005 errors per base),
#      GENOME (FASTA[.xz]; default the Klebsiella pneumoniae HS11286 assembly of kleborate-examples)
set -euo pipefail
build=$(realpath "$1")
shift
[ $# -gt 0 ] || set -- 14 15 16 17 18
reads_per_set=${READS:-100000} threads=${THREADS:-$(nproc)} error=${ERROR:-0.005}
genome=${GENOME:-/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz}
hyalign=$build/hyalign eval=$build/bench/hyalign_map_eval
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/map_reads.sh"  # and into a temporary folder
index_genome "$genome" "$hyalign" "$threads"

# reversed FILE: the FASTQ file's records in reverse order (dwgsim's names hold no tabs).
reversed() { zcat "$1" | paste - - - - | tac | tr '\t' '\n'; }
# primaries SAM: each end's primary record as name/end, sequence, position and strand, sorted.
primaries() { samtools view -F 0x900 "$1" | awk '{ print $1 "/" and($2, 192) "\t" $3 ":" $4 ":" and($2, 16) }' | sort; }

echo "# $(date -u +%F) $(uname -n), $(nproc) cores, commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# genome $(basename "$genome"), $reads_per_set reads or pairs a set, $error errors per base, seeds $*, $threads threads"
for seed; do
  for mode in paired single; do
    for length in 150 100; do
      set=s${seed}_${mode}_${length}
      simulate_reads "$mode" "$length" "$reads_per_set" "$seed" "$error" ref.fa "$set"
      files=("$set".bwa.read*.fastq.gz)
      for f in "${files[@]}"; do reversed "$f" >"${f%.fastq.gz}.reversed.fq"; done
      "$hyalign" map -t "$threads" ref.hymi "${files[@]}" 2>/dev/null >out.sam
      "$eval" --tsv out.sam >"$set.hyalign.eval"
      primaries out.sam >hyalign.primaries
      bwa mem -t "$threads" ref.fa "${files[@]}" 2>/dev/null >out.sam
      "$eval" --tsv out.sam >"$set.bwa.eval"
      primaries out.sam | join -t $'\t' hyalign.primaries - | awk -F '\t' '$2 != $3' | wc -l >"$set.unlike_bwa"
      bwa mem -t "$threads" ref.fa "${files[@]/%.fastq.gz/.reversed.fq}" 2>/dev/null >out.sam
      "$eval" --tsv out.sam >"$set.bwa_reversed.eval"
      rm -f out.sam "$set".bwa.read*
      echo "$set done" >&2
    done
  done
done

# compare WHO: per threshold, WHO's counts against bwa mem's summed over the sets, and the sets
# where WHO places fewer reads correctly or more wrongly.
compare() {
  echo
  echo "$1 against bwa mem (correct / wrong):"
  printf '%-6s %24s %24s %16s %18s %16s\n' MAPQ "$1" "bwa mem" difference "sets fewer correct" "sets more wrong"
  for f in *."$1".eval; do paste "$f" "${f%."$1".eval}.bwa.eval"; done | awk -F '\t' '$1 ~ /^[0-9]/ {
    t = $1; c[t] += $2; w[t] += $3; bc[t] += $8; bw[t] += $9; fewer[t] += $2 < $8; more[t] += $3 > $9 }
    END { for (t in c) printf "%-6s %24s %24s %16s %18d %16d\n", ">=" t, c[t] "/" w[t], bc[t] "/" bw[t],
      sprintf("%+d/%+d", c[t] - bc[t], w[t] - bw[t]), fewer[t], more[t] }' | sort -t= -k2 -n
}
compare hyalign
compare bwa_reversed
echo
echo "ends whose primary record hyalign places unlike bwa mem (sequence, position or strand):"
for f in *.unlike_bwa; do echo "${f%.unlike_bwa} $(cat "$f")"; done | awk '{ printf "%s %s\n", $1, $2; n += $2 } END { print "all", n }'
