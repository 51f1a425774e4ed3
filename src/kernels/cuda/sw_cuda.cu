// CUDA kernel for Smith–Waterman database search scores (local alignment, affine gaps).
//
// A warp scores a pair of database sequences packed as 16x2 in 32-bit registers against one query
// at a time, with Hopper's DPX instructions. The database pair lies along the warp (lane t holds
// rows [tR, tR + R) of both sequences) and the query streams through it as a wavefront: at step s
// lane t works on query column s - t and hands its bottom row's H and F to the next lane with one
// shuffle. The substitution scores come from a "pair profile" in shared memory, shared by the warps
// of a block (they take the pair's queries in turn): for every query letter and every database row,
// the packed pair (score(letter, a_row), score(letter, b_row)), so a cell needs no shuffling of
// bytes. A lane holds 1 to 16 rows, as few as the pair needs, so rows are rounded to whole lanes (32)
// only. Database sequences longer than 32 × 16 rows run in stripes of at most 512 rows, the bottom
// row of one stripe feeding the next through a per-block buffer in global memory. Tall stripes
// matter on real databases (most proteins are 150-600 residues): a stripe re-streams every query
// and its loop carries the bottom row's traffic, and four warps share a block's profile so that 16
// warps per multiprocessor still fit in shared memory. A launch of fewer queries than that would
// leave warps idle: it runs blocks of two warps with stripes of 256 rows (kFewQueries).
//
// The DPX instructions run on the ALU pipe, which they keep nearly full (5.5 per cell pair); the
// code around them leans on multiply-adds (FMA pipe) where it can.
//
// Recurrence (BLAST gaps: length k costs open + k·extend; oe = open + extend), with the gap states
// kept shifted by oe so that each update is one DPX instruction:
//   E*(i,j+1) = max(E*(i,j) − e, H(i,j))          F*(i,j) = max(F*(i−1,j) − e, H(i−1,j))
//   H(i,j) = max(0, H(i−1,j−1) + s, E*(i,j) − oe, F*(i,j) − oe)
// H, E*, F* are never negative, so nothing underflows. Padding (query columns before and after each
// query, database rows after each sequence) scores far below zero against everything: before a
// sequence it leaves the exact boundary state, after it no cell can exceed a real cell, so the
// maximum is exact without masks. In particular, lanes still filling the wavefront (columns before
// the query) compute H = E* = F* = 0 exactly, and columns after the query only feed other padding
// columns, so a stripe's bottom-row entries for padding columns may hold either and need no range
// checks. The maximum is taken over H(i−1,j−1) + s: a best local alignment ends on a substitution.
// Scores within max_score of 32767 could have wrapped and are re-run on the CPU.
//
// Parallelism is across database pairs: a database of a few very long sequences keeps only a few
// blocks busy.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <vector>

#include "core/parallel.hpp"
#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/sw_cuda.hpp"
#include "engine/devices.hpp"

namespace hyalign::kernels::cuda {
namespace {

// The kernel's two shapes: warps per block (sharing one profile) and the most rows a lane holds.
struct KernelShape {
  int warps;
  int max_rows_per_lane;
  __host__ __device__ constexpr unsigned stripe_rows() const { return 32u * static_cast<unsigned>(max_rows_per_lane); }
};
constexpr KernelShape kManyQueries{4, 16}, kFewQueries{2, 8};
constexpr int kQueryPad = 64;                      // padding letters (and boundary entries) after each query
constexpr int kBoundaryHeadroom = 32;              // spare boundary entries before a block's first query
constexpr short kPadScore = -1024;                 // padding against anything
constexpr unsigned kAddOnly = 0x80008000u;         // max(a + b, -32768) = a + b
constexpr std::size_t kBoundaryEntries = 1 << 16;  // per block: query columns of one launch, with padding

// Letters (and boundary entries) a query of length m takes in a launch: itself and its padding,
// rounded so the next query starts on a 4-byte boundary.
constexpr std::size_t query_slot(std::size_t m) { return (m + kQueryPad + 3) & ~std::size_t{3}; }

struct SwLaunch {
  const unsigned char* residues;          // the current targets
  const std::size_t* offsets;
  std::size_t first_target;
  unsigned target_count;
  unsigned pairs;
  const unsigned char* queries;           // padded letters
  const unsigned* query_starts;           // first real letter of each query
  const unsigned* query_lengths;
  const unsigned* boundary_starts;        // each query's entries in a block's boundary buffer
  int query_count;
  uint2* boundary;                        // nullptr when every target fits one stripe
  unsigned boundary_stride;
  const short* matrix;                    // codes × codes, query letter major; the last code pads
  int codes;
  unsigned neg_open_extend2, neg_extend2;
  unsigned* next_pair;
  unsigned* scores;                       // [query][pair], packed 16x2
  // Always 1. Multiplying by it keeps lane masks and profile strides out of the compiler's
  // constant folding, so they stay multiply-adds (FMA pipe) instead of selects and shifts (the
  // ALU pipe, which the DPX instructions saturate).
  unsigned one;
};

// Profile words of a lane: [code][vector][lane][VW] words, so a quarter warp's 16-byte loads hit
// distinct banks.
template <int R>
struct ProfileShape {
  static constexpr int kWidth = R % 4 == 0 ? 4 : R % 2 == 0 ? 2 : 1;  // words per vector load
  static constexpr int kVectors = R / kWidth;
};

// Codes first_code, first_code + code_step, ... of the profile of rows [row0, row0 + 32R).
template <int R>
__device__ void build_profile(const SwLaunch& p, const short* matrix, unsigned* profile, int lane, int first_code,
                              int code_step, const unsigned char* a, unsigned la, const unsigned char* b, unsigned lb,
                              unsigned row0) {
  using Shape = ProfileShape<R>;
  const unsigned char pad = static_cast<unsigned char>(p.codes - 1);
  unsigned char ca[R], cb[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const unsigned g = row0 + lane * R + r;
    ca[r] = g < la ? a[g] : pad;
    cb[r] = g < lb ? b[g] : pad;
  }
  for (int code = first_code; code < p.codes; code += code_step) {
    const short* row = matrix + code * p.codes;
#pragma unroll
    for (int v = 0; v < Shape::kVectors; ++v) {
      unsigned w[Shape::kWidth];
#pragma unroll
      for (int c = 0; c < Shape::kWidth; ++c) {
        const int r = v * Shape::kWidth + c;
        w[c] = static_cast<unsigned short>(row[ca[r]]) | static_cast<unsigned>(static_cast<unsigned short>(row[cb[r]])) << 16;
      }
      unsigned* dst = profile + ((code * Shape::kVectors + v) * 32 + lane) * Shape::kWidth;
      if constexpr (Shape::kWidth == 4)
        *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
      else if constexpr (Shape::kWidth == 2)
        *reinterpret_cast<uint2*>(dst) = make_uint2(w[0], w[1]);
      else
        *dst = w[0];
    }
  }
}

// The R words of `code` for this lane, from the shared-memory byte address `lane_profile` (the
// profile plus this lane's offset); 32-bit address arithmetic, one multiply-add per load.
template <int R>
__device__ __forceinline__ void load_profile(unsigned lane_profile, unsigned code, unsigned code_stride, unsigned (&w)[R]) {
  using Shape = ProfileShape<R>;
  const unsigned address = lane_profile + code * code_stride;
#pragma unroll
  for (int v = 0; v < Shape::kVectors; ++v) {
    unsigned* x = w + v * Shape::kWidth;
    if constexpr (Shape::kWidth == 4)
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
          : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
          : "r"(address + v * 32 * 16));
    else if constexpr (Shape::kWidth == 2)
      asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x[0]), "=r"(x[1]) : "r"(address + v * 32 * 8));
    else
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x[0]) : "r"(address + v * 32 * 4));
  }
}

// One stripe of a database pair against one query; returns this lane's maximum (16x2).
// Striped: `boundary` holds the previous stripe's bottom row per query column (read unless `first`)
// and receives this stripe's (unless `last`). Otherwise the row above is the zero boundary.
template <int R, bool kStriped>
__device__ unsigned stripe_against_query(const SwLaunch& p, const unsigned* profile, const unsigned char* query, int m,
                                         uint2* boundary, bool first, bool last, int lane) {
  unsigned h[R], e[R], w[R];
#pragma unroll
  for (int r = 0; r < R; ++r) h[r] = 0, e[r] = 0;  // H(i,-1) = 0, so E*(i,0) = 0
  unsigned h_out = 0, f_out = 0, diag = 0, best = 0;
  const unsigned neg_open_extend2 = p.neg_open_extend2, neg_extend2 = p.neg_extend2;
  // Lane 0's input from the row above is a multiply-add: in = from_lane_above × not_lane0 + top,
  // with top zero on the other lanes.
  const unsigned not_lane0 = lane != 0 ? p.one : 0u, lane0 = lane == 0 ? p.one : 0u;
  const unsigned code_stride = p.one * (R * 32 * 4);  // bytes per query letter
  // Striped: this group's and the next group's four boundary entries (H, F*), masked to lane 0.
  uint4 top[2] = {make_uint4(0, 0, 0, 0), make_uint4(0, 0, 0, 0)}, next_top[2] = {top[0], top[1]};
  const auto load_tops = [&](int column, uint4 (&out)[2]) {
    const uint4* at = reinterpret_cast<const uint4*>(boundary + column);
    out[0] = at[0];
    out[1] = at[1];
#pragma unroll
    for (int x = 0; x < 2; ++x) out[x] = make_uint4(out[x].x * lane0, out[x].y * lane0, out[x].z * lane0, out[x].w * lane0);
  };
  if (kStriped && !first) load_tops(0, top);
  const auto lane_profile =
      static_cast<unsigned>(__cvta_generic_to_shared(profile + lane * ProfileShape<R>::kWidth));
  // This lane reads query columns s - lane .. s - lane + 3 at group s: aligned words at a fixed
  // byte shift (the query starts on a 4-byte boundary), one new word per group.
  const auto first_address = reinterpret_cast<std::uintptr_t>(query) - lane;
  const unsigned* words = reinterpret_cast<const unsigned*>(first_address & ~std::uintptr_t{3});
  const unsigned shift = static_cast<unsigned>(first_address & 3) * 8;
  unsigned word_hi = __ldg(words + 1);
  unsigned letters = __funnelshift_r(__ldg(words), word_hi, shift);
  load_profile<R>(lane_profile, __byte_perm(letters, 0, 0x4440), code_stride, w);
  const int steps = (m + 31 + 3) & ~3;  // whole groups of four; the extra columns are padding
  uint2 bottom[4];  // striped: lane 31's outputs of this group, stored together at its end
  for (int s = 0; s < steps; s += 4) {
    const unsigned word_next = __ldg(words + s / 4 + 2);
    const unsigned next_letters = __funnelshift_r(word_hi, word_next, shift);
    word_hi = word_next;
    if (kStriped && !first) load_tops(s + 4, next_top);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned h_above = __shfl_up_sync(0xffffffffu, h_out, 1);
      const unsigned f_above = __shfl_up_sync(0xffffffffu, f_out, 1);
      const uint4 t4 = top[k / 2];
      const unsigned h_in = h_above * not_lane0 + (k % 2 ? t4.z : t4.x);
      const unsigned f_in = f_above * not_lane0 + (k % 2 ? t4.w : t4.y);
      unsigned d = diag, up = h_in, f = f_in, ds_prev = 0;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const unsigned ds = __viaddmax_s16x2(d, w[r], kAddOnly);
        if (r & 1) best = __vimax3_s16x2(best, ds_prev, ds);
        ds_prev = ds;
        const unsigned t = __viaddmax_s16x2_relu(e[r], neg_open_extend2, ds);
        f = __viaddmax_s16x2(f, neg_extend2, up);
        const unsigned hv = __viaddmax_s16x2(f, neg_open_extend2, t);
        e[r] = __viaddmax_s16x2(e[r], neg_extend2, hv);
        d = h[r];
        h[r] = hv;
        up = hv;
      }
      if constexpr (R % 2 == 1) best = __vimax_s16x2_relu(best, ds_prev);  // the odd last row
      h_out = up;
      f_out = f;
      diag = h_in;
      if constexpr (kStriped) bottom[k] = make_uint2(h_out, f_out);
      load_profile<R>(lane_profile, __byte_perm(k < 3 ? letters : next_letters, 0, k < 3 ? 0x4441 + k : 0x4440),
                      code_stride, w);
    }
    // Lane 31 worked on columns s - 31 .. s - 28. Entries before a query's first column and after
    // its last are padding, so these stores need no range checks: padding entries only ever feed
    // padding columns (see the file comment), and each block's buffer starts with kBoundaryHeadroom
    // spare entries.
    if (kStriped && !last && lane == 31) {
      uint2* at = boundary + (s - 31);
#pragma unroll
      for (int k = 0; k < 4; ++k) at[k] = bottom[k];
    }
    letters = next_letters;
    top[0] = next_top[0];
    top[1] = next_top[1];
  }
  return best;
}

// The warps of a block score one database pair together: they share its profile and take the
// queries one at a time, longest first, so they finish together.
template <int R, int kWarps>
__device__ void score_pair(const SwLaunch& p, const short* matrix, unsigned* profile, uint2* boundary,
                           unsigned& next_query, unsigned pair, const unsigned char* a, unsigned la,
                           const unsigned char* b, unsigned lb, unsigned stripes) {
  constexpr unsigned kRows = 32 * R;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (unsigned k = 0; k < stripes; ++k) {
    __syncthreads();  // the previous stripe's profile reads and boundary writes are done
    build_profile<R>(p, matrix, profile, lane, warp, kWarps, a, la, b, lb, k * kRows);
    if (threadIdx.x == 0) next_query = 0;
    __syncthreads();
    const bool first = k == 0, last = k + 1 == stripes;
    for (;;) {
      unsigned q = 0;
      if (lane == 0) q = atomicAdd(&next_query, 1u);
      q = __shfl_sync(0xffffffffu, q, 0);
      if (q >= static_cast<unsigned>(p.query_count)) break;
      const unsigned char* query = p.queries + p.query_starts[q];
      const int m = static_cast<int>(p.query_lengths[q]);
      unsigned best = stripes == 1 ? stripe_against_query<R, false>(p, profile, query, m, nullptr, true, true, lane)
                                   : stripe_against_query<R, true>(p, profile, query, m, boundary + p.boundary_starts[q],
                                                                   first, last, lane);
#pragma unroll
      for (int x = 16; x > 0; x >>= 1) best = __vimax_s16x2_relu(best, __shfl_xor_sync(0xffffffffu, best, x));
      if (lane == 0) {
        unsigned* out = p.scores + static_cast<std::size_t>(q) * p.pairs + pair;
        *out = first ? best : __vimax_s16x2_relu(*out, best);
      }
    }
  }
}

// score_pair<R> for the smallest R >= rows_per_lane.
template <int R, int kWarps, int kMaxRowsPerLane>
__device__ void score_pair_with(unsigned rows_per_lane, const SwLaunch& p, const short* matrix, unsigned* profile,
                                uint2* boundary, unsigned& next_query, unsigned pair, const unsigned char* a,
                                unsigned la, const unsigned char* b, unsigned lb, unsigned stripes) {
  if constexpr (R < kMaxRowsPerLane) {
    if (rows_per_lane > R) {
      score_pair_with<R + 1, kWarps, kMaxRowsPerLane>(rows_per_lane, p, matrix, profile, boundary, next_query, pair, a,
                                                      la, b, lb, stripes);
      return;
    }
  }
  score_pair<R, kWarps>(p, matrix, profile, boundary, next_query, pair, a, la, b, lb, stripes);
}

template <int kWarps, int kMaxRowsPerLane>
__global__ void __launch_bounds__(32 * kWarps) sw_search_kernel(SwLaunch p) {
  constexpr unsigned kStripeRows = KernelShape{kWarps, kMaxRowsPerLane}.stripe_rows();
  extern __shared__ uint4 shared[];
  __shared__ unsigned pair_of_block, next_query;
  short* matrix = reinterpret_cast<short*>(shared);
  for (int i = threadIdx.x; i < p.codes * p.codes; i += blockDim.x) matrix[i] = p.matrix[i];
  unsigned* profile = reinterpret_cast<unsigned*>(shared + (p.codes * p.codes * 2 + 15) / 16);
  uint2* boundary =
      p.boundary ? p.boundary + static_cast<std::size_t>(blockIdx.x) * p.boundary_stride + kBoundaryHeadroom : nullptr;
  if (boundary)  // read by lane 0 in the steps after each query's last column
    for (int q = 0; q < p.query_count; ++q)
      for (int k = threadIdx.x; k < kQueryPad; k += blockDim.x)
        boundary[p.boundary_starts[q] + p.query_lengths[q] + k] = make_uint2(0, 0);

  for (;;) {
    __syncthreads();  // the block is done with the previous pair
    if (threadIdx.x == 0) pair_of_block = atomicAdd(p.next_pair, 1u);
    __syncthreads();
    const unsigned pair = pair_of_block;
    if (pair >= p.pairs) break;
    const std::size_t ta = p.first_target + 2 * std::size_t{pair};
    const unsigned char* a = p.residues + p.offsets[ta];
    const unsigned la = static_cast<unsigned>(p.offsets[ta + 1] - p.offsets[ta]);
    const bool has_b = 2 * pair + 1 < p.target_count;
    const unsigned char* b = has_b ? p.residues + p.offsets[ta + 1] : a;
    const unsigned lb = has_b ? static_cast<unsigned>(p.offsets[ta + 2] - p.offsets[ta + 1]) : 0;
    // Equal stripes of at most kStripeRows rows, each as few rows per lane as it can.
    const unsigned len = max(la, lb);
    const unsigned stripes = max(1u, (len + kStripeRows - 1) / kStripeRows);
    const unsigned rows_per_lane = max(1u, ((len + stripes - 1) / stripes + 31) / 32);
    score_pair_with<1, kWarps, kMaxRowsPerLane>(rows_per_lane, p, matrix, profile, boundary, next_query, pair, a, la,
                                                b, lb, stripes);
  }
}

class GpuSwKernel;

// What a launch of one kernel shape needs: its function, block size, shared memory and blocks.
struct LaunchShape {
  void (*kernel)(SwLaunch);
  unsigned threads, stripe_rows;
  std::size_t shared_bytes;
  unsigned blocks;  // as many as fit on the device at once
};

template <int kWarps, int kMaxRowsPerLane>
LaunchShape launch_shape(int device, int codes) {
  constexpr KernelShape kShape{kWarps, kMaxRowsPerLane};
  LaunchShape l{sw_search_kernel<kWarps, kMaxRowsPerLane>, 32u * kWarps, kShape.stripe_rows(),
                (static_cast<std::size_t>(codes) * codes * 2 + 15) / 16 * 16 +
                    static_cast<std::size_t>(codes) * kShape.stripe_rows() * 4,
                0};
  check(cudaFuncSetAttribute(l.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(l.shared_bytes)),
        "shared memory size");
  int blocks_per_sm = 0, multiprocessors = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, l.kernel, static_cast<int>(l.threads),
                                                      l.shared_bytes),
        "occupancy");
  check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  l.blocks = static_cast<unsigned>(std::max(1, blocks_per_sm) * multiprocessors);
  return l;
}

class GpuSwScorer final : public SwScorer {
 public:
  explicit GpuSwScorer(const GpuSwKernel& kernel);
  void score(std::span<const std::uint8_t> query, const SwSequences& targets, std::size_t first, std::size_t count,
             int* scores) override;
  void score_tile(const SwSequences& queries, const SwSequences& targets, const engine::WorkTile& tile, int* scores) override;

 private:
  static std::vector<std::size_t> launch_ends(const SwSequences& queries, const engine::WorkTile& tile, bool striped);
  // Queries [begin, end) of the tile in one launch.
  void launch(const SwSequences& queries, const SwSequences& targets, const engine::WorkTile& tile, std::size_t begin,
              std::size_t end, const LaunchShape& shape, bool striped, int* scores);

  const GpuSwKernel& kernel_;
  int device_;  // made current before the stream and events below are created
  Stream stream_;
  Event start_, stop_;
  PinnedBuffer<unsigned char> host_letters_;
  PinnedBuffer<unsigned> host_index_, host_scores_;
  DeviceBuffer<unsigned char> letters_;
  DeviceBuffer<unsigned> index_, scores_, counter_;
  DeviceBuffer<uint2> boundary_;
  std::vector<std::size_t> order_;  // launch slot → query of the launch
};

class GpuSwKernel final : public SwKernel {
 public:
  GpuSwKernel(int device, const SwScoring& scoring, unsigned host_threads)
      : device_(device), scoring_(scoring), host_threads_(std::max(1u, host_threads)) {
    name_ = engine::use_gpu(device);
    const ScoreMatrix& matrix = *scoring.matrix;
    codes_ = matrix.size() + 1;
    std::vector<short> table(static_cast<std::size_t>(codes_) * codes_, kPadScore);
    for (int q = 0; q < matrix.size(); ++q)
      for (int t = 0; t < matrix.size(); ++t)
        table[q * codes_ + t] = static_cast<short>(matrix.score(static_cast<std::uint8_t>(q), static_cast<std::uint8_t>(t)));
    matrix_.upload(table);
    overflow_limit_ = 32767 - std::max(0, matrix.max_score());
    many_queries_ = launch_shape<kManyQueries.warps, kManyQueries.max_rows_per_lane>(device, codes_);
    few_queries_ = launch_shape<kFewQueries.warps, kFewQueries.max_rows_per_lane>(device, codes_);
  }
  const LaunchShape& shape_for(std::size_t queries) const {
    return queries >= static_cast<std::size_t>(kManyQueries.warps) ? many_queries_ : few_queries_;
  }

  std::string_view name() const override { return name_; }
  std::size_t lanes() const override { return 2; }
  void set_targets(const SwSequences& targets) override {
    check(cudaSetDevice(device_), "cudaSetDevice");
    residues_.upload(targets.residues, targets.offsets[targets.count]);
    offsets_.upload(targets.offsets, targets.count + 1);
  }
  std::unique_ptr<SwScorer> make_scorer() const override { return std::make_unique<GpuSwScorer>(*this); }
  double device_seconds() const override {
    std::lock_guard lock(stats_mutex_);
    return kernel_seconds_;
  }

  int device_;
  SwScoring scoring_;
  unsigned host_threads_;
  std::string name_;
  int codes_ = 0;
  int overflow_limit_ = 0;
  LaunchShape many_queries_{}, few_queries_{};
  DeviceBuffer<short> matrix_;
  DeviceBuffer<unsigned char> residues_;
  DeviceBuffer<std::size_t> offsets_;
  mutable std::mutex stats_mutex_;
  mutable double kernel_seconds_ = 0;
};

GpuSwScorer::GpuSwScorer(const GpuSwKernel& kernel) : kernel_(kernel), device_(current_device(kernel.device_)) {
  counter_.reserve(1);
}

void GpuSwScorer::score(std::span<const std::uint8_t> query, const SwSequences& targets, std::size_t first,
                        std::size_t count, int* scores) {
  const std::size_t offsets[2] = {0, query.size()};
  score_tile({query.data(), offsets, 1}, targets, {first, count, 0, 1}, scores);
}

void GpuSwScorer::score_tile(const SwSequences& queries, const SwSequences& targets, const engine::WorkTile& tile,
                             int* scores) {
  if (tile.target_count == 0 || tile.query_count == 0) return;
  check(cudaSetDevice(kernel_.device_), "cudaSetDevice");
  const LaunchShape& shape = kernel_.shape_for(tile.query_count);
  bool striped = false;
  for (std::size_t t = tile.first_target; t < tile.first_target + tile.target_count && !striped; ++t)
    striped = targets.offsets[t + 1] - targets.offsets[t] > shape.stripe_rows;
  std::size_t begin = 0;
  for (const std::size_t end : launch_ends(queries, tile, striped)) {
    launch(queries, targets, tile, begin, end, shape, striped, scores);
    begin = end;
  }
}

// Where the tile's launches end, as query counts. A striped launch keeps every query's boundary
// entries within a block's buffer; the queries are spread evenly over as few launches as that
// allows, because a launch of a few queries runs well below the rate of a full one (H100, 20
// queries cut 18 + 2: 4,875 and 4,254 GCUPS).
std::vector<std::size_t> GpuSwScorer::launch_ends(const SwSequences& queries, const engine::WorkTile& tile,
                                                  bool striped) {
  if (!striped) return {tile.query_count};
  const auto slot = [&](std::size_t q) { return query_slot(queries.sequence(tile.first_query + q).size()); };
  std::size_t total = 0;
  for (std::size_t q = 0; q < tile.query_count; ++q) total += slot(q);
  const std::size_t launches = (total + kBoundaryEntries - 1) / kBoundaryEntries;
  const std::size_t share = (total + launches - 1) / launches;
  std::vector<std::size_t> ends;
  std::size_t entries = 0;
  for (std::size_t q = 0; q < tile.query_count; ++q) {
    if (entries > 0 && (entries + slot(q) > kBoundaryEntries || entries + slot(q) / 2 > share)) {
      ends.push_back(q);
      entries = 0;
    }
    entries += slot(q);
  }
  ends.push_back(tile.query_count);
  return ends;
}

void GpuSwScorer::launch(const SwSequences& queries, const SwSequences& targets, const engine::WorkTile& tile,
                         std::size_t begin, std::size_t end, const LaunchShape& shape, bool striped, int* scores) {
  const std::size_t n = end - begin;
  const unsigned pairs = static_cast<unsigned>((tile.target_count + 1) / 2);
  // Letters with padding on both sides, then per query: start, length, boundary start.
  // Each query starts on a 4-byte boundary with at least kQueryPad padding letters on both sides.
  std::size_t letters = kQueryPad, entries = 0;
  for (std::size_t q = begin; q < end; ++q) letters += query_slot(queries.sequence(tile.first_query + q).size());
  host_letters_.reserve(letters);
  host_index_.reserve(3 * n);
  const auto pad = static_cast<unsigned char>(kernel_.codes_ - 1);
  std::fill(host_letters_.ptr, host_letters_.ptr + letters, pad);
  // Longest first, so the warps sharing a pair finish together.
  std::vector<std::size_t>& order = order_;
  order.resize(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return queries.sequence(tile.first_query + begin + x).size() > queries.sequence(tile.first_query + begin + y).size();
  });
  std::size_t at = kQueryPad;
  for (std::size_t k = 0; k < n; ++k) {
    const auto query = queries.sequence(tile.first_query + begin + order[k]);
    std::copy(query.begin(), query.end(), host_letters_.ptr + at);
    host_index_.ptr[k] = static_cast<unsigned>(at);
    host_index_.ptr[n + k] = static_cast<unsigned>(query.size());
    host_index_.ptr[2 * n + k] = static_cast<unsigned>(entries);
    at += query_slot(query.size());
    entries += query_slot(query.size());
  }
  letters_.reserve(letters);
  index_.reserve(3 * n);
  scores_.reserve(n * pairs);
  host_scores_.reserve(n * pairs);
  if (striped) boundary_.reserve(static_cast<std::size_t>(shape.blocks) * (entries + kBoundaryHeadroom));
  check(cudaMemcpyAsync(letters_.ptr, host_letters_.ptr, letters, cudaMemcpyHostToDevice, stream_), "queries");
  check(cudaMemcpyAsync(index_.ptr, host_index_.ptr, 3 * n * sizeof(unsigned), cudaMemcpyHostToDevice, stream_), "queries");
  check(cudaMemsetAsync(counter_.ptr, 0, sizeof(unsigned), stream_), "counter");

  SwLaunch p{};
  p.residues = kernel_.residues_.ptr;
  p.offsets = kernel_.offsets_.ptr;
  p.first_target = tile.first_target;
  p.target_count = static_cast<unsigned>(tile.target_count);
  p.pairs = pairs;
  p.queries = letters_.ptr;
  p.query_starts = index_.ptr;
  p.query_lengths = index_.ptr + n;
  p.boundary_starts = index_.ptr + 2 * n;
  p.query_count = static_cast<int>(n);
  p.boundary = striped ? boundary_.ptr : nullptr;
  p.boundary_stride = static_cast<unsigned>(entries + kBoundaryHeadroom);
  p.matrix = kernel_.matrix_.ptr;
  p.codes = kernel_.codes_;
  p.neg_open_extend2 = pack_s16x2(-(kernel_.scoring_.gap_open + kernel_.scoring_.gap_extend));
  p.neg_extend2 = pack_s16x2(-kernel_.scoring_.gap_extend);
  p.next_pair = counter_.ptr;
  p.scores = scores_.ptr;
  p.one = 1;
  check(cudaEventRecord(start_, stream_), "event");
  shape.kernel<<<shape.blocks, shape.threads, shape.shared_bytes, stream_>>>(p);
  check(cudaGetLastError(), "kernel launch");
  check(cudaEventRecord(stop_, stream_), "event");
  check(cudaMemcpyAsync(host_scores_.ptr, scores_.ptr, n * pairs * sizeof(unsigned), cudaMemcpyDeviceToHost, stream_),
        "scores");
  check(cudaStreamSynchronize(stream_), "kernel");  // blocking sync: the thread sleeps
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  {
    std::lock_guard lock(kernel_.stats_mutex_);
    kernel_.kernel_seconds_ += ms / 1000.0;
  }
  parallel_for(n, kernel_.host_threads_, [&](std::size_t k, unsigned) {
    const unsigned* packed = host_scores_.ptr + k * pairs;
    int* out = scores + (begin + order[k]) * tile.target_count;
    const auto query = queries.sequence(tile.first_query + begin + order[k]);
    for (std::size_t t = 0; t < tile.target_count; ++t) {
      const int score = static_cast<short>(packed[t / 2] >> (16 * (t & 1)) & 0xFFFFu);
      out[t] = score < kernel_.overflow_limit_
                   ? score
                   : sw_score_one(query, targets.sequence(tile.first_target + t), kernel_.scoring_);
    }
  });
}

}  // namespace

std::string sw_gpu_unsupported_reason(const SwScoring& scoring) {
  if (scoring.gap_open + scoring.gap_extend > 8000) return "gap costs above 8000 do not fit the 16-bit GPU kernel";
  return "";
}

std::unique_ptr<SwKernel> make_sw_gpu_kernel(int device, const SwScoring& scoring, unsigned host_threads) {
  if (!sw_gpu_unsupported_reason(scoring).empty()) return nullptr;
  return std::make_unique<GpuSwKernel>(device, scoring, host_threads);
}

}  // namespace hyalign::kernels::cuda
