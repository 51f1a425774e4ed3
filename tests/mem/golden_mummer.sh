#!/usr/bin/env bash
# hyalign mem against MUMmer 3.23's mummer (the oracle) on a real multi-sequence genome: the
# Klebsiella pneumoniae HS11286 assembly (chromosome and six plasmids, Debian kleborate-examples)
# with reads simulated by dwgsim, a one-sequence reference, and a whole second genome as query.
# Every option combination of the issue; outputs compared byte for byte (-maxmatch: sections
# compared by tests/mem/mummer_sections.sh).
# usage: tests/mem/golden_mummer.sh HYALIGN
set -euo pipefail
hyalign=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
data=/usr/share/doc/kleborate/examples/data
for tool in mummer dwgsim xz; do
  command -v $tool >/dev/null || { echo "SKIPPED: $tool is not installed (scripts/install-deps.sh installs it)"; exit 77; }
done
[ -f $data/Klebs_HS11286.fna.xz ] || { echo "SKIPPED: kleborate-examples is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
xz -dc $data/Klebs_HS11286.fna.xz >ref.fa
xz -dc $data/NTUH-K2044.fna.xz | awk '/^>/ { n++ } n == 1' >other_chromosome.fa
awk '/^>/ { n++ } n == 2' ref.fa >plasmid.fa
dwgsim -z 11 -N 3000 -1 150 -2 0 -e 0.01 -r 0.001 ref.fa sim >/dev/null 2>&1
# FASTA reads (mummer reads no FASTQ), half of them reverse complemented by dwgsim already.
zcat sim.bwa.read1.fastq.gz | awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2' >reads.fa
head -n 3000 reads.fa >reads_a.fa
tail -n +3001 reads.fa >reads_b.fa
gzip -c reads.fa >reads.fa.gz

failed=0
# same NAME REFERENCE QUERIES -- OPTIONS...: mummer and hyalign mem, compared section by section.
same() {
  local name=$1 ref=$2 queries=$3
  shift 4
  mummer "$@" "$ref" $queries >"$name.mummer" 2>/dev/null
  local hy_ref=$ref hy_queries=$queries
  [ -n "${HY_REF:-}" ] && hy_ref=$HY_REF
  [ -n "${HY_QUERIES:-}" ] && hy_queries=$HY_QUERIES
  "$hyalign" mem -t 2 "$@" "$hy_ref" $hy_queries >"$name.hyalign" 2>"$name.log" || { echo "FAIL $name: exit $?"; cat "$name.log"; failed=1; return; }
  # Byte for byte, but under -maxmatch: there MUMmer prints the matches that start at one query
  # position in its suffix tree's order, hyalign by reference position.
  local exact=yes
  [[ " $* " == *" -maxmatch "* ]] && exact=
  if { [ -n "$exact" ] && cmp -s "$name.mummer" "$name.hyalign"; } ||
     { [ -z "$exact" ] && cmp -s <("$here/mummer_sections.sh" "$name.mummer") <("$here/mummer_sections.sh" "$name.hyalign"); }; then
    echo "ok   $name: $(grep -c '^>' "$name.mummer") sections, $(grep -c '^  ' "$name.mummer") matches ($*)${exact:+, byte for byte}"
  else
    echo "FAIL $name ($*)"
    diff <("$here/mummer_sections.sh" "$name.mummer") <("$here/mummer_sections.sh" "$name.hyalign") | head -n 10
    failed=1
  fi
}
same maxmatch ref.fa reads.fa -- -maxmatch -l 20 -b -c
same mumreference ref.fa reads.fa -- -l 20 -b -L
same mum ref.fa reads.fa -- -mum -b
same mumcand_reverse_substrings ref.fa reads.fa -- -mumcand -l 15 -r -s
same bases_only ref.fa reads.fa -- -maxmatch -n -l 25 -b -F
same one_sequence plasmid.fa reads.fa -- -maxmatch -l 20 -b
same one_sequence_four_columns plasmid.fa reads.fa -- -l 18 -b -F -L -c
same two_query_files ref.fa "reads_a.fa reads_b.fa" -- -maxmatch -l 24 -b
HY_QUERIES=reads.fa.gz same gzip_queries ref.fa reads.fa -- -l 20 -b
"$hyalign" mem index ref.fa -o ref.hymi 2>/dev/null
HY_REF=ref.hymi same index_file ref.fa reads.fa -- -maxmatch -l 20 -b -c
same genome_vs_genome ref.fa other_chromosome.fa -- -mum -b -l 100
# 110,000 matches in two sections: the output's blocks (src/mem/text_blocks.hpp) split sections
same long_sections plasmid.fa other_chromosome.fa -- -maxmatch -l 12 -b
same genome_vs_genome_unique ref.fa other_chromosome.fa -- -b -l 50 -L
exit $failed
