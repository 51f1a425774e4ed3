#include "sched/scheduler.hpp"

#include <time.h>

#include <chrono>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "kernels/cuda/gpu_devices.hpp"

namespace hyalign::sched {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

DeviceChoice parse_device_choice(std::string_view name) {
  if (name == "auto") return DeviceChoice::automatic;
  if (name == "cpu") return DeviceChoice::cpu;
  if (name == "gpu") return DeviceChoice::gpu;
  if (name == "all") return DeviceChoice::all;
  throw UsageError(fmt::format("unknown device '{}': expected auto, cpu, gpu or all", name));
}

std::vector<int> gpus_to_use(DeviceChoice choice, const std::string& unsupported_reason) {
  if (choice == DeviceChoice::cpu) return {};
  const auto gpus = kernels::cuda::usable_gpus();
  if (gpus.empty() && choice == DeviceChoice::gpu)
    throw UsageError(fmt::format("--device gpu: no usable GPU: {}", kernels::cuda::gpu_unavailable_reason()));
  const std::string reason = gpus.empty() ? kernels::cuda::gpu_unavailable_reason() : unsupported_reason;
  if (!reason.empty()) {
    log_info("notice: scoring on the CPU only: {}", reason);
    return {};
  }
  std::vector<int> out;
  for (const auto& gpu : gpus) out.push_back(gpu.index);
  return out;
}

std::vector<DeviceReport> run_workers(
    const std::vector<WorkerGroup>& groups, TileQueue& queue, Progress* progress,
    const std::function<double(std::size_t worker, const kernels::WorkTile&)>& score) {
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
      if (progress)
        progress->advance((tile->target_count + queue.block_width() - 1) / queue.block_width() *
                          ((tile->query_count + queue.query_chunk() - 1) / queue.query_chunk()));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = thread_cpu_seconds() - cpu_start;
    std::lock_guard lock(report_mutex);
    DeviceReport& report = reports[group_of_worker[w]];
    report.cells += cells;
    report.busy_seconds += seconds;
    report.cpu_seconds += cpu;
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

ScheduleResult score_all_targets(const std::vector<DeviceWorkers>& devices, const kernels::PaparaProblem& problem,
                                 std::size_t block_width, bool show_progress) {
  std::vector<WorkerGroup> groups;
  std::vector<const kernels::PaparaKernel*> kernel_of_worker;
  for (const DeviceWorkers& d : devices) {
    groups.push_back({std::string(d.kernel->name()), d.workers, d.max_tiles_per_take});
    kernel_of_worker.insert(kernel_of_worker.end(), d.workers, d.kernel);
  }
  log_worker_groups(groups);
  const std::size_t queries = problem.queries->size();
  const std::size_t targets = problem.targets.count;

  // Query chunks small enough that one CPU tile is a few tens of milliseconds (~2e8 cells), so no
  // worker holds the run up at the end, and at least several tiles per worker.
  const std::size_t blocks = (targets + block_width - 1) / block_width;
  const double mean_length = static_cast<double>(problem.queries->total_residues()) / std::max<std::size_t>(1, queries);
  const double tile_cells_per_query = std::max(1.0, mean_length) * static_cast<double>(problem.targets.columns) *
                                      static_cast<double>(block_width);
  std::size_t chunk = static_cast<std::size_t>(std::max(1.0, 2e8 / tile_cells_per_query));
  const std::size_t wanted_tiles = 8 * kernel_of_worker.size();
  if (blocks * ((queries + chunk - 1) / chunk) < wanted_tiles)
    chunk = std::max<std::size_t>(1, queries * blocks / wanted_tiles);
  TileQueue queue(targets, block_width, queries, chunk);
  std::optional<Progress> progress;
  if (show_progress) progress.emplace("scoring", queue.tile_count());

  std::vector<kernels::BestPerQuery> tables(kernel_of_worker.size(), kernels::BestPerQuery(queries));
  std::vector<std::unique_ptr<kernels::PaparaBlockScorer>> scorers(kernel_of_worker.size());
  ScheduleResult result{kernels::BestPerQuery(queries), {}};
  result.devices =
      run_workers(groups, queue, progress ? &*progress : nullptr, [&](std::size_t w, const kernels::WorkTile& tile) {
        if (!scorers[w]) scorers[w] = kernel_of_worker[w]->make_scorer();
        scorers[w]->score_tile(tile, tables[w]);
        std::size_t residues = 0;
        for (std::size_t q = tile.first_query; q < tile.first_query + tile.query_count; ++q)
          residues += problem.queries->length(q);
        return static_cast<double>(residues) * static_cast<double>(tile.target_count) *
               static_cast<double>(problem.targets.columns);
      });
  for (const auto& table : tables) result.best.merge(table);
  return result;
}

}  // namespace hyalign::sched
