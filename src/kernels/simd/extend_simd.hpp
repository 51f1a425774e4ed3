#pragma once
// Factories of the per-ISA extension kernels; call one only when the CPU supports its instruction
// set (cpu_supports(KernelChoice::avx2 / avx512)).
#include <memory>

#include "kernels/extend_kernel.hpp"

namespace hyalign::kernels::simd {

std::unique_ptr<ExtendKernel> make_extend_avx2_kernel(const ExtendScoring& scoring);    // 32 x 8-bit, 16 x 16-bit lanes
std::unique_ptr<ExtendKernel> make_extend_avx512_kernel(const ExtendScoring& scoring);  // 64 x 8-bit, 32 x 16-bit lanes

}  // namespace hyalign::kernels::simd
