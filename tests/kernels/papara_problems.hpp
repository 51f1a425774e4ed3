#pragma once
// Random PaPaRa scoring problems of many shapes, and a sink that records every score, shared by the
// kernel property tests (CPU and GPU).
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "core/sequence_batch.hpp"
#include "kernels/papara_kernel.hpp"

namespace hyalign::kernels::testing {

// "q0", "q1", ...: appended, not "q" + std::to_string(q), which GCC 12 at -O3 warns of wrongly
// (-Wstringop-overflow inside std::string::insert).
inline std::string query_name(std::size_t q) { return std::string("q").append(std::to_string(q)); }

struct RandomProblem {
  const Alphabet* alphabet;
  std::size_t branches, columns;
  std::vector<StateSet> states;
  std::vector<std::uint8_t> cgap;
  StateSequences queries;
  PaparaScoring scoring;

  PaparaProblem problem() const {
    return {{branches, columns, states.data(), cgap.data()}, &queries, alphabet, scoring};
  }
};

// Branch states (gaps at a random rate, sometimes a whole branch of gaps) and gap flags (sometimes
// every column), branch-major.
inline void random_branches(std::mt19937& rng, const Alphabet& alphabet, std::size_t branches, std::size_t columns,
                            std::vector<StateSet>& states, std::vector<std::uint8_t>& cgap) {
  const auto& sets = alphabet.residue_sets();
  states.resize(branches * columns);
  cgap.resize(branches * columns);
  const unsigned gap_percent = rng() % 60;
  const unsigned cgap_percent = rng() % 3 == 0 ? 100 : rng() % 50;
  for (std::size_t b = 0; b < branches; ++b) {
    const bool all_gap = rng() % 10 == 0;
    for (std::size_t c = 0; c < columns; ++c) {
      const bool gap = all_gap || rng() % 100 < gap_percent;
      states[b * columns + c] = gap ? alphabet.gap_set() : sets[rng() % sets.size()];
      cgap[b * columns + c] = rng() % 100 < cgap_percent;
    }
  }
}

inline RandomProblem make_problem(std::mt19937& rng, const Alphabet& alphabet, std::size_t branches,
                                  std::size_t columns, std::vector<std::size_t> query_lengths) {
  RandomProblem p{&alphabet, branches, columns, {}, {}, {}, {}};
  const auto& sets = alphabet.residue_sets();
  random_branches(rng, alphabet, branches, columns, p.states, p.cgap);
  for (std::size_t q = 0; q < query_lengths.size(); ++q) {
    std::vector<StateSet> residues(query_lengths[q]);
    // Mostly plain residues, some ambiguity codes (the later entries of residue_sets()).
    const std::size_t plain = alphabet.kind() == AlphabetKind::dna ? 4 : 20;
    for (auto& r : residues) r = rng() % 8 ? sets[rng() % plain] : sets[rng() % sets.size()];
    p.queries.add(query_name(q), residues);
  }
  switch (rng() % 4) {
    case 0: p.scoring = {-5, -2, 3, -1}; break;
    case 1: p.scoring = {-1, -1, 1, -4}; break;
    default: break;  // PaPaRa's defaults
  }
  return p;
}

class AllScores final : public engine::ScoreSink {
 public:
  AllScores(std::size_t queries, std::size_t branches) : branches_(branches), scores_(queries * branches), seen_(queries * branches) {}
  void offer(std::size_t q, int score, std::size_t b) override {
    std::lock_guard lock(mutex_);
    scores_[q * branches_ + b] = score;
    ++seen_[q * branches_ + b];
  }
  int score(std::size_t q, std::size_t b) const { return scores_[q * branches_ + b]; }
  int times_seen(std::size_t q, std::size_t b) const { return seen_[q * branches_ + b]; }

 private:
  std::mutex mutex_;
  std::size_t branches_;
  std::vector<int> scores_, seen_;
};

}  // namespace hyalign::kernels::testing
