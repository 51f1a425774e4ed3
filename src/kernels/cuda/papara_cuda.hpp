#pragma once
// CUDA scoring of PaPaRa (query, branch) pairs.
#include <memory>
#include <string>
#include <vector>

#include "kernels/papara_kernel.hpp"

namespace hyalign::kernels::cuda {

// Why this problem cannot run on the GPU ("" when it can): only an alphabet of more residue sets
// than a column word holds. Every query length and every scoring runs on the GPU: 16x2 lanes where
// the scores provably fit, 32-bit lanes otherwise.
std::string gpu_unsupported_reason(const PaparaProblem& problem);

// One kernel per GPU; uploads the branch and query data to that device.
std::unique_ptr<PaparaKernel> make_papara_gpu_kernel(int device, const PaparaProblem& problem);

}  // namespace hyalign::kernels::cuda
