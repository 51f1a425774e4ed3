#pragma once
// Maximal exact matches on a GPU, behind the same MemKernel interface as the CPU finder.
#include <cstddef>
#include <memory>
#include <string>

#include "kernels/mem_kernel.hpp"

namespace hyalign::kernels::cuda {

// Device memory a kernel needs besides the suffix array: the text, the prefix table, and the
// buffers of its slices of work.
std::size_t mem_gpu_bytes_beside_suffix_array(const index::SuffixIndex& index);

// Why the GPUs cannot take this index ("" when every usable GPU has room for it, its suffix array
// in at most a few dozen pieces). `memory_limit` (bytes, 0: none) caps what a kernel may take.
std::string mem_gpu_unsupported_reason(const index::SuffixIndex& index, std::size_t memory_limit);

// One kernel per GPU, holding the text and prefix table in device memory with the suffix array
// whole, or in pieces swapped in turn when it does not fit (in what the GPU has free, or in
// `memory_limit` bytes when that is less; 0: no limit). Throws (std::runtime_error) when even
// pieces do not fit or the GPU fails; so does find(), after which the caller finds those strands
// elsewhere (make_mem_kernel_with_fallback). Strands the GPU leaves to the CPU are matched on
// `cpu_threads` threads.
std::unique_ptr<MemKernel> make_mem_gpu_kernel(int device, const index::SuffixIndex& index, MemParams params,
                                               std::size_t memory_limit = 0, unsigned cpu_threads = 1);

}  // namespace hyalign::kernels::cuda
