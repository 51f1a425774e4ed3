#!/usr/bin/env bash
# hyalign search from the command line: output format, top-k, streaming equivalences, bad input.
# usage: search.sh HYALIGN
set -u
hyalign=$(realpath "$1")
data=$(realpath "$(dirname "$0")/../data")
source "$(dirname "$0")/harness.sh"

# A small protein database: 300 random sequences plus planted relatives of the queries.
awk 'BEGIN { srand(7); aa = "ARNDCQEGHILKMFPSTWYV";
  for (q = 1; q <= 3; q++) { s = ""; n = 80 + 40 * q; for (i = 0; i < n; i++) s = s substr(aa, int(rand() * 20) + 1, 1);
    query[q] = s; print ">query" q " description words" > "queries.fa"; print s > "queries.fa" }
  for (d = 1; d <= 300; d++) { s = ""; n = 20 + int(rand() * 400);
    for (i = 0; i < n; i++) s = s substr(aa, int(rand() * 20) + 1, 1);
    if (d % 50 == 0) { q = (d / 50) % 3 + 1; s = substr(s, 1, 30) substr(query[q], 5, 60) "WW" substr(query[q], 70) }
    print ">db" d " some text"; print s } }' >db.fa

# check NAME -- command: runs; output non-empty
"$hyalign" search -q queries.fa -d db.fa -o default.tsv 2>log.txt && [ -s default.tsv ] && ok default_run || { fail default_run; cat log.txt; }
[ "$(awk -F'\t' '{print NF}' default.tsv | sort -u)" = 12 ] && ok twelve_columns || fail twelve_columns
[ "$(cut -f1 default.tsv | sort | uniq -c | awk '{print $1}' | sort -u)" = 10 ] && ok ten_hits_per_query || fail ten_hits_per_query
grep -q $'^query1\tdb' default.tsv && ok ids_are_first_words || fail ids_are_first_words
# planted relatives come first, with a small E-value
awk -F'\t' 'NR==1 && $2 ~ /^db(50|100|150|200|250|300)$/ && $11 < 1e-10 {f=1} END {exit !f}' default.tsv && ok planted_hit_first || fail planted_hit_first

"$hyalign" search -q queries.fa -d db.fa -k 3 --outfmt '6 qseqid sseqid score qlen slen' -o custom.tsv 2>/dev/null
[ "$(wc -l <custom.tsv)" = 9 ] && [ "$(awk -F'\t' '{print NF}' custom.tsv | sort -u)" = 5 ] && ok custom_columns_and_k || fail custom_columns_and_k
# -e keeps, of the top -k hits, those with an E-value of at most its value (BLAST's -evalue).
"$hyalign" search -q queries.fa -d db.fa -k 20 -e 0.4 -o evalue_cut.tsv 2>/dev/null
"$hyalign" search -q queries.fa -d db.fa -k 20 -o evalue_all.tsv 2>/dev/null
[ -s evalue_cut.tsv ] && [ "$(wc -l <evalue_cut.tsv)" -lt "$(wc -l <evalue_all.tsv)" ] &&
  [ "$(cat evalue_cut.tsv)" = "$(awk -F'\t' '$11 <= 0.4' evalue_all.tsv)" ] && ok evalue_threshold || fail evalue_threshold
# scores descend within each query
awk -F'\t' '$1 == last && $3 > prev {bad=1} {last=$1; prev=$3} END {exit bad}' custom.tsv && ok sorted_by_score || fail sorted_by_score

# the same search through gzip, a makedb database, tiny streaming chunks, and every kernel
gzip -c db.fa >db.fa.gz
"$hyalign" search -q queries.fa -d db.fa.gz -o gz.tsv 2>/dev/null && cmp -s gz.tsv default.tsv && ok gzip_database || fail gzip_database
"$hyalign" search makedb -i db.fa -o db.hydb --chunk-mb 0 2>/dev/null
"$hyalign" search -q queries.fa -d db.hydb -o hydb.tsv 2>/dev/null && cmp -s hydb.tsv default.tsv && ok makedb_database || fail makedb_database
# stitle: the subject's id and description, from FASTA and from makedb, a tab in it a space.
printf '>q\nMKTAYIAKQRQISFVKSHFSRQLEERLG\n' >title_q.fa
printf '>t1 a\tplanted  copy\nGGGMKTAYLAKQRQISSFVKSHFSRQLEERLGWWW\n' >title.fa
"$hyalign" search makedb -i title.fa -o title.hydb 2>/dev/null
for db in title.fa title.hydb; do
  [ "$("$hyalign" search -q title_q.fa -d $db --outfmt '6 sseqid stitle' 2>/dev/null)" = $'t1\tt1 a planted  copy' ] &&
    ok "stitle_${db#*.}" || fail "stitle_${db#*.}"
done
"$hyalign" search -q queries.fa -d db.fa --chunk-mb 0 -o chunks.tsv 2>/dev/null && cmp -s chunks.tsv default.tsv && ok streaming_chunks || fail streaming_chunks
for k in scalar avx2 avx512; do
  if "$hyalign" search -q queries.fa -d db.fa --kernel $k -o k.tsv 2>k.log; then
    cmp -s k.tsv default.tsv && ok "kernel_$k" || fail "kernel_$k"
  elif grep -q 'instruction set this CPU lacks' k.log; then echo "SKIPPED kernel_$k: $(cat k.log)"; else fail "kernel_$k"; fi
done

# every device choice gives the same output; without a usable GPU, --device gpu is an error and
# auto/all fall back to the CPU with one notice
for device in cpu auto all; do
  "$hyalign" search -q queries.fa -d db.fa --device $device -o dev.tsv 2>dev.log && cmp -s dev.tsv default.tsv &&
    ok "device_$device" || { fail "device_$device"; cat dev.log; }
done
rm -f dev.tsv
if "$hyalign" search -q queries.fa -d db.fa --device gpu -o dev.tsv 2>dev.log; then
  cmp -s dev.tsv default.tsv && ok device_gpu || fail device_gpu
  "$hyalign" search -q queries.fa -d db.fa --chunk-mb 0 --device gpu -o dev.tsv 2>/dev/null && cmp -s dev.tsv default.tsv &&
    ok device_gpu_streaming || fail device_gpu_streaming
else
  grep -q 'no usable GPU' dev.log && [ ! -e dev.tsv ] && echo "SKIPPED device_gpu: $(cat dev.log)" || fail device_gpu
fi

# --outfmt takes BLAST's "std" (the 12 default columns) and tabs between its words.
"$hyalign" search -q queries.fa -d db.fa -o std.tsv 2>/dev/null
"$hyalign" search -q queries.fa -d db.fa --outfmt '6 std qlen' -o std_qlen.tsv 2>/dev/null
"$hyalign" search -q queries.fa -d db.fa --outfmt $'6\tqseqid\tsseqid' -o tabs.tsv 2>/dev/null
[ -s std.tsv ] && [ "$(cut -f 1-12 std_qlen.tsv)" = "$(cat std.tsv)" ] && [ "$(cut -f 1-2 std.tsv)" = "$(cat tabs.tsv)" ] &&
  ok outfmt_std_and_tabs || fail outfmt_std_and_tabs

# DNA is detected from the queries
printf '>d1\nACGTACGTTTGACCA\n' >dna_q.fa
printf '>t1\nGGGACGTACGTTTGACCAGGG\n>t2\nTTTTTTTT\n' >dna_db.fa
"$hyalign" search -q dna_q.fa -d dna_db.fa --outfmt '6 qseqid sseqid score' -o dna.tsv 2>/dev/null
[ "$(head -1 dna.tsv)" = $'d1\tt1\t30' ] && ok dna_detected_and_scored || { fail dna_detected_and_scored; cat dna.tsv; }
# Both strands of a DNA query by default, as blastn: a hit of its reverse complement is on the minus
# strand, with the query's own positions and the subject's from end to start; --strand picks one.
printf '>rc\nTTTTTTTTGGTCAAACGTACGTGGG\n' >dna_rc_db.fa
dna_rows() { "$hyalign" search -q dna_q.fa -d dna_rc_db.fa "$@" --outfmt '6 qseqid sseqid qstart qend sstart send score sstrand' 2>/dev/null; }
[ "$(dna_rows | head -1)" = $'d1\trc\t1\t15\t22\t8\t30\tminus' ] && ok dna_minus_strand_hit || { fail dna_minus_strand_hit; dna_rows; }
# qseq and sseq show a minus-strand hit on the query's strand, the subject's letters complemented.
letters=$("$hyalign" search -q dna_q.fa -d dna_rc_db.fa --outfmt '6 sstrand qseq sseq' 2>/dev/null | head -1)
[ "$letters" = $'minus\tACGTACGTTTGACCA\tACGTACGTTTGACCA' ] && ok dna_minus_strand_letters ||
  { fail dna_minus_strand_letters; echo "$letters"; }
# positive counts the pairs the matrix scores above 0 (BLOSUM62: I-L is 2), nident the equal ones.
printf '>q\nMKTAYIAKQRQISFVKSHFSRQLEERLG\n' >positive_q.fa
printf '>t\nGGGMKTAYLAKQRQISSFVKSHFSRQLEERLGWWW\n' >positive_t.fa
[ "$("$hyalign" search -q positive_q.fa -d positive_t.fa --outfmt '6 qseq sseq positive nident' 2>/dev/null)" = \
  $'MKTAYIAKQRQI-SFVKSHFSRQLEERLG\tMKTAYLAKQRQISSFVKSHFSRQLEERLG\t28\t27' ] && ok aligned_letters_and_positives ||
  fail aligned_letters_and_positives
# ppos is positive over length (BLAST's two decimals); qcovhsp the query's share in the hit, a whole
# percent rounded half up, but never 100 short of the whole query.
[ "$("$hyalign" search -q positive_q.fa -d positive_t.fa --outfmt '6 ppos qcovhsp' 2>/dev/null)" = $'96.55	100' ] &&
  ok ppos_and_whole_query_cover || fail ppos_and_whole_query_cover
awk 'BEGIN { srand(11); aa = "ACDEFGHIKLMNQRSTVWY"; s = "";
  for (i = 0; i < 199; i++) s = s substr(aa, int(rand() * 19) + 1, 1);
  print ">q40\nPPPPPPPPPPPPPPP" substr(s, 1, 25) > "cover_q.fa"; print ">q200\nP" s > "cover_q.fa";
  print ">t\nGGG" s "WWW" > "cover_t.fa" }'
[ "$("$hyalign" search -q cover_q.fa -d cover_t.fa --outfmt '6 qseqid qcovhsp qcovs' 2>/dev/null)" = $'q40\t63\t63\nq200\t99\t99' ] &&
  ok query_cover_rounding || { fail query_cover_rounding; "$hyalign" search -q cover_q.fa -d cover_t.fa --outfmt '6 qseqid qcovhsp qcovs'; }
# qcovs: the query letters that all the query's hits on one subject cover, on either strand.
awk 'BEGIN { srand(5); for (i = 0; i < 41; i++) s = s substr("ACGT", int(rand() * 4) + 1, 1);
  x = substr(s, 1, 20); y = substr(s, 21); rc = ""; for (i = 21; i >= 1; i--) rc = rc substr("TGCA", index("ACGT", substr(y, i, 1)), 1);
  print ">q\n" x "CCCCCCCCC" y > "strands_q.fa"; print ">t\nGGGGG" x "TTTTTTTT" rc "AAAAA" > "strands_t.fa" }'
[ "$("$hyalign" search -q strands_q.fa -d strands_t.fa --outfmt '6 sstrand qstart qend qcovhsp qcovs' 2>/dev/null)" = \
  $'minus\t30\t50\t42\t82\nplus\t1\t20\t40\t82' ] && ok subject_cover_of_both_strands ||
  { fail subject_cover_of_both_strands; "$hyalign" search -q strands_q.fa -d strands_t.fa --outfmt '6 sstrand qstart qend qcovhsp qcovs'; }
[ "$(dna_rows --strand plus)" = "$(dna_rows | grep -w plus)" ] && [ "$(dna_rows --strand minus)" = "$(dna_rows | grep -w minus)" ] &&
  ok dna_strand_option || { fail dna_strand_option; dna_rows --strand plus; }

# bad input: one error line, non-zero exit, no output file
expect_error() {
  local name=$1; shift
  rm -f out.tsv
  "$hyalign" search "$@" -o out.tsv >/dev/null 2>err.txt
  local code=$?
  if [ $code -ne 0 ] && [ $code -lt 128 ] && [ "$(grep -c . err.txt)" -eq 1 ] && grep -q 'error' err.txt && [ ! -e out.tsv ]; then
    ok "$name: $(cat err.txt)"
  else
    fail "$name (exit $code)"; cat err.txt
  fi
}
: >empty.fa
head -c 3000 /dev/urandom >garbage.bin
printf 'A R N\nA 1 2 3\n' >bad_matrix.txt
head -c 200 db.hydb >truncated.hydb
expect_error empty_queries -q empty.fa -d db.fa
expect_error empty_database -q queries.fa -d empty.fa
expect_error missing_database -q queries.fa -d nope.fa
expect_error garbage_database -q queries.fa -d garbage.bin
expect_error truncated_makedb -q queries.fa -d truncated.hydb
expect_error top_zero -q queries.fa -d db.fa -k 0
expect_error unknown_matrix -q queries.fa -d db.fa -m BLOSUM999
expect_error malformed_matrix_file -q queries.fa -d db.fa -m bad_matrix.txt
expect_error unknown_column -q queries.fa -d db.fa --outfmt '6 qseqid nonsense'
expect_error evalue_without_statistics -q queries.fa -d db.fa -e 1 --gap-open 3
expect_error evalue_nan -q queries.fa -d db.fa -e nan

# letters outside the alphabet: read as X with one warning
printf '>odd\nMKV1LLJ\n' >odd.fa
"$hyalign" search -q odd.fa -d db.fa -o odd.tsv 2>odd.log && grep -q 'warning: .*read as X' odd.log && ok unknown_letters_warned || fail unknown_letters_warned

# E-values and bit scores as BLAST+ 2.12 prints them (tests/data/blast/README.md): every hit for which
# hyalign finds BLAST's raw score shows BLAST's evalue and bitscore text, and every hit BLAST reports
# is among hyalign's (-k covers the database).
same_as_blast() {  # NAME BLAST_OUTPUT HYALIGN_OUTPUT MIN_COMPARED
  awk -F'\t' -v name="$1" -v min="$4" '
    NR == FNR { score[$1 FS $2] = $5; text[$1 FS $2] = $3 " " $4; next }
    !(($1 FS $2) in score) { missing++; next }
    score[$1 FS $2] == $5 {
      compared++
      if (text[$1 FS $2] != $3 " " $4 && ++wrong <= 5) print "  " $1, $2, "score " $5 ": BLAST " $3 " " $4 ", hyalign " text[$1 FS $2]
    }
    END {
      printf "  %s: %d of %d BLAST hits compared, %d differ, %d missing\n", name, compared, FNR, wrong, missing
      exit !(compared >= min && wrong == 0 && missing == 0)
    }' "$3" "$2" && ok "$1" || fail "$1"
}
columns='6 qseqid sseqid evalue bitscore score qlen slen'
"$hyalign" search -q "$data/blast/protein_queries.fasta" -d "$data/blast/proteins.fasta" -k 1000 --outfmt "$columns" \
  -o blastp_like.tsv 2>/dev/null
same_as_blast evalues_as_blastp "$data/blast/blastp.tsv" blastp_like.tsv 3000
"$hyalign" search -q "$data/blast/dna_queries.fasta" -d "$data/papara/q2_16S/ref.fasta" --strand plus -k 1000 --outfmt "$columns" \
  -o blastn_like.tsv 2>/dev/null
same_as_blast evalues_as_blastn "$data/blast/blastn.tsv" blastn_like.tsv 3400

finish search
