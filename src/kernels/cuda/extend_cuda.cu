// The banded extension of kernels/scalar/extend_scalar.hpp on a GPU, in 32-bit integers (exact for
// any task the scalar definition takes). Bands up to 1024 letters (the map's chain windows are about
// 33 wide, its mate rescue windows a few hundred): a group of 16 or 32 threads per task, each
// holding a few band columns of a row in registers; a row's deletions (E, from the left) come from
// a prefix maximum across the group. Wider bands: a thread per task, its rows in device memory,
// laid out so that a warp's threads read neighbouring words.
#include "kernels/cuda/extend_cuda.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <vector>

#include "kernels/cuda/cuda_support.cuh"

namespace hyalign::kernels::cuda {
namespace {

constexpr int kNegative = INT_MIN / 4;
constexpr int kThreadsPerBlock = 128;
// The band classes run by thread groups: the widest band of each, and its group's shape.
struct GroupShape {
  std::uint32_t widest_band;
  int group, columns;
};
constexpr GroupShape kGroupShapes[] = {{48, 16, 3}, {128, 32, 4}, {256, 32, 8}, {512, 32, 16}, {kGpuGroupBand, 32, 32}};
constexpr std::size_t kGroupClasses = std::size(kGroupShapes);
static_assert(kGroupShapes[kGroupClasses - 1].widest_band == kGpuGroupBand);

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

// Bands of at most kGroup * kColumns letters: a group of kGroup threads per task (a warp holds
// 32 / kGroup tasks), thread L holding band columns L * kColumns + c of the current row.
//   F(i, d) = max(F(i-1, d+1) - extend, H(i-1, d+1) - open_extend)   (column d + 1: the next thread's first)
//   H0(i, d) = max(diagonal, F(i, d), 0)
//   E(i, d) = max over k < d of H0(i, k) - open_extend - (d - 1 - k) * extend
// The last is the scalar E: opening a deletion from a cell whose H is its own E never beats
// extending that E, as open_extend >= extend. So E is an exclusive prefix maximum of
// H0(i, k) + k * extend across the row, and H = max(H0, E).
template <int kGroup, int kColumns>
__global__ void extend_in_groups(const DeviceTask* tasks, const std::uint32_t* order, std::uint32_t count,
                                 const std::uint8_t* letters, DeviceScoring s, DeviceScore* out) {
  const std::uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t slot = thread / kGroup;
  const int lane = static_cast<int>(threadIdx.x % kGroup);
  const bool active = slot < count;
  const DeviceTask task = tasks[order[active ? slot : count - 1]];
  const std::uint8_t* query = letters + task.letters_at;
  const std::uint8_t* target = query + task.length;
  const int band = static_cast<int>(task.band), length = active ? static_cast<int>(task.length) : 0;
  int rows = length;  // the group's threads of a warp run as many rows as its longest read
  for (int offset = 16; offset > 0; offset /= 2) rows = max(rows, __shfl_xor_sync(0xffffffffu, rows, offset));
  const int first_column = lane * kColumns;
  int h[kColumns], f[kColumns];
#pragma unroll
  for (int c = 0; c < kColumns; ++c) h[c] = f[c] = kNegative;
  DeviceScore best{0, 0, 0};
  for (int i = 0; i < rows; ++i) {
    const bool live = i < length;
    const int q = live ? query[i] : kAmbiguousCode;
    // The row above's column first_column + kColumns, from the next thread (beyond the group: none).
    int h_next = __shfl_down_sync(0xffffffffu, h[0], 1, kGroup);
    int f_next = __shfl_down_sync(0xffffffffu, f[0], 1, kGroup);
    if (lane == kGroup - 1) h_next = f_next = kNegative;
    int h0[kColumns], g_max = kNegative;
#pragma unroll
    for (int c = 0; c < kColumns; ++c) {
      const int d = first_column + c;
      const int h_right = c + 1 < kColumns ? h[c + 1] : h_next;
      const int f_right = c + 1 < kColumns ? f[c + 1] : f_next;
      if (d < band && live) {
        const int t = target[i + d];
        f[c] = i == 0 ? s.clip5 - s.open_extend : max(f_right - s.extend, h_right - s.open_extend);
        const int diagonal = (i == 0 ? s.clip5 : h[c]) + letter_score(q, t, s);
        h0[c] = max(max(diagonal, f[c]), 0);
        g_max = max(g_max, h0[c] + d * s.extend);
      } else {
        f[c] = kNegative;
        h0[c] = kNegative;
      }
    }
    // Exclusive prefix maximum of the threads' g_max across the group.
    int before = __shfl_up_sync(0xffffffffu, g_max, 1, kGroup);
    if (lane == 0) before = kNegative;
    for (int offset = 1; offset < kGroup; offset *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, before, offset, kGroup);
      if (lane >= offset) before = max(before, other);
    }
#pragma unroll
    for (int c = 0; c < kColumns; ++c) {
      const int d = first_column + c;
      if (d < band && live) {
        const int e = before == kNegative ? kNegative : before - s.open_extend - (d - 1) * s.extend;
        const int hv = max(h0[c], e);
        h[c] = hv;
        before = max(before, h0[c] + d * s.extend);
        const int score = hv > 0 ? hv + (i == length - 1 ? s.clip3 : 0) : 0;
        if (score > best.score) best = {score, i + 1, i + d + 1};
      } else {
        h[c] = kNegative;
      }
    }
  }
  // The group's first best cell in (i, d) order: the highest score, then the lowest row, then column.
  for (int offset = kGroup / 2; offset > 0; offset /= 2) {
    const int score = __shfl_down_sync(0xffffffffu, best.score, offset, kGroup);
    const int query_end = __shfl_down_sync(0xffffffffu, best.query_end, offset, kGroup);
    const int target_end = __shfl_down_sync(0xffffffffu, best.target_end, offset, kGroup);
    const bool better = lane + offset < kGroup &&
                        (score > best.score || (score == best.score && score > 0 &&
                                                (query_end < best.query_end ||
                                                 (query_end == best.query_end && target_end < best.target_end))));
    if (better) best = {score, query_end, target_end};
  }
  if (active && lane == 0) out[order[slot]] = best;
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
    launch_groups<0>();
    launch(classes_[kGroupClasses], [&](std::uint32_t n, const std::uint32_t* order) {
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

  // The group kernels of band classes kClass on, in order.
  template <std::size_t kClass>
  void launch_groups() {
    if constexpr (kClass < kGroupClasses) {
      constexpr GroupShape shape = kGroupShapes[kClass];
      launch(classes_[kClass], [&](std::uint32_t n, const std::uint32_t* order) {
        extend_in_groups<shape.group, shape.columns><<<blocks(shape.group * n), kThreadsPerBlock, 0, stream_>>>(
            tasks_dev_.ptr, order, n, letters_dev_.ptr, device_scoring(), out_dev_.ptr);
      });
      launch_groups<kClass + 1>();
    }
  }

  // A task's band class: the first group shape wide enough, else kGroupClasses (a thread per task).
  static std::size_t band_class(std::uint32_t band) {
    std::size_t c = 0;
    while (c < kGroupClasses && band > kGroupShapes[c].widest_band) ++c;
    return c;
  }

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
    for (auto& order : classes_) order.clear();
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
      classes_[band_class(t.band_width)].push_back(id);
      widest_ = std::max(widest_, t.band_width);
    }
    letters_size_ = at;
    for (auto& order : classes_)
      std::stable_sort(order.begin(), order.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return host_tasks_[a].length > host_tasks_[b].length; });
    orders_.clear();
    for (const auto& order : classes_) orders_.insert(orders_.end(), order.begin(), order.end());
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
  std::array<std::vector<std::uint32_t>, kGroupClasses + 1> classes_;  // task numbers by band class
  std::vector<std::uint32_t> orders_;
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
