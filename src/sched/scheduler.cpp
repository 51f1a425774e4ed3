#include "sched/scheduler.hpp"

#include <chrono>
#include <mutex>

#include "core/parallel.hpp"
#include "sched/block_queue.hpp"

namespace hyalign::sched {

ScheduleResult score_all_targets(const std::vector<DeviceWorkers>& devices, std::size_t targets,
                                 std::size_t block_width, std::size_t queries, Progress* progress) {
  struct Worker {
    std::size_t device;
  };
  std::vector<Worker> workers;
  for (std::size_t d = 0; d < devices.size(); ++d)
    for (unsigned w = 0; w < devices[d].workers; ++w) workers.push_back({d});

  BlockQueue queue(targets, block_width);
  std::vector<kernels::BestPerQuery> tables(workers.size(), kernels::BestPerQuery(queries));
  ScheduleResult result{kernels::BestPerQuery(queries), {}};
  for (const DeviceWorkers& d : devices) result.devices.push_back({std::string(d.kernel->name()), 0, 0.0});
  std::mutex report_mutex;

  parallel_for(workers.size(), static_cast<unsigned>(workers.size()), [&](std::size_t w, unsigned) {
    const DeviceWorkers& device = devices[workers[w].device];
    auto scorer = device.kernel->make_scorer();
    std::size_t done = 0;
    const auto start = std::chrono::steady_clock::now();
    while (auto range = queue.take(device.blocks_per_take)) {
      scorer->score_block(range->first, range->count, tables[w]);
      done += range->count;
      if (progress) progress->advance((range->count + block_width - 1) / block_width);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard lock(report_mutex);
    result.devices[workers[w].device].targets += done;
    result.devices[workers[w].device].busy_seconds += seconds;
  });
  for (const auto& table : tables) result.best.merge(table);
  return result;
}

}  // namespace hyalign::sched
