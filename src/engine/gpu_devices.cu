#include <cuda_runtime.h>

#include <algorithm>
#include <new>
#include <stdexcept>
#include <utility>

#include "engine/devices.hpp"

#include "core/large_memory.hpp"

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

void TransferBuffer::resize_for_overwrite(std::size_t bytes, bool page_locked) {
  if (bytes > capacity_ || (page_locked && !page_locked_)) {
    release();
    void* memory = nullptr;
    if (page_locked && cudaMallocHost(&memory, std::max<std::size_t>(bytes, 1)) == cudaSuccess) {
      page_locked_ = true;
    } else {
      cudaGetLastError();  // clears a refusal: plain memory works too
      memory = allocate_large(bytes);
    }
    data_ = static_cast<char*>(memory);
    capacity_ = bytes;
  }
  size_ = bytes;
}

void TransferBuffer::release() noexcept {
  if (!data_) return;
  if (page_locked_) cudaFreeHost(data_);
  else free_large(data_);
  data_ = nullptr;
  size_ = capacity_ = 0;
  page_locked_ = false;
}

}  // namespace hyalign::engine
