// Built when no CUDA compiler was found: the GPU path reports itself unavailable.
#include "kernels/cuda/papara_cuda.hpp"

namespace hyalign::kernels::cuda {

std::vector<GpuInfo> usable_gpus() { return {}; }
std::string gpu_unavailable_reason() { return "hyalign was built without CUDA"; }
std::string gpu_unsupported_reason(const PaparaProblem&) { return gpu_unavailable_reason(); }
std::unique_ptr<PaparaKernel> make_papara_gpu_kernel(int, const PaparaProblem&) { return nullptr; }

}  // namespace hyalign::kernels::cuda
