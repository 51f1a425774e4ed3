#!/usr/bin/env bash
# Regenerates BLAST+'s outputs in tests/data/blast/ (blastp.tsv, blastn.tsv), the references for
# hyalign search's E-values and bit scores. Needs makeblastdb, blastp and blastn (Debian 12's
# ncbi-blast+ 2.12.0 wrote the committed files). usage: scripts/blast-golden.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/tests/data/blast
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
columns='6 qseqid sseqid evalue bitscore score qlen slen'
# Every hit of every query (E up to 1e6), its best HSP only, no composition-based statistics and no
# masking: what hyalign computes, a Smith-Waterman score and its Karlin-Altschul statistics.
common=(-max_target_seqs 1000 -max_hsps 1 -evalue 1e6 -outfmt "$columns")

makeblastdb -in "$data/proteins.fasta" -dbtype prot -parse_seqids -out "$work/proteins" >/dev/null
blastp -query "$data/protein_queries.fasta" -db "$work/proteins" -matrix BLOSUM62 -gapopen 11 -gapextend 1 \
  -comp_based_stats 0 -seg no "${common[@]}" >"$data/blastp.tsv"

# The 16S reference alignment without its gaps; one strand, as hyalign searches.
awk '/^>/ { print; next } { gsub(/[-.]/, ""); print toupper($0) }' \
  "$root/tests/data/papara/q2_16S/ref.fasta" >"$work/16S.fasta"
makeblastdb -in "$work/16S.fasta" -dbtype nucl -out "$work/16S" >/dev/null
blastn -task blastn -query "$data/dna_queries.fasta" -db "$work/16S" -reward 2 -penalty -3 -gapopen 5 -gapextend 2 \
  -strand plus -dust no -soft_masking false "${common[@]}" >"$data/blastn.tsv"

blastp -version | head -1
wc -l "$data/blastp.tsv" "$data/blastn.tsv"
