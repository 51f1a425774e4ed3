#pragma once
// The hybrid scheduler: every device worker (CPU SIMD threads, one thread per GPU) pulls target
// blocks from one queue until it is empty. CPU workers take one block at a time, GPU workers as many
// as their kernel accepts per call, so faster devices simply take more. Each worker folds its scores
// into its own table; the tables are merged with the tie rule at the end, so the result does not
// depend on which device scored which block.
#include <cstddef>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "kernels/papara_kernel.hpp"

namespace hyalign::sched {

struct DeviceWorkers {
  const kernels::PaparaKernel* kernel = nullptr;
  unsigned workers = 1;            // threads feeding this device
  std::size_t blocks_per_take = 1; // queue blocks per call of score_block
};

struct DeviceReport {
  std::string name;
  std::size_t targets = 0;  // targets scored (summed over workers)
  double busy_seconds = 0;  // summed over workers
};

struct ScheduleResult {
  kernels::BestPerQuery best;
  std::vector<DeviceReport> devices;
};

// `block_width` is the queue's granularity: every device's kernel must accept blocks_per_take
// consecutive blocks of that width in one call.
ScheduleResult score_all_targets(const std::vector<DeviceWorkers>& devices, std::size_t targets,
                                 std::size_t block_width, std::size_t queries, Progress* progress);

}  // namespace hyalign::sched
