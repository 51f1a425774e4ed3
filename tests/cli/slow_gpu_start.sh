#!/usr/bin/env bash
# A CUDA start that takes long must not hold up a small job. A stand-in CUDA driver
# (libcuda.so.1 on LD_LIBRARY_PATH, which CUDA's runtime loads first) marks that it was called and
# sleeps before it says there is no driver. With --device cpu and auto, each tool must end long
# before that, with the CPU's output and exit 0; --device gpu must wait for it and then fail as it
# does without a GPU. A small job with auto must not start CUDA at all (a real driver's call in
# flight holds the process's exit), whether its size shows in its files or only as it is read.
# usage: slow_gpu_start.sh HYALIGN DATA HAVE_CUDA   (skipped, 77, without CUDA or a C compiler)
set -u
hyalign=$(realpath "$1")
data=$(realpath "$2")
[ "$3" = ON ] || { echo "SKIPPED: hyalign was built without CUDA"; exit 77; }
compiler=$(command -v cc || command -v gcc) || { echo "SKIPPED: no C compiler for the stand-in driver"; exit 77; }
source "$(dirname "$0")/harness.sh"

readonly start_seconds=8
cat >driver.c <<EOF
#include <stdio.h>
#include <unistd.h>
int cuGetProcAddress_v2(const char* name, void** fn, int version, unsigned long long flags, int* status) {
  static int calls = 0;
  (void)name; (void)version; (void)flags;
  if (calls++ == 0) {
    FILE* mark = fopen("$PWD/driver_called", "w");
    if (mark) fclose(mark);
    sleep($start_seconds);
  }
  *fn = 0;
  if (status) *status = 1;
  return 500;
}
EOF
"$compiler" -shared -fPIC -o libcuda.so.1 driver.c || { echo "SKIPPED: the stand-in driver did not build"; exit 77; }
slow() { rm -f driver_called; LD_LIBRARY_PATH="$PWD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
seconds() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

papara=$data/papara/q2_16S
head -n 20 "$papara/gut500.fasta" >reads.fasta
printf '>query1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSVYVDQWDWERVMGDGERQFSTLKSTVEAIWAGIKATEAAVSEEFGLAPFLPDQIHFVHSQELLSRYPDLDAKGRERAIAKDLGAVFLVGIGGKLSDGHRHDVRAPDYDDWSTPSELGHAGLNGDILVWNPVLEDAFELSSMGIRVDADTLKHQLALTGDEDRLELEWHQALLRGEMPQTIGGGIGQSRLTMLLLQLPHIGQVQAGVWPAACRESCGTLT\n' >query.fa
awk 'BEGIN { srand(3); aa = "ARNDCQEGHILKMFPSTWYV";
  for (d = 1; d <= 500; d++) { s = ""; n = 50 + int(rand() * 300);
    for (i = 0; i < n; i++) s = s substr(aa, int(rand() * 20) + 1, 1); print ">db" d; print s } }' >db.fa
awk 'BEGIN { srand(5); split("ACGT", b, "");
  s = ""; for (i = 0; i < 20000; i++) s = s b[int(rand() * 4) + 1]; print ">chr\n" s >"genome.fa";
  for (r = 1; r <= 200; r++) { p = int(rand() * 19800); print ">read" r; print substr(s, p + 1, 150) } }' >mem_reads.fa
"$hyalign" mem index genome.fa -o genome.hymi 2>/dev/null || fail mem_index

# took START: whether the run that began at START ended in far less time than the driver's start.
quick() { awk -v t="$(seconds "$1")" -v s="$start_seconds" 'BEGIN { exit !(t < s / 2) }'; }
# name TOOL-ARGUMENTS: with the slow driver, --device cpu never starts CUDA and --device auto does
# not wait for it: both end in far less time than its start, with the same output (map's @PG line
# holds the command line).
small_job() {
  local name=$1 start
  shift
  for device in cpu auto; do
    start=$EPOCHREALTIME
    slow "$hyalign" "$@" --device "$device" -o "$name.$device" 2>"$name.$device.log" ||
      { fail "${name}_${device}_exit"; cat "$name.$device.log"; return; }
    [ -e driver_called ] && mv driver_called "$name.$device.driver_called"
    quick "$start" && ok "${name}_${device}_does_not_wait" ||
      fail "${name}_${device}_does_not_wait ($(seconds "$start") s, the start takes $start_seconds s)"
  done
  cmp -s <(grep -v '^@PG' "$name.cpu") <(grep -v '^@PG' "$name.auto") && ok "${name}_auto_output" ||
    fail "${name}_auto_output"
}
small_job search search -q query.fa -d db.fa
small_job mem mem -maxmatch -l 20 genome.hymi mem_reads.fa
small_job papara papara -t "$papara/ref.unrooted.nwk" -s "$papara/ref.phy" -q reads.fasta
small_job map map genome.hymi mem_reads.fa
# search, mem and map with auto do not start CUDA for jobs too small for the GPUs: jobs that their
# files' sizes show are small, and small jobs whose size shows only as they are read (a pipe, gzip).
# name INPUT TOOL-ARGUMENTS: INPUT through a pipe on standard input, read as "-", and gzipped
size_unknown_job() {
  local name=$1 input=$2 start
  shift 2
  grep -q -- '--device all or gpu uses' "$name.auto.log" && [ ! -e "$name.auto.driver_called" ] &&
    ok "${name}_auto_small_files_start_no_gpus" || fail "${name}_auto_small_files_start_no_gpus"
  start=$EPOCHREALTIME
  cat "$input" | slow "$hyalign" "$@" - --device auto -o "$name.pipe" 2>"$name.pipe.log" || fail "${name}_auto_pipe_exit"
  quick "$start" && ok "${name}_auto_pipe_does_not_wait" || fail "${name}_auto_pipe_does_not_wait ($(seconds "$start") s)"
  grep -q -- '--device all or gpu uses' "$name.pipe.log" && [ ! -e driver_called ] &&
    ok "${name}_auto_small_pipe_starts_no_gpus" || fail "${name}_auto_small_pipe_starts_no_gpus"
  cmp -s <(grep -v '^@PG' "$name.cpu") <(grep -v '^@PG' "$name.pipe") && ok "${name}_auto_pipe_output" ||
    fail "${name}_auto_pipe_output"
  gzip -c "$input" >"$input.gz"
  slow "$hyalign" "$@" "$input.gz" --device auto -o "$name.from_gzip" 2>"$name.gz.log" || fail "${name}_auto_gzip_exit"
  [ ! -e driver_called ] && ok "${name}_auto_small_gzip_starts_no_gpus" || fail "${name}_auto_small_gzip_starts_no_gpus"
  cmp -s <(grep -v '^@PG' "$name.cpu") <(grep -v '^@PG' "$name.from_gzip") && ok "${name}_auto_gzip_output" ||
    fail "${name}_auto_gzip_output"
}
size_unknown_job search query.fa search -d db.fa -q
size_unknown_job mem mem_reads.fa mem -maxmatch -l 20 genome.hymi
size_unknown_job map mem_reads.fa map genome.hymi

# Enough work read from a pipe starts CUDA in the background, and the job does not wait for it:
# mem past 2 M query letters a thread, map from its sixth batch (-K 2000: a batch of 2,000 letters).
# name TOOL-ARGUMENTS
large_pipe_job() {
  local name=$1 start
  shift
  start=$EPOCHREALTIME
  slow "$@" && [ -e driver_called ] && ok "${name}_large_pipe_starts_gpus" || fail "${name}_large_pipe_starts_gpus"
  quick "$start" && ok "${name}_large_pipe_does_not_wait" ||
    fail "${name}_large_pipe_does_not_wait ($(seconds "$start") s)"
}
awk 'BEGIN { srand(7); split("ACGT", b, ""); for (q = 1; q <= 3; q++) { s = "";
  for (i = 0; i < 700000; i++) s = s b[int(rand() * 4) + 1]; print ">q" q; print s } }' >mem_many.fa
large_pipe_job mem_pipe_past_bound \
  bash -c 'cat mem_many.fa | "$0" mem -l 20 -t 1 --device auto genome.hymi - -o mem_many.out 2>/dev/null' "$hyalign"
large_pipe_job map_pipe_past_bound \
  bash -c 'cat mem_reads.fa | "$0" map -K 2000 -t 1 --device auto genome.hymi - -o map_many.sam 2>/dev/null' "$hyalign"
# A search database from a pipe or a small gzip file holds the GPUs: a small one never starts them,
# and a large one does once its first chunk passes 4e9 cells a thread (40 queries × 396 k residues:
# 5.2e9 cells, the first chunk cut at 303 k residues).
for input in pipe gz; do
  if [ $input = pipe ]; then
    cat db.fa | slow "$hyalign" search -q query.fa -d - --device auto -o search_db.pipe.tsv 2>search_db.pipe.log
  else
    gzip -c db.fa >db.fa.gz
    slow "$hyalign" search -q query.fa -d db.fa.gz --device auto -o search_db.gz.tsv 2>search_db.gz.log
  fi && [ ! -e driver_called ] && grep -q -- '--device all or gpu uses' search_db.$input.log &&
    cmp -s search.cpu search_db.$input.tsv && ok search_database_small_${input}_starts_no_gpus ||
    fail search_database_small_${input}_starts_no_gpus
done
for q in $(seq 40); do sed "s/query1/q$q/" query.fa; done >queries40.fa
for copy in 1 2 3 4; do sed "s/>db/>copy${copy}_/" db.fa; done >db4.fa
large_pipe_job search_database_pipe \
  bash -c 'cat db4.fa | "$0" search -q queries40.fa -d - -t 1 --device auto -o search_db4.pipe 2>/dev/null' "$hyalign"

# --device gpu waits for the start, then fails with the usual error and writes nothing.
gpu_job() {
  local name=$1 start
  shift
  start=$EPOCHREALTIME
  if slow "$hyalign" "$@" --device gpu -o "$name.gpu" 2>"$name.gpu.log"; then
    fail "${name}_gpu_fails_without_a_driver"
    return
  fi
  grep -q 'no usable GPU' "$name.gpu.log" && [ ! -e "$name.gpu" ] && ok "${name}_gpu_fails_without_a_driver" ||
    fail "${name}_gpu_fails_without_a_driver"
  quick "$start" && fail "${name}_gpu_waits_for_the_start ($(seconds "$start") s): the stand-in driver was not used" ||
    ok "${name}_gpu_waits_for_the_start"
}
gpu_job search search -q query.fa -d db.fa
gpu_job map map genome.hymi mem_reads.fa
finish slow_gpu_start
