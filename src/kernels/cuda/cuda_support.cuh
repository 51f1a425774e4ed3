#pragma once
// Helpers shared by the CUDA kernels: error checks, streams and events that release themselves, and
// device / pinned buffers that grow on demand.
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

// Makes `device` current for the calling thread and returns it (for member initializer lists, so
// that the members after it are created on that device).
inline int current_device(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
  return device;
}

// v in both 16-bit halves of a word (DPX 16x2 operands).
inline unsigned pack_s16x2(int v) { return (static_cast<unsigned>(v) & 0xFFFFu) * 0x00010001u; }

// A stream or event of the current device, destroyed with its owner (also when the owner's
// constructor throws after it was made).
template <typename Handle, cudaError_t (*Create)(Handle*), cudaError_t (*Destroy)(Handle)>
class CudaHandle {
 public:
  CudaHandle() { check(Create(&handle_), "stream or event creation"); }
  ~CudaHandle() {
    if (handle_) Destroy(handle_);
  }
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;
  operator Handle() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};
inline cudaError_t create_stream(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); }
// Threads waiting on an event sleep (blocking sync) instead of spinning.
inline cudaError_t create_event(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, cudaEventBlockingSync); }
using Stream = CudaHandle<cudaStream_t, create_stream, cudaStreamDestroy>;
using Event = CudaHandle<cudaEvent_t, create_event, cudaEventDestroy>;

inline cudaError_t allocate_device(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t allocate_pinned(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }

// A host-to-device copy of pageable memory. Large arrays are page-locked for the copy: from
// pageable memory cudaMemcpy ran at about 4.5 GB/s on the H100 host (a 207 MB database in 41-49
// ms), since the driver stages it through small pinned buffers itself. Where the system refuses to
// lock them, the plain copy.
inline void copy_to_device(void* device, const void* host, std::size_t bytes) {
  constexpr std::size_t kLockFrom = std::size_t{64} << 20;
  void* const h = const_cast<void*>(host);
  const bool locked = bytes >= kLockFrom && cudaHostRegister(h, bytes, cudaHostRegisterDefault) == cudaSuccess;
  if (bytes >= kLockFrom && !locked) cudaGetLastError();  // the refusal is not an error of the copy
  const cudaError_t copied = cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
  if (locked) check(cudaHostUnregister(h), "unlock");
  check(copied, "upload");
}

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
    copy_to_device(ptr, host, n * sizeof(T));
  }
  template <typename Allocator>
  void upload(const std::vector<T, Allocator>& host) {
    upload(host.data(), host.size());
  }
};
template <typename T>
using DeviceBuffer = CudaBuffer<T, allocate_device, cudaFree>;
template <typename T>
using PinnedBuffer = CudaBuffer<T, allocate_pinned, cudaFreeHost>;

}  // namespace hyalign::kernels::cuda
