// The alignment phase (papara_align_all) must give exactly papara_align_scalar's score and residue
// places for every query, with every kernel, on random problems of many shapes: each query against
// its own branch, batches of very different query lengths, more and fewer queries than lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "core/alphabet.hpp"
#include "core/sequence_batch.hpp"
#include "kernels/papara_align.hpp"
#include "papara_problems.hpp"
#include "kernels/papara_kernel.hpp"

using namespace hyalign;
using namespace hyalign::engine;
using namespace hyalign::kernels;
using hyalign::kernels::testing::query_name;
using hyalign::kernels::testing::random_branches;

namespace {

struct AlignProblem {
  const Alphabet* alphabet = nullptr;
  std::size_t branches = 0, columns = 0;
  std::vector<StateSet> states;
  std::vector<std::uint8_t> cgap;
  StateSequences queries;
  std::vector<std::size_t> branch_of_query;
  PaparaScoring scoring;

  PaparaProblem problem() const {
    return {{branches, columns, states.data(), cgap.data()}, &queries, alphabet, scoring};
  }
};

// The last one (a gap extension that gains) makes this pass's I(i, 0) = 0 (not -inf) visible.
const PaparaScoring kScorings[] = {{}, {-5, -2, 3, -1}, {-1, -1, 1, -4},
                                   {-2, 0, 1, 0}, {-4, -1, 5, -2}, {-3, 1, 2, -3}};

// Queries are often mutated copies of a branch, so real alignments (long matches, gaps, insertions)
// appear, not only noise.
AlignProblem make_problem(std::mt19937& rng, const Alphabet& alphabet, std::size_t branches, std::size_t columns,
                          const std::vector<std::size_t>& lengths) {
  AlignProblem p;
  p.alphabet = &alphabet;
  p.branches = branches;
  p.columns = columns;
  const auto& sets = alphabet.residue_sets();
  random_branches(rng, alphabet, branches, columns, p.states, p.cgap);
  const std::size_t plain = alphabet.kind() == AlphabetKind::dna ? 4 : 20;
  for (std::size_t q = 0; q < lengths.size(); ++q) {
    const std::size_t b = rng() % branches;
    p.branch_of_query.push_back(b);
    std::vector<StateSet> residues;
    const bool copy = rng() % 2 == 0;
    std::size_t c = rng() % columns;
    while (residues.size() < lengths[q]) {
      if (copy && rng() % 10 != 0) {
        // Mostly the branch's own residues in order, skipping some columns.
        const StateSet s = p.states[b * columns + c % columns];
        if (!alphabet.is_gap(s)) residues.push_back(s);
        c += 1 + (rng() % 12 == 0 ? rng() % 5 : 0);
        if (c >= columns && rng() % 4 == 0) c = 0;
      } else {
        residues.push_back(rng() % 8 ? sets[rng() % plain] : sets[rng() % sets.size()]);
      }
    }
    p.queries.add(query_name(q), residues);
  }
  p.scoring = kScorings[rng() % std::size(kScorings)];
  return p;
}

void expect_matches_scalar(KernelChoice choice, const AlignProblem& ap, unsigned threads, const std::string& label) {
  const PaparaProblem problem = ap.problem();
  const std::vector<PaparaAlignment> got = papara_align_all(choice, problem, ap.branch_of_query, threads);
  ASSERT_EQ(got.size(), ap.queries.size()) << label;
  for (std::size_t q = 0; q < ap.queries.size(); ++q) {
    const PaparaAlignment want =
        papara_align_scalar(ap.queries.sequence(q), problem.targets.branch(ap.branch_of_query[q]), ap.scoring);
    const std::string where = label + " kernel " + std::string(kernel_name(choice)) + " query " + std::to_string(q) +
                              " (length " + std::to_string(ap.queries.length(q)) + ") of " +
                              std::to_string(ap.queries.size()) + ", " + std::to_string(ap.columns) + " columns";
    ASSERT_EQ(got[q].score, want.score) << where;
    ASSERT_EQ(got[q].residue_place, want.residue_place) << where;
  }
}

class PaparaAlignEqualsScalar : public ::testing::TestWithParam<KernelChoice> {
 protected:
  void SetUp() override {
    if (!cpu_supports(GetParam()))
      GTEST_SKIP() << "SKIPPED: this CPU lacks the instruction set of kernel " << kernel_name(GetParam());
  }
};

TEST_P(PaparaAlignEqualsScalar, ManySmallRandomShapes) {
  std::mt19937 rng(4321 + static_cast<int>(GetParam()));
  for (int trial = 0; trial < 400; ++trial) {
    const Alphabet& alphabet = trial % 3 == 2 ? Alphabet::protein() : Alphabet::dna();
    const std::size_t branches = 1 + rng() % 12;
    const std::size_t columns = 1 + rng() % (trial % 10 == 0 ? 300 : 40);
    // Fewer queries than lanes, about as many, and more; lengths 0, 1, odd, very different.
    const std::size_t count = trial % 4 == 0 ? 1 + rng() % 5 : 1 + rng() % 80;
    std::vector<std::size_t> lengths;
    for (std::size_t q = 0; q < count; ++q) {
      switch (rng() % 6) {
        case 0: lengths.push_back(rng() % 2); break;
        case 1: lengths.push_back(1 + 2 * (rng() % 30)); break;
        case 2: lengths.push_back(1 + rng() % 200); break;
        default: lengths.push_back(1 + rng() % 50); break;
      }
    }
    expect_matches_scalar(GetParam(), make_problem(rng, alphabet, branches, columns, lengths), 1 + trial % 3,
                          "trial " + std::to_string(trial));
    if (HasFatalFailure()) return;
  }
}

TEST_P(PaparaAlignEqualsScalar, LongQueriesAndReferences) {
  std::mt19937 rng(77);
  struct Shape {
    std::size_t columns;
    std::vector<std::size_t> lengths;
  };
  const std::vector<Shape> shapes{
      {3000, {600, 599, 1, 0, 33, 450, 451, 2, 300}},
      {1285, std::vector<std::size_t>(70, 440)},
      {1, {1, 2, 3, 600, 17}},
      {2999, {1, 1, 1}},
      {500, {600, 1, 600, 1, 599, 2, 0, 0}},
  };
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const Alphabet& alphabet = s % 2 ? Alphabet::protein() : Alphabet::dna();
    std::vector<std::size_t> lengths = shapes[s].lengths;
    if (s == 1)
      for (auto& m : lengths) m = 380 + rng() % 120;
    expect_matches_scalar(GetParam(), make_problem(rng, alphabet, 5, shapes[s].columns, lengths), 2,
                          "shape " + std::to_string(s));
    if (HasFatalFailure()) return;
  }
}

// Queries at the edge of fits_int16 for PaPaRa's scoring (10,664 residues in 16-bit lanes, one
// more in 32 bits), on a reference where every column carries the gap signal.
TEST_P(PaparaAlignEqualsScalar, QueriesAtTheSixteenBitEdge) {
  std::mt19937 rng(21);
  AlignProblem ap = make_problem(rng, Alphabet::dna(), 3, 400, {10664, 10665, 10664});
  ap.scoring = {};
  for (auto& c : ap.cgap) c = 1;
  expect_matches_scalar(GetParam(), ap, 2, "16-bit edge");
}

// All-gap branches, every column with the gap signal, queries longer than the reference.
TEST_P(PaparaAlignEqualsScalar, DegenerateBranches) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const Alphabet& alphabet = trial % 2 ? Alphabet::protein() : Alphabet::dna();
    std::vector<std::size_t> lengths;
    for (int q = 0; q < 40; ++q) lengths.push_back(rng() % 90);
    AlignProblem ap = make_problem(rng, alphabet, 3, 1 + rng() % 60, lengths);
    for (std::size_t c = 0; c < ap.columns; ++c) {
      ap.states[c] = alphabet.gap_set();                          // branch 0: all gaps
      ap.cgap[ap.columns + c] = 1;                                // branch 1: every column CGAP
      ap.states[2 * ap.columns + c] = alphabet.residue_sets()[0];  // branch 2: one residue everywhere
    }
    ap.scoring = kScorings[trial % std::size(kScorings)];
    expect_matches_scalar(GetParam(), ap, 2, "degenerate " + std::to_string(trial));
    if (HasFatalFailure()) return;
  }
}

// Queries whose values could leave 16 bits take the scalar path; the others in the run still batch.
TEST_P(PaparaAlignEqualsScalar, ScoresBeyondSixteenBits) {
  std::mt19937 rng(5);
  AlignProblem ap = make_problem(rng, Alphabet::dna(), 4, 2000, {1800, 400, 17, 1700, 3});
  ap.scoring = {-30, -10, 60, -3};  // 1800 matches × 60 > 32767
  expect_matches_scalar(GetParam(), ap, 2, "wide");
}

INSTANTIATE_TEST_SUITE_P(Kernels, PaparaAlignEqualsScalar,
                         ::testing::Values(KernelChoice::automatic, KernelChoice::scalar, KernelChoice::avx2,
                                           KernelChoice::avx512),
                         [](const auto& info) { return std::string(kernel_name(info.param)); });

}  // namespace
