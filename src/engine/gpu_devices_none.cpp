// Built when no CUDA compiler was found: no GPU is ever usable.
#include "engine/devices.hpp"

#include "core/large_memory.hpp"

#include <algorithm>
#include <new>

namespace hyalign::engine {

std::vector<GpuInfo> usable_gpus() { return {}; }
std::string gpu_unavailable_reason() { return "hyalign was built without CUDA"; }
std::string use_gpu(int device) { return "gpu" + std::to_string(device); }

void TransferBuffer::resize_for_overwrite(std::size_t bytes, bool) {
  if (bytes > capacity_) {
    release();
    data_ = static_cast<char*>(allocate_large(bytes));
    capacity_ = bytes;
  }
  size_ = bytes;
}

void TransferBuffer::release() noexcept {
  free_large(data_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

}  // namespace hyalign::engine
