#!/usr/bin/env bash
# Bad input never crashes and never leaves output: one error line on stderr, non-zero exit, no files.
# usage: bad_input.sh HYALIGN DATA_DIR
set -u
hyalign=$(realpath "$1")
data=$(realpath "$2")/papara/epa_tiny
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0
cd "$work"

# Inputs derived from the small epa_tiny data set.
cp "$data/ref.tre" tree.nwk
cp "$data/aln.phy" ref.phy
cp "$data/query.fasta" queries.fa
: >empty.fa
sed 's/(A:/(Missing:/' tree.nwk >tree_missing_leaf.nwk
sed 's/;$//' tree.nwk >tree_no_semicolon.nwk
sed 's/:[0-9.]*//g' tree.nwk >tree_no_lengths.nwk
echo '((A:1,B:1):1,(C:1,D:1):1' >tree_unbalanced.nwk
awk 'NR==3{$1="A"} {print}' ref.phy >ref_duplicate.phy
awk 'NR==1{print "11 705"; next} {print}' ref.phy >ref_header_rows.phy
awk 'NR==1{print "10 706"; next} {print}' ref.phy >ref_header_columns.phy
awk 'NR==4{sub(/.$/, "")} {print}' ref.phy >ref_short_row.phy
awk 'NR==2{$2="J" substr($2, 2)} {print}' ref.phy >ref_bad_char.phy
printf '>A\nACGT\n>B\nACG\n' >ref_unequal.fa
head -c 4096 /dev/urandom >garbage.bin
printf '\x00\x01\x02binary\x00' >>garbage.bin
printf '>A\nACGT\n>A\nACGT\n' >queries_duplicate.fa
printf '>Rat2\nACGTTT\n>A\nACGT\n' >queries_ref_name.fa
head -n 3 ref.phy >queries_phylip.phy
mkdir a_directory

# expect_error NAME -- papara args
expect_error() {
  local name=$1
  shift 2
  rm -rf out && mkdir out
  (cd out && "$hyalign" papara "$@" -n X >stdout 2>stderr)
  local code=$? lines
  lines=$(wc -l <out/stderr)
  local leftovers
  leftovers=$(cd out && ls -A | grep -v -x -e stdout -e stderr)
  if [ "$code" -ne 0 ] && [ "$code" -lt 128 ] && [ "$lines" -eq 1 ] && grep -q '^hyalign: error: ' out/stderr &&
     [ -z "$leftovers" ]; then
    echo "ok   $name: $(cat out/stderr)"; passes=$((passes + 1))
  else
    echo "FAIL $name: exit $code, $lines stderr lines, leftover files: [$leftovers]"; cat out/stderr
    failures=$((failures + 1))
  fi
}
# expect_success NAME PATTERN -- papara args: runs, writes the alignment, stderr matches PATTERN
expect_success() {
  local name=$1 pattern=$2
  shift 3
  rm -rf out && mkdir out
  (cd out && "$hyalign" papara "$@" -n X >stdout 2>stderr)
  local code=$?
  if [ "$code" -eq 0 ] && [ -s out/papara_alignment.X ] && grep -q -- "$pattern" out/stderr; then
    echo "ok   $name"; passes=$((passes + 1))
  else
    echo "FAIL $name: exit $code"; cat out/stderr; failures=$((failures + 1))
  fi
}

w=$work
expect_error missing_tree -- -t "$w/nope.nwk" -s "$w/ref.phy" -q "$w/queries.fa"
expect_error missing_reference -- -t "$w/tree.nwk" -s "$w/nope.phy" -q "$w/queries.fa"
expect_error missing_queries -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/nope.fa"
expect_error directory_as_queries -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/a_directory"
expect_error empty_queries -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/empty.fa"
expect_error leaf_missing_from_alignment -- -t "$w/tree_missing_leaf.nwk" -s "$w/ref.phy" -q "$w/queries.fa"
expect_error duplicate_reference_name -- -t "$w/tree.nwk" -s "$w/ref_duplicate.phy" -q "$w/queries.fa"
expect_error duplicate_query_name -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries_duplicate.fa"
expect_error query_named_like_reference -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries_ref_name.fa"
expect_error unequal_rows -- -t "$w/tree.nwk" -s "$w/ref_unequal.fa" -q "$w/queries.fa"
expect_error short_phylip_row -- -t "$w/tree.nwk" -s "$w/ref_short_row.phy" -q "$w/queries.fa"
expect_error header_row_count -- -t "$w/tree.nwk" -s "$w/ref_header_rows.phy" -q "$w/queries.fa"
expect_error header_column_count -- -t "$w/tree.nwk" -s "$w/ref_header_columns.phy" -q "$w/queries.fa"
expect_error unbalanced_newick -- -t "$w/tree_unbalanced.nwk" -s "$w/ref.phy" -q "$w/queries.fa"
expect_error newick_without_semicolon -- -t "$w/tree_no_semicolon.nwk" -s "$w/ref.phy" -q "$w/queries.fa"
expect_error tree_without_lengths -- -t "$w/tree_no_lengths.nwk" -s "$w/ref.phy" -q "$w/queries.fa"
expect_error unknown_reference_character -- -t "$w/tree.nwk" -s "$w/ref_bad_char.phy" -q "$w/queries.fa"
expect_error garbage_reference -- -t "$w/tree.nwk" -s "$w/garbage.bin" -q "$w/queries.fa"
expect_error garbage_tree -- -t "$w/garbage.bin" -s "$w/ref.phy" -q "$w/queries.fa"
expect_error garbage_queries -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/garbage.bin"
expect_error phylip_as_queries -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries_phylip.phy"
expect_error bad_scoring_parameters -- -p 1:2:x -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries.fa"

# Accepted: unambiguous inputs in other formats, unknown query characters (one warning).
awk 'BEGIN{RS=">"; FS="\n"} NR>1{s=""; for (i=2;i<=NF;i++) s=s $i; q=s; gsub(/./,"I",q); print "@" $1; print s; print "+"; print q}' \
  queries.fa >queries.fq
expect_success fastq_queries "" -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries.fq"
sed '2s/^A/A!@/' queries.fa >queries_odd_chars.fa
expect_success unknown_query_characters "warning: .*!.*@" -- -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries_odd_chars.fa"
expect_success tree_without_lengths_rule_gaps "" -- -c -t "$w/tree_no_lengths.nwk" -s "$w/ref.phy" -q "$w/queries.fa"

# An existing run name is not overwritten without -f.
rm -rf out && mkdir out && echo old >out/papara_log.X
if (cd out && ! "$hyalign" papara -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries.fa" -n X 2>/dev/null) &&
   [ "$(cat out/papara_log.X)" = old ] &&
   (cd out && "$hyalign" papara -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries.fa" -n X -f 2>/dev/null) &&
   [ -s out/papara_alignment.X ]; then
  echo "ok   existing_run_name"; passes=$((passes + 1))
else
  echo "FAIL existing_run_name"; failures=$((failures + 1))
fi

echo "bad_input: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
