// The trace-back step beside the scoring (QueryAligner): whatever order and threads the scoring
// workers place the queries in, and however many are aligned while it goes on, every query gets
// exactly the alignment the whole step at once gives; a score that the trace-back does not find
// again is an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "kernels/papara_align.hpp"
#include "kernels/papara_problems.hpp"
#include "papara/alignment.hpp"

using namespace hyalign;
using namespace hyalign::papara;

namespace {

// Each query placed on a random branch, with the score its alignment there has.
std::vector<Placement> placements_of(const kernels::PaparaProblem& problem, std::mt19937& rng) {
  std::vector<Placement> placements(problem.queries->size());
  for (std::size_t q = 0; q < placements.size(); ++q) {
    const std::size_t branch = rng() % problem.targets.count;
    placements[q] = {kernels::papara_align_scalar(problem.queries->sequence(q), problem.targets.branch(branch),
                                                  problem.scoring)
                         .score,
                     branch};
  }
  return placements;
}

// Chunks of 1-40 queries, placed in a shuffled order by `workers` threads at once.
void place_in_chunks(QueryAligner& aligner, const std::vector<Placement>& placements, unsigned workers,
                     std::mt19937& rng) {
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  for (std::size_t first = 0; first < placements.size();) {
    const std::size_t end = std::min(placements.size(), first + 1 + rng() % 40);
    chunks.emplace_back(first, end);
    first = end;
  }
  std::shuffle(chunks.begin(), chunks.end(), rng);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (std::size_t c = w; c < chunks.size(); c += workers) {
        std::vector<std::size_t> queries(chunks[c].second - chunks[c].first);
        std::iota(queries.begin(), queries.end(), chunks[c].first);
        aligner.placed(queries, placements);
      }
    });
  for (auto& t : threads) t.join();
}

}  // namespace

TEST(QueryAligner, EqualsTheWholeStepInAnyOrderOfPlacing) {
  std::mt19937 rng(2026);
  // Fewer queries than a batch (all aligned at the end), and several batches' worth.
  for (const std::size_t count : {std::size_t{0}, std::size_t{37}, std::size_t{9000}}) {
    std::vector<std::size_t> lengths(count);
    for (auto& m : lengths) m = rng() % 6 == 0 ? rng() % 3 : 1 + rng() % 30;
    const auto random = kernels::testing::make_problem(rng, Alphabet::dna(), 7, 40, lengths);
    const kernels::PaparaProblem problem = random.problem();
    const std::vector<Placement> placements = placements_of(problem, rng);
    std::vector<std::size_t> branch_of_query;
    for (const Placement& p : placements) branch_of_query.push_back(p.branch);
    const auto want = kernels::papara_align_all(engine::KernelChoice::automatic, problem, branch_of_query, 2);

    QueryAligner aligner(engine::KernelChoice::automatic, problem, 2);
    place_in_chunks(aligner, placements, 3, rng);
    const auto got = aligner.finish();
    ASSERT_EQ(got.size(), count);
    for (std::size_t q = 0; q < count; ++q) {
      ASSERT_EQ(got[q].score, want[q].score) << "query " << q << " of " << count;
      ASSERT_EQ(got[q].residue_place, want[q].residue_place) << "query " << q << " of " << count;
    }
  }
}

TEST(QueryAligner, AScoreTheTraceBackDoesNotFindIsAnError) {
  std::mt19937 rng(7);
  const auto random = kernels::testing::make_problem(rng, Alphabet::dna(), 3, 30, std::vector<std::size_t>(5000, 20));
  const kernels::PaparaProblem problem = random.problem();
  std::vector<Placement> placements = placements_of(problem, rng);
  placements[4321].score += 1;
  QueryAligner aligner(engine::KernelChoice::automatic, problem, 2);
  place_in_chunks(aligner, placements, 2, rng);
  EXPECT_THROW(aligner.finish(), std::logic_error);
}
