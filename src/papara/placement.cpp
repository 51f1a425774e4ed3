#include "papara/placement.hpp"

#include "core/log.hpp"
#include "sched/scheduler.hpp"

namespace hyalign::papara {

std::vector<Placement> place_queries(const SequenceArena& queries, const Alphabet& alphabet,
                                     const BranchVectors& branches, const ScoringSetup& setup) {
  const kernels::PaparaProblem problem{
      {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}, &queries, &alphabet,
      setup.scoring};
  const auto kernel = kernels::make_papara_cpu_kernel(setup.kernel, problem);
  const unsigned threads = std::max(1u, setup.threads);
  const std::size_t width = kernel->block_width();
  const std::size_t blocks = (branches.branches + width - 1) / width;
  log_info("scoring with the {} kernel: {} blocks of {} branches, {} threads", kernel->name(), blocks, width, threads);

  Progress progress("scoring branch blocks", blocks);
  const sched::ScheduleResult result =
      sched::score_all_targets({{kernel.get(), threads, 1}}, branches.branches, width, queries.size(), &progress);
  std::vector<Placement> out(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) out[q] = {result.best[q].score, result.best[q].branch};
  return out;
}

}  // namespace hyalign::papara
