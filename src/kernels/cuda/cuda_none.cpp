// Built when no CUDA compiler was found: the GPU kernels report themselves unavailable.
#include <stdexcept>

#include "engine/devices.hpp"
#include "kernels/cuda/extend_cuda.hpp"
#include "kernels/cuda/mem_cuda.hpp"
#include "kernels/cuda/papara_cuda.hpp"
#include "kernels/cuda/seed_cuda.hpp"
#include "kernels/cuda/sw_cuda.hpp"

namespace hyalign::kernels::cuda {

std::string gpu_unsupported_reason(const PaparaProblem&) { return engine::gpu_unavailable_reason(); }
std::unique_ptr<PaparaKernel> make_papara_gpu_kernel(int, const PaparaProblem&) { return nullptr; }
std::string sw_gpu_unsupported_reason(const SwScoring&) { return engine::gpu_unavailable_reason(); }
std::unique_ptr<SwKernel> make_sw_gpu_kernel(int, const SwScoring&, unsigned) { return nullptr; }
std::unique_ptr<SeedGpuKernel> make_seed_gpu_kernel(int, const index::SuffixIndex&, SeedSearchParams) {
  throw std::runtime_error(engine::gpu_unavailable_reason());
}
std::string extend_gpu_unsupported_reason(const ExtendScoring&) { return engine::gpu_unavailable_reason(); }
std::unique_ptr<ExtendKernel> make_extend_gpu_kernel(int, const ExtendScoring&) { return nullptr; }
std::size_t mem_gpu_bytes_beside_suffix_array(const index::SuffixIndex&) { return 0; }
std::string mem_gpu_unsupported_reason(const index::SuffixIndex&, std::size_t) { return engine::gpu_unavailable_reason(); }
std::unique_ptr<MemKernel> make_mem_gpu_kernel(int, const index::SuffixIndex&, MemParams, std::size_t, unsigned) {
  throw std::runtime_error(engine::gpu_unavailable_reason());
}

}  // namespace hyalign::kernels::cuda
