#pragma once
// Factories of the per-ISA extension kernels and aligners; call one only when the CPU supports its instruction
// set (cpu_supports(KernelChoice::avx2 / avx512)).
#include <algorithm>
#include <memory>

#include "kernels/extend_kernel.hpp"

namespace hyalign::kernels::simd {

std::unique_ptr<ExtendKernel> make_extend_avx2_kernel(const ExtendScoring& scoring);    // 32 x 8-bit, 16 x 16-bit lanes
std::unique_ptr<ExtendKernel> make_extend_avx512_kernel(const ExtendScoring& scoring);  // 64 x 8-bit, 32 x 16-bit lanes

// extend_align_scalar's result, each row's cells computed side by side (extend_rows.hpp), in 16-bit
// lanes where extend_rows_fit_16_bits, else in 32-bit lanes.
ExtendAlignment extend_align_avx2(const ExtendTask& task, const ExtendScoring& scoring);
ExtendAlignment extend_align_avx512(const ExtendTask& task, const ExtendScoring& scoring);

// Whether every value of a task's cells fits 16-bit lanes with -16000 as -infinity: scores up to
// +16000, and -infinity less any penalty and a vector's gap extensions (32 lanes) above -32768.
inline bool extend_rows_fit_16_bits(const ExtendTask& task, const ExtendScoring& s) {
  const long long best = static_cast<long long>(task.query.size()) * s.match + s.clip5 + s.clip3 + s.match;
  const long long penalty = std::max({s.mismatch, s.ambiguous, kWallPenalty}) + s.gap_open + s.gap_extend;
  return best <= 16000 && task.band_width <= 16000 && penalty + 33LL * s.gap_extend <= 16000;
}

}  // namespace hyalign::kernels::simd
