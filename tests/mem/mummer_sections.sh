#!/usr/bin/env bash
# Prints MUMmer-format output in a canonical form for comparison: each section's header, then its
# matches (a match line joined with the substring line -s adds below it) sorted. MUMmer prints a
# section's matches in suffix-tree order, hyalign sorted: sections must agree in order, headers
# byte for byte, and matches as sets.
# usage: tests/mem/mummer_sections.sh FILE
set -euo pipefail
export LC_ALL=C
awk '
  /^>/ { if (record != "") print section "\t1\t" record; record = ""; section++; print section "\t0\t" $0; next }
  /^  / { if (record != "") print section "\t1\t" record; record = $0; next }
  { record = record "|" $0 }
  END { if (record != "") print section "\t1\t" record }
' "$1" | sort -t$'\t' -k1,1n -k2,2n -k3,3
