#pragma once
// The CUDA kernel family for the PaPaRa scoring recurrence (spec §6).
//
// One warp scores one query against one branch (32-bit lanes) or a pair of branches packed 16x2 in
// 32-bit registers, with Hopper's DPX instructions (__viaddmax, __vimax3). The query lies along the
// warp: lane t holds R rows in registers; the branch columns stream through the warp as a wavefront
// (lane t works on column s - t at step s) and each lane hands its bottom row's S and I to the next
// lane with one shuffle. A query longer than 32 R rows is scored in stripes of 32 R rows: the last
// lane writes its bottom row of every column to a per-warp buffer in global memory that the first
// lane reads back in the next stripe, so the kernel takes any query length in one pass per stripe.
//
// Queries are padded at the top to a whole number of stripes with rows of a symbol that matches
// nothing. With open, extend and match_cgap <= 0 those rows compute S = 0 exactly (the free boundary
// S(i,0) = 0) and leave I = open, which is what the first real row sees from the true boundary; the
// 32-bit kernels take any scoring and set the padding rows to S = 0, I = -inf explicitly. So the
// last query row is always the last register of lane 31, and the last-row maximum costs one max
// per column.
#include <cuda_runtime.h>

namespace hyalign::kernels::cuda {

constexpr int kMaxRowsPerLane = 24;  // rows per lane come in steps of kRowStep up to this
constexpr int kRowStep = 2;
constexpr int kWarpsPerBlock = 4;

// ---- Lane formats: two branches in 16-bit halves, or one branch in 32 bits ----

struct Pair16 {
  using Score = unsigned;
  static constexpr int kBranches = 2;
  static constexpr unsigned kMinusInfinity = 0xC000C000u;  // -16384 in both halves, far below real scores
  static constexpr bool kForcePadding = false;
  static __device__ __forceinline__ unsigned add(unsigned a, unsigned b) { return __viaddmax_s16x2(a, b, 0x80008000u); }
  static __device__ __forceinline__ unsigned add_max(unsigned a, unsigned b, unsigned c) {
    return __viaddmax_s16x2(a, b, c);
  }
  static __device__ __forceinline__ unsigned max3(unsigned a, unsigned b, unsigned c) { return __vimax3_s16x2(a, b, c); }
  static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return __vmaxs2(a, b); }
  static __device__ __forceinline__ void store(int* out, unsigned best) {
    out[0] = static_cast<short>(best & 0xFFFFu);
    out[1] = static_cast<short>(best >> 16);
  }
};

struct Single32 {
  using Score = int;
  static constexpr int kBranches = 1;
  static constexpr int kMinusInfinity = -(1 << 30);  // real scores stay within ±2.1e8 (option bounds)
  static constexpr bool kForcePadding = true;
  static __device__ __forceinline__ int add(int a, int b) { return a + b; }
  static __device__ __forceinline__ int add_max(int a, int b, int c) { return __viaddmax_s32(a, b, c); }
  static __device__ __forceinline__ int max3(int a, int b, int c) { return __vimax3_s32(a, b, c); }
  static __device__ __forceinline__ int max(int a, int b) { return ::max(a, b); }
  static __device__ __forceinline__ void store(int* out, int best) { out[0] = best; }
};

// ---- Column encodings: what a branch pair's column word holds ----

// DNA: one word per branch pair; per 16-bit half, bit s says whether the branch's state set meets
// residue set s (s < 14), bit 15 is the gap signal.
struct DnaColumns {
  using Word = unsigned;
  static constexpr unsigned kPadSymbol = 14;
  static constexpr unsigned kMaxSymbols = 14;
  // One branch's bits in the low half, gap signal at kGapBit.
  static constexpr unsigned kGapBit = 15;
  static __device__ __forceinline__ unsigned one_branch(Word w, int half) { return w >> (16 * half); }
};

// Protein: two words per branch pair. x: the first branch's bit s for residue set s (s < 31), gap
// signal at bit 31. y: the second branch's bits rotated left by 16 (bit (s + 16) mod 32), gap
// signal at bit 15; rotating y right by s brings its bit for s to bit 16, beside x's at bit 0.
struct ProteinColumns {
  using Word = uint2;
  static constexpr unsigned kPadSymbol = 30;
  static constexpr unsigned kMaxSymbols = 30;
  static constexpr unsigned kGapBit = 31;
  static __device__ __forceinline__ unsigned one_branch(Word w, int half) {
    return half ? __funnelshift_r(w.y, w.y, 16) : w.x;
  }
};

// One column of the branch (pair) a warp scores: the gap mask and the match value of a symbol in
// the lane format.
template <class Lanes, class Columns>
struct Column {
  unsigned bits;
  __device__ __forceinline__ Column(typename Columns::Word w, int half) : bits(Columns::one_branch(w, half)) {}
  __device__ __forceinline__ int gap_mask() const { return -static_cast<int>((bits >> Columns::kGapBit) & 1u); }
  __device__ __forceinline__ int matched(unsigned symbol) const { return static_cast<int>((bits >> symbol) & 1u); }
};

template <>
struct Column<Pair16, DnaColumns> {
  unsigned w;
  __device__ __forceinline__ Column(unsigned word, int) : w(word) {}
  __device__ __forceinline__ unsigned gap_mask() const {
    return ((w >> DnaColumns::kGapBit) & 0x00010001u) * 0xFFFFu;
  }
  __device__ __forceinline__ unsigned matched(unsigned symbol) const { return (w >> symbol) & 0x00010001u; }
};

template <>
struct Column<Pair16, ProteinColumns> {
  uint2 w;
  __device__ __forceinline__ Column(uint2 word, int) : w(word) {}
  __device__ __forceinline__ unsigned gap_mask() const {
    // The second branch's gap signal sits at bit 15 of y (rotated by 16).
    return ((w.x >> ProteinColumns::kGapBit) | (((w.y >> 15) & 1u) << 16)) * 0xFFFFu;
  }
  __device__ __forceinline__ unsigned matched(unsigned symbol) const {
    return ((w.x >> symbol) & 1u) | (__funnelshift_r(w.y, w.y, symbol) & 0x10000u);
  }
};

template <class Score>
struct DeviceScoring {
  Score open, extend, cgap, match;  // Pair16: the values in both halves, except match (a multiplier)
};

template <class Columns, class Score>
struct KernelArgs {
  const typename Columns::Word* columns;  // branch pair major: pairs × column_count
  int column_count;
  int first_item, items;  // per query: warps over branch pairs (Pair16) or branches (Single32)
  const unsigned char* symbols;
  const unsigned long long* offsets;
  const int* query_ids;
  long long first_warp, warps;  // the warps of this launch: (slot, item) = divmod(warp, items)
  DeviceScoring<Score> scoring;
  int* out;  // per slot, out_stride scores, branch b at b - out_base
  int out_stride, out_base;
  uint2* bottom_rows;  // striped kernels: per warp of the launch, 2 buffers of column_count (S, I)
};

template <class Lanes, class Columns, int R, bool kStriped>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    papara_score_kernel(KernelArgs<Columns, typename Lanes::Score> a) {
  using Score = typename Lanes::Score;
  using L = Lanes;
  const long long local_warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (local_warp >= a.warps) return;  // the whole warp leaves together
  const long long warp = a.first_warp + local_warp;
  const int slot = static_cast<int>(warp / a.items);
  const int item = a.first_item + static_cast<int>(warp % a.items);
  const int pair = L::kBranches == 2 ? item : item / 2;
  const int half = L::kBranches == 2 ? 0 : item % 2;
  const int q = a.query_ids[slot];
  const unsigned char* query = a.symbols + a.offsets[q];
  const int m = static_cast<int>(a.offsets[q + 1] - a.offsets[q]);
  const int stripe_rows = 32 * R;
  const int stripes = kStriped ? (m + stripe_rows - 1) / stripe_rows : 1;
  const int pad = stripes * stripe_rows - m;
  const DeviceScoring<Score> sc = a.scoring;
  const typename Columns::Word* col = a.columns + static_cast<size_t>(pair) * a.column_count;
  uint2* bottom = kStriped ? a.bottom_rows + static_cast<size_t>(local_warp) * 2 * a.column_count : nullptr;

  Score best = L::kMinusInfinity, best_row = L::kMinusInfinity;
  for (int stripe = 0; stripe < stripes; ++stripe) {
    const int first_row = stripe * stripe_rows + lane * R;  // padded row index of register 0
    unsigned shift[R];
    Score s_col[R], d_col[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int p = first_row + r;
      shift[r] = p < pad ? Columns::kPadSymbol : query[p - pad];
      s_col[r] = 0;                  // S(0, j) = 0
      d_col[r] = L::kMinusInfinity;  // D(0, j) = -inf
    }
    const int padding_rows = min(max(pad - first_row, 0), R);  // registers of this lane that are padding
    // Stripe k reads the bottom rows stripe k-1 wrote and writes the other buffer.
    const uint2* above = kStriped ? bottom + (stripe & 1) * a.column_count : nullptr;
    uint2* below = kStriped ? bottom + ((stripe + 1) & 1) * a.column_count : nullptr;
    const bool reads_above = kStriped && stripe > 0 && lane == 0;
    const bool writes_below = kStriped && stripe + 1 < stripes && lane == 31;
    uint2 next_above = reads_above ? above[0] : make_uint2(0, 0);

    Score s_out = 0, i_out = L::kMinusInfinity, diag_next = 0;
    best_row = L::kMinusInfinity;
    const int steps = a.column_count + 31;
    for (int s = 0; s < steps; ++s) {
      Score s_in = __shfl_up_sync(0xffffffffu, s_out, 1);
      Score i_in = __shfl_up_sync(0xffffffffu, i_out, 1);
      if (lane == 0) {
        if (reads_above) {  // S and I of the row above the stripe in column s (loaded one step ahead)
          s_in = static_cast<Score>(next_above.x), i_in = static_cast<Score>(next_above.y);
          if (s + 1 < a.column_count) next_above = above[s + 1];
        } else {
          s_in = 0, i_in = L::kMinusInfinity;  // the boundary row S(i,0) = 0, I(i,0) = -inf
        }
      }
      const int i = s - lane;
      if (i >= 0 && i < a.column_count) {
        const Column<Lanes, Columns> column(__ldg(col + i), half);
        const Score gap = static_cast<Score>(column.gap_mask());
        const Score cgap = gap & sc.cgap, open_d = ~gap & sc.open, extend_d = ~gap & sc.extend;
        Score diag = diag_next, up = s_in, ins = i_in;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const Score left = s_col[r];
          d_col[r] = L::add_max(d_col[r], extend_d, L::add(left, open_d));
          ins = L::add_max(ins, sc.extend, L::add(up, sc.open));
          const Score matched = static_cast<Score>(column.matched(shift[r]));
          Score s_val = L::max3(L::add(diag, L::add(matched * sc.match, cgap)), d_col[r], ins);
          if (L::kForcePadding && r < padding_rows) s_val = 0, ins = L::kMinusInfinity;
          diag = left;
          s_col[r] = s_val;
          up = s_val;
        }
        s_out = up;
        i_out = ins;
        best_row = L::max(best_row, up);  // lane 31's bottom row in the last stripe is the query's last row
        if (writes_below) below[i] = make_uint2(static_cast<unsigned>(up), static_cast<unsigned>(ins));
      }
      diag_next = s_in;
    }
    // Last column: the real rows of every lane.
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r >= padding_rows) best = L::max(best, s_col[r]);
    if (kStriped) __syncwarp();  // the bottom rows written are seen by lane 0 in the next stripe
  }
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) best = L::max(best, __shfl_xor_sync(0xffffffffu, best, k));
  best = L::max(best, __shfl_sync(0xffffffffu, best_row, 31));
  if (lane == 0) L::store(a.out + static_cast<size_t>(slot) * a.out_stride + item * L::kBranches - a.out_base, best);
}

}  // namespace hyalign::kernels::cuda
