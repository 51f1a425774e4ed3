// The traceback of one long, similar hit (issue 15): sw_align_scalar (the full matrix, a byte a cell)
// against sw_align_hit (linear space; here the pruned sweep over only the cells an alignment of the
// best score can pass through), given the best score as `hyalign search` gives it from its scoring
// step (here from sw_score_scalar and from the striped kernel, sw_score_one, both timed). The pair: a
// titin-sized random protein (35,000 residues with background frequencies) and a copy with 2 %
// substitutions and 10 indels of 1-10 residues, seed 15; BLOSUM62, gaps 11/1. Checks that the
// tracebacks give the same alignment, field for field, and prints the seconds of each and the
// process's peak memory after each (the new one runs first).
//
// Then the traceback of an unrelated pair (a low score, where the pruning keeps nearly every cell):
// random proteins of 5,478 and 4,900 residues, the sizes of the largest hit of a 20-query search
// against a Swiss-Prot-sized database; sw_align_linear (pruned scalar locate) against sw_align_hit
// (striped locate), same alignment.
//
// usage: hyalign_bench_sw_traceback [--length N (35000)] [--new-only] [--fasta PREFIX]
//   --new-only      skip the old tracebacks (for /usr/bin/time -v)
//   --fasta PREFIX  also write the pair as PREFIX_query.fa and PREFIX_target.fa (for hyalign search)
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "core/score_matrix.hpp"
#include "kernels/scalar/sw_linear.hpp"
#include "kernels/scalar/sw_scalar.hpp"
#include "kernels/sw_kernel.hpp"
#include "synthetic.hpp"

using namespace hyalign;
using namespace hyalign::kernels;
using hyalign::bench::now;

namespace {

// A relative of `s`: each residue replaced by another with probability 2 %, then `indels` gaps of
// 1-10 residues, inserted or deleted in turn, at random places.
std::string relative_of(const std::string& s, Random& rng, int indels) {
  std::string out = s;
  for (char& c : out)
    if (rng.unit() < 0.02)
      for (const char old = c; c == old;) c = random_amino_acid(rng);
  for (int k = 0; k < indels; ++k) {
    const std::size_t at = rng.below(out.size()), length = rng.between(1, 10);
    if (k % 2 == 0) out.insert(at, random_protein(rng, length));
    else out.erase(at, length);
  }
  return out;
}

double peak_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

std::string describe(const SwAlignment& a) {
  return fmt::format("score {} query {}-{} target {}-{} length {} identities {} mismatches {} gap opens {} gap columns {}",
                     a.score, a.query_start, a.query_end, a.target_start, a.target_end, a.length, a.identities,
                     a.mismatches, a.gap_opens, a.gap_columns);
}

bool same(const SwAlignment& a, const SwAlignment& b) {
  return a.score == b.score && a.query_start == b.query_start && a.query_end == b.query_end &&
         a.target_start == b.target_start && a.target_end == b.target_end && a.length == b.length &&
         a.identities == b.identities && a.mismatches == b.mismatches && a.gap_opens == b.gap_opens &&
         a.gap_columns == b.gap_columns && a.cigar == b.cigar;
}

std::vector<std::uint8_t> encode(const ScoreMatrix& matrix, const std::string& letters) {
  std::vector<std::uint8_t> codes;
  for (char c : letters) codes.push_back(matrix.encode(c));
  return codes;
}

// The unrelated pair: sw_align_linear against sw_align_hit. Returns whether they agree.
bool unrelated_pair(const ScoreMatrix& matrix, const SwScoring& scoring, bool new_only) {
  Random rng(16);
  const auto query = encode(matrix, random_protein(rng, 5478)), target = encode(matrix, random_protein(rng, 4900));
  const int score = sw_score_one(query, target, scoring);
  fmt::print("unrelated pair {} x {}: score {}\n", query.size(), target.size(), score);
  double start = now();
  const SwAlignment fast = sw_align_hit(query, target, scoring, score);
  fmt::print("new: sw_align_hit     {:.3f} s\n", now() - start);
  if (new_only) return true;
  start = now();
  const SwAlignment old = sw_align_linear(query, target, scoring, score);
  fmt::print("old: sw_align_linear  {:.3f} s\n", now() - start);
  const bool identical = same(fast, old);
  fmt::print("alignments {}\n     {}\n", identical ? "identical" : "DIFFER", describe(fast));
  if (!identical) fmt::print("     {}\n", describe(old));
  return identical;
}

void write_fasta(const std::string& path, const std::string& name, const std::string& sequence) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out || std::fprintf(out, ">%s\n%s\n", name.c_str(), sequence.c_str()) < 0 || std::fclose(out) != 0) {
    fmt::print(stderr, "cannot write {}\n", path);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t length = 35000;
  bool new_only = false;
  std::string fasta_prefix;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--length" && a + 1 < argc) length = std::strtoul(argv[++a], nullptr, 10);
    else if (arg == "--new-only") new_only = true;
    else if (arg == "--fasta" && a + 1 < argc) fasta_prefix = argv[++a];
    else {
      fmt::print(stderr, "usage: hyalign_bench_sw_traceback [--length N] [--new-only] [--fasta PREFIX]\n");
      return 2;
    }
  }
  Random rng(15);
  const std::string query_letters = random_protein(rng, length);
  const std::string target_letters = relative_of(query_letters, rng, 10);
  if (!fasta_prefix.empty()) {
    write_fasta(fasta_prefix + "_query.fa", "query", query_letters);
    write_fasta(fasta_prefix + "_target.fa", "target", target_letters);
  }
  const ScoreMatrix matrix = ScoreMatrix::builtin("BLOSUM62");
  const SwScoring scoring{&matrix, 11, 1};
  const std::vector<std::uint8_t> query = encode(matrix, query_letters), target = encode(matrix, target_letters);
  fmt::print("{} x {} residues, BLOSUM62, gaps 11/1\n", query.size(), target.size());

  double start = now();
  const int score = sw_score_scalar(query, target, scoring);
  fmt::print("score {}: sw_score_scalar {:.2f} s", score, now() - start);
  start = now();
  const int striped_score = sw_score_one(query, target, scoring);
  fmt::print(", sw_score_one (striped, {}) {:.2f} s{}\n", engine::kernel_name(engine::best_cpu_kernel()),
             now() - start, striped_score == score ? "" : " DIFFERS");
  if (striped_score != score) return 1;

  start = now();
  const SwAlignment fast = sw_align_hit(query, target, scoring, score);
  fmt::print("new: sw_align_hit     {:.3f} s, peak memory {:.1f} MiB\n", now() - start, peak_mib());
  fmt::print("     {}\n", describe(fast));
  bool identical = true;
  if (!new_only) {
    start = now();
    const SwAlignment old = sw_align_scalar(query, target, scoring);
    fmt::print("old: sw_align_scalar  {:.3f} s, peak memory {:.1f} MiB\n", now() - start, peak_mib());
    identical = same(fast, old);
    fmt::print("alignments {}\n", identical ? "identical" : "DIFFER");
    if (!identical) fmt::print("     {}\n", describe(old));
  }
  return unrelated_pair(matrix, scoring, new_only) && identical ? 0 : 1;
}
