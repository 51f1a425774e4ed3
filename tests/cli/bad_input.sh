#!/usr/bin/env bash
# Bad input never crashes and never leaves output: one error line on stderr, non-zero exit, no files.
# usage: bad_input.sh HYALIGN DATA_DIR
set -u
hyalign=$(realpath "$1")
data=$(realpath "$2")/papara/epa_tiny
source "$(dirname "$0")/harness.sh"

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

# (CLI11 versions word ranges as "0 to 1000" or "[0 - 1000]"; patterns take both.)
# check_error NAME PATTERN -- hyalign args: exit 1..127, one error line, the last on stderr
# ("hyalign: error: ...", matching PATTERN; log lines may come before it), no files left behind.
check_error() {
  local name=$1 pattern=$2
  shift 3
  rm -rf out && mkdir out
  (cd out && "$hyalign" "$@" >stdout 2>stderr)
  local code=$? lines
  lines=$(grep -c -i error out/stderr)
  local leftovers
  leftovers=$(cd out && ls -A | grep -v -x -e stdout -e stderr)
  if [ "$code" -ne 0 ] && [ "$code" -lt 128 ] && [ "$lines" -eq 1 ] && tail -n 1 out/stderr | grep -q '^hyalign: error: ' &&
     tail -n 1 out/stderr | grep -q -- "$pattern" && [ -z "$leftovers" ]; then
    echo "ok   $name: $(tail -n 1 out/stderr)"; passes=$((passes + 1))
  else
    echo "FAIL $name: exit $code, $lines error lines, leftover files: [$leftovers], wanted [$pattern]"; cat out/stderr
    failures=$((failures + 1))
  fi
}
# expect_error NAME -- papara args
expect_error() {
  local name=$1
  shift 2
  check_error "$name" '' -- papara "$@" -n X
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
# ... nor is a run's alignment whose log is gone.
rm -rf out && mkdir out && echo old >out/papara_alignment.X
if (cd out && ! "$hyalign" papara -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries.fa" -n X 2>err) &&
   grep -q 'papara_alignment.X exists' out/err && [ "$(cat out/papara_alignment.X)" = old ]; then
  ok existing_run_alignment
else fail existing_run_alignment; fi
check_error empty_run_name "the run name '' names no file" -- papara -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries.fa" -n ''
# A byte that is no ASCII character is named, not taken for a row of the wrong length.
awk 'NR == 2 { $0 = substr($0, 1, 12) "\303\251" substr($0, 14) } { print }' "$w/ref.phy" >ref_utf8.phy
check_error phylip_not_ascii "ref_utf8.phy:2: sequence 'A', column 5: the byte 0xc3 is no ASCII character" -- papara -t "$w/tree.nwk" -s "$w/ref_utf8.phy" -q "$w/queries.fa" -n X


# ---- Nothing is lost: every write checked through close (docs/contract.md) ----
papara_args=(-t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries.fa")
awk 'BEGIN { srand(11); aa = "ARNDCQEGHILKMFPSTWYV";
  for (d = 1; d <= 300; d++) { s = ""; n = 30 + int(rand() * 200);
    for (i = 0; i < n; i++) s = s substr(aa, int(rand() * 20) + 1, 1); print ">prot" d " text"; print s } }' >prot.fa
search_args=(-q "$w/prot.fa" -d "$w/prot.fa")

check_error papara_out_dev_full 'error: /dev/full: cannot write: No space left on device' -- papara "${papara_args[@]}" -o /dev/full
check_error search_out_dev_full 'error: /dev/full: cannot write: No space left on device' -- search "${search_args[@]}" -o /dev/full
check_error makedb_out_dev_full 'error: /dev/full: cannot write: No space left on device' -- search makedb -i "$w/prot.fa" -o /dev/full
[ -c /dev/full ] && ok dev_full_still_a_device || fail dev_full_still_a_device
for tool in papara search; do
  if [ $tool = papara ]; then args=(papara "${papara_args[@]}" -o -); else args=(search "${search_args[@]}"); fi
  "$hyalign" "${args[@]}" >/dev/full 2>stderr.txt
  code=$?
  if [ $code -ne 0 ] && [ $code -lt 128 ] && grep -q 'error: standard output: cannot write: No space left on device' stderr.txt; then
    ok "${tool}_stdout_dev_full"
  else fail "${tool}_stdout_dev_full: exit $code"; cat stderr.txt; fi
done
# A reader that stops early (| head) ends the run quietly, as with other tools: no error line.
# (-k 30: 9,000 lines, far more than a pipe holds.)
"$hyalign" search "${search_args[@]}" -k 30 2>pipe.err | head -c 100 >/dev/null
code=${PIPESTATUS[0]}
if { [ "$code" -eq 0 ] || [ "$code" -eq 141 ]; } && ! grep -q error pipe.err; then ok closed_pipe_is_quiet
else fail "closed_pipe_is_quiet: exit $code"; cat pipe.err; fi

# A full disk: a private 8 KiB tmpfs (user and mount namespaces); the alignment (9 KB) does not fit.
mkdir -p "$work/small_fs"
rm -rf out && mkdir out
if unshare -rm true 2>/dev/null; then
  LEFT="$work/out/left" unshare -rm sh -c 'mount -t tmpfs -o size=8k tmpfs "$0" || exit 90; cd "$0" || exit 91
    "$@"; code=$?; ls -A >"$LEFT"; exit $code' "$work/small_fs" "$hyalign" papara "${papara_args[@]}" -n X 2>out/stderr
  code=$?
  if [ $code -ge 90 ] && [ $code -le 91 ]; then echo "SKIPPED full_disk: cannot mount a tmpfs here"
  elif [ $code -ne 0 ] && [ $code -lt 90 ] && [ "$(grep -c -i error out/stderr)" -eq 1 ] &&
       tail -n 1 out/stderr | grep -q '^hyalign: error: papara_[a-z]*\.X: cannot write: No space left on device$' &&
       [ -f out/left ] && [ ! -s out/left ]; then
    ok "full_disk: $(tail -n 1 out/stderr)"
  else fail "full_disk: exit $code, left [$(cat out/left 2>/dev/null)]"; cat out/stderr; fi
else
  echo "SKIPPED full_disk: no user namespaces here (unshare -rm)"
fi
# A file size limit (ulimit -f, 4 KiB): EFBIG instead of the signal, same contract.
rm -rf out && mkdir out
(cd out && ulimit -f 4 && "$hyalign" papara "${papara_args[@]}" -n X 2>stderr)
code=$?
if [ $code -ne 0 ] && [ $code -lt 128 ] && tail -n 1 out/stderr | grep -q '^hyalign: error: papara_alignment.X: cannot write: File too large$' &&
   [ -z "$(cd out && ls -A | grep -v -x stderr)" ]; then ok "file_size_limit: $(tail -n 1 out/stderr)"
else fail "file_size_limit: exit $code"; ls out; cat out/stderr; fi

# ---- Damaged databases: a format version and per-chunk checksums ----
# 30 sequences, one per chunk (a search runs every chunk before the last, damaged one).
head -n 60 prot.fa >prot30.fa
"$hyalign" search makedb -i prot30.fa -o prot.hydb --chunk-mb 0 2>/dev/null
flip() { cp prot.hydb "$2"; printf 'Z' | dd of="$2" bs=1 seek="$1" conv=notrunc 2>/dev/null; }
size=$(stat -c %s prot.hydb)
flip 20 header_flipped.hydb      # inside the first chunk's header (bytes 8-47)
flip $((size - 41)) name_flipped.hydb   # the last letter of the last chunk (the end record is 40 bytes)
head -c $((size - 20)) prot.hydb >cut.hydb
{ printf 'HYALDB01'; tail -c +9 prot.hydb; } >old_version.hydb
check_error database_payload_damaged 'name_flipped.hydb: database chunk 30 is damaged (checksum mismatch)' -- search -q "$w/prot.fa" -d "$w/name_flipped.hydb" -o hits.tsv
check_error database_header_damaged 'header_flipped.hydb: database chunk 1 is damaged (header checksum mismatch)' -- search -q "$w/prot.fa" -d "$w/header_flipped.hydb" -o hits.tsv
# A whole chunk lost: the chunks of a database without the last sequence, sealed with the end record
# of the full one. Every chunk checks out; only the end record's counts can tell.
head -n -2 prot30.fa >prot_short.fa
"$hyalign" search makedb -i prot_short.fa -o short.hydb --chunk-mb 0 2>/dev/null
{ head -c -40 short.hydb; tail -c 40 prot.hydb; } >chunk_missing.hydb
check_error database_chunk_missing 'chunk_missing.hydb: database chunk 30 is damaged (the end record counts 30 sequences in 30 chunks, the file holds 29 in 29)' -- search -q "$w/prot.fa" -d "$w/chunk_missing.hydb" -o hits.tsv
check_error database_cut_off 'cut.hydb: truncated or damaged database' -- search -q "$w/prot.fa" -d "$w/cut.hydb" -o hits.tsv
check_error database_old_version 'database format 01 is not the format 03' -- search -q "$w/prot.fa" -d "$w/old_version.hydb" -o hits.tsv

# ---- Numeric options are range-checked when parsed ----
check_error gap_costs_overflow 'gap-open: Value 2000000000 not in range \[\?0 \(to\|-\) 1000' -- search "${search_args[@]}" --gap-open 2000000000 --gap-extend 2000000000
check_error gap_extend_range 'gap-extend: Value 1001 not in range' -- search "${search_args[@]}" --gap-extend 1001
check_error match_range 'match: Value 0 not in range \[\?1 \(to\|-\) 127' -- search "${search_args[@]}" --match 0
check_error mismatch_range 'mismatch: Value 5 not in range \[\?-128 \(to\|-\) -1' -- search "${search_args[@]}" --mismatch 5
check_error top_range 'top: Value 0 not in range' -- search "${search_args[@]}" -k 0
check_error unknown_tool "unknown tool 'bogus' (the tools: papara, search, mem" -- bogus -x
check_error strand_for_proteins '--strand: the queries are protein' -- search "${search_args[@]}" --strand plus
check_error match_for_proteins '--match/--mismatch score DNA, and the queries are protein' -- search "${search_args[@]}" --match 3
printf '>d\nACGTACGTTTGACCATGCATGCAAGGTTACG\n' >dna_query.fa
check_error matrix_for_dna '-m PAM30: the queries are DNA' -- search -q "$w/dna_query.fa" -d "$w/dna_query.fa" -m PAM30
printf '>a\n>b\n' >names_only.fa
check_error database_without_residues "names_only.fa: the database's sequences hold no residues" -- search "${search_args[@]:0:2}" -d "$w/names_only.fa"
check_error matrix_file_missing "unknown substitution matrix 'no_such.mat': no file of that name" -- search "${search_args[@]}" -m no_such.mat
check_error chunk_range 'chunk-mb: Value 99999999 not in range' -- search "${search_args[@]}" --chunk-mb 99999999
check_error negative_threads 'threads' -- search "${search_args[@]}" -t -1
check_error papara_scoring_range "-p '-3:-1:5000:-3': 5000 is out of range (-1000..1000)" -- papara "${papara_args[@]}" -p -3:-1:5000:-3 -n X
for tool in papara search; do
  if [ $tool = papara ]; then args=(papara "${papara_args[@]}" -j 100000 -o out.txt); else args=(search "${search_args[@]}" -t 100000 -o out.txt); fi
  if "$hyalign" "${args[@]}" 2>threads.err && [ -s out.txt ] &&
     grep -q -- "notice: -[jt] 100000 is more than 4 threads per hardware thread ([0-9]* here); using [0-9]*" threads.err; then
    ok "${tool}_threads_capped"
  else fail "${tool}_threads_capped"; cat threads.err; fi
  rm -f out.txt
done

# ---- Outputs get the mode a plain open gives under the user's umask ----
for mask in 022 077; do
  rm -rf out && mkdir out
  (cd out && umask $mask && "$hyalign" papara "${papara_args[@]}" -n X 2>/dev/null &&
   "$hyalign" search "${search_args[@]}" -o hits.tsv 2>/dev/null && "$hyalign" search makedb -i "$w/prot.fa" -o db.hydb 2>/dev/null)
  want=$(printf '%o' $((0666 & ~0$mask)))
  modes=$(cd out && stat -c '%a' papara_alignment.X papara_log.X papara_quality.X hits.tsv db.hydb | sort -u)
  [ "$modes" = "$want" ] && ok "umask_$mask: $want" || fail "umask_$mask: modes [$modes], wanted $want"
done
chmod 640 out/hits.tsv
"$hyalign" search "${search_args[@]}" -o out/hits.tsv 2>/dev/null
[ "$(stat -c '%a' out/hits.tsv)" = 640 ] && ok replaced_file_keeps_mode || fail "replaced_file_keeps_mode: $(stat -c '%a' out/hits.tsv)"

# ---- Links and the process's own descriptors are never replaced ----
rm -rf out && mkdir -p out/data && ln -s data/real.tsv out/link.tsv && echo old >out/data/real.tsv
"$hyalign" search "${search_args[@]}" -o out/direct.tsv 2>/dev/null
"$hyalign" search "${search_args[@]}" -o out/link.tsv 2>/dev/null
[ -L out/link.tsv ] && [ "$(ls -A out/data)" = real.tsv ] && cmp -s out/data/real.tsv out/direct.tsv &&
  ok symlink_output_kept || fail "symlink_output_kept: $(ls -l out out/data)"
# -o /dev/stdout into a redirection: what the shell wrote before stays, the file is not swapped.
{ echo header; "$hyalign" search "${search_args[@]}" -o /dev/stdout 2>/dev/null; } >out/redirected.tsv
[ "$(head -n 1 out/redirected.tsv)" = header ] && tail -n +2 out/redirected.tsv | cmp -s - out/direct.tsv &&
  ok dev_stdout_in_place || fail "dev_stdout_in_place: $(head -n 2 out/redirected.tsv)"

# ---- Trees with negative branch lengths: accepted as PaPaRa does, with a warning naming the first ----
sed 's/:\([0-9.]*\)/:-\1/3' tree.nwk >tree_negative.nwk
column=$(head -n 1 tree_negative.nwk | grep -bo ':-' | head -n 1 | cut -d: -f1)
expect_success negative_branch_length "warning: $w/tree_negative.nwk:1:$((column + 2)): negative branch length -" -- \
  -t "$w/tree_negative.nwk" -s "$w/ref.phy" -q "$w/queries.fa"

# ---- hyalign mem ----
printf '>chr\nACGTACGTTTGACCATGCATGCAAGGTTACGTGGGTTTAACCCGTGATCGATCGATTTGACCA\n>plasmid\nGGGTTTAACCCGTGATCG\n' >mem_ref.fa
printf '>q1\nGTTTGACCATGCATGCAAGGTTACGTGG\n' >mem_q.fa
printf '>a\n>b\n' >mem_no_letters.fa
"$hyalign" mem index mem_ref.fa -o mem_ref.hymi 2>/dev/null
head -c 100 mem_ref.hymi >mem_truncated.hymi
cp mem_ref.hymi mem_damaged.hymi && printf 'x' | dd of=mem_damaged.hymi bs=1 seek=120 conv=notrunc 2>/dev/null
check_error mem_missing_reference 'nope.fa' -- mem "$w/nope.fa" "$w/mem_q.fa"
check_error mem_gzip_output "-o matches.gz: the output is MUMmer's text, not .gz" -- mem -o matches.gz "$w/mem_q.fa" "$w/mem_q.fa"
check_error search_gzip_output '-o hits.tsv.gz: the output is BLAST tabular text, not .gz' -- search "${search_args[@]}" -o hits.tsv.gz
# -o naming an input, under its own name or another, is refused and the input is left as it was.
cp mem_q.fa mem_q_kept.fa && cp queries.fa queries_kept.fa && cp prot.fa prot_kept.fa && ln -sf mem_q_kept.fa mem_q_link.fa
check_error mem_output_is_input "-o $w/mem_q_link.fa: that is the input $w/mem_q_kept.fa" -- mem -o "$w/mem_q_link.fa" "$w/mem_ref.fa" "$w/mem_q_kept.fa"
check_error mem_index_output_is_input "that is the input $w/mem_q_kept.fa" -- mem index "$w/mem_q_kept.fa" -o "$w/mem_q_kept.fa"
check_error search_output_is_input "that is the input $w/prot_kept.fa" -- search -q "$w/prot_kept.fa" -d "$w/prot.fa" -o "$w/prot_kept.fa"
check_error makedb_output_is_input "that is the input $w/prot_kept.fa" -- search makedb -i "$w/prot_kept.fa" -o "$w/prot_kept.fa"
check_error papara_output_is_input "that is the input $w/queries_kept.fa" -- papara -t "$w/tree.nwk" -s "$w/ref.phy" -q "$w/queries_kept.fa" -o "$w/queries_kept.fa"
if cmp -s mem_q.fa mem_q_kept.fa && cmp -s queries.fa queries_kept.fa && cmp -s prot.fa prot_kept.fa; then ok inputs_named_by_o_kept
else fail "inputs_named_by_o_kept: an input named by -o changed"; fi
check_error mem_empty_reference 'empty.fa' -- mem "$w/empty.fa" "$w/mem_q.fa"
check_error mem_reference_without_letters 'no sequence letters' -- mem "$w/mem_no_letters.fa" "$w/mem_q.fa"
check_error mem_binary_reference 'garbage.bin' -- mem "$w/garbage.bin" "$w/mem_q.fa"
check_error mem_empty_queries 'empty.fa' -- mem "$w/mem_ref.fa" "$w/empty.fa"
check_error mem_no_queries 'query file' -- mem "$w/mem_ref.fa"
check_error mem_min_length_zero '-l' -- mem -l 0 "$w/mem_ref.fa" "$w/mem_q.fa"
check_error mem_two_kinds 'excludes' -- mem -mum -maxmatch "$w/mem_ref.fa" "$w/mem_q.fa"
check_error mem_both_and_reverse 'excludes' -- mem -b -r "$w/mem_ref.fa" "$w/mem_q.fa"
# mummer refuses a word it does not know; read as -b -o gus it would write a file named gus
check_error mem_unknown_word '-bogus: not an option of mem' -- mem -bogus "$w/mem_ref.fa" "$w/mem_q.fa"
# after --, a word is a file name however it looks
cp mem_q.fa ./-qry
if "$hyalign" mem -l 10 mem_ref.fa -- -qry >dash.out 2>dash.err && grep -q '^> q1' dash.out; then ok mem_query_named_like_an_option
else fail "mem_query_named_like_an_option: $(cat dash.err)"; fi
check_error mem_truncated_index 'truncated' -- mem "$w/mem_truncated.hymi" "$w/mem_q.fa"
check_error mem_damaged_index 'damaged' -- mem "$w/mem_damaged.hymi" "$w/mem_q.fa"
check_error mem_unwritable_output 'no_such_dir' -- mem -o "$w/no_such_dir/out.txt" "$w/mem_ref.fa" "$w/mem_q.fa"
check_error mem_index_without_output '-o' -- mem index "$w/mem_ref.fa"
if "$hyalign" mem -l 1000 "$w/mem_ref.fa" "$w/mem_q.fa" >mem_long.out 2>mem_long.err &&
   grep -q 'warning: -l 1000 is longer than every query' mem_long.err && [ "$(cat mem_long.out)" = '> q1' ]; then
  ok mem_min_length_over_every_query
else fail "mem_min_length_over_every_query: $(cat mem_long.err)"; fi

# ---- hyalign map (built where htslib is) ----
if "$hyalign" map --help >/dev/null 2>&1; then
  map_seq=ACGTACGTTTGACCATGCATGCAAGGTTACGTGGGTTTAACCCGTGATCGATCGATTTGACCAGGATCCATTGACTTACGGATCAGGCATTACGATTACC
  printf '>chr\n%s\n>plasmid\nGGGTTTAACCCGTGATCGTTGACCAGGTACCATGACGATCGGATC\n' "$map_seq" >map_ref.fa
  printf '>chr\nACGT\n>chr\nACGT\n' >map_ref_duplicate.fa
  printf '@r1/1\nGTTTGACCATGCATGCAAGGTTACGTGG\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIII\n@r2/1\nGATCGATCGATTTGACCAGG\n+\nIIIIIIIIIIIIIIIIIIII\n' >map_1.fq
  printf '@r1/2\nCCTGGTCAAATCGATCGATC\n+\nIIIIIIIIIIIIIIIIIIII\n' >map_2_short.fq
  printf '@r1/2\nCCTGGTCAAATCGATCGATC\n+\nIIIIIIIIIIIIIIIIIIII\n@other/2\nGATCGATCGATTTGACCAGG\n+\nIIIIIIIIIIIIIIIIIIII\n' >map_2_names.fq
  printf '@r1\nGTTTGACCATGCATGCAAGG\n+\nIIII\n' >map_bad_quality.fq
  printf '@r1\nGTTTGACCATGCATGCAAGG\n+\nIIIIIIIIIIIIIIIIIIII\n' >map_odd_interleaved.fq
  "$hyalign" map index map_ref.fa -o map_ref.hymi 2>/dev/null
  head -c 100 map_ref.hymi >map_truncated.hymi
  check_error map_missing_reference 'nope.fa' -- map "$w/nope.fa" "$w/map_1.fq"
  check_error map_empty_reference 'empty.fa' -- map "$w/empty.fa" "$w/map_1.fq"
  check_error map_duplicate_reference_names "two reference sequences are named 'chr'" -- map "$w/map_ref_duplicate.fa" "$w/map_1.fq"
  check_error map_empty_reads 'empty.fa' -- map "$w/map_ref.fa" "$w/empty.fa"
  check_error map_binary_reads 'garbage.bin' -- map "$w/map_ref.fa" "$w/garbage.bin"
  check_error map_no_reads 'reads file' -- map "$w/map_ref.fa"
  check_error map_mates_fewer 'has no mate' -- map "$w/map_ref.fa" "$w/map_1.fq" "$w/map_2_short.fq"
  check_error map_mates_more 'has no mate' -- map "$w/map_ref.fa" "$w/map_2_names.fq" "$w/map_2_short.fq"
  check_error map_mate_names 'mate names differ' -- map "$w/map_ref.fa" "$w/map_1.fq" "$w/map_2_names.fq"
  check_error map_quality_length 'map_bad_quality.fq:' -- map "$w/map_ref.fa" "$w/map_bad_quality.fq"
  check_error map_odd_interleaved 'odd number' -- map -p "$w/map_ref.fa" "$w/map_odd_interleaved.fq"
  check_error map_interleaved_two_files 'one reads file' -- map -p "$w/map_ref.fa" "$w/map_1.fq" "$w/map_2_short.fq"
  check_error map_truncated_index 'truncated' -- map "$w/map_truncated.hymi" "$w/map_1.fq"
  printf '@r1 BC:Z:ACGT\nGTTTGACCATGCATGCAAGG\n+\nIIIIIIIIIIIIIIIIIIII\n@r2 1:N:0:ATCACG\nGTTTGACCATGCATGCAAGG\n+\nIIIIIIIIIIIIIIIIIIII\n' >map_casava.fq
  check_error map_comment_not_tags 'map_casava.fq:5:' -- map -C "$w/map_ref.fa" "$w/map_casava.fq"
  if ! nvidia-smi >/dev/null 2>&1; then
    check_error map_gpu_device 'no usable GPU' -- map --device gpu "$w/map_ref.fa" "$w/map_1.fq"
  fi
  check_error map_seed_length '-k' -- map -k 0 "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_negative_mismatch '-B' -- map -B -1 "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_clip_text '-L' -- map -L 5,x "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_read_group '@RG' -- map -R 'ID:x' "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_verbosity '-v' -- map -v 11 "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_read_group_id 'ID' -- map -R '@RG\tSM:x' "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_unwritable_output 'no_such_dir' -- map -o "$w/no_such_dir/out.sam" "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_reseed_nan '-r: nan is not in' -- map -r nan "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_drop_ratio_nan '-D: nan is not in' -- map -D nan "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_reseed_not_a_number "-r: '1.5x' is not a number" -- map -r 1.5x "$w/map_ref.fa" "$w/map_1.fq"
  # A digit in a read is damage (htslib would store 0-3 as bases), and so is a name SAM cannot hold.
  printf '@r1
GTTTGACCATGCATGCAAGG
+
IIIIIIIIIIIIIIIIIIII
@r2
GTTTGACC0123GCAAGG
+
IIIIIIIIIIIIIIIIII
' >map_digits.fq
  check_error map_digit_in_read "map_digits.fq:6: the read 'r2' holds '0', which is no base letter" -- map "$w/map_ref.fa" "$w/map_digits.fq"
  printf '@%s
GTTTGACCATGCATGCAAGG
+
IIIIIIIIIIIIIIIIIIII
' "$(printf 'n%.0s' $(seq 300))" >map_long_name.fq
  check_error map_long_read_name 'map_long_name.fq:1: a read name of 300 characters (SAM allows 254 at most)' -- map "$w/map_ref.fa" "$w/map_long_name.fq"
  check_error map_read_group_field "-R: the read group field 'SM' is not TAG:VALUE" -- map -R '@RG\tID:x\tSM' "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_read_group_empty_field "-R: the read group field '' is not TAG:VALUE" -- map -R '@RG\tID:x\t' "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_cram_output '-o out.cram: the output is SAM, or BAM' -- map -o out.cram "$w/map_ref.fa" "$w/map_1.fq"
  check_error map_gzip_output '-o out.sam.gz: the output is SAM, or BAM' -- map -o out.sam.gz "$w/map_ref.fa" "$w/map_1.fq"
  cp map_1.fq map_1_kept.fq
  check_error map_output_is_input "that is the input $w/map_1_kept.fq" -- map -o "$w/map_1_kept.fq" "$w/map_ref.fa" "$w/map_1_kept.fq"
  if cmp -s map_1.fq map_1_kept.fq; then ok map_input_named_by_o_kept; else fail "map_input_named_by_o_kept: the reads changed"; fi
  check_error map_index_duplicate_names "two reference sequences are named 'chr'" -- map index "$w/map_ref_duplicate.fa" -o dup.hymi
  # -o through a symbolic link that names no file yet makes that file and keeps the link.
  rm -rf link_test && mkdir -p link_test/real && ln -s real/out.sam link_test/link.sam
  if "$hyalign" map -o link_test/link.sam "$w/map_ref.fa" "$w/map_1.fq" 2>/dev/null && [ -L link_test/link.sam ] &&
     [ -s link_test/real/out.sam ]; then ok map_output_through_new_link; else fail map_output_through_new_link; fi
  # MD holds letters only: a reference character that is none shows as N.
  printf '>chr
%s
' "${map_seq:0:40}0123${map_seq:44}" >map_ref_digits.fa
  printf '@r
%s
+
%s
' "${map_seq:10:60}" "$(printf 'I%.0s' $(seq 60))" >map_over_digits.fq
  if "$hyalign" map "$w/map_ref_digits.fa" "$w/map_over_digits.fq" 2>/dev/null | grep -v '^@' | grep -q 'MD:Z:30N0N0N0N26'
  then ok map_md_letters_only; else fail map_md_letters_only; fi
  # Reads with N, IUPAC letters or shorter than a seed are kept, unmapped, not refused.
  printf '@n\nNNNNNNNNNNNNNNNNNNNNNNNNNN\n+\nIIIIIIIIIIIIIIIIIIIIIIIIII\n@iupac\nGTTTGACCRYKMSWBDHVNCAAGG\n+\nIIIIIIIIIIIIIIIIIIIIIIII\n@tiny\nACG\n+\nIII\n' >map_odd_reads.fq
  if "$hyalign" map "$w/map_ref.fa" map_odd_reads.fq >map_odd.sam 2>map_odd.err &&
     [ "$(grep -v '^@' map_odd.sam | awk '$2 == 4' | wc -l)" -eq 3 ]; then
    ok map_unmappable_reads_kept
  else fail "map_unmappable_reads_kept: $(cat map_odd.err)"; fi
  # GATK's bwa mem line (-K, -p, -v 3, -Y) runs as it is; -v 1 leaves stderr to errors.
  printf '@p/1\nGTTTGACCATGCATGCAAGGTTACG\n+\nIIIIIIIIIIIIIIIIIIIIIIIII\n@p/2\nGGTCAAATCGATCGATCACGGGTTA\n+\nIIIIIIIIIIIIIIIIIIIIIIIII\n' >map_pair.fq
  if "$hyalign" map -K 100000000 -p -v 1 -t 2 -Y "$w/map_ref.fa" map_pair.fq >map_gatk.sam 2>map_gatk.err &&
     [ ! -s map_gatk.err ] && [ "$(grep -vc '^@' map_gatk.sam)" -ge 2 ]; then
    ok map_bwa_mem_gatk_options
  else fail "map_bwa_mem_gatk_options: $(cat map_gatk.err)"; fi
else
  echo "skip map cases: this hyalign has no map command (built without htslib)"
fi

finish bad_input
