# Sourced by the map benchmarks: the genome, its indexes and the read sets of the map issue (dwgsim reads with
# SNPs and small indels at 0.1 %, pairs 500 +- 50 bp apart). Sourcing it moves the script into a
# temporary folder, removed when the script exits.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# genome_fasta GENOME OUT: GENOME (FASTA, plain or .xz) as the plain FASTA file OUT.
genome_fasta() {
  case $1 in
    *.xz) xz -dc "$1" >"$2" ;;
    *) cp "$1" "$2" ;;
  esac
}

# index_genome GENOME HYALIGN THREADS: GENOME as ref.fa, with hyalign's index ref.hymi and bwa's.
index_genome() {
  genome_fasta "$1" ref.fa
  "$2" map index -t "$3" ref.fa -o ref.hymi 2>/dev/null
  bwa index ref.fa 2>/dev/null
}

# median: the median of the numbers on standard input, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# simulate_reads MODE LENGTH COUNT SEED ERROR REF PREFIX: COUNT reads (MODE single) or pairs (paired)
# of LENGTH bp from REF with ERROR errors per base, as PREFIX.bwa.read1.fastq.gz (and read2 for
# pairs); dwgsim's other files (its empty mate file of single reads included) are removed.
simulate_reads() {
  local mode=$1 length=$2 count=$3 seed=$4 error=$5 ref=$6 prefix=$7
  if [ "$mode" = single ]; then
    dwgsim -z "$seed" -N "$count" -1 "$length" -2 0 -e "$error" -r 0.001 "$ref" "$prefix" >/dev/null 2>&1
    rm -f "$prefix.bwa.read2.fastq.gz"
  else
    dwgsim -z "$seed" -N "$count" -1 "$length" -2 "$length" -e "$error" -E "$error" -r 0.001 -d 500 -s 50 -S 2 \
      "$ref" "$prefix" >/dev/null 2>&1
  fi
  rm -f "$prefix".bfast.fastq.gz "$prefix".mutations.*
}
