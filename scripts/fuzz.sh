#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a set time on seeds made
# from tests/data; a crash, sanitizer report, leak or unexpected exception fails the run, and its
# input is kept in $FUZZ_DIR/findings/.
# usage: scripts/fuzz.sh [--seconds N] [TARGET...]
#   targets: sequences alignment newick matrix database index outfmt (default: all)
#   --seconds N  time per target (default 60); CI uses a short run, a release 600 or more
#   FUZZ_DIR     where corpora and findings live (default build-fuzz/work; corpora grow across runs)
#   HYALIGN      a hyalign binary that makes the database and index seeds (default: one built in
#                build-fuzz; CI passes the sanitized suite's, which saves building the CLI again)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(sequences alignment newick matrix database index outfmt)
build=build-fuzz
work=${FUZZ_DIR:-$build/work}
data=tests/data

scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHYALIGN_CUDA=OFF -DHYALIGN_FUZZ=ON >/dev/null
hyalign=${HYALIGN:-$build/hyalign}
cli=()
[ -n "${HYALIGN:-}" ] || cli=(hyalign)
cmake --build "$build" -j"$(nproc)" --target "${cli[@]}" "${targets[@]/#/fuzz_}" >/dev/null

# seed NAME: reads a seed on stdin into the target's seed folder.
seed() { mkdir -p "$work/seeds/$target"; cat >"$work/seeds/$target/$1"; }
# Seeds whose first byte is a mode flag for the target: 0 and 1 before the same text.
flagged() { { printf "\\x$1"; cat "$2"; }; }
make_seeds() {
  rm -rf "$work/seeds/$target"
  mkdir -p "$work"
  case "$target" in
    sequences)
      for f in "$data"/papara/*/query.fasta "$data"/sw/queries20.fasta; do
        n=$(basename "$(dirname "$f")")
        head -n 12 "$f" >"$work/tmp-$target"
        flagged 00 "$work/tmp-$target" | seed "$n.fa"
        flagged 01 "$work/tmp-$target" | seed "$n.fa.gz-flag"
        gzip -c "$work/tmp-$target" >"$work/tmp-$target.gz" && flagged 00 "$work/tmp-$target.gz" | seed "$n.gz"
        awk 'NR % 2 == 1 {sub(/^>/, "@"); print; next} {print; print "+"; gsub(/./, "I"); print}' "$work/tmp-$target" \
          >"$work/tmp-$target.fq" && flagged 00 "$work/tmp-$target.fq" | seed "$n.fq"
      done ;;
    alignment)
      for f in "$data"/papara/epa_tiny/aln.phy "$data"/papara/pyrg/ref.phy; do seed "$(basename "$(dirname "$f")").phy" <"$f"; done
      head -n 40 "$data"/papara/q2_16S/ref.fasta | seed q2.fasta ;;
    newick)
      for f in "$data"/papara/*/ref.tre "$data"/papara/*/ref.nwk "$data"/papara/q2_16S/ref.unrooted.nwk; do
        n=$(basename "$(dirname "$f")")-$(basename "$f")
        flagged 00 "$f" | seed "$n.0"
        flagged 01 "$f" | seed "$n.1"
      done ;;
    matrix)
      printf '#  a small NCBI matrix\n   A  R  N  *\nA  4 -1 -2 -4\nR -1  5  0 -4\nN -2  0  6 -4\n* -4 -4 -4  1\n' | seed small
      printf '   A   C   G   T   N\r\nA  2  -3  -3  -3  -2\r\nC -3   2  -3  -3  -2\r\nG -3  -3   2  -3  -2\r\nT -3  -3  -3   2  -2\r\nN -2  -2  -2  -2  -2\r\n' | seed dna_crlf ;;
    database)
      mkdir -p "$work/seeds/$target"
      head -n 10 "$data"/sw/queries20.fasta >"$work/tmp-$target.fa"
      "$hyalign" search makedb -i "$work/tmp-$target.fa" -o "$work/seeds/$target/one_chunk.hydb" 2>/dev/null
      "$hyalign" search makedb -i "$work/tmp-$target.fa" -o "$work/seeds/$target/chunks.hydb" --chunk-mb 0 2>/dev/null ;;
    index)
      mkdir -p "$work/seeds/$target"
      printf '>chr\nACGTACGTTTGACCATGCATGCAAGGTTACGTGG\n>plasmid\nGGGTTTAACNNCGTGATCG\n' >"$work/tmp-$target.fa"
      "$hyalign" mem index "$work/tmp-$target.fa" -o "$work/seeds/$target/small.hymi" 2>/dev/null ;;
    outfmt)
      for f in '6' '6 qseqid sseqid score qlen slen' '6 pident length mismatch gapopen qstart qend sstart send evalue bitscore nident gaps'; do
        printf '%s' "$f" | seed "$(printf '%s' "$f" | tr -c 'a-z0-9' _)"
      done ;;
  esac
}

# run_target: one target's run on its seeds and corpus; its summary goes to $work/$target.result.
run_target() {
  local corpus=$work/corpus/$target findings=$work/findings/$target
  mkdir -p "$corpus" "$findings"
  {
    echo "fuzz_$target: ${seconds} s on $(ls "$work/seeds/$target" | wc -l) seeds + $(ls "$corpus" | wc -l) corpus inputs"
    if "$build/fuzz/fuzz_$target" "$corpus" "$work/seeds/$target" -max_total_time="$seconds" -max_len=8192 \
         -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$findings/" -print_final_stats=1 >"$work/$target.log" 2>&1; then
      grep -E '^#[0-9]+[[:space:]]+DONE' "$work/$target.log" | tail -n 1 || true
    else
      echo "FINDING in fuzz_$target (input kept in $findings/):"; { grep -E 'ERROR|runtime error|==[0-9]+==' "$work/$target.log" || true; } | head -n 5
      touch "$work/$target.failed"
    fi
  } >"$work/$target.result"
}

# The targets run side by side, one a core.
mkdir -p "$work"
for target in "${targets[@]}"; do
  make_seeds
  rm -f "$work/$target.failed"
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  run_target &
done
wait
failed=()
for target in "${targets[@]}"; do
  cat "$work/$target.result"
  [ ! -e "$work/$target.failed" ] || failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then echo "fuzz: findings in ${failed[*]}"; exit 1; fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, no findings"
