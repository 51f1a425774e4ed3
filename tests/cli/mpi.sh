#!/usr/bin/env bash
# Every tool under mpirun on the CPU: the output of 2 and 3 ranks is byte for byte that of one
# process, with enough units that every rank works and with fewer units than ranks; a rank that
# fails ends the job with an error naming it and no output file. Skipped (77) where hyalign was
# built without MPI or mpirun is missing.
# usage: mpi.sh HYALIGN DATA_DIR HAVE_MPI (ON when hyalign was built with MPI)
set -u
hyalign=$(realpath "$1")
data=$(realpath "$2")
[ "${3:-}" = ON ] || { echo "SKIPPED: hyalign was built without MPI (Debian: libopenmpi-dev)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIPPED: mpirun is not installed (Debian: openmpi-bin)"; exit 77; }
source "$(dirname "$0")/harness.sh"
# --oversubscribe: more ranks than this machine's cores; root is allowed (CI containers run as root).
# Open MPI leaves memory allocated at MPI_Finalize: leak checks (a sanitized build) are for one process.
# A job that has not ended in $mpi_limit s is killed (-k: also when mpirun ignores the TERM), and
# the processes still there are listed on the test's own output (fd 3), for the log.
mpi_limit=120
exec 3>&1
mpi() {
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    timeout -k 10 "$mpi_limit" mpirun --oversubscribe --allow-run-as-root --bind-to none "$@"
  local code=$?
  if [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then
    echo "mpirun had not ended after $mpi_limit s (exit $code): $*" >&3
    ps -eo pid,ppid,stat,etime,wchan:20,args --forest | grep -E 'mpirun|orted|hyalign' | grep -v grep >&3
  fi
  return "$code"
}

# ---- inputs: a random 100 kbp genome, reads from it, proteins ----
awk 'BEGIN { srand(11); for (c = 1; c <= 2; c++) { s = ""; for (i = 0; i < 50000; i++) s = s substr("ACGT", int(rand() * 4) + 1, 1);
  print ">chr" c " genome"; for (i = 1; i <= length(s); i += 70) print substr(s, i, 70) } }' >genome.fa
awk 'BEGIN { srand(5) } /^>/ { next } { g = g $0 }
  END { for (r = 1; r <= 3000; r++) { p = int(rand() * (length(g) - 200)) + 1; s = substr(g, p, 100 + int(rand() * 50));
    for (k = 1; k <= 3; k++) { i = int(rand() * length(s)) + 1; s = substr(s, 1, i - 1) substr("ACGT", int(rand() * 4) + 1, 1) substr(s, i + 1) }
    print ">r" r; print s } }' genome.fa >reads.fa
# Pairs (insert 300-500); every other block of 60 pairs has 50 mates of random letters, so the parts
# there have too few pairs for an estimate and take the insert sizes of the part before: a rank
# that did not receive them from the rank before would write other records.
awk 'function rc(s,  i, o, c) { o = ""; for (i = length(s); i > 0; i--) { c = substr(s, i, 1); o = o (c == "A" ? "T" : c == "C" ? "G" : c == "G" ? "C" : "A") } return o }
  function mutate(s,  k, i) { for (k = 0; k < 2; k++) { i = int(rand() * length(s)) + 1; s = substr(s, 1, i - 1) substr("ACGT", int(rand() * 4) + 1, 1) substr(s, i + 1) } return s }
  function random_letters(n,  s, i) { s = ""; for (i = 0; i < n; i++) s = s substr("ACGT", int(rand() * 4) + 1, 1); return s }
  BEGIN { srand(9) } /^>/ { next } { g = g $0 }
  END { q = ""; for (i = 0; i < 100; i++) q = q "I";
    for (r = 1; r <= 1200; r++) { f = 300 + int(rand() * 200); p = int(rand() * (length(g) - f)) + 1; frag = substr(g, p, f);
      a = mutate(substr(frag, 1, 100)); b = mutate(rc(substr(frag, f - 99, 100)));
      if (int((r - 1) / 60) % 2 == 1 && (r - 1) % 60 >= 10) b = random_letters(100);
      if (rand() < 0.5) { t = a; a = b; b = t }
      print "@p" r "/1\n" a "\n+\n" q > "pairs_1.fq"; print "@p" r "/2\n" b "\n+\n" q > "pairs_2.fq" } }' genome.fa
awk 'BEGIN { srand(7); aa = "ARNDCQEGHILKMFPSTWYV";
  for (q = 1; q <= 11; q++) { s = ""; n = 60 + 17 * q; for (i = 0; i < n; i++) s = s substr(aa, int(rand() * 20) + 1, 1);
    query[q] = s; print ">query" q " description" > "proteins.fa"; print s > "proteins.fa" }
  for (d = 1; d <= 400; d++) { s = ""; n = 20 + int(rand() * 400); for (i = 0; i < n; i++) s = s substr(aa, int(rand() * 20) + 1, 1);
    if (d % 40 == 0) { q = (d / 40) % 11 + 1; s = substr(s, 1, 30) substr(query[q], 5, 50) "WW" substr(query[q], 60) }
    print ">db" d " text"; print s } }' >protein_db.fa
head -n 4 proteins.fa >two_proteins.fa
# For --split-database: protein_db.fa, one more sequence, then protein_db.fa again under other
# names, so that hits tie with a copy 401 sequences later (in another rank's chunk at 2 and 3
# ranks); letters outside BLOSUM62 (J, O) in both halves, for the warning's totals.
{ cat protein_db.fa; printf '>extra\nMKV\n'; sed 's/^>db/>copy/' protein_db.fa; } |
  awk '!/^>/ && NR % 50 == 0 { $0 = $0 "JO" } { print }' >split_db.fa
q2=$data/papara/q2_16S
awk '/^>/ { n++ } n <= 1' "$q2/query.fasta" >one_16S.fa

# same NAME OUTPUT -- hyalign args: runs them in 1/, 2/ and 3/ (the same command line, so the same
# @PG line) as one process and as 2 and 3 ranks; the output files must be identical.
same() {
  local name=$1 output=$2
  shift 3
  for n in 1 2 3; do
    rm -rf "$n" && mkdir "$n"
    if [ "$n" = 1 ]; then (cd "$n" && "$hyalign" "$@" 2>err.txt); else (cd "$n" && mpi -np "$n" "$hyalign" "$@" 2>err.txt); fi
    local code=$?
    [ "$code" -eq 0 ] || { fail "$name: exit $code with $n rank(s)"; tail -5 "$n/err.txt"; return; }
  done
  if cmp -s "1/$output" "2/$output" && cmp -s "1/$output" "3/$output" && [ -s "1/$output" ]; then
    ok "$name: $(grep -c 'rank .: 0 units' 3/err.txt) of 3 ranks without a unit"
  else
    fail "$name: outputs differ"
  fi
}

same "papara: 60 queries" out.phy -- papara -t "$q2/ref.unrooted.nwk" -s "$q2/ref.phy" -q "$q2/gut60.fas" -o out.phy -j 1
# The job's scoring rate counts every rank's cells: as many as one process scores.
one_cells=$(sed -n 's/.*scored 60 queries against [0-9]* branches: \([^ ]*\) cells.*/\1/p' 1/err.txt)
job_cells=$(sed -n 's/.*scoring on 3 ranks: \([^ ]*\) cells.*/\1/p' 3/err.txt)
[ -n "$one_cells" ] && [ "$job_cells" = "$one_cells" ] && ok "papara: the job's GCUPS over 3 ranks' $job_cells cells" ||
  fail "papara: the job's cells '$job_cells' against one process's '$one_cells'"
same "papara: 1 query" out.phy -- papara -t "$q2/ref.unrooted.nwk" -s "$q2/ref.phy" -q ../one_16S.fa -o out.phy -j 1
same "papara: PaPaRa's files" papara_alignment.X -- papara -t "$q2/ref.unrooted.nwk" -s "$q2/ref.phy" -q "$q2/gut60.fas" -n X -j 1
same "search: 11 queries" out.tsv -- search -q ../proteins.fa -d ../protein_db.fa -t 1 -o out.tsv
# Each rank's line gives its cells and scoring seconds (a late rank: more work, or slower); their
# cells add up to the job's.
awk '/searched .* cells in/ { for (i = 1; i < NF; ++i) if ($(i + 1) == "cells" && $(i + 2) == "in") job = $i }
     /^ *rank .: .* cells in [0-9.]+ s;/ { for (i = 1; i < NF; ++i) if ($(i + 1) == "cells") sum += $i; ranks++ }
     END { exit !(ranks == 3 && job > 0 && sum > 0.99 * job && sum < 1.01 * job) }' 3/err.txt &&
  ok "search: each rank's cells and seconds, adding up to the job's" ||
  { fail "search: each rank's cells and seconds"; grep -E 'rank .:|searched' 3/err.txt; }
same "search: 2 queries" out.tsv -- search -q ../two_proteins.fa -d ../protein_db.fa -t 1 -o out.tsv

# same_split NAME -- search args: with --split-database, the output of 2 and 3 ranks is byte for
# byte that of one process without it, and so is the warning about letters outside the alphabet.
same_split() {
  local name=$1
  shift 2
  rm -rf 1 2 3 && mkdir 1 2 3
  (cd 1 && "$hyalign" "$@" -o out.tsv 2>err.txt) || { fail "$name: exit $? with one process"; tail -5 1/err.txt; return; }
  for n in 2 3; do
    (cd "$n" && mpi -np "$n" "$hyalign" "$@" --split-database -o out.tsv 2>err.txt)
    local code=$?
    [ "$code" -eq 0 ] || { fail "$name: exit $code with $n ranks"; tail -5 "$n/err.txt"; return; }
  done
  local warning
  warning=$(grep warning 1/err.txt)
  if cmp -s 1/out.tsv 2/out.tsv && cmp -s 1/out.tsv 3/out.tsv && [ -s 1/out.tsv ] &&
    [ "$(grep warning 2/err.txt)" = "$warning" ] && [ "$(grep warning 3/err.txt)" = "$warning" ]; then
    ok "$name: $(grep -c 'rank .: 0 of' 3/err.txt) of 3 ranks without a chunk"
  else
    fail "$name: outputs differ"
  fi
}

same_split "search --split-database: 801 one-sequence chunks, ties across ranks" -- \
  search -q ../proteins.fa -d ../split_db.fa -t 1 --chunk-mb 0 -k 3
same_split "search --split-database: -k above the hits of a rank" -- \
  search -q ../proteins.fa -d ../protein_db.fa -t 1 --chunk-mb 0 -k 1000
same_split "search --split-database: aligned letters, sent between ranks" -- \
  search -q ../proteins.fa -d ../protein_db.fa -t 1 --chunk-mb 0 -k 20 --outfmt '6 std positive qseq sseq'
"$hyalign" search makedb -i protein_db.fa -o one_chunk.hydb 2>/dev/null
"$hyalign" search makedb -i split_db.fa -o chunks.hydb --chunk-mb 0 2>/dev/null
same_split "search --split-database: a makedb database of 1 chunk" -- \
  search -q ../two_proteins.fa -d ../one_chunk.hydb -t 1
same_split "search --split-database: a makedb database of 801 chunks" -- \
  search -q ../proteins.fa -d ../chunks.hydb -t 1 -k 5
same "mem: 4 batches" out.txt -- mem -b -c -L -t 1 --batch-letters 100000 ../genome.fa ../reads.fa -o out.txt
same "mem: 1 batch" out.txt -- mem -maxmatch -t 1 ../genome.fa ../reads.fa -o out.txt
if "$hyalign" map --help >/dev/null 2>&1; then
  same "map: pairs, 20 batches" out.sam -- map -t 1 -K 12000 ../genome.fa ../pairs_1.fq ../pairs_2.fq -o out.sam
  same "map: pairs to BAM" out.bam -- map -t 1 -K 12000 ../genome.fa ../pairs_1.fq ../pairs_2.fq -o out.bam
  # The ranks pass over each other's batches: of gzip files, of interleaved pairs.
  gzip -c pairs_1.fq >pairs_1.fq.gz && gzip -c pairs_2.fq >pairs_2.fq.gz
  paste -d '\n' <(paste - - - - <pairs_1.fq) <(paste - - - - <pairs_2.fq) | tr '\t' '\n' >pairs_12.fq
  same "map: gzip pairs" out.sam -- map -t 1 -K 9000 ../genome.fa ../pairs_1.fq.gz ../pairs_2.fq.gz -o out.sam
  same "map: interleaved pairs" out.sam -- map -t 1 -K 9000 -p ../genome.fa ../pairs_12.fq -o out.sam
  same "map: single reads, 1 batch" out.sam -- map -t 1 ../genome.fa ../reads.fa -o out.sam
fi

# fails NAME EXIT PATTERN -- mpirun args: the job exits with EXIT, stderr has PATTERN (naming the
# rank), and no output file or temporary is left in f/.
fails() {
  local name=$1 expected=$2 pattern=$3
  shift 4
  rm -rf f && mkdir f
  (cd f && mpi "$@" >/dev/null 2>err.txt)
  local code=$?
  if [ "$code" -eq "$expected" ] && grep -q -- "$pattern" f/err.txt && [ -z "$(ls -A f | grep -v '^err.txt$')" ]; then
    ok "$name: $(grep -m1 'hyalign: error' f/err.txt)"
  else
    fail "$name: exit $code (expected $expected)"; ls -A f; grep hyalign f/err.txt | head -3
  fi
}

# Open MPI's mpirun binds a rank to one core by default at -np 2 or less; the rank still works on
# every core its process may use (-t 0), as without mpirun. (Where mpirun cannot bind, this holds
# trivially.)
if [ "$(nproc)" -ge 2 ]; then
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout -k 10 "$mpi_limit" \
    mpirun --allow-run-as-root -np 1 "$hyalign" mem --device cpu genome.fa reads.fa -o bound.txt 2>bound.err
  grep -q "scoring on cpu ($(nproc) threads)" bound.err && ok "mpirun's default binding: $(nproc) threads" ||
    fail "mpirun's default binding: $(grep -m1 'scoring on' bound.err) on $(nproc) cores"
fi

awk 'NR == 2003 { print "-"; next } { print }' pairs_1.fq >broken_1.fq  # a FASTQ '+' line half-way
fails "a bad option" 2 'error: rank [0-9]: -k' -- -np 3 "$hyalign" map -k 0 ../genome.fa ../pairs_1.fq -o out.sam
# An error every rank meets is reported once, by rank 0, whose report ends the job.
[ "$(grep -c 'hyalign: error' f/err.txt)" = 1 ] && grep -q 'error: rank 0: -k' f/err.txt && ok "one error line for the job" ||
  { fail "one error line for the job"; grep 'hyalign: error' f/err.txt; }
fails "bad input half-way" 1 "error: rank [0-9]: ../broken_1.fq:" -- \
  -np 3 "$hyalign" map -t 1 -K 12000 ../genome.fa ../broken_1.fq ../pairs_2.fq -o out.sam
# (the same size as the good file, so that the ranks' inputs pass for the same)
fails "bad input on one rank only" 1 "error: rank 2: ../broken_1.fq:" -- \
  -np 2 "$hyalign" map -t 1 -K 12000 ../genome.fa ../pairs_1.fq ../pairs_2.fq -o out.sam : \
  -np 1 "$hyalign" map -t 1 -K 12000 ../genome.fa ../broken_1.fq ../pairs_2.fq -o out.sam
fails "other inputs on one rank" 2 'input files differ between the ranks' -- \
  -np 2 "$hyalign" search -q ../proteins.fa -d ../protein_db.fa -t 1 -o out.tsv : \
  -np 1 "$hyalign" search -q ../two_proteins.fa -d ../protein_db.fa -t 1 -o out.tsv
# A letter of the last chunk changed (the same size): it is rank 2's of 3, and its checksum fails.
# (The letter there follows awk's random numbers, which differ between awks: W becomes A.)
cp chunks.hydb bad_chunk.hydb
at=$(($(stat -c %s chunks.hydb) - 42))
letter=W
[ "$(dd if=chunks.hydb bs=1 skip=$at count=1 status=none)" = W ] && letter=A
printf '%s' $letter | dd of=bad_chunk.hydb bs=1 seek=$at conv=notrunc status=none
cmp -s chunks.hydb bad_chunk.hydb && fail "the damaged database differs from the good one"
fails "a damaged database chunk on one rank" 1 'error: rank 2: ../bad_chunk.hydb: database chunk 801 is damaged' -- \
  -np 3 "$hyalign" search -q ../proteins.fa -d ../bad_chunk.hydb -t 1 --split-database -o out.tsv
fails "standard input" 2 'not standard input' -- -np 2 "$hyalign" mem ../genome.fa - -o out.txt

finish mpi
