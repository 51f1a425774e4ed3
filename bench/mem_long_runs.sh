#!/usr/bin/env bash
# hyalign mem on inputs with long shared stretches, where a search per query position can take
# time quadratic in a stretch's length: scaffold N gaps, homopolymers, tandem repeats, and a genome
# against itself. Each case runs MUMmer 3.23's mummer, BASELINE (another hyalign binary, if given)
# (--device cpu) and HYALIGN (--device DEVICE, cpu by default), prints their wall times, and checks
# that they print the same match lines (sorted: the order within a section is compared by the
# golden tests, not here). Without mummer on PATH (the GPU machine) the baseline is the reference.
# GENOME is the Klebsiella genome (default: Debian kleborate-examples' HS11286).
# usage: [BASELINE=other/hyalign] [DEVICE=gpu] [GENOME=hs11286.fa] bench/mem_long_runs.sh HYALIGN [threads (2)]
set -euo pipefail
hyalign=$(realpath "$1")
threads=${2:-2}
baseline=${BASELINE:+$(realpath "$BASELINE")}
device=${DEVICE:-cpu}
genome=${GENOME:+$(realpath "$GENOME")}
have_mummer=$(command -v mummer >/dev/null && echo yes || true)
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# random LENGTH SEED: that many random a/c/g/t letters on one line.
random() { awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); s = ""; for (i = 0; i < n; ++i) s = s substr("acgt", int(rand() * 4) + 1, 1); print s }'; }
# repeat UNIT COUNT: UNIT that many times.
repeat() { awk -v u="$1" -v n="$2" 'BEGIN { s = ""; for (i = 0; i < n; ++i) s = s u; print s }'; }
fasta() { printf '>%s\n%s\n' "$1" "$2"; }

r50a=$(random 50000 1) r50b=$(random 50000 2)
fasta gapped_ref "${r50a}$(repeat N 100000)${r50b}" >gap_ref.fa
fasta gapped_query "${r50a:0:5000}$(repeat N 100000)${r50b:45000}" >gap_query.fa
: >gaps5_ref.fa
for i in 1 2 3 4 5; do fasta "scaffold$i" "$(random 20000 $((10 + i)))$(repeat N 10000)" >>gaps5_ref.fa; done
fasta scaffold_piece "$(sed -n 2p gaps5_ref.fa | cut -c 15001-30000)$(sed -n 4p gaps5_ref.fa | cut -c 1-5000)" >gaps5_query.fa
fasta a100k "$(repeat a 100000)" >a100k.fa
fasta a20k "$(repeat a 20000)" >a20k.fa
fasta at25k "$(repeat at 25000)" >at25k.fa
if [ -n "$genome" ]; then cp "$genome" genome.fa; else xz -dc /usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz >genome.fa; fi
awk '/^>/ { n++ } n == 1' genome.fa >chromosome.fa
head -c 1000100 chromosome.fa >chromosome_1M.fa

seconds() {  # OUT COMMAND...: wall seconds of COMMAND, its standard output in OUT
  local out=$1 start=$EPOCHREALTIME
  shift
  "$@" >"$out" 2>/dev/null
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}
lines() { grep -v '^>' "$1" | awk '{ $1 = $1; print }' | sort; }

echo "# $(date -u +%F) $(uname -n), $(nproc) cores, commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), hyalign -t $threads --device $device"
printf '%-44s %10s %10s %10s %8s\n' case mummer baseline hyalign lines
run_case() {  # NAME OPTIONS REF QUERY
  local name=$1 ref=$3 query=$4 options m b h
  read -r -a options <<<"$2"
  m=- b=-
  [ -n "$have_mummer" ] && m=$(seconds mummer.out mummer "${options[@]}" "$ref" "$query")
  [ -n "$baseline" ] && b=$(seconds baseline.out "$baseline" mem -t "$threads" --device cpu "${options[@]}" "$ref" "$query")
  h=$(seconds hyalign.out "$hyalign" mem -t "$threads" --device "$device" "${options[@]}" "$ref" "$query")
  local reference=mummer.out
  [ -n "$have_mummer" ] || reference=baseline.out
  cmp -s <(lines $reference) <(lines hyalign.out) || { echo "$name: hyalign's matches DIFFER from $reference"; exit 1; }
  [ -z "$baseline" ] || [ -z "$have_mummer" ] || cmp -s <(lines mummer.out) <(lines baseline.out) ||
    echo "$name: the baseline's matches differ"
  printf '%-44s %10s %10s %10s %8s\n' "$name ($2)" "$m" "$b" "$h" "$(grep -vc '^>' hyalign.out || true)"
}
run_case "N gap 100 kb in both" "-mumreference -b" gap_ref.fa gap_query.fa
run_case "N gap 100 kb in both" "-mum -b" gap_ref.fa gap_query.fa
run_case "N gap 100 kb in both, -n" "-mumreference -b -n" gap_ref.fa gap_query.fa
run_case "5 scaffolds, 10 kb gaps" "-maxmatch" gaps5_ref.fa gaps5_query.fa
run_case "a x 100,000 against itself" "-mumreference" a100k.fa a100k.fa
run_case "a x 20,000 against itself" "-maxmatch" a20k.fa a20k.fa
run_case "at x 25,000 against itself" "-mum" at25k.fa at25k.fa
run_case "HS11286 chromosome 1 Mbp against itself" "-mum" chromosome_1M.fa chromosome_1M.fa
run_case "HS11286 genome against itself" "-mumreference -b" genome.fa genome.fa
