#!/usr/bin/env bash
# Golden tests: hyalign papara must reproduce PaPaRa 2.5's output files byte for byte.
# usage: golden.sh HYALIGN DATA_DIR [extra hyalign papara options, e.g. --kernel avx2]
set -u
hyalign=$(realpath "$1")
data=$(realpath "$2")/papara
shift 2
extra=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

# A kernel this CPU cannot run, or a GPU run without a GPU, is skipped, with the reason (ctest reads exit code 77 as skipped).
# The probe writes epa_tiny's alignment to standard output (--out -): the epa_tiny_stdout check below.
probe=$("$hyalign" papara -t "$data/epa_tiny/ref.tre" -s "$data/epa_tiny/aln.phy" -q "$data/epa_tiny/query.fasta" \
        --out - "${extra[@]}" 2>&1 >"$work/probe.phy") &&
  cmp -s "$work/probe.phy" "$data/epa_tiny/expected.papara_alignment.phy" && stdout_golden=yes || stdout_golden=no
if grep -q -e 'instruction set this CPU lacks' -e 'no usable GPU' <<<"$probe"; then
  echo "SKIPPED: ${extra[*]}: $probe"
  exit 77
fi

# check NAME EXPECTED_FILE -- papara args (run in $work/NAME, compat mode with -n X)
check() {
  local name=$1 expected=$2
  shift 3
  mkdir -p "$work/$name"
  (cd "$work/$name" && "$hyalign" papara "$@" -n X "${extra[@]}" 2>"$work/$name/stderr")
  local code=$?
  if [ "$code" -ne 0 ]; then
    echo "FAIL $name: exit code $code; stderr:"; cat "$work/$name/stderr"; failures=$((failures + 1)); return
  fi
  if cmp -s "$work/$name/papara_alignment.X" "$expected"; then
    echo "ok   $name"; passes=$((passes + 1))
  else
    echo "FAIL $name: output differs from $expected"
    cmp "$work/$name/papara_alignment.X" "$expected" | head -1
    failures=$((failures + 1))
  fi
}

# check_large: check, except with the scalar kernel, whose runs of these two cases took 76 of the
# 98 s of its golden test on the 2-core VM; its property tests against the SIMD kernels (shapes up
# to 600 x 5,000) and the SIMD kernels' runs of these cases stand in.
check_large() {
  if [ "${extra[*]}" = "--kernel scalar" ]; then echo "skip $1 (the scalar kernel: see check_large)"; else check "$@"; fi
}

e=$data/epa_tiny p=$data/pyrg q=$data/q2_16S
check epa_tiny "$e/expected.papara_alignment.phy" -- -t "$e/ref.tre" -s "$e/aln.phy" -q "$e/query.fasta"
check pyrg_default "$p/expected.default.phy" -- -t "$p/ref.tre" -s "$p/ref.phy" -q "$p/query.fasta"
check pyrg_cgap_rules "$p/expected.cgap_rules.phy" -- -c -t "$p/ref.tre" -s "$p/ref.phy" -q "$p/query.fasta"
check q2_default "$q/expected.query.default.phy" -- -t "$q/ref.unrooted.nwk" -s "$q/ref.phy" -q "$q/query.fasta"
check q2_no_ref_gaps "$q/expected.query.no_ref_gaps.phy" -- -r -t "$q/ref.unrooted.nwk" -s "$q/ref.phy" -q "$q/query.fasta"
check q2_fasta_output "$q/expected.query.fasta_output.fasta" -- -g -t "$q/ref.unrooted.nwk" -s "$q/ref.phy" -q "$q/query.fasta"
check_large q2_gut60_j2 "$q/expected.gut60.default.phy" -- -j 2 -t "$q/ref.unrooted.nwk" -s "$q/ref.phy" -q "$q/gut60.fas"
for fam in Pkinase RRM_1; do
  pk=$data/protein_$fam
  check "protein_${fam}_default" "$pk/expected.default.phy" -- -a -t "$pk/ref.tre" -s "$pk/ref.phy" -q "$pk/query.fasta"
  check "protein_${fam}_cgap_rules" "$pk/expected.cgap_rules.phy" -- -a -c -t "$pk/ref.tre" -s "$pk/ref.phy" -q "$pk/query.fasta"
done
# Long reads (20 full-length 16S reads, 1.1-1.3 kb): no reference-tool output; hyalign's own
# output guards the CPU, GPU and mixed paths against each other.
head -n 40 "$q/long200.fasta" >"$work/long20.fasta"
check_large q2_long20 "$q/expected.long20.hyalign.phy" -- -t "$q/ref.unrooted.nwk" -s "$q/ref.phy" -q "$work/long20.fasta"
# hyalign extensions that must not change the result
check q2_rooted_tree "$q/expected.query.default.phy" -- -t "$q/ref.nwk" -s "$q/ref.phy" -q "$q/query.fasta"
check q2_fasta_reference "$q/expected.query.default.phy" -- -t "$q/ref.unrooted.nwk" -s "$q/ref.fasta" -q "$q/query.fasta"
check pyrg_j2 "$p/expected.default.phy" -- -j 2 -t "$p/ref.tre" -s "$p/ref.phy" -q "$p/query.fasta"
gzip -c "$q/query.fasta" >"$work/query.fasta.gz"
check q2_gzip_queries "$q/expected.query.default.phy" -- -t "$q/ref.unrooted.nwk" -s "$q/ref.phy" -q "$work/query.fasta.gz"

# --out - writes the same alignment to standard output (the probe's run above)
if [ "$stdout_golden" = yes ]; then
  echo "ok   epa_tiny_stdout"; passes=$((passes + 1))
else
  echo "FAIL epa_tiny_stdout"; failures=$((failures + 1))
fi

# Protein (-a): no reference-tool output exists; check the structure, then hyalign's own earlier output.
pr=$(realpath "$data/../protein")
check protein "$pr/expected.hyalign.phy" -- -a -t "$pr/ref.nwk" -s "$pr/ref.phy" -q "$pr/queries.fasta"
# Every query row, gaps removed, is the query with its gap/unknown characters (-, X) removed.
if [ -f "$work/protein/papara_alignment.X" ] &&
   diff <(awk 'NR>7{gsub(/-/, "", $2); print $2}' "$work/protein/papara_alignment.X") \
        <(awk '/^>/{if (s != "") print s; s=""; next} {gsub(/[-X]/, ""); s=s $0} END{print s}' "$pr/queries.fasta") >/dev/null; then
  echo "ok   protein_query_residues"; passes=$((passes + 1))
else
  echo "FAIL protein_query_residues"; failures=$((failures + 1))
fi

echo "golden: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
