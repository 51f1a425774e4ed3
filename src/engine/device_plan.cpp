#include "engine/device_plan.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hyalign::engine {

DeviceChoice parse_device_choice(std::string_view name) {
  if (name == "auto") return DeviceChoice::automatic;
  if (name == "cpu") return DeviceChoice::cpu;
  if (name == "gpu") return DeviceChoice::gpu;
  if (name == "all") return DeviceChoice::all;
  throw UsageError(fmt::format("unknown device '{}': expected auto, cpu, gpu or all", name));
}

namespace {
unsigned share_process = 0, share_processes = 1;
}  // namespace

void share_gpus(unsigned process, unsigned processes) {
  share_process = process;
  share_processes = std::max(1u, processes);
}

std::vector<GpuInfo> gpu_share(std::vector<GpuInfo> found) {
  if (share_processes == 1 || found.empty()) return found;
  if (found.size() <= share_processes) return {found[share_process % found.size()]};
  std::vector<GpuInfo> mine;
  for (std::size_t g = share_process; g < found.size(); g += share_processes) mine.push_back(found[g]);
  return mine;
}

namespace {
std::atomic<int> background_work{0};
}  // namespace

std::shared_future<void> start_in_background(std::function<void()> work) {
  auto done = std::make_shared<std::promise<void>>();
  std::shared_future<void> finished = done->get_future().share();
  ++background_work;
  try {
    std::thread(
        [](std::function<void()> task, std::shared_ptr<std::promise<void>> promise) {
          std::exception_ptr error;
          try {
            task();
          } catch (...) {
            error = std::current_exception();
          }
          // What the work holds goes before it is reported finished, and before the count does: a
          // caller that waits for it, or a process that finds none under way, has nothing of it
          // left to free on this thread.
          task = nullptr;
          if (error)
            promise->set_exception(error);
          else
            promise->set_value();
          promise.reset();
          --background_work;
        },
        std::move(work), std::move(done))
        .detach();
  } catch (...) {
    --background_work;
    throw;
  }
  return finished;
}

bool background_work_under_way() { return background_work > 0; }

std::shared_future<void> start_gpu_enumeration(DeviceChoice choice) {
  if (choice == DeviceChoice::cpu) return {};
  static std::mutex mutex;
  static std::shared_future<void> started;  // one start, however many steps ask for it
  std::lock_guard lock(mutex);
  if (!started.valid()) started = start_in_background([] { usable_gpus(); });
  return started;
}

GpuSelection select_gpus(DeviceChoice choice, const UnsupportedReason& unsupported_reason) {
  if (choice == DeviceChoice::cpu) return {};
  std::vector<GpuInfo> gpus = usable_gpus();
  if (gpus.empty() && choice == DeviceChoice::gpu)
    throw UsageError(fmt::format("--device gpu: no usable GPU: {}", gpu_unavailable_reason()));
  const std::string reason = gpus.empty() ? gpu_unavailable_reason() : unsupported_reason();
  if (!reason.empty()) return {{}, reason};
  return {std::move(gpus), ""};
}

GpuStart plan_gpu_start(DeviceChoice& choice, const TooSmallReason& too_small) {
  GpuStart start;
  if (choice == DeviceChoice::automatic) {
    const std::optional<std::string> why = too_small();
    if (!why) return {"", true};
    if (!why->empty()) {
      choice = DeviceChoice::cpu;
      start.why_cpu = small_job_line(*why);
    }
  }
  start_gpu_enumeration(choice);
  return start;
}

std::string small_job_line(const std::string& why) { return why + " (--device all or gpu uses the GPUs)"; }

std::vector<WorkerGroup> plan_worker_groups(DeviceChoice choice, unsigned threads, std::string_view cpu_name,
                                            const std::vector<GpuInfo>& gpus, const std::vector<std::string>& gpu_names,
                                            const WorkShape& shape) {
  std::vector<WorkerGroup> groups;
  threads = std::max(1u, threads);
  const bool cpu_works = gpus.empty() || (choice != DeviceChoice::gpu && shape.cpu_share_beside_gpus > 0);
  if (cpu_works) {
    const auto gpu_cores = static_cast<unsigned>(gpus.size());
    unsigned workers = threads > gpu_cores ? threads - gpu_cores : 1;
    if (!gpus.empty()) workers = std::max(1u, static_cast<unsigned>(workers * shape.cpu_share_beside_gpus));
    groups.push_back({std::string(cpu_name), workers, 1, std::string(cpu_name)});
  }
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    std::size_t take = std::max<std::size_t>(1, shape.max_tiles_per_gpu_take);
    if (shape.gpu_bytes_per_tile > 0)
      take = std::clamp<std::size_t>(gpus[g].free_bytes / 2 / shape.gpu_bytes_per_tile, 1, take);
    groups.push_back({gpu_names[g], 1, take, gpus[g].name});
    groups.back().proves_itself = shape.gpus_prove_themselves;
  }
  return groups;
}

}  // namespace hyalign::engine
