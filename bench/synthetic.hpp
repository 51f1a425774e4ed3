#pragma once
// What the synthetic-data tools (make_genome, make_reads, make_proteins) share: a small seeded
// random generator (the same seed gives the same data on every machine), the complement of a base
// and protein letters drawn with the background frequencies of real proteins.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() {  // xorshift64*
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  std::size_t between(std::size_t lo, std::size_t hi) { return lo + below(hi - lo + 1); }
  double unit() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }

 private:
  std::uint64_t state_;
};

// The complement of an upper-case base; any other letter (N) stays.
inline char complement(char c) {
  switch (c) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'T': return 'A';
    default: return c;
  }
}

// An amino acid drawn with Robinson & Robinson's (1991) background frequencies, the ones BLAST uses
// for its statistics.
inline char random_amino_acid(Random& rng) {
  static constexpr char kLetters[] = "ARNDCQEGHILKMFPSTWYV";
  static constexpr double kFrequency[] = {0.07805, 0.05129, 0.04487, 0.05364, 0.01925, 0.04264, 0.06295,
                                          0.07377, 0.02199, 0.05142, 0.09019, 0.05744, 0.02243, 0.03856,
                                          0.05203, 0.07120, 0.05841, 0.01330, 0.03216, 0.06441};
  double u = rng.unit();
  for (int i = 0; i < 19; ++i) {
    if (u < kFrequency[i]) return kLetters[i];
    u -= kFrequency[i];
  }
  return kLetters[19];
}

inline std::string random_protein(Random& rng, std::size_t length) {
  std::string s(length, 'A');
  for (char& c : s) c = random_amino_acid(rng);
  return s;
}

// A normal deviate (Box-Muller).
inline double random_normal(Random& rng) {
  const double u = 1.0 - rng.unit(), v = rng.unit();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}
