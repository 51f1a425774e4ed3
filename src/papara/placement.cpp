#include "papara/placement.hpp"

#include <limits>

#include "core/log.hpp"
#include "core/parallel.hpp"

namespace hyalign::papara {

std::vector<Placement> place_queries(const SequenceArena& queries, const BranchVectors& branches,
                                     const kernels::PaparaScoring& scoring, unsigned threads) {
  constexpr std::size_t kBranchesPerBlock = 16;
  const std::size_t blocks = (branches.branches + kBranchesPerBlock - 1) / kBranchesPerBlock;
  const Placement none{std::numeric_limits<int>::min(), 0};
  std::vector<std::vector<Placement>> best_per_worker(std::max(1u, threads),
                                                      std::vector<Placement>(queries.size(), none));
  Progress progress("scoring branch blocks", blocks);
  parallel_for(blocks, threads, [&](std::size_t block, unsigned worker) {
    auto& best = best_per_worker[worker];
    const std::size_t end = std::min(branches.branches, (block + 1) * kBranchesPerBlock);
    for (std::size_t b = block * kBranchesPerBlock; b < end; ++b) {
      const kernels::BranchView view{branches.branch_states(b), branches.branch_cgap(b), branches.columns};
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const int score = kernels::papara_score_scalar(queries.residues(q), view, scoring);
        if (score > best[q].score || (score == best[q].score && b < best[q].branch)) best[q] = {score, b};
      }
    }
    progress.advance();
  });
  std::vector<Placement> merged = best_per_worker[0];
  for (std::size_t w = 1; w < best_per_worker.size(); ++w)
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const Placement& p = best_per_worker[w][q];
      if (p.score > merged[q].score || (p.score == merged[q].score && p.branch < merged[q].branch)) merged[q] = p;
    }
  return merged;
}

}  // namespace hyalign::papara
