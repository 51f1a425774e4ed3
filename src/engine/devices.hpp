#pragma once
// The processors a run may use: the --device choice and the GPUs present. Looking at the GPUs
// changes nothing a caller can see (the calling thread's current device is kept).
#include <cstddef>
#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/large_memory.hpp"

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
// A run whose GPU work is over, every GPU kernel and page-locked buffer of it freed, lets the GPUs
// go: their contexts are destroyed on a thread of its own, beside the run's last steps, instead of
// at the process's exit (papara on one H200: 0.11 s from main's return to the end, 0.05 s so).
// Nothing where CUDA has not started or its start is still under way.
void release_gpus_in_background();

// The GPUs of a node shared by the `processes` processes of a job that run on it (MPI ranks):
// process p uses the usable GPUs at positions p, p + processes, ... when there are at least as many
// GPUs as processes, else the one at p modulo their count. Called before the first usable_gpus().
void share_gpus(unsigned process, unsigned processes);
// This process's share of `found` (the enumeration behind usable_gpus() applies it).
std::vector<GpuInfo> gpu_share(std::vector<GpuInfo> found);

// Runs `work` on a thread of its own that the process need not wait for: CUDA's start takes a few
// hundred milliseconds and cannot be cut short, and a small job is done sooner. While any such work
// is under way (background_work_under_way()), main ends the process without waiting once the run
// has written and closed everything. `work` must not touch what its caller may free meanwhile.
std::shared_future<void> start_in_background(std::function<void()> work);
bool background_work_under_way();

// Starts the GPU enumeration (CUDA's start-up, a few hundred milliseconds) in the background unless
// `choice` is cpu, so that it overlaps reading the inputs. The future is ready when done; a later
// call returns the first one's.
std::shared_future<void> start_gpu_enumeration(DeviceChoice choice);
std::string gpu_unavailable_reason();

// make(item) for each of `items` at once, a thread each: a run's GPUs start side by side (a context
// and a kernel each take a tenth of a second or more, and one after the other they would delay a
// run on two GPUs by that much more than one on a single GPU). The results in the items' order;
// every call ends before the first error, in that order, is rethrown.
template <class Item, class Make>
auto on_each_at_once(const std::vector<Item>& items, Make make) {
  using Result = decltype(make(items.front()));
  std::vector<std::future<Result>> pending;
  for (const Item& item : items) pending.push_back(std::async(std::launch::async, [&make, &item] { return make(item); }));
  for (auto& p : pending) p.wait();
  std::vector<Result> results;
  for (auto& p : pending) results.push_back(p.get());
  return results;
}

// "gpuN (model name)", for logs; also makes `device` the current device of the calling thread.
std::string use_gpu(int device);

// Page-locked host memory (a GPU copies from it at the link's speed, without a staging copy), or
// nullptr without CUDA or where the system refuses to lock more; free_page_locked frees it.
void* allocate_page_locked(std::size_t bytes) noexcept;
void free_page_locked(void* memory) noexcept;

// Bytes on their way to a GPU: page-locked when asked and granted, else plain (large) memory.
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
  void resize_for_overwrite(std::size_t bytes, bool page_locked) {
    // Plain memory is replaced by page-locked memory once asked for, unless locking was refused.
    const bool lock = page_locked && !refused_;
    if (bytes > capacity_ || (lock && !page_locked_)) {
      release();
      data_ = lock ? static_cast<char*>(allocate_page_locked(bytes)) : nullptr;
      page_locked_ = data_ != nullptr;
      refused_ = lock && !page_locked_;
      if (!data_) data_ = static_cast<char*>(allocate_large(bytes));
      capacity_ = bytes;
    }
    size_ = bytes;
  }
  char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void swap(TransferBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    std::swap(page_locked_, other.page_locked_);
    std::swap(refused_, other.refused_);
  }
  void release() noexcept {
    if (page_locked_) free_page_locked(data_);
    else free_large(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
    page_locked_ = false;
  }
  char* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
  bool page_locked_ = false, refused_ = false;
};

}  // namespace hyalign::engine
