#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <stdexcept>

#include "engine/devices.hpp"

namespace hyalign::engine {

namespace {

struct GpuLists {
  std::vector<GpuInfo> usable;  // this process's share
  std::vector<int> others;      // capable GPUs in the shares of other processes on the node
};

bool is_other_process_gpu(const GpuLists& lists, int device) {
  return std::find(lists.others.begin(), lists.others.end(), device) != lists.others.end();
}

GpuLists enumerate_gpus() {
  GpuLists lists;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return lists;
  std::vector<GpuInfo> capable;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess || prop.major < 9) continue;  // DPX needs sm_90
    capable.push_back({d, prop.name, 0});
  }
  // Contexts only on this process's share: a context on another rank's GPU would take its memory.
  const std::vector<GpuInfo> share = gpu_share(capable);
  for (const GpuInfo& gpu : capable)
    if (std::none_of(share.begin(), share.end(), [&](const GpuInfo& s) { return s.index == gpu.index; }))
      lists.others.push_back(gpu.index);
  // Each GPU's context is made on a thread of its own: the caller's current device is not changed.
  const std::vector<std::optional<std::size_t>> free_bytes = on_each_at_once(share, [](const GpuInfo& gpu) {
    std::optional<std::size_t> free;
    cudaSetDevice(gpu.index);
    // Before the device's context exists: threads waiting on it sleep instead of spinning.
    cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    std::size_t bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&bytes, &total_bytes) == cudaSuccess) free = bytes;
    return free;
  });
  for (std::size_t g = 0; g < share.size(); ++g)
    if (free_bytes[g]) lists.usable.push_back({share[g].index, share[g].name, *free_bytes[g]});
  return lists;
}

std::atomic<bool> enumerated{false};

const GpuLists& gpu_lists() {
  static const GpuLists lists = enumerate_gpus();  // CUDA starts once, on the first call
  enumerated = true;
  return lists;
}

// A thread that never chose a GPU is on GPU 0; where that is another process's, it moves to this
// process's first, so that the call about to come opens no context there.
void keep_off_other_process_gpus() {
  const GpuLists& lists = gpu_lists();
  int current = 0;
  if (!lists.usable.empty() && cudaGetDevice(&current) == cudaSuccess && is_other_process_gpu(lists, current))
    cudaSetDevice(lists.usable.front().index);
}

}  // namespace

std::vector<GpuInfo> usable_gpus() { return gpu_lists().usable; }
void release_gpus_in_background() {
  if (!enumerated.load()) return;  // none started, or their start is still under way
  start_in_background([] {
    for (const GpuInfo& gpu : gpu_lists().usable) {
      cudaSetDevice(gpu.index);
      cudaDeviceReset();
    }
  });
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
  keep_off_other_process_gpus();
  void* memory = nullptr;
  if (cudaMallocHost(&memory, std::max<std::size_t>(bytes, 1)) == cudaSuccess) return memory;
  cudaGetLastError();  // clears the refusal
  return nullptr;
}

void free_page_locked(void* memory) noexcept { cudaFreeHost(memory); }

}  // namespace hyalign::engine
