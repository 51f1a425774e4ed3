#pragma once
// The hybrid scheduler: every device worker (CPU SIMD threads, one thread per GPU) pulls tiles from
// one queue until it is empty. CPU workers take one tile at a time, GPU workers a share of what is
// left (at most max_tiles_per_take), so faster devices simply take more and the tail stays short.
// Each worker folds its scores into its own table; the tables are merged with the tie rule at the
// end, so the result does not depend on which device scored which tile.
#include <cstddef>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "kernels/papara_kernel.hpp"

namespace hyalign::sched {

struct DeviceWorkers {
  const kernels::PaparaKernel* kernel = nullptr;
  unsigned workers = 1;                // threads feeding this device
  std::size_t max_tiles_per_take = 1;  // 1 for CPU workers; many for a GPU
};

struct DeviceReport {
  std::string name;
  double cells = 0;         // query residues × columns × targets scored
  double busy_seconds = 0;  // summed over the device's workers
  double cpu_seconds = 0;   // CPU time used by the device's worker threads
};

struct ScheduleResult {
  kernels::BestPerQuery best;
  std::vector<DeviceReport> devices;
};

// Tiles are `block_width` targets by a query chunk sized so there are several tiles per worker.
// With `show_progress`, a progress line on stderr (when it is a terminal).
ScheduleResult score_all_targets(const std::vector<DeviceWorkers>& devices, const kernels::PaparaProblem& problem,
                                 std::size_t block_width, bool show_progress);

}  // namespace hyalign::sched
