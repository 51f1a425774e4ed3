#pragma once
// Helpers shared by the CUDA kernels: error checks and device / pinned buffers that grow on demand.
// (fmt is not used in CUDA sources: its headers do not compile under nvcc in C++20 mode.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace hyalign::kernels::cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(status));
}

// v in both 16-bit halves of a word (DPX 16x2 operands).
inline unsigned pack_s16x2(int v) { return (static_cast<unsigned>(v) & 0xFFFFu) * 0x00010001u; }

inline cudaError_t allocate_device(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t allocate_pinned(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }

template <typename T, cudaError_t (*Allocate)(void**, std::size_t), cudaError_t (*Release)(void*)>
struct CudaBuffer {
  T* ptr = nullptr;
  std::size_t size = 0;
  CudaBuffer() = default;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  ~CudaBuffer() {
    if (ptr) Release(ptr);
  }
  void reserve(std::size_t n) {
    if (n <= size) return;
    if (ptr) Release(ptr);
    ptr = nullptr;
    size = 0;
    void* p = nullptr;
    check(Allocate(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "allocation");
    ptr = static_cast<T*>(p);
    size = n;
  }
  void upload(const T* host, std::size_t n) {
    reserve(n);
    check(cudaMemcpy(ptr, host, n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
};
template <typename T>
using DeviceBuffer = CudaBuffer<T, allocate_device, cudaFree>;
template <typename T>
using PinnedBuffer = CudaBuffer<T, allocate_pinned, cudaFreeHost>;

}  // namespace hyalign::kernels::cuda
