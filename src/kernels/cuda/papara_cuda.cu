// CUDA kernel for the PaPaRa scoring recurrence (spec §6).
//
// One warp scores one query against a pair of branches packed as 16x2 in 32-bit registers and
// computed with Hopper's DPX instructions (__viaddmax_s16x2, __vimax3_s16x2). The query lies along
// the warp: lane t holds rows [tR, tR + R) in registers; the branch columns stream through the warp
// as a wavefront (lane t works on column s - t at step s) and each lane hands its bottom row's S and I
// to the next lane with one shuffle. The DP state never leaves registers.
//
// Short queries are padded at the top with rows of a symbol that matches nothing: with open, extend
// and match_cgap <= 0 those rows compute S = 0 exactly (the free boundary S(i,0) = 0) and leave
// I = open, which is what the first real row sees from the true boundary. So the last query row is
// always the last register of lane 31, and the last-row maximum costs one DPX max per column.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>
#include <stdexcept>

#include "kernels/cuda/papara_cuda.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/cuda_support.cuh"
#include "kernels/papara_encoding.hpp"

namespace hyalign::kernels::cuda {
namespace {

constexpr unsigned kPadSymbol = 14;          // no branch state bit is ever set at this position
constexpr unsigned kCgapBit = 15;            // per half of a column word
constexpr int kRowStep = 2;                  // rows per lane come in steps of 2 (kernel instances)
constexpr int kMaxRowsPerLane = 24;          // queries up to 32 × 24 = 768 residues
constexpr unsigned kMinusInfinity2 = 0xC000C000u;  // -16384 in both halves: far below every real score
constexpr int kWarpsPerBlock = 4;
constexpr long long kScoreLimit = 15000;           // keeps real scores clear of the sentinel


__device__ __forceinline__ unsigned add2(unsigned a, unsigned b) { return __viaddmax_s16x2(a, b, 0x80008000u); }

struct DeviceScoring {
  unsigned open2, extend2, cgap2;  // packed 16x2
  unsigned match;                  // per-half multiplier (0 <= match < 2^15)
};

template <int R>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    papara_score_kernel(const unsigned* __restrict__ columns, int column_count, int first_pair, int pair_count,
                        const unsigned char* __restrict__ symbols, const unsigned long long* __restrict__ offsets,
                        const int* __restrict__ query_ids, int query_count, DeviceScoring sc,
                        int* __restrict__ out, int out_stride) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (warp >= query_count * pair_count) return;  // the whole warp leaves together
  const int slot = warp / pair_count;
  const int pair = first_pair + warp % pair_count;
  const int q = query_ids[slot];
  const unsigned char* query = symbols + offsets[q];
  const int m = static_cast<int>(offsets[q + 1] - offsets[q]);
  const int pad = 32 * R - m;

  unsigned shift[R], s_col[R], d_col[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int p = lane * R + r;
    shift[r] = p < pad ? kPadSymbol : query[p - pad];
    s_col[r] = 0;                // S(0, j) = 0
    d_col[r] = kMinusInfinity2;  // D(0, j) = -inf
  }
  unsigned s_out = 0, i_out = kMinusInfinity2, diag_next = 0, best_row = kMinusInfinity2;
  const unsigned* col = columns + static_cast<size_t>(pair) * column_count;
  const int steps = column_count + 31;
  for (int s = 0; s < steps; ++s) {
    unsigned s_in = __shfl_up_sync(0xffffffffu, s_out, 1);
    unsigned i_in = __shfl_up_sync(0xffffffffu, i_out, 1);
    if (lane == 0) s_in = 0, i_in = kMinusInfinity2;  // the boundary row S(i,0) = 0, I(i,0) = -inf
    const int i = s - lane;
    if (i >= 0 && i < column_count) {
      const unsigned w = __ldg(col + i);
      const unsigned gap_lanes = ((w >> kCgapBit) & 0x00010001u) * 0xFFFFu;
      const unsigned cgap = gap_lanes & sc.cgap2, open_d = ~gap_lanes & sc.open2, extend_d = ~gap_lanes & sc.extend2;
      unsigned diag = diag_next, up = s_in, ins = i_in;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const unsigned left = s_col[r];
        d_col[r] = __viaddmax_s16x2(d_col[r], extend_d, add2(left, open_d));
        ins = __viaddmax_s16x2(ins, sc.extend2, add2(up, sc.open2));
        const unsigned matched = (w >> shift[r]) & 0x00010001u;
        const unsigned s_val = __vimax3_s16x2(add2(diag, add2(matched * sc.match, cgap)), d_col[r], ins);
        diag = left;
        s_col[r] = s_val;
        up = s_val;
      }
      s_out = up;
      i_out = ins;
      best_row = __vmaxs2(best_row, up);  // lane 31's bottom row is the query's last row
    }
    diag_next = s_in;
  }
  // Last column: the real rows of every lane.
  unsigned best = kMinusInfinity2;
#pragma unroll
  for (int r = 0; r < R; ++r)
    if (lane * R + r >= pad) best = __vmaxs2(best, s_col[r]);
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) best = __vmaxs2(best, __shfl_xor_sync(0xffffffffu, best, k));
  best = __vmaxs2(best, __shfl_sync(0xffffffffu, best_row, 31));
  if (lane == 0) {
    int* o = out + static_cast<size_t>(slot) * out_stride + 2 * (pair - first_pair);
    o[0] = static_cast<short>(best & 0xFFFFu);
    o[1] = static_cast<short>(best >> 16);
  }
}

using KernelFn = void (*)(const unsigned*, int, int, int, const unsigned char*, const unsigned long long*, const int*,
                          int, DeviceScoring, int*, int);

template <int... Rs>
constexpr std::array<KernelFn, sizeof...(Rs)> kernel_table(std::integer_sequence<int, Rs...>) {
  return {&papara_score_kernel<(Rs + 1) * kRowStep>...};
}
const auto kKernels = kernel_table(std::make_integer_sequence<int, kMaxRowsPerLane / kRowStep>());


class GpuKernel;

// Scores tiles in slices of queries whose results fit a fixed device buffer, alternating two
// streams: while the GPU computes one slice, the previous slice's results travel back and are folded
// into the sink by this thread.
class GpuScorer final : public PaparaBlockScorer {
 public:
  explicit GpuScorer(const GpuKernel& kernel);
  void score_tile(const engine::WorkTile& tile, engine::ScoreSink& sink) override;

 private:
  struct Slot {
    Stream stream;
    Event start, stop;
    DeviceBuffer<int> query_ids, results;
    PinnedBuffer<int> host_ids, host_results;
    std::size_t queries = 0;  // queries of the slice in flight, 0 when idle
  };
  void launch(Slot& slot, const std::vector<int>& ids, const std::vector<std::size_t>& bucket_of, std::size_t begin,
              std::size_t end, std::size_t first_pair, std::size_t pair_count);
  void finish(Slot& slot, const engine::WorkTile& tile, std::size_t first_pair, engine::ScoreSink& sink);

  static constexpr std::size_t kResultBudgetBytes = std::size_t{256} << 20;  // per slot
  const GpuKernel& kernel_;
  int device_;  // made current before the slots' streams and events are created
  Slot slots_[2];
};

class GpuKernel final : public PaparaKernel {
 public:
  GpuKernel(int device, const PaparaProblem& problem) : device_(device), problem_(problem) {
    name_ = engine::use_gpu(device);
    const EncodedQueries encoded = encode_queries(problem);
    lengths_.resize(encoded.size());
    for (std::size_t q = 0; q < encoded.size(); ++q) lengths_[q] = encoded.length(q);
    std::vector<unsigned long long> offsets(encoded.symbols.offsets.begin(), encoded.symbols.offsets.end());
    symbols_.upload(encoded.symbols.residues);
    offsets_.upload(offsets);

    // Column words of branch pairs: symbol match bits and the gap signal of both branches.
    const auto& sets = problem.alphabet->residue_sets();
    const std::size_t columns = problem.targets.columns;
    const std::size_t pairs = (problem.targets.count + 1) / 2;
    std::vector<unsigned> words(pairs * columns, 0);
    for (std::size_t b = 0; b < problem.targets.count; ++b) {
      const BranchView branch = problem.targets.branch(b);
      const unsigned half = (b % 2) * 16;
      unsigned* row = words.data() + (b / 2) * columns;
      for (std::size_t c = 0; c < columns; ++c) {
        unsigned bits = branch.cgap[c] ? 1u << kCgapBit : 0u;
        for (std::size_t s = 0; s < sets.size(); ++s)
          if (branch.states[c] & sets[s]) bits |= 1u << s;
        row[c] |= bits << half;
      }
    }
    columns_.upload(words);
    scoring_ = {pack_s16x2(problem.scoring.gap_open), pack_s16x2(problem.scoring.gap_extend),
                pack_s16x2(problem.scoring.match_cgap), static_cast<unsigned>(problem.scoring.match)};
  }

  std::size_t block_width() const override { return 32; }
  std::string_view name() const override { return name_; }
  std::unique_ptr<PaparaBlockScorer> make_scorer() const override { return std::make_unique<GpuScorer>(*this); }
  double device_seconds() const override {
    std::lock_guard lock(stats_mutex_);
    return kernel_seconds_;
  }

  int device_ = 0;
  const PaparaProblem& problem_;
  std::string name_;
  std::vector<std::size_t> lengths_;
  DeviceBuffer<unsigned char> symbols_;
  DeviceBuffer<unsigned long long> offsets_;
  DeviceBuffer<unsigned> columns_;
  DeviceScoring scoring_{};
  mutable std::mutex stats_mutex_;
  mutable double kernel_seconds_ = 0;
};

GpuScorer::GpuScorer(const GpuKernel& kernel) : kernel_(kernel), device_(current_device(kernel.device_)) {}

void GpuScorer::launch(Slot& slot, const std::vector<int>& ids, const std::vector<std::size_t>& bucket_of,
                       std::size_t begin, std::size_t end, std::size_t first_pair, std::size_t pair_count) {
  const PaparaProblem& problem = kernel_.problem_;
  const std::size_t n = end - begin, stride = 2 * pair_count;
  slot.host_ids.reserve(n);
  slot.query_ids.reserve(n);
  slot.results.reserve(n * stride);
  slot.host_results.reserve(n * stride);
  std::copy(ids.begin() + static_cast<std::ptrdiff_t>(begin), ids.begin() + static_cast<std::ptrdiff_t>(end),
            slot.host_ids.ptr);
  check(cudaMemcpyAsync(slot.query_ids.ptr, slot.host_ids.ptr, n * sizeof(int), cudaMemcpyHostToDevice, slot.stream),
        "ids");
  check(cudaEventRecord(slot.start, slot.stream), "event");
  // One launch per run of queries with the same rows per lane.
  for (std::size_t a = begin; a < end;) {
    std::size_t b = a;
    while (b < end && bucket_of[b] == bucket_of[a]) ++b;
    const std::size_t warps = (b - a) * pair_count;
    const unsigned blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    kKernels[bucket_of[a]]<<<blocks, 32 * kWarpsPerBlock, 0, slot.stream>>>(
        kernel_.columns_.ptr, static_cast<int>(problem.targets.columns), static_cast<int>(first_pair),
        static_cast<int>(pair_count), kernel_.symbols_.ptr, kernel_.offsets_.ptr, slot.query_ids.ptr + (a - begin),
        static_cast<int>(b - a), kernel_.scoring_, slot.results.ptr + (a - begin) * stride, static_cast<int>(stride));
    check(cudaGetLastError(), "kernel launch");
    a = b;
  }
  check(cudaEventRecord(slot.stop, slot.stream), "event");
  check(cudaMemcpyAsync(slot.host_results.ptr, slot.results.ptr, n * stride * sizeof(int), cudaMemcpyDeviceToHost,
                        slot.stream),
        "results");
  slot.queries = n;
}

void GpuScorer::finish(Slot& slot, const engine::WorkTile& tile, std::size_t first_pair, engine::ScoreSink& sink) {
  if (slot.queries == 0) return;
  check(cudaStreamSynchronize(slot.stream), "cudaStreamSynchronize");  // blocking sync: the thread sleeps
  float ms = 0;
  check(cudaEventElapsedTime(&ms, slot.start, slot.stop), "cudaEventElapsedTime");
  {
    std::lock_guard lock(kernel_.stats_mutex_);
    kernel_.kernel_seconds_ += ms / 1000.0;
  }
  const std::size_t end_target = tile.first_target + tile.target_count;
  const std::size_t stride = 2 * ((end_target + 1) / 2 - first_pair);
  for (std::size_t k = 0; k < slot.queries; ++k) {
    const int* row = slot.host_results.ptr + k * stride;
    const std::size_t q = static_cast<std::size_t>(slot.host_ids.ptr[k]);
    for (std::size_t b = tile.first_target; b < end_target; ++b) sink.offer(q, row[b - 2 * first_pair], b);
  }
  slot.queries = 0;
}

void GpuScorer::score_tile(const engine::WorkTile& tile, engine::ScoreSink& sink) {
  const PaparaProblem& problem = kernel_.problem_;
  const std::size_t first_pair = tile.first_target / 2;
  const std::size_t end_target = tile.first_target + tile.target_count;
  const std::size_t pair_count = (end_target + 1) / 2 - first_pair;

  // Queries grouped by rows per lane; empty and over-long queries are scored here on the CPU.
  std::vector<std::vector<int>> buckets(kKernels.size());
  for (std::size_t q = tile.first_query; q < tile.first_query + tile.query_count; ++q) {
    const std::size_t m = kernel_.lengths_[q];
    const std::size_t rows = (m + 31) / 32;
    if (m == 0 || rows > kMaxRowsPerLane || !fits_int16(m, problem.targets.columns, problem.scoring, kScoreLimit)) {
      for (std::size_t b = tile.first_target; b < end_target; ++b)
        sink.offer(q, papara_score_scalar(problem.queries->sequence(q), problem.targets.branch(b), problem.scoring), b);
      continue;
    }
    buckets[(rows + kRowStep - 1) / kRowStep - 1].push_back(static_cast<int>(q));
  }
  std::vector<int> ids;
  std::vector<std::size_t> bucket_of;
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    ids.insert(ids.end(), buckets[k].begin(), buckets[k].end());
    bucket_of.insert(bucket_of.end(), buckets[k].size(), k);
  }
  check(cudaSetDevice(kernel_.device_), "cudaSetDevice");
  const std::size_t slice = std::max<std::size_t>(1, kResultBudgetBytes / (2 * pair_count * sizeof(int)));
  std::size_t next_slot = 0;
  for (std::size_t begin = 0; begin < ids.size(); begin += slice) {
    Slot& slot = slots_[next_slot];
    finish(slot, tile, first_pair, sink);  // the slice launched two steps ago
    launch(slot, ids, bucket_of, begin, std::min(ids.size(), begin + slice), first_pair, pair_count);
    next_slot ^= 1;
  }
  finish(slots_[next_slot], tile, first_pair, sink);
  finish(slots_[next_slot ^ 1], tile, first_pair, sink);
}

}  // namespace

std::string gpu_unsupported_reason(const PaparaProblem& problem) {
  if (problem.alphabet->residue_sets().size() > kPadSymbol) return "the GPU kernel handles DNA only";
  const PaparaScoring& sc = problem.scoring;
  if (sc.gap_open > 0 || sc.gap_extend > 0 || sc.match_cgap > 0 || sc.match < 0 || sc.match > 16000)
    return "the GPU kernel needs open, extend, match_cgap <= 0 <= match";
  return "";
}

std::unique_ptr<PaparaKernel> make_papara_gpu_kernel(int device, const PaparaProblem& problem) {
  if (!gpu_unsupported_reason(problem).empty()) return nullptr;
  return std::make_unique<GpuKernel>(device, problem);
}

}  // namespace hyalign::kernels::cuda
