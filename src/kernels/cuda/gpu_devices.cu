#include "kernels/cuda/gpu_devices.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda/cuda_support.cuh"

namespace hyalign::kernels::cuda {

std::vector<GpuInfo> usable_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return {};
  std::vector<GpuInfo> gpus;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess || prop.major < 9) continue;  // DPX needs sm_90
    cudaSetDevice(d);
    cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);  // waiting threads sleep instead of spinning
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) continue;
    gpus.push_back({d, prop.name, free_bytes});
  }
  return gpus;
}

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("no CUDA device (") + cudaGetErrorString(status) + ")";
  if (count == 0) return "no CUDA device";
  return "no CUDA device of compute capability 9.0 or newer (the kernels use Hopper DPX instructions)";
}

std::string use_gpu(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return "gpu" + std::to_string(device) + " (" + prop.name + ")";
}

}  // namespace hyalign::kernels::cuda
