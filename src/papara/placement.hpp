#pragma once
// Scoring phase: every query against every branch; keeps the best branch per query (ties → lower
// branch index), independent of thread count, kernel and block order.
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "core/sequence_batch.hpp"
#include "engine/best_hits.hpp"
#include "engine/cpu_features.hpp"
#include "engine/devices.hpp"
#include "engine/scheduler.hpp"
#include "kernels/papara_kernel.hpp"

namespace hyalign::papara {

struct Placement {
  int score = 0;
  std::size_t branch = 0;
};

// The devices that score; the problem's threads are the CPU's scoring threads (GPU feeding threads
// come on top and mostly sleep).
struct ScoringSetup {
  engine::KernelChoice kernel = engine::KernelChoice::automatic;
  engine::DeviceChoice device = engine::DeviceChoice::automatic;
};

// Told, from a scoring worker, that `queries` are placed while the rest are scored: their entries of
// `placements` (every query's place) are final, the ones place_queries returns.
using QueriesPlaced = std::function<void(std::span<const std::size_t> queries, const std::vector<Placement>& placements)>;

std::vector<Placement> place_queries(const kernels::PaparaProblem& problem, const ScoringSetup& setup,
                                     const QueriesPlaced& placed = {});

// One device's kernel and the workers that feed it.
struct DeviceWorkers {
  const kernels::PaparaKernel* kernel = nullptr;
  unsigned workers = 1;
  std::size_t max_tiles_per_take = 1;
  std::string model;  // devices of one model share a measured rate (engine::WorkerGroup::model)
};

struct ScoringResult {
  engine::BestHits best;  // the best branch of each query (k = 1)
  std::vector<engine::DeviceReport> devices;
};

// Every query against every branch on the given devices: tiles are `block_width` targets by a
// query chunk sized so there are several tiles per worker. With `show_progress`, a progress line
// on stderr (when it is a terminal).
ScoringResult score_all_targets(const std::vector<DeviceWorkers>& devices, const kernels::PaparaProblem& problem,
                                std::size_t block_width, bool show_progress);

}  // namespace hyalign::papara
