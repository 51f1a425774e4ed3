#pragma once
// Factories of the per-ISA Smith–Waterman kernels; call one only when the CPU supports its
// instruction set (cpu_supports(KernelChoice::avx2 / avx512)).
#include <memory>

#include "kernels/sw_kernel.hpp"

namespace hyalign::kernels::simd {

std::unique_ptr<SwKernel> make_sw_avx2_kernel(const SwScoring& scoring);    // 32 x 8-bit, 16 x 16-bit lanes
std::unique_ptr<SwKernel> make_sw_avx512_kernel(const SwScoring& scoring);  // 64 x 8-bit, 32 x 16-bit lanes

}  // namespace hyalign::kernels::simd
