// The banded extension of kernels/scalar/extend_scalar.hpp on a GPU, one thread per (read, locus)
// task, in 32-bit integers (exact for any task the scalar definition takes). Bands up to 40 or 80
// letters keep a row of H and F and the target window in registers (the map's chain windows are
// about 33 wide); wider ones (mate rescue) keep them in device memory, laid out so that a warp's
// threads read neighbouring words.
#include "kernels/cuda/extend_cuda.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <vector>

#include "kernels/cuda/cuda_support.cuh"

namespace hyalign::kernels::cuda {
namespace {

constexpr int kNegative = INT_MIN / 4;
constexpr int kThreadsPerBlock = 128;
constexpr std::uint32_t kNarrowBand = 40, kMediumBand = 80;

struct DeviceTask {
  std::uint32_t letters_at;  // the query's codes, then the target's (length + band - 1 codes)
  std::uint32_t length;
  std::uint32_t band;
};

struct DeviceScoring {
  int match, mismatch, ambiguous, open_extend, extend, clip5, clip3;
};

struct DeviceScore {
  int score, query_end, target_end;
};

__device__ __forceinline__ int letter_score(int q, int t, const DeviceScoring& s) {
  if (q == kWallCode || t == kWallCode) return -kWallPenalty;
  if (q == kAmbiguousCode || t == kAmbiguousCode) return -s.ambiguous;
  return q == t ? s.match : -s.mismatch;
}

// One cell of the recurrence: H from the diagonal, E (from the left, `e` updated) and F (from the
// row above, returned through `f`); the first best cell in (i, d) order is kept.
struct Cell {
  int e, h_left;
  __device__ __forceinline__ int step(int i, int d, int last_row, int q, int t, int h_diagonal, int h_above_right,
                                      int f_above_right, int& f, const DeviceScoring& s, DeviceScore& best) {
    if (d > 0) e = max(e - s.extend, h_left - s.open_extend);
    f = i == 0 ? s.clip5 - s.open_extend : max(f_above_right - s.extend, h_above_right - s.open_extend);
    const int diagonal = (i == 0 ? s.clip5 : h_diagonal) + letter_score(q, t, s);
    int h = max(diagonal, max(e, f));
    if (h <= 0) h = 0;
    h_left = h;
    const int score = h > 0 ? h + (i == last_row ? s.clip3 : 0) : 0;
    if (score > best.score) best = {score, i + 1, i + d + 1};
    return h;
  }
};

// Bands of at most kMaxBand letters: a row of H and F and the target letters it reads in registers.
template <int kMaxBand>
__global__ void extend_in_registers(const DeviceTask* tasks, const std::uint32_t* order, std::uint32_t count,
                                    const std::uint8_t* letters, DeviceScoring s, DeviceScore* out) {
  const std::uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
  if (slot >= count) return;
  const std::uint32_t id = order[slot];
  const DeviceTask task = tasks[id];
  const std::uint8_t* query = letters + task.letters_at;
  const std::uint8_t* target = query + task.length;
  const int band = static_cast<int>(task.band), length = static_cast<int>(task.length);
  const int target_length = length + band - 1;
  int h[kMaxBand + 1], f[kMaxBand + 1];
  std::uint8_t t[kMaxBand];
#pragma unroll
  for (int d = 0; d <= kMaxBand; ++d) h[d] = f[d] = kNegative;
#pragma unroll
  for (int d = 0; d < kMaxBand; ++d) t[d] = d < target_length ? target[d] : kWallCode;
  DeviceScore best{0, 0, 0};
  for (int i = 0; i < length; ++i) {
    const int q = query[i];
    Cell cell{kNegative, kNegative};
#pragma unroll
    for (int d = 0; d < kMaxBand; ++d) {
      if (d < band) {
        int f_new;
        const int h_new = cell.step(i, d, length - 1, q, t[d], h[d], h[d + 1], f[d + 1], f_new, s, best);
        h[d] = h_new;  // h[d] (the row above's) is read by no later cell of this row
        f[d] = f_new;
      }
    }
#pragma unroll
    for (int d = 0; d + 1 < kMaxBand; ++d) t[d] = t[d + 1];
    t[kMaxBand - 1] = i + kMaxBand < target_length ? target[i + kMaxBand] : kWallCode;
  }
  out[id] = best;
}

// Any band: the rows of H and F in `scratch`, word d of thread `slot` at d * count + slot.
__global__ void extend_in_memory(const DeviceTask* tasks, const std::uint32_t* order, std::uint32_t count,
                                 const std::uint8_t* letters, DeviceScoring s, int* scratch, DeviceScore* out) {
  const std::uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
  if (slot >= count) return;
  const std::uint32_t id = order[slot];
  const DeviceTask task = tasks[id];
  const std::uint8_t* query = letters + task.letters_at;
  const std::uint8_t* target = query + task.length;
  const int band = static_cast<int>(task.band), length = static_cast<int>(task.length);
  int* h = scratch + slot;
  int* f = h + static_cast<std::size_t>(count) * (band + 1);
  auto at = [count](int d) { return static_cast<std::size_t>(d) * count; };
  for (int d = 0; d <= band; ++d) h[at(d)] = f[at(d)] = kNegative;
  DeviceScore best{0, 0, 0};
  for (int i = 0; i < length; ++i) {
    const int q = query[i];
    Cell cell{kNegative, kNegative};
    int h_diagonal = h[at(0)];
    for (int d = 0; d < band; ++d) {
      const int h_above_right = h[at(d + 1)];
      int f_new;
      const int h_new = cell.step(i, d, length - 1, q, target[i + d], h_diagonal, h_above_right, f[at(d + 1)], f_new, s, best);
      h[at(d)] = h_new;
      f[at(d)] = f_new;
      h_diagonal = h_above_right;
    }
  }
  out[id] = best;
}

class GpuExtendKernel;

// One thread's scorer: its stream and buffers on the kernel's GPU.
class GpuExtendScorer final : public ExtendScorer {
 public:
  GpuExtendScorer(int device, const ExtendScoring& scoring, std::atomic<double>& device_seconds)
      : device_(current_device(device)), scoring_(scoring), device_seconds_(device_seconds) {}

  void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
    if (tasks.empty()) return;
    check(cudaSetDevice(device_), "cudaSetDevice");
    pack(tasks);
    upload();
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    launch(narrow_, [&](std::uint32_t n, const std::uint32_t* order) {
      extend_in_registers<kNarrowBand><<<blocks(n), kThreadsPerBlock, 0, stream_>>>(tasks_dev_.ptr, order, n,
                                                                                  letters_dev_.ptr, device_scoring(), out_dev_.ptr);
    });
    launch(medium_, [&](std::uint32_t n, const std::uint32_t* order) {
      extend_in_registers<kMediumBand><<<blocks(n), kThreadsPerBlock, 0, stream_>>>(tasks_dev_.ptr, order, n,
                                                                                  letters_dev_.ptr, device_scoring(), out_dev_.ptr);
    });
    launch(wide_, [&](std::uint32_t n, const std::uint32_t* order) {
      scratch_.reserve(static_cast<std::size_t>(n) * 2 * (widest_ + 1));
      extend_in_memory<<<blocks(n), kThreadsPerBlock, 0, stream_>>>(tasks_dev_.ptr, order, n, letters_dev_.ptr,
                                                                     device_scoring(), scratch_.ptr, out_dev_.ptr);
    });
    check(cudaGetLastError(), "extension kernel launch");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    out_host_.reserve(tasks.size());
    check(cudaMemcpyAsync(out_host_.ptr, out_dev_.ptr, tasks.size() * sizeof(DeviceScore), cudaMemcpyDeviceToHost, stream_),
          "download");
    check(cudaStreamSynchronize(stream_), "extension kernel");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    device_seconds_.fetch_add(ms / 1000.0);
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      const DeviceScore& r = out_host_.ptr[k];
      results[k] = r.score > 0 ? ExtendScore{r.score, r.query_end, r.target_end} : ExtendScore{};
    }
  }

 private:
  static unsigned blocks(std::uint32_t n) { return (n + kThreadsPerBlock - 1) / kThreadsPerBlock; }

  DeviceScoring device_scoring() const {
    return {scoring_.match, scoring_.mismatch, scoring_.ambiguous, scoring_.gap_open + scoring_.gap_extend,
            scoring_.gap_extend, scoring_.clip5, scoring_.clip3};
  }

  // Tasks and letters into one pinned buffer; each band class's task numbers, longest reads first
  // (a warp's threads then run about as many rows).
  void pack(std::span<const ExtendTask> tasks) {
    std::size_t letters = 0;
    for (const ExtendTask& t : tasks) letters += t.query.size() + t.target_length();
    host_tasks_.resize(tasks.size());
    letters_host_.reserve(std::max<std::size_t>(letters, 1));
    narrow_.clear(), medium_.clear(), wide_.clear();
    widest_ = 0;
    std::size_t at = 0;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      const ExtendTask& t = tasks[k];
      host_tasks_[k] = {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(t.query.size()), t.band_width};
      std::copy(t.query.begin(), t.query.end(), letters_host_.ptr + at);
      std::copy(t.target, t.target + t.target_length(), letters_host_.ptr + at + t.query.size());
      at += t.query.size() + t.target_length();
      const auto id = static_cast<std::uint32_t>(k);
      if (t.query.empty()) continue;  // scores 0, as out_dev_ is cleared
      if (t.band_width <= kNarrowBand) narrow_.push_back(id);
      else if (t.band_width <= kMediumBand) medium_.push_back(id);
      else wide_.push_back(id), widest_ = std::max(widest_, t.band_width);
    }
    letters_size_ = at;
    for (auto* order : {&narrow_, &medium_, &wide_})
      std::stable_sort(order->begin(), order->end(),
                       [&](std::uint32_t a, std::uint32_t b) { return host_tasks_[a].length > host_tasks_[b].length; });
    orders_.clear();
    for (auto* order : {&narrow_, &medium_, &wide_}) orders_.insert(orders_.end(), order->begin(), order->end());
  }

  void upload() {
    const std::size_t n = host_tasks_.size();
    tasks_dev_.reserve(n);
    letters_dev_.reserve(std::max<std::size_t>(letters_size_, 1));
    orders_dev_.reserve(std::max<std::size_t>(orders_.size(), 1));
    out_dev_.reserve(n);
    check(cudaMemcpyAsync(tasks_dev_.ptr, host_tasks_.data(), n * sizeof(DeviceTask), cudaMemcpyHostToDevice, stream_),
          "upload");
    check(cudaMemcpyAsync(letters_dev_.ptr, letters_host_.ptr, letters_size_, cudaMemcpyHostToDevice, stream_), "upload");
    check(cudaMemcpyAsync(orders_dev_.ptr, orders_.data(), orders_.size() * sizeof(std::uint32_t),
                          cudaMemcpyHostToDevice, stream_),
          "upload");
    check(cudaMemsetAsync(out_dev_.ptr, 0, n * sizeof(DeviceScore), stream_), "cudaMemsetAsync");
    launched_ = 0;
  }

  // Runs `kernel` over one band class's slice of the uploaded order.
  template <typename Launch>
  void launch(const std::vector<std::uint32_t>& order, Launch&& kernel) {
    if (!order.empty()) kernel(static_cast<std::uint32_t>(order.size()), orders_dev_.ptr + launched_);
    launched_ += order.size();
  }

  int device_;
  ExtendScoring scoring_;
  std::atomic<double>& device_seconds_;
  Stream stream_;
  Event start_, stop_;
  std::vector<DeviceTask> host_tasks_;
  std::vector<std::uint32_t> narrow_, medium_, wide_, orders_;
  std::uint32_t widest_ = 0;
  std::size_t letters_size_ = 0, launched_ = 0;
  PinnedBuffer<std::uint8_t> letters_host_;
  PinnedBuffer<DeviceScore> out_host_;
  DeviceBuffer<DeviceTask> tasks_dev_;
  DeviceBuffer<std::uint8_t> letters_dev_;
  DeviceBuffer<std::uint32_t> orders_dev_;
  DeviceBuffer<DeviceScore> out_dev_;
  DeviceBuffer<int> scratch_;
};

class GpuExtendKernel final : public ExtendKernel {
 public:
  GpuExtendKernel(int device, const ExtendScoring& scoring) : device_(device), scoring_(scoring) {}
  std::string_view name() const override { return "cuda"; }
  double device_seconds() const override { return device_seconds_.load(); }
  std::size_t lanes() const override { return kThreadsPerBlock; }
  std::unique_ptr<ExtendScorer> make_scorer() const override {
    return std::make_unique<GpuExtendScorer>(device_, scoring_, device_seconds_);
  }

 private:
  int device_;
  ExtendScoring scoring_;
  mutable std::atomic<double> device_seconds_{0};
};

}  // namespace

std::string extend_gpu_unsupported_reason(const ExtendScoring& scoring) {
  if (scoring.match < 1 || scoring.mismatch < 0 || scoring.ambiguous < 0 || scoring.gap_open < 0 ||
      scoring.gap_extend < 0 || scoring.clip5 < 0 || scoring.clip3 < 0)
    return "the GPU extension kernel takes a match score of at least 1 and no negative costs";
  return "";
}

std::unique_ptr<ExtendKernel> make_extend_gpu_kernel(int device, const ExtendScoring& scoring) {
  if (!extend_gpu_unsupported_reason(scoring).empty()) return nullptr;
  return std::make_unique<GpuExtendKernel>(device, scoring);
}

}  // namespace hyalign::kernels::cuda
