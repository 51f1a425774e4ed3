// A repeat-rich synthetic genome for the `mem` (and `map`) benchmarks, as FASTA on standard output.
// Random letters alone make every 20-mer unique and flatter a matcher. Real genomes are about half
// repeats, so chromosomes are built from segments drawn by weight:
//   - unique sequence in 1-20 kb stretches, with a GC content that drifts between stretches;
//   - interspersed repeats: copies of 60 family consensuses (300 bp to 6 kb, Alu- to LINE-like),
//     each copy 2-20% diverged, some truncated;
//   - tandem repeats: units of 1-200 bp, 5-300 copies, 1% diverged;
//   - segmental duplications: 10-200 kb copied from earlier in the genome, 0.5-3% diverged, on
//     either strand;
//   - assembly gaps: runs of 100-10,000 N.
// usage: hyalign_make_genome TOTAL_BASES [CHROMOSOMES (10)] [SEED (1)] > genome.fa
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "synthetic.hpp"

namespace {

char random_base(Random& rng, double gc) {
  const double u = rng.unit();
  if (u < gc) return u < gc / 2 ? 'C' : 'G';
  return u < gc + (1 - gc) / 2 ? 'A' : 'T';
}

// Appends `source` with a fraction `divergence` of its letters changed (substitutions and small
// insertions and deletions), on the reverse strand when asked.
void append_diverged(std::string& out, Random& rng, const char* source, std::size_t length, double divergence,
                     bool reverse) {
  for (std::size_t i = 0; i < length; ++i) {
    const char c = reverse ? complement(source[length - 1 - i]) : source[i];
    if (c == 'N' || rng.unit() >= divergence) {
      out.push_back(c);
      continue;
    }
    const double kind = rng.unit();
    if (kind < 0.8) out.push_back("ACGT"[rng.below(4)]);           // substitution
    else if (kind < 0.9) out.append({c, "ACGT"[rng.below(4)]});  // insertion
    // else: deletion
  }
}

class GenomeBuilder {
 public:
  GenomeBuilder(std::uint64_t seed) : rng_(seed) {
    for (int f = 0; f < 60; ++f) {  // repeat families: many short (Alu-like), few long (LINE-like)
      const std::size_t length = f < 40 ? rng_.between(280, 400) : rng_.between(1000, 6000);
      std::string consensus;
      for (std::size_t i = 0; i < length; ++i) consensus.push_back(random_base(rng_, 0.45));
      families_.push_back(std::move(consensus));
    }
  }

  std::string chromosome(std::size_t length) {
    std::string c;
    c.reserve(length + 300000);
    while (c.size() < length) {
      const double pick = rng_.unit();
      if (pick < 0.50) unique(c);
      else if (pick < 0.88) interspersed(c);
      else if (pick < 0.97) tandem(c);
      else if (pick < 0.995) duplication(c);
      else c.append(rng_.between(100, 10000), 'N');
    }
    c.resize(length);
    previous_.push_back(c.substr(0, std::min<std::size_t>(c.size(), 8 << 20)));  // a source for duplications
    return c;
  }

 private:
  void unique(std::string& c) {
    gc_ = std::clamp(gc_ + (rng_.unit() - 0.5) * 0.1, 0.3, 0.65);
    for (std::size_t n = rng_.between(1000, 20000); n > 0; --n) c.push_back(random_base(rng_, gc_));
  }
  void interspersed(std::string& c) {
    const std::string& family = families_[rng_.below(families_.size())];
    const std::size_t start = rng_.unit() < 0.3 ? rng_.below(family.size() / 2) : 0;  // 5'-truncated copies
    append_diverged(c, rng_, family.data() + start, family.size() - start, 0.02 + rng_.unit() * 0.18,
                    rng_.below(2) == 1);
  }
  void tandem(std::string& c) {
    std::string unit;
    for (std::size_t n = rng_.below(10) < 7 ? rng_.between(1, 6) : rng_.between(7, 200); n > 0; --n)
      unit.push_back("ACGT"[rng_.below(4)]);
    for (std::size_t copies = rng_.between(5, 300); copies > 0; --copies)
      append_diverged(c, rng_, unit.data(), unit.size(), 0.01, false);
  }
  void duplication(std::string& c) {
    const std::string& source = !previous_.empty() && rng_.below(2) ? previous_[rng_.below(previous_.size())] : c;
    const std::size_t length = rng_.between(10000, 200000);
    if (source.size() < length) return unique(c);
    const std::size_t start = rng_.below(source.size() - length + 1);
    const std::string piece = source.substr(start, length);  // c may grow while it is copied
    append_diverged(c, rng_, piece.data(), piece.size(), 0.005 + rng_.unit() * 0.025, rng_.below(2) == 1);
  }

  Random rng_;
  std::vector<std::string> families_;
  std::vector<std::string> previous_;
  double gc_ = 0.41;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TOTAL_BASES [CHROMOSOMES (10)] [SEED (1)] > genome.fa\n", argv[0]);
    return 2;
  }
  const std::size_t total = std::strtoull(argv[1], nullptr, 10);
  const std::size_t chromosomes = argc > 2 ? std::max(1ull, std::strtoull(argv[2], nullptr, 10)) : 10;
  GenomeBuilder builder(argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1);
  for (std::size_t k = 0; k < chromosomes; ++k) {
    // Chromosomes shrink like a karyotype: the first about twice the last.
    const double weight = 2.0 - static_cast<double>(k) / static_cast<double>(chromosomes);
    double weights = 0;
    for (std::size_t j = 0; j < chromosomes; ++j) weights += 2.0 - static_cast<double>(j) / static_cast<double>(chromosomes);
    const std::string c = builder.chromosome(static_cast<std::size_t>(static_cast<double>(total) * weight / weights));
    if (std::printf(">chr%zu synthetic repeat-rich chromosome\n", k + 1) < 0) return 1;
    for (std::size_t i = 0; i < c.size(); i += 80)
      if (std::fwrite(c.data() + i, 1, std::min<std::size_t>(80, c.size() - i), stdout) == 0 || std::putchar('\n') == EOF)
        return 1;
  }
  return std::fclose(stdout) == 0 ? 0 : 1;
}
