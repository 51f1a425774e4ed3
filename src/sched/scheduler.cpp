#include "sched/scheduler.hpp"

#include <time.h>

#include <chrono>
#include <mutex>
#include <optional>

#include "core/parallel.hpp"
#include "sched/block_queue.hpp"

namespace hyalign::sched {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

ScheduleResult score_all_targets(const std::vector<DeviceWorkers>& devices, const kernels::PaparaProblem& problem,
                                 std::size_t block_width, bool show_progress) {
  std::vector<std::size_t> device_of_worker;
  for (std::size_t d = 0; d < devices.size(); ++d)
    for (unsigned w = 0; w < devices[d].workers; ++w) device_of_worker.push_back(d);
  const std::size_t queries = problem.queries->size();
  const std::size_t targets = problem.targets.count;

  // Query chunks small enough that one CPU tile is a few tens of milliseconds (~2e8 cells), so no
  // worker holds the run up at the end, and at least several tiles per worker.
  const std::size_t blocks = (targets + block_width - 1) / block_width;
  const double mean_length = static_cast<double>(problem.queries->total_residues()) / std::max<std::size_t>(1, queries);
  const double tile_cells_per_query = std::max(1.0, mean_length) * static_cast<double>(problem.targets.columns) *
                                      static_cast<double>(block_width);
  std::size_t chunk = static_cast<std::size_t>(std::max(1.0, 2e8 / tile_cells_per_query));
  const std::size_t wanted_tiles = 8 * device_of_worker.size();
  if (blocks * ((queries + chunk - 1) / chunk) < wanted_tiles)
    chunk = std::max<std::size_t>(1, queries * blocks / wanted_tiles);
  TileQueue queue(targets, block_width, queries, chunk);
  std::optional<Progress> progress;
  if (show_progress) progress.emplace("scoring", queue.tile_count());

  std::vector<kernels::BestPerQuery> tables(device_of_worker.size(), kernels::BestPerQuery(queries));
  ScheduleResult result{kernels::BestPerQuery(queries), {}};
  for (const DeviceWorkers& d : devices) result.devices.push_back({std::string(d.kernel->name()), 0, 0, 0});
  std::mutex report_mutex;
  // Residues per query chunk, to count cells per tile.
  auto residues_of = [&](const kernels::WorkTile& t) {
    std::size_t r = 0;
    for (std::size_t q = t.first_query; q < t.first_query + t.query_count; ++q) r += problem.queries->length(q);
    return static_cast<double>(r);
  };

  parallel_for(device_of_worker.size(), static_cast<unsigned>(device_of_worker.size()), [&](std::size_t w, unsigned) {
    const DeviceWorkers& device = devices[device_of_worker[w]];
    auto scorer = device.kernel->make_scorer();
    double cells = 0;
    const double cpu_start = thread_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    while (true) {
      std::size_t take = 1;
      if (device.max_tiles_per_take > 1)  // a share of what is left, so CPU workers still get some
        take = std::min(device.max_tiles_per_take, std::max<std::size_t>(1, queue.remaining() / 3));
      const auto tile = queue.take(take);
      if (!tile) break;
      scorer->score_tile(*tile, tables[w]);
      cells += residues_of(*tile) * static_cast<double>(tile->target_count) *
               static_cast<double>(problem.targets.columns);
      if (progress) progress->advance((tile->target_count + block_width - 1) / block_width);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = thread_cpu_seconds() - cpu_start;
    std::lock_guard lock(report_mutex);
    DeviceReport& report = result.devices[device_of_worker[w]];
    report.cells += cells;
    report.busy_seconds += seconds;
    report.cpu_seconds += cpu;
  });
  for (const auto& table : tables) result.best.merge(table);
  return result;
}

}  // namespace hyalign::sched
