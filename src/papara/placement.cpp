#include "papara/placement.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "kernels/cuda/papara_cuda.hpp"
#include "sched/scheduler.hpp"

namespace hyalign::papara {

DeviceChoice parse_device_choice(std::string_view name) {
  if (name == "auto") return DeviceChoice::automatic;
  if (name == "cpu") return DeviceChoice::cpu;
  if (name == "gpu") return DeviceChoice::gpu;
  if (name == "all") return DeviceChoice::all;
  throw UsageError(fmt::format("unknown device '{}': expected auto, cpu, gpu or all", name));
}

namespace {

// The GPU kernels to use, or none (with one notice line) when the GPU path is not available.
std::vector<std::unique_ptr<kernels::PaparaKernel>> gpu_kernels_for(const kernels::PaparaProblem& problem,
                                                                    DeviceChoice device) {
  std::vector<std::unique_ptr<kernels::PaparaKernel>> out;
  if (device == DeviceChoice::cpu) return out;
  const auto gpus = kernels::cuda::usable_gpus();
  if (gpus.empty() && device == DeviceChoice::gpu)
    throw UsageError(fmt::format("--device gpu: no usable GPU: {}", kernels::cuda::gpu_unavailable_reason()));
  // A problem the GPU kernel cannot take (protein, unusual scoring) runs on the CPU even with --device gpu.
  const std::string reason = gpus.empty() ? kernels::cuda::gpu_unavailable_reason()
                                          : kernels::cuda::gpu_unsupported_reason(problem);
  if (!reason.empty()) {
    log_info("notice: scoring on the CPU only: {}", reason);
    return out;
  }
  for (const auto& gpu : gpus) out.push_back(kernels::cuda::make_papara_gpu_kernel(gpu.index, problem));
  return out;
}

}  // namespace

std::vector<Placement> place_queries(const SequenceArena& queries, const Alphabet& alphabet,
                                     const BranchVectors& branches, const ScoringSetup& setup) {
  const kernels::PaparaProblem problem{
      {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}, &queries, &alphabet,
      setup.scoring};
  const auto cpu_kernel = kernels::make_papara_cpu_kernel(setup.kernel, problem);
  const auto gpu_kernels = gpu_kernels_for(problem, setup.device);
  std::vector<sched::DeviceWorkers> devices;
  if (setup.device != DeviceChoice::gpu || gpu_kernels.empty())
    devices.push_back({cpu_kernel.get(), std::max(1u, setup.threads), 1});
  for (const auto& g : gpu_kernels) devices.push_back({g.get(), 1, 1u << 20});
  std::string names;
  for (const auto& d : devices)
    names += fmt::format("{}{} ({} thread{})", names.empty() ? "" : ", ", d.kernel->name(), d.workers,
                         d.workers == 1 ? "" : "s");
  log_info("scoring on {}", names);

  const sched::ScheduleResult result = sched::score_all_targets(devices, problem, cpu_kernel->block_width(), true);
  double cells = 0;
  for (const auto& r : result.devices) cells += r.cells;
  for (const auto& r : result.devices)
    log_info("  {}: {:.1f}% of the cells, {:.2f} s busy, {:.2f} s CPU time", r.name, 100.0 * r.cells / std::max(1.0, cells),
             r.busy_seconds, r.cpu_seconds);
  std::vector<Placement> out(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) out[q] = {result.best[q].score, result.best[q].branch};
  return out;
}

}  // namespace hyalign::papara
