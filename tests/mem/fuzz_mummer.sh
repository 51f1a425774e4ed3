#!/usr/bin/env bash
# Random small cases against MUMmer 3.23's mummer: references of 1-3 sequences and queries over
# small alphabets (so matches repeat, touch sequence ends and hold N or other letters), every match
# kind with random -l, -n, -b/-r, -c, -F, -L and -s. Sections compared by mummer_sections.sh.
# usage: tests/mem/fuzz_mummer.sh HYALIGN [CASES (300)] [SEED (1)]
set -euo pipefail
hyalign=$(realpath "$1")
cases=${2:-300}
seed=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
command -v mummer >/dev/null || { echo "SKIPPED: mummer is not installed (scripts/install-deps.sh installs it)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failed=0
refused=0
for ((i = 0; i < cases; ++i)); do
  # One awk run draws the files and the options of case i.
  opts=$(awk -v seed=$((seed * 100003 + i)) 'BEGIN {
    srand(seed)
    split("ac acg acgt acgtn acgtNx ACgt", alphabets, " ")
    alphabet = alphabets[1 + int(rand() * 6)]
    n = length(alphabet)
    refs = 1 + int(rand() * 3)
    for (k = 0; k < refs; ++k) {
      s = ""; len = 1 + int(rand() * 40)
      for (j = 0; j < len; ++j) s = s substr(alphabet, 1 + int(rand() * n), 1)
      printf ">r%d d\n%s\n", k, s > "ref.fa"
      all = all s
    }
    queries = 1 + int(rand() * 2)
    for (k = 0; k < queries; ++k) {
      s = ""; len = int(rand() * 40)
      for (j = 0; j < len; ++j) s = s substr(alphabet, 1 + int(rand() * n), 1)
      if (rand() < 0.5) { p = 1 + int(rand() * length(all)); s = s substr(all, p, 1 + int(rand() * 30)) s }
      printf ">q%d\n%s\n", k, s > "query.fa"
    }
    split("-mum -maxmatch -mumreference", kinds, " ")
    o = kinds[1 + int(rand() * 3)] " -l " (1 + int(rand() * 6))
    if (rand() < 0.3) o = o " -n"
    strand = int(rand() * 3)
    if (strand == 1) o = o " -b"
    if (strand == 2) o = o " -r"
    if (strand > 0 && rand() < 0.5) o = o " -c"
    if (rand() < 0.3) o = o " -F"
    if (rand() < 0.3) o = o " -L"
    if (rand() < 0.2) o = o " -s"
    print o
  }')
  # shellcheck disable=SC2086
  if ! mummer $opts ref.fa query.fa >mummer.out 2>mummer.err; then
    refused=$((refused + 1))  # e.g. a query file of empty sequences only, which mummer refuses
    continue
  fi
  # shellcheck disable=SC2086
  "$hyalign" mem $opts ref.fa query.fa >hyalign.out 2>hyalign.err || { echo "FAIL case $i ($opts): exit $?"; cat hyalign.err; failed=1; continue; }
  if ! cmp -s <("$here/mummer_sections.sh" mummer.out) <("$here/mummer_sections.sh" hyalign.out); then
    echo "FAIL case $i ($opts)"; cat ref.fa query.fa
    diff <("$here/mummer_sections.sh" mummer.out) <("$here/mummer_sections.sh" hyalign.out) | head -n 8
    failed=1
  fi
done
echo "fuzz_mummer: $cases cases ($refused refused by mummer), $([ $failed -eq 0 ] && echo 'all agree' || echo 'some differ')"
exit $failed
