#pragma once
// Smith–Waterman search scores on a GPU, behind the same SwKernel interface as the CPU kernels.
#include <memory>
#include <string>

#include "kernels/sw_kernel.hpp"

namespace hyalign::kernels::cuda {

// Why this scoring cannot run on the GPU kernel ("" when it can).
std::string sw_gpu_unsupported_reason(const SwScoring& scoring);

// One kernel per GPU; nullptr when the scoring is unsupported.
// `host_threads` unpack each launch's scores (a take of many queries holds tens of millions).
std::unique_ptr<SwKernel> make_sw_gpu_kernel(int device, const SwScoring& scoring, unsigned host_threads = 1);

}  // namespace hyalign::kernels::cuda
