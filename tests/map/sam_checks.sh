#!/usr/bin/env bash
# hyalign map's SAM and BAM checked by samtools on a real genome (the Klebsiella pneumoniae HS11286
# assembly in kleborate-examples: chromosome and six plasmids) with reads simulated by dwgsim:
# quickcheck, flagstat, sort + index, calmd (no NM/MD disagreement), every record's AS re-scored
# from its CIGAR, MD and SEQ, and the same output at 1 and 2 threads. Skipped (77) without the
# genome, dwgsim or samtools.
# usage: sam_checks.sh HYALIGN
set -euo pipefail
hyalign=$(realpath "$1")
genome=/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz
for need in dwgsim samtools xz; do
  command -v "$need" >/dev/null || { echo "skipped: $need is not installed"; exit 77; }
done
[ -f "$genome" ] || { echo "skipped: $genome is missing (Debian package kleborate-examples)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
xz -dc "$genome" >ref.fa
dwgsim -z 13 -N 3000 -1 150 -2 150 -e 0.01 -E 0.01 -r 0.002 -R 0.3 -d 400 -s 40 -S 2 ref.fa pe >/dev/null 2>&1
dwgsim -z 14 -N 3000 -1 100 -2 0 -e 0.01 -r 0.002 -R 0.3 ref.fa se >/dev/null 2>&1
"$hyalign" map index ref.fa -o ref.hymi 2>/dev/null
failures=0
check() {  # NAME COMMAND...: runs it, reports
  local name=$1
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
}
"$hyalign" map -t 2 -R '@RG\tID:pe\tSM:kp' ref.hymi pe.bwa.read1.fastq.gz pe.bwa.read2.fastq.gz >pe.sam 2>pe.log
"$hyalign" map -t 1 -R '@RG\tID:pe\tSM:kp' ref.hymi pe.bwa.read1.fastq.gz pe.bwa.read2.fastq.gz >pe1.sam 2>/dev/null
"$hyalign" map -t 2 -a -o se.bam ref.fa se.bwa.read1.fastq.gz 2>se.log
"$hyalign" map -t 2 -a -l 9 -o se_small.bam ref.hymi se.bwa.read1.fastq.gz 2>/dev/null

check "quickcheck SAM" samtools quickcheck pe.sam
check "quickcheck BAM" samtools quickcheck se.bam
check "BAM at -l 9: the same records" cmp -s <(samtools view se.bam) <(samtools view se_small.bam)
check "BAM at -l 9: smaller" test "$(stat -c %s se_small.bam)" -lt "$(stat -c %s se.bam)"
records() { samtools view -c "$@"; }
check "every pair's two ends, in input order" \
  test "$(samtools view -F 0x900 pe.sam | awk 'NR % 2 == 1 { n = $1 } NR % 2 == 0 && $1 != n { bad++ } END { print bad + 0 }')" = 0
check "primary records: 6000 paired, 3000 single" test "$(records -F 0x900 pe.sam) $(records -F 0x900 se.bam)" = "6000 3000"
check "read group on every record" test "$(samtools view pe.sam | grep -vc $'\tRG:Z:pe')" = 0
check "@PG has the command line" grep -q $'^@PG\tID:hyalign.*CL:.*map -t 2' pe.sam
samtools flagstat pe.sam >flagstat.txt
check "flagstat: most reads properly paired" awk '/properly paired/ { split($6, p, "("); exit !(p[2] + 0 > 85) }' flagstat.txt
check "sort and index" sh -c 'samtools sort -o sorted.bam pe.sam 2>/dev/null && samtools index sorted.bam'
check "region query after indexing" test "$(samtools view -c sorted.bam CP003223.1)" -gt 0
for f in pe.sam se.bam; do
  samtools calmd "$f" ref.fa >/dev/null 2>calmd.err || true
  check "calmd finds no NM/MD disagreement in $f" test "$(grep -c 'different' calmd.err)" = 0
done
# AS from CIGAR, MD and SEQ with the default scores (match 1, mismatch 4, N 1, gap 6 + 1/letter).
rescore() {
  samtools view -F 4 "$1" | awk -F '\t' '
    $10 == "*" { next }
    { as = ""; md = ""
      for (i = 12; i <= NF; i++) { if ($i ~ /^AS:i:/) as = substr($i, 6); if ($i ~ /^MD:Z:/) md = substr($i, 6) }
      # read letters of aligned (M) columns, in order, and gap costs
      seq = $10; cig = $6; q = 1; aligned = ""; score = 0
      while (match(cig, /^[0-9]+[MIDSH]/)) {
        n = substr(cig, 1, RLENGTH - 1) + 0; op = substr(cig, RLENGTH, 1); cig = substr(cig, RLENGTH + 1)
        if (op == "M") { aligned = aligned substr(seq, q, n); q += n }
        else if (op == "I") { q += n; score -= 6 + n }
        else if (op == "S") q += n
        else if (op == "D") score -= 6 + n
      }
      # walk MD over the aligned letters
      k = 1
      while (md != "") {
        if (match(md, /^[0-9]+/)) { n = substr(md, 1, RLENGTH) + 0; md = substr(md, RLENGTH + 1)
          for (j = 0; j < n; j++) { score += (substr(aligned, k, 1) == "N") ? -1 : 1; k++ } }
        else if (match(md, /^\^[A-Z]+/)) md = substr(md, RLENGTH + 1)
        else { r = substr(md, 1, 1); md = substr(md, 2)
          score += (r == "N" || substr(aligned, k, 1) == "N") ? -1 : -4; k++ }
      }
      if (score != as) { bad++; if (bad < 5) print "AS " as " but re-scored " score ": " $1 " " $6 " " $0 > "/dev/stderr" }
      n_checked++ }
    END { print bad + 0; if (n_checked < 1000) print "too few records checked: " n_checked > "/dev/stderr" }'
}
check "AS re-scores from CIGAR, MD and SEQ (paired)" test "$(rescore pe.sam)" = 0
check "AS re-scores (single, BAM, secondary records too)" test "$(rescore se.bam)" = 0
# XA: each listed place as a record of its own (the read's letters on that strand), which calmd
# checks against the genome: its NM must be the edit distance there.
samtools view pe.sam | awk -F '\t' 'BEGIN { OFS = "\t"; c["A"] = "T"; c["C"] = "G"; c["G"] = "C"; c["T"] = "A"; c["N"] = "N" }
  { for (i = 12; i <= NF; i++) if ($i ~ /^XA:Z:/) {
      n = split(substr($i, 6), places, ";")
      for (k = 1; k < n; k++) {
        split(places[k], f, ","); strand = substr(f[2], 1, 1); seq = $10
        if ((strand == "-") != (int($2 / 16) % 2 == 1)) { r = ""; for (j = length(seq); j > 0; j--) r = r c[substr(seq, j, 1)]; seq = r }
        print $1 "_xa" k, strand == "-" ? 16 : 0, f[1], substr(f[2], 2), 0, f[3], "*", 0, 0, seq, "*", "NM:i:" f[4]
      } } }' >xa_places.txt
check "XA places listed" test "$(wc -l <xa_places.txt)" -gt 10
(grep '^@SQ' pe.sam; cat xa_places.txt) >xa_places.sam
samtools calmd xa_places.sam ref.fa >/dev/null 2>xa_calmd.err || true
check "calmd finds no NM disagreement in the XA places" test "$(grep -c 'different' xa_calmd.err)" = 0
check "same records at 1 and 2 threads" cmp -s <(grep -v '^@PG' pe.sam) <(grep -v '^@PG' pe1.sam)
check "secondary records with -a" test "$(records -f 0x100 se.bam)" -gt 0
# -C: a barcode in each read's comment goes on all of its records, BAM included.
zcat se.bwa.read1.fastq.gz | awk 'NR % 4 == 1 { n = $1; sub(/\/[12]$/, "", n); $0 = $1 "\tBC:Z:" substr(n, length(n) - 3) } 1' >se_bc.fq
"$hyalign" map -t 2 -a -C -o se_bc.bam ref.hymi se_bc.fq 2>/dev/null
check "quickcheck BAM with comment tags (-C)" samtools quickcheck se_bc.bam
check "each record carries its read's comment tag (-C)" \
  test "$(samtools view se_bc.bam | awk '{ bc = ""; for (i = 12; i <= NF; i++) if ($i ~ /^BC:Z:/) bc = substr($i, 6) }
    bc != substr($1, length($1) - 3) { bad++ } END { print bad + 0 " " NR }')" = "0 $(records se.bam)"
echo "sam_checks: $failures failed"
[ "$failures" -eq 0 ]
