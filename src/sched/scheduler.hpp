#pragma once
// The hybrid scheduler: every device worker (CPU SIMD threads, one thread per GPU) pulls tiles from
// one queue until it is empty. CPU workers take one tile at a time, GPU workers a share of what is
// left (at most max_tiles_per_take), so faster devices simply take more and the tail stays short.
// Each worker folds its scores into its own table; the tables are merged with the tie rule at the
// end, so the result does not depend on which device scored which tile.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/log.hpp"
#include "kernels/papara_kernel.hpp"
#include "sched/block_queue.hpp"

namespace hyalign::sched {

// Which processors score: `automatic` uses every GPU present plus the CPU cores.
enum class DeviceChoice { automatic, cpu, gpu, all };
DeviceChoice parse_device_choice(std::string_view name);  // throws UsageError for an unknown name

// The GPUs to score on for `choice`. None (after one notice line on stderr saying why) when there
// is no usable GPU or `unsupported_reason` is not empty: the CPU does the work then, also for
// --device gpu, except that --device gpu without any usable GPU is a UsageError.
std::vector<int> gpus_to_use(DeviceChoice choice, const std::string& unsupported_reason);

// Workers that share one device.
struct WorkerGroup {
  std::string name;
  unsigned workers = 1;                // threads feeding this device
  std::size_t max_tiles_per_take = 1;  // 1 for CPU workers; many for a GPU
};

struct DeviceReport {
  std::string name;
  double cells = 0;         // cells scored
  double busy_seconds = 0;  // summed over the device's workers
  double cpu_seconds = 0;   // CPU time used by the device's worker threads
};

// Hands out the queue's tiles to the workers of every group until it is empty. Workers are
// numbered group by group from 0; score(worker, tile) does the work and returns the cells it
// scored. With `progress`, advances it by the blocks of each tile.
std::vector<DeviceReport> run_workers(const std::vector<WorkerGroup>& groups, TileQueue& queue, Progress* progress,
                                      const std::function<double(std::size_t worker, const kernels::WorkTile&)>& score);

// Logs one line naming the devices and their worker threads.
void log_worker_groups(const std::vector<WorkerGroup>& groups);
// Logs the share of the cells, busy time and CPU time of each device.
void log_device_reports(const std::vector<DeviceReport>& reports);

struct DeviceWorkers {
  const kernels::PaparaKernel* kernel = nullptr;
  unsigned workers = 1;
  std::size_t max_tiles_per_take = 1;
};

struct ScheduleResult {
  kernels::BestPerQuery best;
  std::vector<DeviceReport> devices;
};

// PaPaRa scoring: tiles are `block_width` targets by a query chunk sized so there are several tiles
// per worker. Logs the devices used. With `show_progress`, a progress line on stderr (when it is a
// terminal).
ScheduleResult score_all_targets(const std::vector<DeviceWorkers>& devices, const kernels::PaparaProblem& problem,
                                 std::size_t block_width, bool show_progress);

}  // namespace hyalign::sched
