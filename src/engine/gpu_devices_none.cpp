// Built when no CUDA compiler was found: no GPU is ever usable.
#include "engine/devices.hpp"

namespace hyalign::engine {
void release_gpus_in_background() {}

std::vector<GpuInfo> usable_gpus() { return {}; }
std::string gpu_unavailable_reason() { return "hyalign was built without CUDA"; }
std::string use_gpu(int device) { return "gpu" + std::to_string(device); }

void* allocate_page_locked(std::size_t) noexcept { return nullptr; }
void free_page_locked(void*) noexcept {}

}  // namespace hyalign::engine
