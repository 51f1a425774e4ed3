#pragma once
// Factories of the per-ISA extension kernels and aligners; call one only when the CPU supports its instruction
// set (cpu_supports(KernelChoice::avx2 / avx512)).
#include <memory>

#include "kernels/extend_kernel.hpp"

namespace hyalign::kernels::simd {

std::unique_ptr<ExtendKernel> make_extend_avx2_kernel(const ExtendScoring& scoring);    // 32 x 8-bit, 16 x 16-bit lanes
std::unique_ptr<ExtendKernel> make_extend_avx512_kernel(const ExtendScoring& scoring);  // 64 x 8-bit, 32 x 16-bit lanes

// extend_align_scalar's result, each row's cells computed side by side (extend_rows.hpp).
ExtendAlignment extend_align_avx2(const ExtendTask& task, const ExtendScoring& scoring);
ExtendAlignment extend_align_avx512(const ExtendTask& task, const ExtendScoring& scoring);

}  // namespace hyalign::kernels::simd
