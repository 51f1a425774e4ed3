#pragma once
// CUDA scoring of PaPaRa (query, branch) pairs.
#include <memory>
#include <string>
#include <vector>

#include "kernels/papara_kernel.hpp"

namespace hyalign::kernels::cuda {

// Why this problem cannot run on the GPU kernel at all ("" when it can): protein data, or scoring
// parameters outside what the packed kernel handles exactly. Single queries it cannot take (too
// long for 16-bit rows) are scored on the CPU by the GPU worker itself.
std::string gpu_unsupported_reason(const PaparaProblem& problem);

// One kernel per GPU; uploads the branch and query data to that device.
std::unique_ptr<PaparaKernel> make_papara_gpu_kernel(int device, const PaparaProblem& problem);

}  // namespace hyalign::kernels::cuda
