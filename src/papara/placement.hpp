#pragma once
// Scoring phase: every query against every branch; keeps the best branch per query (ties → lower
// branch index), independent of thread count and block order.
#include <cstddef>
#include <vector>

#include "core/sequence_arena.hpp"
#include "kernels/scalar/papara_scalar.hpp"
#include "papara/ancestral.hpp"

namespace hyalign::papara {

struct Placement {
  int score = 0;
  std::size_t branch = 0;
};

std::vector<Placement> place_queries(const SequenceArena& queries, const BranchVectors& branches,
                                     const kernels::PaparaScoring& scoring, unsigned threads);

}  // namespace hyalign::papara
