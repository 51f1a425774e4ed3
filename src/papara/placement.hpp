#pragma once
// Scoring phase: every query against every branch; keeps the best branch per query (ties → lower
// branch index), independent of thread count, kernel and block order.
#include <cstddef>
#include <string_view>
#include <vector>

#include "core/sequence_arena.hpp"
#include "kernels/papara_kernel.hpp"
#include "papara/ancestral.hpp"
#include "sched/scheduler.hpp"

namespace hyalign::papara {

struct Placement {
  int score = 0;
  std::size_t branch = 0;
};

struct ScoringSetup {
  kernels::PaparaScoring scoring;
  kernels::KernelChoice kernel = kernels::KernelChoice::automatic;
  sched::DeviceChoice device = sched::DeviceChoice::automatic;
  unsigned threads = 1;  // CPU scoring threads (GPU feeding threads come on top and mostly sleep)
};

std::vector<Placement> place_queries(const SequenceArena& queries, const Alphabet& alphabet,
                                     const BranchVectors& branches, const ScoringSetup& setup);

}  // namespace hyalign::papara
