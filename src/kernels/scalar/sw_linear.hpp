#pragma once
// The traceback of reported hits in space linear in the sequence lengths, over only the cells an
// alignment of the best score can pass through: the same alignment as sw_align_scalar, field for
// field, in a fraction of its time and memory, most of all for long similar sequences
// (docs/performance.md: a 35,000-residue hit).
//
// It runs in two steps: locate (a sweep that finds the end cell and keeps checkpoint columns) and
// the traceback from the end cell, which recomputes the columns between checkpoints. Either step
// takes the other's output, so a faster sweep (kernels/simd/sw_striped.hpp, a full one without
// pruning) can locate and this file trace back.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/scalar/sw_scalar.hpp"

namespace hyalign::kernels {

struct SwRows {  // rows first..last of a column, empty when first > last
  std::size_t first = 1, last = 0;
  bool empty() const { return first > last; }
};

struct SwCheckpoint {  // H and E of a column's kept rows: h[k], e[k] of row kept.first + k
  SwRows kept;
  std::vector<int> h, e;
};

// What the traceback starts from: the first cell holding the best score column by column (smallest
// target position best_j, then smallest query position best_i), and checkpoints of columns 0, stride,
// 2 stride, ... up to best_j at least, of a sweep that kept every cell that can matter for `floor`
// (floor <= best; a checkpoint of all rows 1..m keeps them all).
struct SwLocated {
  int floor = 0, best = 0;
  std::size_t best_i = 0, best_j = 0;
  std::size_t stride = 1;
  std::vector<SwCheckpoint> checkpoints;
};

// Checkpoints (8 bytes a kept row) and a block's traceback bytes (1 a kept row) balance at
// sqrt(8 n) columns.
std::size_t sw_checkpoint_stride(std::size_t target_length);

// sw_align_scalar(query, target, scoring), given `score`, the best local score from a score kernel.
// Any other `score` still gives the exact alignment, only more slowly. Gap costs must not be negative.
SwAlignment sw_align_linear(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                            const SwScoring& scoring, int score);

// The traceback step alone: sw_align_scalar's alignment from a located end cell.
SwAlignment sw_align_located(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                             const SwScoring& scoring, const SwLocated& located);

// The share of the matrix (0..1) that sw_align_linear's pruned sweep for `score` keeps whatever the
// cells' values (every cell whose query and target suffixes can both add `score`): a lower bound of
// its work as a share of a full sweep's, in O(m + n).
double sw_unprunable_share(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                           const SwScoring& scoring, int score);

}  // namespace hyalign::kernels
