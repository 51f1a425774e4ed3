#pragma once
// The processors a run may use: the --device choice and the GPUs present. Looking at the GPUs
// changes nothing a caller can see (the calling thread's current device is kept).
#include <cstddef>
#include <future>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hyalign::engine {

// Which processors score: `automatic` uses every GPU present plus the CPU cores.
enum class DeviceChoice { automatic, cpu, gpu, all };
DeviceChoice parse_device_choice(std::string_view name);  // throws UsageError for an unknown name

struct GpuInfo {
  int index = 0;
  std::string name;
  std::size_t free_bytes = 0;
};

// GPUs of compute capability 9.0 or newer (the kernels use Hopper's DPX instructions), with their
// free memory when first asked (the enumeration is done once per process). Without CUDA at build
// time, or without a usable GPU at run time, empty; gpu_unavailable_reason() says why.
std::vector<GpuInfo> usable_gpus();

// Starts the GPU enumeration (CUDA's start-up, a few hundred milliseconds) on a background thread
// unless `choice` is cpu, so that it overlaps reading the inputs. The future is ready when done.
std::future<void> start_gpu_enumeration(DeviceChoice choice);
std::string gpu_unavailable_reason();

// "gpuN (model name)", for logs; also makes `device` the current device of the calling thread.
std::string use_gpu(int device);

// Bytes on their way to a GPU: page-locked when asked (a GPU copies them at the link's speed,
// without a staging copy), plain memory without CUDA or where the system refuses to lock more.
// Grows without keeping its contents.
class TransferBuffer {
 public:
  TransferBuffer() = default;
  ~TransferBuffer() { release(); }
  TransferBuffer(TransferBuffer&& other) noexcept { swap(other); }
  TransferBuffer& operator=(TransferBuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  void resize_for_overwrite(std::size_t bytes, bool page_locked);
  char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void swap(TransferBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    std::swap(page_locked_, other.page_locked_);
  }
  void release() noexcept;
  char* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
  bool page_locked_ = false;
};

}  // namespace hyalign::engine
