#!/usr/bin/env bash
# Writes long reads made from the rows of a reference alignment (sequential PHYLIP): each of the
# first N rows, gaps removed, with about 1 base in 40 changed to another base, as unwrapped FASTA on
# stdout. Deterministic (its own random number generator), so the same on every awk.
# usage: scripts/make-long-reads.sh REF.phy [N] [SEED]   (defaults: 200 reads, seed 1)
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,5p' "$0"; exit 2; }
awk -v n="${2:-200}" -v seed="${3:-1}" '
  # Park-Miller minimal standard generator: exact in double arithmetic.
  function next_random() { state = (state * 16807) % 2147483647; return state }
  BEGIN { state = seed; other["A"] = "CGT"; other["C"] = "AGT"; other["G"] = "ACT"; other["T"] = "ACG" }
  NR == 1 || NF < 2 { next }
  {
    if (++reads > n) exit
    row = toupper($2); gsub(/[^ACGT]/, "", row)
    out = ""
    for (i = 1; i <= length(row); ++i) {
      base = substr(row, i, 1)
      if (next_random() % 40 == 0) base = substr(other[base], next_random() % 3 + 1, 1)
      out = out base
    }
    printf(">%s_long\n%s\n", $1, out)
  }' "$1"
