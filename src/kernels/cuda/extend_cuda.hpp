#pragma once
// `map`'s read-vs-locus extension scores on a GPU, behind the same ExtendKernel interface as the CPU
// kernels: each scorer packs its batch of tasks, scores it on the GPU (a group of threads per task)
// and returns results equal to extend_score_scalar's.
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/extend_kernel.hpp"

namespace hyalign::kernels::cuda {

// Bands up to this many letters (mate rescue's windows included) run by thread groups, fast; wider
// ones run a thread per task, which pays only on large batches.
inline constexpr std::uint32_t kGpuGroupBand = 1024;

// Why this scoring cannot run on the GPU kernel ("" when it can).
std::string extend_gpu_unsupported_reason(const ExtendScoring& scoring);

// A kernel on GPU `device` (each scorer has its own stream and buffers); nullptr when the scoring
// is unsupported.
std::unique_ptr<ExtendKernel> make_extend_gpu_kernel(int device, const ExtendScoring& scoring);

}  // namespace hyalign::kernels::cuda
