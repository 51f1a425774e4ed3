#include "papara/placement.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "kernels/cuda/papara_cuda.hpp"
#include "sched/scheduler.hpp"

namespace hyalign::papara {

std::vector<Placement> place_queries(const SequenceArena& queries, const Alphabet& alphabet,
                                     const BranchVectors& branches, const ScoringSetup& setup) {
  const kernels::PaparaProblem problem{
      {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}, &queries, &alphabet,
      setup.scoring};
  const auto cpu_kernel = kernels::make_papara_cpu_kernel(setup.kernel, problem);
  std::vector<std::unique_ptr<kernels::PaparaKernel>> gpu_kernels;
  for (int gpu : sched::gpus_to_use(setup.device, kernels::cuda::gpu_unsupported_reason(problem)))
    gpu_kernels.push_back(kernels::cuda::make_papara_gpu_kernel(gpu, problem));
  std::vector<sched::DeviceWorkers> devices;
  if (setup.device != sched::DeviceChoice::gpu || gpu_kernels.empty())
    devices.push_back({cpu_kernel.get(), std::max(1u, setup.threads), 1});
  for (const auto& g : gpu_kernels) devices.push_back({g.get(), 1, 1u << 20});

  const sched::ScheduleResult result = sched::score_all_targets(devices, problem, cpu_kernel->block_width(), true);
  sched::log_device_reports(result.devices);
  std::vector<Placement> out(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) out[q] = {result.best[q].score, result.best[q].branch};
  return out;
}

}  // namespace hyalign::papara
