// Reads sampled from a genome for the `mem` (and `map`) benchmarks, as FASTA on standard output:
// uniform positions on either strand, substitutions at the given rate and one indel per ten
// substitutions, windows with more than 10% N skipped. Each name says where the read came from
// (sequence_position_strand). A stand-in for dwgsim on machines without it, and much faster.
// usage: hyalign_make_reads GENOME.fa COUNT [LENGTH (150)] [ERROR_RATE (0.01)] [SEED (1)] > reads.fa
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "synthetic.hpp"

namespace {

struct Sequence {
  std::string name, letters;
};

std::vector<Sequence> read_fasta(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", path);
    std::exit(1);
  }
  std::vector<Sequence> genome;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] == '>') genome.push_back({line.substr(1, line.find_first_of(" \t") - 1), ""});
    else if (!genome.empty()) genome.back().letters += line;
  }
  return genome;
}

// One read from `window` (LENGTH letters plus slack for deletions), with errors.
std::string mutate(const std::string& window, std::size_t length, double error_rate, Random& rng) {
  std::string read;
  read.reserve(length);
  for (std::size_t i = 0; read.size() < length && i < window.size(); ++i) {
    const double u = rng.unit();
    if (u < error_rate * 0.05) continue;  // deletion
    if (u < error_rate * 0.1) read.push_back("ACGT"[rng.below(4)]);  // insertion before this letter
    if (u >= error_rate * 0.1 && u < error_rate)  // substitution
      read.push_back("ACGT"[(std::string("ACGT").find(window[i]) + 1 + rng.below(3)) % 4]);
    else read.push_back(window[i]);
  }
  read.resize(std::min(read.size(), length));
  return read;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s GENOME.fa COUNT [LENGTH (150)] [ERROR_RATE (0.01)] [SEED (1)] > reads.fa\n", argv[0]);
    return 2;
  }
  const std::vector<Sequence> genome = read_fasta(argv[1]);
  const std::size_t count = std::strtoull(argv[2], nullptr, 10);
  const std::size_t length = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 150;
  const double error_rate = argc > 4 ? std::atof(argv[4]) : 0.01;
  Random rng(argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1);
  std::vector<std::size_t> cumulative;  // sequences drawn by length
  std::size_t total = 0;
  for (const Sequence& s : genome) cumulative.push_back(total += s.letters.size() > length + 10 ? s.letters.size() : 0);
  if (total == 0) {
    std::fprintf(stderr, "%s: no sequence longer than %zu letters\n", argv[1], length + 10);
    return 1;
  }
  std::string out;
  for (std::size_t r = 0; r < count;) {
    const std::size_t at = rng.below(total);
    const std::size_t seq = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), at) - cumulative.begin());
    const std::string& letters = genome[seq].letters;
    const std::size_t pos = rng.below(letters.size() - length - 10);
    std::string window = letters.substr(pos, length + 10);
    for (char& c : window) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (std::count(window.begin(), window.end(), 'N') > static_cast<std::ptrdiff_t>(length / 10)) continue;
    const bool reverse = rng.below(2) == 1;
    if (reverse) {
      std::reverse(window.begin(), window.end());
      for (char& c : window) c = complement(c);
    }
    out += '>' + genome[seq].name + '_' + std::to_string(pos + 1) + (reverse ? "_r" : "_f") + '_' + std::to_string(r) +
           '\n' + mutate(window, length, error_rate, rng) + '\n';
    if (out.size() > (1 << 20)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
    ++r;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : 1;
}
