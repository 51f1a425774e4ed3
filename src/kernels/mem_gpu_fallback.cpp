// A GPU's mem kernel that survives the GPU: the work of a failed call, and of every later one, is
// found on the CPU instead (a GPU failure costs time, never output).
#include <stdexcept>
#include <string>

#include "core/log.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/mem_cuda.hpp"
#include "kernels/mem_kernel.hpp"
#include "kernels/mem_strand_work.hpp"

namespace hyalign::kernels {
namespace {

class FallbackMemKernel final : public MemKernel {
 public:
  FallbackMemKernel(int device, const index::SuffixIndex& index, MemParams params, std::size_t memory_limit,
                    unsigned cpu_threads)
      : finder_(index, params), name_(engine::use_gpu(device)), cpu_threads_(cpu_threads) {
    try {
      gpu_ = cuda::make_mem_gpu_kernel(device, index, params, memory_limit, cpu_threads);
      name_ = gpu_->name();
    } catch (const std::exception& e) {
      give_up(e.what());
    }
  }

  std::string_view name() const override { return name_; }
  double device_seconds() const override { return gpu_ ? gpu_->device_seconds() : gpu_seconds_; }

  void find(const StrandSet& strands, std::size_t first, std::size_t count, StrandMatches& out) override {
    if (gpu_) {
      const std::size_t matches = out.matches.size(), offsets = out.offsets.size();
      try {
        gpu_->find(strands, first, count, out);
        return;
      } catch (const std::exception& e) {
        out.matches.resize(matches);
        out.offsets.resize(offsets);
        give_up(e.what());
      }
    }
    find_on_cpu_in_parallel(finder_, strands, first, count, cpu_threads_, out);  // a run may have no other CPU workers
  }

 private:
  void give_up(const std::string& why) {
    log_warning("{} failed ({}): its share of the queries is matched on the CPU", name_, why);
    if (gpu_) gpu_seconds_ = gpu_->device_seconds();
    gpu_.reset();
    name_ += " (on the CPU)";
  }

  MemFinder finder_;
  std::string name_;
  unsigned cpu_threads_;
  std::unique_ptr<MemKernel> gpu_;
  double gpu_seconds_ = 0;
};

}  // namespace

std::unique_ptr<MemKernel> make_mem_kernel_with_fallback(int device, const index::SuffixIndex& index, MemParams params,
                                                         std::size_t memory_limit, unsigned cpu_threads) {
  return std::make_unique<FallbackMemKernel>(device, index, params, memory_limit, cpu_threads);
}

}  // namespace hyalign::kernels
