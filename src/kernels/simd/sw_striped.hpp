#pragma once
// One query against one long target at a time: the striped (Farrar 2007) Smith–Waterman kernels, for
// the pairs the inter-sequence kernel cannot take in its lanes (scores beyond 16 bits) and for the
// locate step of tracebacks. Make one only when the CPU supports its instruction set
// (cpu_supports(KernelChoice::avx2 / avx512)); kernels/sw_kernel.hpp has the dispatching entry points.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "kernels/scalar/sw_linear.hpp"
#include "kernels/scalar/sw_scalar.hpp"

namespace hyalign::kernels::simd {

// Exact: every score is sw_score_scalar's. 16-bit lanes first; a score that reaches their ceiling
// is computed again in 32-bit lanes. Gap costs must not be negative; codes are the matrix's (< 32).
class StripedSw {
 public:
  virtual ~StripedSw() = default;
  // The query of the calls below (kept by reference: it must stay alive).
  virtual void set_query(std::span<const std::uint8_t> query) = 0;
  // The best local score against `target`. `at_least`: a score the caller knows the result reaches,
  // so that lanes it does not fit are skipped.
  virtual int score(std::span<const std::uint8_t> target, int at_least = 0) = 0;
  // The first maximum (sw_align_linear's end cell) and checkpoints of every row at columns 0,
  // stride, 2 stride, ...: a full sweep, floor = best.
  virtual SwLocated locate(std::span<const std::uint8_t> target, std::size_t stride, int at_least = 0) = 0;
};

std::unique_ptr<StripedSw> make_striped_sw_avx2(const SwScoring& scoring);    // 16 x 16-bit, 8 x 32-bit lanes
std::unique_ptr<StripedSw> make_striped_sw_avx512(const SwScoring& scoring);  // 32 x 16-bit, 16 x 32-bit lanes

}  // namespace hyalign::kernels::simd
