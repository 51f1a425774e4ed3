#pragma once
// Maximal exact matches on a GPU, behind the same MemKernel interface as the CPU finder.
#include <memory>
#include <string>

#include "kernels/mem_kernel.hpp"

namespace hyalign::kernels::cuda {

// Why the GPUs cannot take this index ("" when every usable GPU has room for it and the buffers).
std::string mem_gpu_unsupported_reason(const index::SuffixIndex& index);

// One kernel per GPU, holding the whole index (text, suffix array, prefix table) in device memory.
// Throws (std::runtime_error) when the index does not fit or the GPU fails; so does find(), after
// which the caller finds those strands elsewhere (make_mem_kernel_with_fallback).
std::unique_ptr<MemKernel> make_mem_gpu_kernel(int device, const index::SuffixIndex& index, MemParams params);

}  // namespace hyalign::kernels::cuda
