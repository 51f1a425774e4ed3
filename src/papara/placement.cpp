#include "papara/placement.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "core/log.hpp"
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

// The rows of the scoring: for each query, the targets scored so far, whichever workers scored them.
// A worker's scores pass through a RowSink of its own, which counts them; the worker whose scores
// complete a query's row names the query, so that it is placed while the others are scored.
class RowCounts {
 public:
  RowCounts(std::size_t queries, std::size_t targets) : scored_(queries), targets_(targets) {}
  // Adds `count` targets to query q's row; whether that completes it.
  bool add(std::size_t q, std::size_t count) {
    return scored_[q].fetch_add(count, std::memory_order_acq_rel) + count == targets_;
  }

 private:
  std::vector<std::atomic<std::size_t>> scored_;
  const std::size_t targets_;
};

// Folds one worker's scores into its table and counts them; the queries they complete are handed
// to `complete` in groups (a GPU take's rows arrive a slice at a time, while it scores the next).
// Each (query, target) must be offered once in a run: a kernel that offered a take's scores twice
// (a fallback re-running a failed take) would leave rows uncompleted, which score_on reports.
class RowSink final : public engine::ScoreSink {
 public:
  using Complete = std::function<void(std::vector<std::size_t>& queries)>;
  RowSink(engine::BestHits& table, RowCounts& counts, const Complete& complete)
      : table_(table), counts_(counts), complete_(complete) {}
  void offer(std::size_t q, int score, std::size_t target) override {
    table_.offer(q, score, target);
    count(q, 1);
  }
  void offer_row(std::size_t q, const int* scores, std::size_t first_target, std::size_t count_) override {
    table_.offer_row(q, scores, first_target, count_);
    count(q, count_);
  }
  // After the tile: the counts still held, and the queries completed since the last group.
  void finish() {
    flush();
    if (!completed_.empty()) complete_(completed_);
  }

 private:
  static constexpr std::size_t kGroup = 256;
  // A kernel offers a query's scores one after the other: they are counted once the query changes.
  void count(std::size_t q, std::size_t n) {
    if (q != query_) flush();
    query_ = q;
    pending_ += n;
  }
  void flush() {
    if (pending_ > 0 && counts_.add(query_, pending_)) completed_.push_back(query_);
    pending_ = 0;
    if (completed_.size() >= kGroup) complete_(completed_);
  }
  engine::BestHits& table_;
  RowCounts& counts_;
  const Complete& complete_;
  std::size_t query_ = 0, pending_ = 0;
  std::vector<std::size_t> completed_;
};

// Told of `queries` once every target has scored them, with the merged best hits.
using RowsPlaced = std::function<void(std::span<const std::size_t> queries, const engine::BestHits& best)>;

// Scores `queue`'s tiles: score(kernel, worker, tile); grow(workers) is called before workers run,
// with the number of workers so far. An engine::StartingDevices run, or fixed devices.
using ScoreTile = std::function<double(const kernels::PaparaKernel&, std::size_t worker, const engine::WorkTile&)>;
using TileRunner = std::function<std::vector<engine::DeviceReport>(
    engine::TileQueue&, Progress*, const ScoreTile&, const std::function<void(std::size_t workers)>& grow)>;

// Every query against every target, on `workers` workers at most at a time; `placed` hears of
// queries as soon as their best branches are known.
ScoringResult score_on(const TileRunner& run, std::size_t workers, const kernels::PaparaProblem& problem,
                       std::size_t block_width, bool show_progress, const RowsPlaced& placed) {
  const std::size_t queries = problem.queries->size();
  engine::TileQueue queue(problem.targets.count, block_width, queries, query_chunk(problem, block_width, workers));
  std::optional<Progress> progress;
  if (show_progress) progress.emplace("scoring", queue.tile_count());

  // Each worker folds its scores into its own table, made by the worker itself (in parallel, and
  // not at all by one that scores nothing). The worker that completes a query's row merges that
  // row of every table with the tie rule, so the result does not depend on which device scored
  // which tile; tables are made and merged under one lock.
  std::vector<std::optional<engine::BestHits>> tables;
  std::vector<std::unique_ptr<kernels::PaparaBlockScorer>> scorers;
  std::mutex tables_mutex;
  RowCounts counts(queries, problem.targets.count);
  std::atomic<std::size_t> rows_placed{0};
  ScoringResult result{engine::BestHits(queries, 1), {}};
  const RowSink::Complete complete = [&](std::vector<std::size_t>& rows) {
    {
      std::lock_guard lock(tables_mutex);
      for (const auto& table : tables)
        if (table)
          for (const std::size_t q : rows) result.best.merge(*table, q, q + 1);
    }
    rows_placed += rows.size();
    if (placed) placed(rows, result.best);
    rows.clear();
  };
  const auto score_tile = [&](const kernels::PaparaKernel& kernel, std::size_t w, const engine::WorkTile& tile) {
    if (!scorers[w]) scorers[w] = kernel.make_scorer();
    if (!tables[w]) {
      std::lock_guard lock(tables_mutex);
      tables[w].emplace(queries, 1);
    }
    RowSink sink(*tables[w], counts, complete);
    scorers[w]->score_tile(tile, sink);
    sink.finish();
    return tile_cells(problem, tile);
  };
  const auto grow = [&](std::size_t count) {
    tables.resize(std::max(tables.size(), count));
    scorers.resize(tables.size());
  };
  result.devices = run(queue, progress ? &*progress : nullptr, score_tile, grow);
  // With no target, no row is ever scored; else each must have been completed exactly once.
  if (problem.targets.count > 0 && rows_placed != queries)
    throw std::logic_error(fmt::format("papara: {} of {} queries placed", rows_placed.load(), queries));
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
  return score_on(on_devices, kernel_of_worker.size(), problem, block_width, show_progress, {});
}

std::vector<Placement> place_queries(const kernels::PaparaProblem& problem, const ScoringSetup& setup,
                                     const QueriesPlaced& placed) {
  engine::StartingDevices<kernels::PaparaKernel> devices(
      setup.device, problem.threads, kernels::make_papara_cpu_kernel(setup.kernel, problem),
      [&](std::shared_ptr<kernels::PaparaKernel> cpu, const std::function<bool()>& cancelled) {
        return engine::plan_devices<kernels::PaparaKernel>(
            setup.device, problem.threads, [&] { return kernels::cuda::gpu_unsupported_reason(problem); }, std::move(cpu),
            [&](int gpu) { return kernels::cuda::make_papara_gpu_kernel(gpu, problem); }, engine::WorkShape{},
            cancelled);
      });
  const TileRunner starting = [&](engine::TileQueue& queue, Progress* progress, const ScoreTile& score,
                                  const std::function<void(std::size_t)>& grow) {
    return devices.run(queue, progress, score, grow);
  };
  std::vector<Placement> out(problem.queries->size());
  const auto place = [&](std::span<const std::size_t> rows, const engine::BestHits& best) {
    for (const std::size_t q : rows) {
      const auto hits = best.of(q);
      if (!hits.empty()) out[q] = {hits.front().score, hits.front().target};
    }
    if (placed) placed(rows, out);
  };
  const ScoringResult result =
      score_on(starting, std::max(1u, problem.threads), problem, devices.cpu().block_width(), true, place);
  engine::log_device_reports(result.devices);
  return out;
}

}  // namespace hyalign::papara
