// Every optimised PaPaRa scoring kernel must give exactly the scalar reference's score for every
// (query, branch) pair, on random inputs of many shapes.
#include <gtest/gtest.h>

#include <random>

#include "core/alphabet.hpp"
#include "core/sequence_batch.hpp"
#include "kernels/papara_encoding.hpp"
#include "kernels/papara_kernel.hpp"
#include "papara_problems.hpp"
#include "engine/work_queue.hpp"

using namespace hyalign;
using namespace hyalign::engine;
using namespace hyalign::kernels;
using namespace hyalign::kernels::testing;

namespace {

void expect_kernel_matches_scalar(KernelChoice choice, const RandomProblem& rp, const std::string& label) {
  const PaparaProblem problem = rp.problem();
  const auto kernel = make_papara_cpu_kernel(choice, problem);
  AllScores all(rp.queries.size(), rp.branches);
  // Tiles of a few queries and one or three blocks, so tile edges fall everywhere.
  engine::TileQueue queue(rp.branches, kernel->block_width(), rp.queries.size(), 2);
  auto scorer = kernel->make_scorer();
  std::size_t takes = 0;
  while (auto tile = queue.take(takes++ % 2 ? 3 : 1)) scorer->score_tile(*tile, all);
  for (std::size_t q = 0; q < rp.queries.size(); ++q)
    for (std::size_t b = 0; b < rp.branches; ++b) {
      ASSERT_EQ(all.times_seen(q, b), 1) << label << " query " << q << " branch " << b;
      ASSERT_EQ(all.score(q, b), papara_score_scalar(rp.queries.sequence(q), problem.targets.branch(b), rp.scoring))
          << label << " kernel " << kernel_name(choice) << " query " << q << " (length " << rp.queries.length(q)
          << ") branch " << b << " of " << rp.branches << ", " << rp.columns << " columns";
    }
}

class PaparaKernelEqualsScalar : public ::testing::TestWithParam<KernelChoice> {
 protected:
  void SetUp() override {
    if (!cpu_supports(GetParam()))
      GTEST_SKIP() << "SKIPPED: this CPU lacks the instruction set of kernel " << kernel_name(GetParam());
  }
};

TEST_P(PaparaKernelEqualsScalar, ManySmallRandomShapes) {
  std::mt19937 rng(1234 + static_cast<int>(GetParam()));
  for (int trial = 0; trial < 1500; ++trial) {
    const Alphabet& alphabet = trial % 3 == 2 ? Alphabet::protein() : Alphabet::dna();
    const std::size_t branches = 1 + rng() % 70;
    const std::size_t columns = 1 + rng() % (trial % 10 == 0 ? 400 : 40);
    std::vector<std::size_t> lengths{1, 1 + rng() % 9};
    for (int q = 0; q < 3; ++q) lengths.push_back(1 + rng() % 61);
    expect_kernel_matches_scalar(GetParam(), make_problem(rng, alphabet, branches, columns, lengths),
                                 "trial " + std::to_string(trial));
    if (HasFatalFailure()) return;
  }
}

TEST_P(PaparaKernelEqualsScalar, LongQueriesAndReferences) {
  std::mt19937 rng(99);
  const std::vector<std::pair<std::size_t, std::size_t>> shapes{{600, 5000}, {599, 1}, {1, 5000}, {257, 1285}, {33, 4999}};
  for (auto [m, columns] : shapes) {
    const Alphabet& alphabet = m % 2 ? Alphabet::protein() : Alphabet::dna();
    expect_kernel_matches_scalar(GetParam(), make_problem(rng, alphabet, 33, columns, {m, m / 2 + 1, 1}),
                                 "shape " + std::to_string(m) + "x" + std::to_string(columns));
    if (HasFatalFailure()) return;
  }
}

// fits_int16 at its edges for PaPaRa's scoring: the longest query the 16-bit lanes take, and one
// more; kernels must be exact on both sides, on references that push scores down (every column with
// the gap signal, mismatching states) and up (matching states everywhere).
TEST(PaparaFitsInt16, EdgesOfTheDefaultScoring) {
  const PaparaScoring defaults;
  EXPECT_TRUE(fits_int16(10664, 5000, defaults));
  EXPECT_FALSE(fits_int16(10665, 5000, defaults));
  EXPECT_TRUE(fits_int16(4997, 5000, defaults, 15000));
  EXPECT_FALSE(fits_int16(4998, 5000, defaults, 15000));
}

TEST_P(PaparaKernelEqualsScalar, QueriesAtTheSixteenBitEdge) {
  std::mt19937 rng(17);
  for (int pattern = 0; pattern < 2; ++pattern) {
    RandomProblem rp = make_problem(rng, Alphabet::dna(), 5, 700, {10664, 10665, 4997, 4998});
    rp.scoring = {};
    const StateSet a = Alphabet::dna().residue_sets()[0];
    for (std::size_t i = 0; i < rp.states.size(); ++i) {
      rp.states[i] = pattern == 0 ? Alphabet::dna().residue_sets()[1] : a;  // none or every residue matches
      rp.cgap[i] = pattern == 0;
    }
    StateSequences same_letter;
    for (std::size_t q = 0; q < rp.queries.size(); ++q)
      same_letter.add(rp.queries.name(q), std::vector<StateSet>(rp.queries.length(q), a));
    rp.queries = std::move(same_letter);
    expect_kernel_matches_scalar(GetParam(), rp, pattern == 0 ? "all mismatches, all gap signal" : "all matches");
    if (HasFatalFailure()) return;
  }
}

// Scores that could leave the 16-bit range must still be exact (the kernel falls back to 32 bits).
TEST_P(PaparaKernelEqualsScalar, ScoresBeyondSixteenBits) {
  std::mt19937 rng(5);
  RandomProblem rp = make_problem(rng, Alphabet::dna(), 40, 3000, {2500, 400, 17});
  rp.scoring = {-30, -10, 60, -3};  // 2500 matches × 60 > 32767
  for (auto& c : rp.cgap) c = 0;
  expect_kernel_matches_scalar(GetParam(), rp, "wide");
}

INSTANTIATE_TEST_SUITE_P(Kernels, PaparaKernelEqualsScalar,
                         ::testing::Values(KernelChoice::scalar, KernelChoice::avx2, KernelChoice::avx512),
                         [](const auto& info) { return std::string(kernel_name(info.param)); });

class TileQueueOrder : public ::testing::TestWithParam<engine::TileOrder> {};

TEST_P(TileQueueOrder, HandsOutEveryPairOnceInAnyTakeSizes) {
  engine::TileQueue queue(1013, 32, 77, 10, GetParam());
  std::vector<int> seen(1013 * 77, 0);
  // 70 and 200 cover whole rows at once in either order (>= 2 × 32 blocks, >= 2 × 8 chunks).
  const std::size_t sizes[] = {1, 3, 70, 2, 200, 31};
  std::size_t takes = 0;
  while (auto t = queue.take(sizes[takes++ % 6]))
    for (std::size_t b = t->first_target; b < t->first_target + t->target_count; ++b)
      for (std::size_t q = t->first_query; q < t->first_query + t->query_count; ++q) ++seen[q * 1013 + b];
  for (int s : seen) ASSERT_EQ(s, 1);
  EXPECT_FALSE(queue.take().has_value());
  EXPECT_EQ(queue.remaining_cost(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Orders, TileQueueOrder,
                         ::testing::Values(engine::TileOrder::query_chunks_outer, engine::TileOrder::target_blocks_outer));

TEST(TileQueue, TargetBlocksOuterTakesEveryQueryOfWholeBlocks) {
  engine::TileQueue queue(1000, 100, 20, 1, engine::TileOrder::target_blocks_outer);
  const auto first = queue.take(3);  // part of block 0's queries
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->first_target, 0u);
  EXPECT_EQ(first->target_count, 100u);
  EXPECT_EQ(first->query_count, 3u);
  queue.take(17);  // the rest of block 0
  const auto whole = queue.take(60);  // from a block's start: 3 whole blocks, all 20 queries
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->first_target, 100u);
  EXPECT_EQ(whole->target_count, 300u);
  EXPECT_EQ(whole->first_query, 0u);
  EXPECT_EQ(whole->query_count, 20u);
}

}  // namespace
