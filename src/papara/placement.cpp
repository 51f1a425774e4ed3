#include "papara/placement.hpp"

#include <thread>

#include "core/log.hpp"
#include "core/parallel.hpp"
#include "sched/block_queue.hpp"

namespace hyalign::papara {

std::vector<Placement> place_queries(const SequenceArena& queries, const Alphabet& alphabet,
                                     const BranchVectors& branches, const ScoringSetup& setup) {
  const kernels::PaparaProblem problem{
      {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}, &queries, &alphabet,
      setup.scoring};
  const auto kernel = kernels::make_papara_cpu_kernel(setup.kernel, problem);
  sched::BlockQueue queue(branches.branches, kernel->block_width());
  log_info("scoring with the {} kernel: {} blocks of {} branches, {} threads", kernel->name(), queue.block_count(),
           kernel->block_width(), setup.threads);

  const unsigned workers = std::max(1u, setup.threads);
  std::vector<kernels::BestPerQuery> tables(workers, kernels::BestPerQuery(queries.size()));
  Progress progress("scoring branch blocks", queue.block_count());
  parallel_for(workers, workers, [&](std::size_t worker, unsigned) {
    auto scorer = kernel->make_scorer();
    while (auto range = queue.take()) {
      scorer->score_block(range->first, range->count, tables[worker]);
      progress.advance();
    }
  });
  for (std::size_t w = 1; w < workers; ++w) tables[0].merge(tables[w]);
  std::vector<Placement> out(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) out[q] = {tables[0][q].score, tables[0][q].branch};
  return out;
}

}  // namespace hyalign::papara
