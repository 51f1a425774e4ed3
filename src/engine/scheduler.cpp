#include "engine/scheduler.hpp"

#include <time.h>

#include <chrono>
#include <mutex>

#include <fmt/format.h>

#include "core/parallel.hpp"

namespace hyalign::engine {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

void DeviceReport::add(const DeviceReport& other) {
  cells += other.cells;
  busy_seconds += other.busy_seconds;
  cpu_seconds += other.cpu_seconds;
}

std::vector<DeviceReport> run_workers(
    const std::vector<WorkerGroup>& groups, TileQueue& queue, Progress* progress,
    const std::function<double(std::size_t worker, const WorkTile&)>& score) {
  std::vector<std::size_t> group_of_worker;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (unsigned w = 0; w < groups[g].workers; ++w) group_of_worker.push_back(g);
  // A GPU's share of what is left: a third while CPU workers take tiles too, else an equal split.
  bool only_gpus = true;
  std::size_t gpu_workers = 0;
  for (const WorkerGroup& g : groups) (g.max_tiles_per_take > 1 ? gpu_workers += g.workers : only_gpus = false);
  const std::size_t share_divisor = only_gpus ? gpu_workers : 3;

  std::vector<DeviceReport> reports;
  for (const WorkerGroup& g : groups) reports.push_back({g.name, 0, 0, 0});
  std::mutex report_mutex;
  parallel_for(group_of_worker.size(), static_cast<unsigned>(group_of_worker.size()), [&](std::size_t w, unsigned) {
    const WorkerGroup& group = groups[group_of_worker[w]];
    double cells = 0;
    const double cpu_start = thread_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    while (true) {
      std::size_t take = 1;
      if (group.max_tiles_per_take > 1)
        take = std::min(group.max_tiles_per_take, std::max<std::size_t>(1, queue.remaining() / share_divisor));
      const auto tile = queue.take(take);
      if (!tile) break;
      cells += score(w, *tile);
      if (progress) progress->advance(queue.tiles_in(*tile));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = thread_cpu_seconds() - cpu_start;
    std::lock_guard lock(report_mutex);
    reports[group_of_worker[w]].add({"", cells, seconds, cpu});
  });
  return reports;
}

void log_worker_groups(const std::vector<WorkerGroup>& groups) {
  std::string names;
  for (const auto& g : groups)
    names += fmt::format("{}{} ({} thread{})", names.empty() ? "" : ", ", g.name, g.workers, g.workers == 1 ? "" : "s");
  log_info("scoring on {}", names);
}

void log_device_reports(const std::vector<DeviceReport>& reports) {
  double cells = 0;
  for (const auto& r : reports) cells += r.cells;
  for (const auto& r : reports)
    log_info("  {}: {:.1f}% of the cells, {:.2f} s busy, {:.2f} s CPU time", r.name,
             100.0 * r.cells / std::max(1.0, cells), r.busy_seconds, r.cpu_seconds);
}

}  // namespace hyalign::engine
