// A protein database shaped like Swiss-Prot, as FASTA on standard output, for the search benchmarks:
// lengths log-normal with Swiss-Prot's median (about 300) and mean (about 363), kept within
// 20-4,900 residues (lengths outside are drawn again), letters with real proteins' background
// frequencies. The default 570,000 sequences hold about 207 M residues, Swiss-Prot's size.
// usage: hyalign_make_proteins [COUNT (570000)] [SEED (1)] > db.fa
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "synthetic.hpp"

namespace {

constexpr double kMedianLength = 300, kMeanLength = 363;
constexpr std::size_t kMinLength = 20, kMaxLength = 4900;

std::size_t random_length(Random& rng) {
  // A log-normal's mean is its median times e^(sigma^2 / 2).
  static const double sigma = std::sqrt(2.0 * std::log(kMeanLength / kMedianLength));
  for (;;) {
    const auto length = static_cast<std::size_t>(std::lround(kMedianLength * std::exp(sigma * random_normal(rng))));
    if (length >= kMinLength && length <= kMaxLength) return length;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 570000;
  Random rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string protein = random_protein(rng, random_length(rng));
    std::printf(">sp%zu\n%s\n", i, protein.c_str());
  }
  return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : 1;
}
