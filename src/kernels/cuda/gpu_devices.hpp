#pragma once
// The GPUs hyalign can use. Without CUDA at build time, or without a usable GPU at run time,
// `usable_gpus()` is empty and `gpu_unavailable_reason()` says why.
#include <cstddef>
#include <string>
#include <vector>

namespace hyalign::kernels::cuda {

struct GpuInfo {
  int index = 0;
  std::string name;
  std::size_t free_bytes = 0;
};

// GPUs of compute capability 9.0 or newer (the kernels use Hopper's DPX instructions).
std::vector<GpuInfo> usable_gpus();
std::string gpu_unavailable_reason();

// "gpuN (model name)", for logs; also makes `device` the current device of this thread.
std::string use_gpu(int device);

}  // namespace hyalign::kernels::cuda
