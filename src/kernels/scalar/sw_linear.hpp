#pragma once
// The traceback of reported hits in space linear in the sequence lengths, over only the cells an
// alignment of the best score can pass through: the same alignment as sw_align_scalar, field for
// field, in a fraction of its time and memory, most of all for long similar sequences
// (docs/performance.md: a 35,000-residue hit).
#include <cstdint>
#include <span>

#include "kernels/scalar/sw_scalar.hpp"

namespace hyalign::kernels {

// sw_align_scalar(query, target, scoring), given `score`, the best local score from a score kernel.
// Any other `score` still gives the exact alignment, only more slowly. Gap costs must not be negative.
SwAlignment sw_align_linear(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                            const SwScoring& scoring, int score);

}  // namespace hyalign::kernels
