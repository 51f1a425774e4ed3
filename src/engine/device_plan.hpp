#pragma once
// One device set-up for every tool: which GPUs score (from --device and what is present), a kernel
// on each, and how many workers feed each device with how much work per take. A tool says what its
// work looks like (WorkShape) and how to make its kernels; it never looks at devices itself.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/devices.hpp"
#include "engine/scheduler.hpp"

namespace hyalign::engine {

struct WorkShape {
  std::size_t max_tiles_per_gpu_take = std::size_t{1} << 20;
  // Device memory one tile's results take on a GPU (0: the kernel keeps its memory bounded itself).
  // A GPU takes at most what fits in half of its free memory.
  std::size_t gpu_bytes_per_tile = 0;
  // Share of the CPU cores that do the work beside GPUs, for a tool whose other steps (reading,
  // output, a GPU's host side) need the rest; 1: every core not feeding a GPU, 0: none.
  double cpu_share_beside_gpus = 1.0;
  bool gpus_prove_themselves = false;  // WorkerGroup::proves_itself
};

// Why the tool's GPU kernel cannot take this run ("" when it can).
using UnsupportedReason = std::function<std::string()>;

// The GPUs to score on for `choice`: none when there is no usable GPU or `unsupported_reason()` is
// not empty (`notice` then says why); --device gpu without any usable GPU is a UsageError. The
// reason is asked only when there are GPUs: it may look at them, and --device cpu starts no CUDA.
struct GpuSelection {
  std::vector<GpuInfo> gpus;
  std::string notice;
};
GpuSelection select_gpus(DeviceChoice choice, const UnsupportedReason& unsupported_reason);

// A tool's bound on its job's work from its inputs' sizes: why the job is too small for the GPUs,
// "" when it is not, none where the sizes are not known (a pipe, gzip).
using TooSmallReason = std::function<std::optional<std::string>()>;

// How --device auto starts the GPUs of a job.
struct GpuStart {
  // The job is too small for them: `choice` is now cpu, and this is the line to log once the inputs
  // are read (an input's error stays the run's one line).
  std::string why_cpu;
  // The job's size is not known: its GPUs start only once the work read shows it is large enough
  // (BackgroundSetUp's `held`).
  bool held = false;
  // StartingDevices's `hold_until`: `bound` (the tool's small-job work) where held, else none.
  std::optional<double> hold_until(double bound) const { return held ? std::optional<double>(bound) : std::nullopt; }
};

// --device auto leaves the GPUs out of a job too small for them, without starting CUDA: a job that
// ends while CUDA starts waits at exit for the driver's call in flight (docs/performance.md). Where
// the inputs' sizes do not bound the job, the GPUs are held back until the work read does.
// `too_small` is asked only with auto. Unless the GPUs are held or left out, CUDA's start begins in
// the background (start_gpu_enumeration), beside the job's first steps.
GpuStart plan_gpu_start(DeviceChoice& choice, const TooSmallReason& too_small);
// The line a job left on the CPU logs: `why` and how to use the GPUs all the same.
std::string small_job_line(const std::string& why);

// Worker groups: the CPU kernel's (unless --device gpu has GPUs), then one worker per GPU. A GPU's
// worker does CPU work between takes (it folds or ranks the GPU's scores), so it gets a core of its
// own, taken from the `threads` CPU workers: a fast GPU never waits for a time slice.
std::vector<WorkerGroup> plan_worker_groups(DeviceChoice choice, unsigned threads, std::string_view cpu_name,
                                            const std::vector<GpuInfo>& gpus, const std::vector<std::string>& gpu_names,
                                            const WorkShape& shape);

template <class Kernel>
struct Devices {
  std::shared_ptr<Kernel> cpu;  // always there (its vector width sets the tiles' width); shared with early workers
  std::vector<std::unique_ptr<Kernel>> gpus;
  std::vector<WorkerGroup> groups;
  std::vector<Kernel*> kernel_of_worker;
  std::size_t workers() const { return kernel_of_worker.size(); }
};

// Sets up the devices of one run and logs them: the notice when GPUs are left out, then the
// workers of each device. Once `cancelled()` is true (the run ended before its GPUs were needed),
// no further GPU kernel is made.
template <class Kernel>
Devices<Kernel> plan_devices(DeviceChoice choice, unsigned threads, const UnsupportedReason& gpu_unsupported_reason,
                             std::shared_ptr<Kernel> cpu_kernel,
                             const std::function<std::unique_ptr<Kernel>(int gpu)>& make_gpu_kernel,
                             const WorkShape& shape, const std::function<bool()>& cancelled = {}) {
  Devices<Kernel> d;
  d.cpu = std::move(cpu_kernel);
  const GpuSelection selection = select_gpus(choice, gpu_unsupported_reason);
  if (!selection.notice.empty()) log_info("notice: scoring on the CPU only: {}", selection.notice);
  struct Made {
    std::unique_ptr<Kernel> kernel;
    double seconds = 0;
  };
  std::vector<Made> kernels = on_each_at_once(selection.gpus, [&](const GpuInfo& gpu) {
    if (cancelled && cancelled()) return Made{};
    Stopwatch set_up;
    std::unique_ptr<Kernel> kernel = make_gpu_kernel(gpu.index);
    return Made{std::move(kernel), set_up.lap()};
  });
  std::vector<std::string> gpu_names;
  std::vector<GpuInfo> made;
  for (std::size_t g = 0; g < kernels.size(); ++g) {
    if (!kernels[g].kernel) continue;
    d.gpus.push_back(std::move(kernels[g].kernel));
    gpu_names.emplace_back(d.gpus.back()->name());
    made.push_back(selection.gpus[g]);
    log_info("{}: kernel set up in {:.2f} s", gpu_names.back(), kernels[g].seconds);
  }
  d.groups = plan_worker_groups(choice, threads, d.cpu->name(), made, gpu_names, shape);
  const bool cpu_scores = d.groups.size() > d.gpus.size();
  if (cpu_scores) d.kernel_of_worker.assign(d.groups.front().workers, d.cpu.get());
  for (auto& gpu : d.gpus) d.kernel_of_worker.push_back(gpu.get());
  log_worker_groups(d.groups);
  return d;
}

}  // namespace hyalign::engine
