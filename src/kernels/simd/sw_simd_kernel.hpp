#pragma once
// Inter-sequence (SWIPE-style) Smith–Waterman score kernel, written once over traits classes that
// wrap one instruction set and one lane width (included only by the per-ISA translation units,
// which compile it with their -m flags; the traits have internal linkage there).
//
// One query against W targets at once, one target per lane. The DP line runs along the query
// (arrays H and E of m+1 vectors); the targets stream as columns, COLS columns per pass, so each
// pass reads and writes the line once for COLS columns and keeps the inner columns in registers.
// Per column, a profile of K vectors (score of query letter a against the W target residues of the
// column) is built with byte shuffles; the inner loop then needs one load per cell.
//
// Arithmetic is signed and saturating on values stored with an offset of -2^(b-1) (b = lane bits),
// so a stored -128 (8-bit) means 0: the floor of local alignment comes free from saturation,
//   H' = max(adds(H'_diag, s), E', F'),  E' = max(subs(E'_left, ext), subs(H'_left, open+ext)), ...
// (E and F floored at 0 change no H, as H >= 0 anyway). A lane is exact while no addition hit the
// ceiling (+127 stored = 255); a lane whose best stays below the ceiling is exact, the others are
// re-run with 16-bit lanes (exact below 65535), then one by one in the striped kernel's 32-bit lanes.
//
// Targets of one vector are taken in length order; shorter ones are padded with code 0x80, whose
// profile entry is 0, which cannot raise a lane's maximum: every padded cell is at most the best real
// cell before it (a diagonal step of score 0, or a gap, which only costs).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <numeric>
#include <vector>

#include "kernels/simd/sw_striped_kernel.hpp"
#include "kernels/sw_kernel.hpp"

namespace hyalign::kernels::simd {

// Aligned scratch of vectors that grows on demand and is reused across calls.
template <typename T>
struct SwBuffer {
  using V = typename T::V;
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> memory;
  std::size_t size = 0;
  V* data() const { return static_cast<V*>(memory.get()); }
  V* reserve(std::size_t n) {
    if (n > size) {
      memory.reset(std::aligned_alloc(alignof(V) < 64 ? 64 : alignof(V), ((n * sizeof(V) + 63) / 64) * 64));
      if (!memory) throw std::bad_alloc();
      size = n;
    }
    return data();
  }
};

inline constexpr std::uint8_t kSwPadCode = 0x80;

// The matrix (32 x 32 signed bytes) and, for byte shuffles, each row's two 16-entry halves repeated
// to 64 bytes: wide[a * 128 + 0 .. 63] entries 0..15, wide[a * 128 + 64 .. 127] entries 16..31.
struct SwTables {
  alignas(64) std::int8_t scores[32 * 32];
  alignas(64) std::int8_t wide[32 * 128];
};

// One lane width of one instruction set: scores up to W targets against one query.
//   T::V, T::Elem (signed), T::kLanes, T::kColumnsPerPass
//   set1, adds, subs, max (signed, saturating), store(Elem*, V)
//   build_profile(codes, tables, k, out, stride): out[a * stride] lane l = tables.scores[a * 32 +
//     codes[l]], 0 where codes[l] == kSwPadCode (codes: kLanes bytes); see SwTables.
template <typename T>
class SwLanePass {
 public:
  using V = typename T::V;
  using Elem = typename T::Elem;
  static constexpr std::size_t W = T::kLanes;
  static constexpr std::size_t COLS = T::kColumnsPerPass;

  static constexpr int kOffset = -(1 << (8 * sizeof(Elem) - 1));  // stored value of score 0
  static constexpr int kCeiling = (1 << (8 * sizeof(Elem) - 1)) - 1;  // stored ceiling
  // Whether gap costs fit the lane type (subs by a constant of Elem range).
  static bool fits(int gap_open, int gap_extend) { return gap_open + gap_extend <= kCeiling && gap_extend <= kCeiling; }

  // Scores `query` against targets[0 .. count) (count <= W): best[l] for lane l is its exact score,
  // or >= saturated() when the lane saturated. `k`: profile rows (every query code < k <= 32).
  static constexpr int saturated() { return kCeiling - kOffset; }
  void run(std::span<const std::uint8_t> query, const std::span<const std::uint8_t>* targets, std::size_t count,
           const SwTables& tables, std::size_t k, int gap_open, int gap_extend, int* best_out) {
    const std::size_t m = query.size();
    std::size_t n = 0;
    for (std::size_t l = 0; l < count; ++l) n = std::max(n, targets[l].size());
    if (m == 0 || n == 0) {
      std::fill(best_out, best_out + count, 0);
      return;
    }
    const std::size_t columns = (n + COLS - 1) / COLS * COLS;  // padded columns cost nothing in score
    // Interleave: codes[j * W + l] = residue j of target l, or the pad code.
    codes_.resize(columns * W);
    std::uint8_t* codes = codes_.data();
    std::fill(codes, codes + columns * W, kSwPadCode);
    for (std::size_t l = 0; l < count; ++l) {
      const std::uint8_t* t = targets[l].data();
      for (std::size_t j = 0, len = targets[l].size(); j < len; ++j) codes[j * W + l] = t[j];
    }
    V* h_line = h_line_.reserve(m + 1);
    V* e_line = e_line_.reserve(m + 1);
    V* profile = profile_.reserve(COLS * k);
    const V floor = T::set1(kOffset);
    for (std::size_t i = 0; i <= m; ++i) h_line[i] = floor, e_line[i] = floor;
    const V open_extend = T::set1(gap_open + gap_extend), extend = T::set1(gap_extend);
    V best = floor;
    for (std::size_t col = 0; col < columns; col += COLS) {
      for (std::size_t cc = 0; cc < COLS; ++cc)
        T::build_profile(codes + (col + cc) * W, tables, k, profile + cc, COLS);
      best = T::max(best, pass(query.data(), m, profile, h_line, e_line, open_extend, extend));
    }
    alignas(64) Elem lanes[W];
    T::store(lanes, best);
    for (std::size_t l = 0; l < count; ++l) best_out[l] = static_cast<int>(lanes[l]) - kOffset;
  }

 private:
  // Columns [col, col + COLS) of the profile (row a at profile[a * COLS + c]); the line holds H and E
  // of column col - 1 on entry and of column col + COLS - 1 on return. Returns the pass's best.
  static V pass(const std::uint8_t* query, std::size_t m, const V* profile, V* h_line, V* e_line, V open_extend,
                V extend) {
    const V floor = T::set1(kOffset);
    // Per column j of the pass: H(i-1, j), H(i-1, j) - open - extend, F(i-1, j).
    V h_up[COLS], g_up[COLS], f[COLS];
    for (std::size_t cc = 0; cc < COLS; ++cc) h_up[cc] = floor, g_up[cc] = floor, f[cc] = floor;
    V best = floor;
    V diag_first = floor;  // H(i-1, col-1)
    for (std::size_t i = 1; i <= m; ++i) {
      const V* p = profile + std::size_t{query[i - 1]} * COLS;
      const V line_h = h_line[i];
      V left_g = T::subs(line_h, open_extend);  // H(i, j-1) - open - extend
      V left_e = e_line[i];
      V diag = diag_first;
      diag_first = line_h;
#pragma GCC unroll 16
      for (std::size_t cc = 0; cc < COLS; ++cc) {
        const V e = T::max(T::subs(left_e, extend), left_g);
        f[cc] = T::max(T::subs(f[cc], extend), g_up[cc]);
        V h = T::adds(diag, p[cc]);
        h = T::max(h, T::max(e, f[cc]));
        best = T::max(best, h);
        diag = h_up[cc];
        h_up[cc] = h;
        left_g = g_up[cc] = T::subs(h, open_extend);
        left_e = e;
      }
      h_line[i] = h_up[COLS - 1];
      e_line[i] = left_e;
    }
    return best;
  }

  std::vector<std::uint8_t> codes_;
  SwBuffer<T> h_line_, e_line_, profile_;
};

// Profile build for any lane type, one scalar lookup per entry (used by the 16-bit re-run pass).
template <typename Elem, std::size_t W>
inline void sw_build_profile_scalar(const std::uint8_t* codes, const SwTables& tables, std::size_t k, Elem* out,
                                    std::size_t stride) {
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t l = 0; l < W; ++l)
      out[a * stride * W + l] = codes[l] == kSwPadCode ? Elem{0} : Elem{tables.scores[a * 32 + codes[l]]};
}

// The scorer: 8-bit pass over length-sorted groups of T8::kLanes targets, saturated lanes re-run
// with T16, lanes saturating 16 bits re-run one by one by the striped kernel in T32 lanes (T16 and
// T32 also meet the striped kernel's traits).
template <typename T8, typename T16, typename T32>
class SimdSwScorer final : public SwScorer {
 public:
  explicit SimdSwScorer(const SwScoring& scoring) : scoring_(scoring), striped_(scoring) {
    const ScoreMatrix& matrix = *scoring.matrix;
    for (int a = 0; a < 32; ++a)
      for (int b = 0; b < 32; ++b) {
        const std::int8_t v = matrix.row(static_cast<std::uint8_t>(a))[b];
        tables_.scores[a * 32 + b] = v;
        for (int copy = 0; copy < 4; ++copy) tables_.wide[a * 128 + (b / 16) * 64 + copy * 16 + b % 16] = v;
      }
    k_ = static_cast<std::size_t>(std::max(1, matrix.size()));
    use8_ = SwLanePass<T8>::fits(scoring.gap_open, scoring.gap_extend);
    use16_ = SwLanePass<T16>::fits(scoring.gap_open, scoring.gap_extend);
    exact_ok_ = scoring.gap_open >= 0 && scoring.gap_extend >= 0;
  }

  void score(std::span<const std::uint8_t> query, const SwSequences& targets, std::size_t first, std::size_t count,
             int* scores) override {
    std::size_t k = k_;
    for (std::uint8_t q : query) k = std::max<std::size_t>(k, std::size_t{q} + 1);
    if (!exact_ok_ || k > 32) {
      for (std::size_t t = 0; t < count; ++t) scores[t] = sw_score_scalar(query, targets.sequence(first + t), scoring_);
      return;
    }
    order_.resize(count);
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return targets.offsets[first + a + 1] - targets.offsets[first + a] <
             targets.offsets[first + b + 1] - targets.offsets[first + b];
    });
    redo16_.clear();
    if (use8_) run_groups<T8>(pass8_, query, targets, first, order_, k, scores, redo16_);
    else redo16_ = order_;
    if (redo16_.empty()) return;
    redo32_.clear();
    if (use16_) run_groups<T16>(pass16_, query, targets, first, redo16_, k, scores, redo32_);
    else redo32_ = redo16_;
    if (redo32_.empty()) return;
    striped_.set_query(query);
    const int at_least = use16_ ? SwLanePass<T16>::saturated() : 0;  // saturated 16 bits: skip them
    for (std::size_t t : redo32_) scores[t] = striped_.score(targets.sequence(first + t), at_least);
  }

 private:
  template <typename T, typename Pass>
  void run_groups(Pass& pass, std::span<const std::uint8_t> query, const SwSequences& targets, std::size_t first,
                  const std::vector<std::size_t>& which, std::size_t k, int* scores, std::vector<std::size_t>& redo) {
    constexpr std::size_t W = T::kLanes;
    std::span<const std::uint8_t> group[W];
    int best[W];
    constexpr int ceiling = SwLanePass<T>::saturated();
    for (std::size_t g = 0; g < which.size(); g += W) {
      const std::size_t lanes = std::min(W, which.size() - g);
      for (std::size_t l = 0; l < lanes; ++l) group[l] = targets.sequence(first + which[g + l]);
      pass.run(query, group, lanes, tables_, k, scoring_.gap_open, scoring_.gap_extend, best);
      for (std::size_t l = 0; l < lanes; ++l) {
        const int s = best[l];
        if (s >= ceiling) redo.push_back(which[g + l]);
        else scores[which[g + l]] = s;
      }
    }
  }

  SwScoring scoring_;
  std::size_t k_ = 32;
  bool exact_ok_ = true, use8_ = true, use16_ = true;
  SwTables tables_;
  std::vector<std::size_t> order_, redo16_, redo32_;
  SwLanePass<T8> pass8_;
  SwLanePass<T16> pass16_;
  StripedSwKernel<T16, T32> striped_;
};

template <typename T8, typename T16, typename T32>
class SimdSwKernel final : public SwKernel {
 public:
  SimdSwKernel(const SwScoring& scoring, std::string_view name) : scoring_(scoring), name_(name) {}
  std::string_view name() const override { return name_; }
  std::size_t lanes() const override { return T8::kLanes; }
  std::unique_ptr<SwScorer> make_scorer() const override { return std::make_unique<SimdSwScorer<T8, T16, T32>>(scoring_); }

 private:
  SwScoring scoring_;
  std::string_view name_;
};

}  // namespace hyalign::kernels::simd
