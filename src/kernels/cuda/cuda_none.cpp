// Built when no CUDA compiler was found: the GPU paths report themselves unavailable.
#include "kernels/cuda/gpu_devices.hpp"
#include "kernels/cuda/papara_cuda.hpp"
#include "kernels/cuda/sw_cuda.hpp"

namespace hyalign::kernels::cuda {

std::vector<GpuInfo> usable_gpus() { return {}; }
std::string gpu_unavailable_reason() { return "hyalign was built without CUDA"; }
std::string use_gpu(int device) { return "gpu" + std::to_string(device); }
std::string gpu_unsupported_reason(const PaparaProblem&) { return gpu_unavailable_reason(); }
std::unique_ptr<PaparaKernel> make_papara_gpu_kernel(int, const PaparaProblem&) { return nullptr; }
std::string sw_gpu_unsupported_reason(const SwScoring&) { return gpu_unavailable_reason(); }
std::unique_ptr<SwKernel> make_sw_gpu_kernel(int, const SwScoring&) { return nullptr; }

}  // namespace hyalign::kernels::cuda
