#pragma once
// Factories of the per-ISA kernels; call one only when the CPU supports its instruction set.
#include <memory>

#include "kernels/papara_kernel.hpp"

namespace hyalign::kernels::simd {

std::unique_ptr<PaparaKernel> make_avx2_kernel(const PaparaProblem& problem);
std::unique_ptr<PaparaKernel> make_avx512_kernel(const PaparaProblem& problem);

}  // namespace hyalign::kernels::simd
