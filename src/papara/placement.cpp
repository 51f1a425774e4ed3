#include "papara/placement.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

#include "core/log.hpp"
#include "core/parallel.hpp"
#include "engine/device_start.hpp"
#include "kernels/cuda/papara_cuda.hpp"

namespace hyalign::papara {
namespace {

// Query chunks small enough that one CPU tile is a few tens of milliseconds (~2e8 cells), so no
// worker holds the run up at the end, and at least several tiles per worker.
std::size_t query_chunk(const kernels::PaparaProblem& problem, std::size_t block_width, std::size_t workers) {
  const std::size_t queries = problem.queries->size();
  const std::size_t blocks = (problem.targets.count + block_width - 1) / block_width;
  const double mean_length = static_cast<double>(problem.queries->total_residues()) / std::max<std::size_t>(1, queries);
  const double tile_cells_per_query = std::max(1.0, mean_length) * static_cast<double>(problem.targets.columns) *
                                      static_cast<double>(block_width);
  std::size_t chunk = static_cast<std::size_t>(std::max(1.0, 2e8 / tile_cells_per_query));
  const std::size_t wanted_tiles = 8 * workers;
  if (blocks * ((queries + chunk - 1) / chunk) < wanted_tiles)
    chunk = std::max<std::size_t>(1, queries * blocks / wanted_tiles);
  return chunk;
}

double tile_cells(const kernels::PaparaProblem& problem, const engine::WorkTile& tile) {
  std::size_t residues = 0;
  for (std::size_t q = tile.first_query; q < tile.first_query + tile.query_count; ++q)
    residues += problem.queries->length(q);
  return static_cast<double>(residues) * static_cast<double>(tile.target_count) *
         static_cast<double>(problem.targets.columns);
}

// Merges the workers' tables into `into`, threads taking disjoint ranges of queries.
void merge_tables(const std::vector<std::optional<engine::BestHits>>& tables, engine::BestHits& into,
                  unsigned threads) {
  constexpr std::size_t kQueriesPerPart = 16384;
  const std::size_t parts = (into.size() + kQueriesPerPart - 1) / kQueriesPerPart;
  parallel_for(parts, threads, [&](std::size_t p, unsigned) {
    const std::size_t first = p * kQueriesPerPart, end = std::min(into.size(), first + kQueriesPerPart);
    for (const auto& table : tables)
      if (table) into.merge(*table, first, end);
  });
}

// Scores `queue`'s tiles: score(kernel, worker, tile); grow(workers) is called before workers run,
// with the number of workers so far. An engine::StartingDevices run, or fixed devices.
using ScoreTile = std::function<double(const kernels::PaparaKernel&, std::size_t worker, const engine::WorkTile&)>;
using TileRunner = std::function<std::vector<engine::DeviceReport>(
    engine::TileQueue&, Progress*, const ScoreTile&, const std::function<void(std::size_t workers)>& grow)>;

// Every query against every target, on `workers` workers at most at a time.
ScoringResult score_on(const TileRunner& run, std::size_t workers, const kernels::PaparaProblem& problem,
                       std::size_t block_width, bool show_progress) {
  const std::size_t queries = problem.queries->size();
  engine::TileQueue queue(problem.targets.count, block_width, queries, query_chunk(problem, block_width, workers));
  std::optional<Progress> progress;
  if (show_progress) progress.emplace("scoring", queue.tile_count());

  // Each worker folds its scores into its own table, made by the worker itself (in parallel, and
  // not at all by one that scores nothing); the tables are merged with the tie rule at the end, so
  // the result does not depend on which device scored which tile.
  std::vector<std::optional<engine::BestHits>> tables;
  std::vector<std::unique_ptr<kernels::PaparaBlockScorer>> scorers;
  const auto score_tile = [&](const kernels::PaparaKernel& kernel, std::size_t w, const engine::WorkTile& tile) {
    if (!scorers[w]) scorers[w] = kernel.make_scorer();
    if (!tables[w]) tables[w].emplace(queries, 1);
    scorers[w]->score_tile(tile, *tables[w]);
    return tile_cells(problem, tile);
  };
  const auto grow = [&](std::size_t count) {
    tables.resize(std::max(tables.size(), count));
    scorers.resize(tables.size());
  };
  ScoringResult result{engine::BestHits(queries, 1), {}};
  result.devices = run(queue, progress ? &*progress : nullptr, score_tile, grow);
  merge_tables(tables, result.best, static_cast<unsigned>(std::max<std::size_t>(1, workers)));
  return result;
}

}  // namespace

ScoringResult score_all_targets(const std::vector<DeviceWorkers>& devices, const kernels::PaparaProblem& problem,
                                std::size_t block_width, bool show_progress) {
  std::vector<engine::WorkerGroup> groups;
  std::vector<const kernels::PaparaKernel*> kernel_of_worker;
  for (const DeviceWorkers& d : devices) {
    groups.push_back({std::string(d.kernel->name()), d.workers, d.max_tiles_per_take, d.model});
    kernel_of_worker.insert(kernel_of_worker.end(), d.workers, d.kernel);
  }
  const TileRunner on_devices = [&](engine::TileQueue& queue, Progress* progress, const ScoreTile& score,
                                    const std::function<void(std::size_t)>& grow) {
    grow(kernel_of_worker.size());
    return engine::run_workers(groups, queue, progress, [&](std::size_t w, const engine::WorkTile& tile) {
      return score(*kernel_of_worker[w], w, tile);
    });
  };
  return score_on(on_devices, kernel_of_worker.size(), problem, block_width, show_progress);
}

std::vector<Placement> place_queries(const StateSequences& queries, const Alphabet& alphabet,
                                     const BranchVectors& branches, const ScoringSetup& setup) {
  const kernels::PaparaProblem problem{
      {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}, &queries, &alphabet,
      setup.scoring, setup.threads};
  engine::StartingDevices<kernels::PaparaKernel> devices(
      setup.device, setup.threads, kernels::make_papara_cpu_kernel(setup.kernel, problem),
      [&](std::shared_ptr<kernels::PaparaKernel> cpu, const std::function<bool()>& cancelled) {
        return engine::plan_devices<kernels::PaparaKernel>(
            setup.device, setup.threads, [&] { return kernels::cuda::gpu_unsupported_reason(problem); }, std::move(cpu),
            [&](int gpu) { return kernels::cuda::make_papara_gpu_kernel(gpu, problem); }, engine::WorkShape{},
            cancelled);
      });
  const TileRunner starting = [&](engine::TileQueue& queue, Progress* progress, const ScoreTile& score,
                                  const std::function<void(std::size_t)>& grow) {
    return devices.run(queue, progress, score, grow);
  };
  const ScoringResult result =
      score_on(starting, std::max(1u, setup.threads), problem, devices.cpu().block_width(), true);
  engine::log_device_reports(result.devices);
  std::vector<Placement> out(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const auto best = result.best.of(q);
    if (!best.empty()) out[q] = {best.front().score, best.front().target};
  }
  return out;
}

}  // namespace hyalign::papara
