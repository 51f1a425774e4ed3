#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "engine/devices.hpp"

namespace hyalign::engine {

namespace {

std::vector<GpuInfo> enumerate_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return {};
  int current = 0;
  const bool had_current = cudaGetDevice(&current) == cudaSuccess;
  std::vector<GpuInfo> gpus;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess || prop.major < 9) continue;  // DPX needs sm_90
    cudaSetDevice(d);
    // Before the device's context exists: threads waiting on it sleep instead of spinning.
    cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) continue;
    gpus.push_back({d, prop.name, free_bytes});
  }
  if (had_current) cudaSetDevice(current);
  return gpus;
}

}  // namespace

std::vector<GpuInfo> usable_gpus() {
  static const std::vector<GpuInfo> gpus = enumerate_gpus();  // CUDA starts once, on the first call
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
  cudaError_t status = cudaSetDevice(device);
  cudaDeviceProp prop{};
  if (status == cudaSuccess) status = cudaGetDeviceProperties(&prop, device);
  if (status != cudaSuccess) throw std::runtime_error(std::string("CUDA cudaSetDevice: ") + cudaGetErrorString(status));
  return "gpu" + std::to_string(device) + " (" + prop.name + ")";
}

void* allocate_page_locked(std::size_t bytes) noexcept {
  void* memory = nullptr;
  if (cudaMallocHost(&memory, std::max<std::size_t>(bytes, 1)) == cudaSuccess) return memory;
  cudaGetLastError();  // clears the refusal
  return nullptr;
}

void free_page_locked(void* memory) noexcept { cudaFreeHost(memory); }

}  // namespace hyalign::engine
