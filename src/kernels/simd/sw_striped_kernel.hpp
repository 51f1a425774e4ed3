#pragma once
// Striped Smith–Waterman (Farrar 2007) of one query against one target, written once over traits
// classes that wrap one instruction set and one lane width (included only by the per-ISA translation
// units, which compile it with their -m flags, like sw_simd_kernel.hpp).
//
// Layout. With W lanes and seg = ceil(m / W) segments, query row r (0-based) lies in lane r / seg of
// segment vector r % seg. The row above a row is in the segment before, except for segment 0, whose
// upper neighbours are segment seg - 1 of the lane below: the vector shifted by one lane. A profile
// holds, per target letter, the seg vectors of the query's scores against it; rows past the query
// (padding of the last lane) score -infinity, so they never hold a best that no real row holds first.
//
// Per column j (recurrence of sw_scalar.cpp, g = open + extend):
//   E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - g)             final at once (column j-1 is)
//   H(i,j) = max(0, H(i-1,j-1) + s, E(i,j), F(i,j))           first with F along each lane only,
//   F(i+1,j) = max(F(i,j) - extend, H(i,j) - g)                 starting at -infinity in segment 0
// then the lazy-F loop carries the F that leaves each lane's last row into the next lane's first
// row, segment by segment, while some lane's carry exceeds H - g: a carry at most H - g can neither
// raise H (g >= 0) nor the F below it, which H - g already bounds (extend <= g). Farrar's loop
// shifts the carries again after the last segment and walks down once more for each lane a carry
// crosses: below a long similar hit, where cheap gap extensions give whole columns their H from F,
// that is up to W walks a column. Here the carries are made exact first (the F leaving lane l is
// max(F along lane l, F entering it - seg extend): a max-plus prefix over the lanes, log2(W)
// shifts), so one walk ends the loop. Before that, one test with the plain shift: where no lane's
// F from the lane above beats H - g at its first row, no carry can reach further (by induction over
// the lanes), and most columns of unrelated sequences end there.
//
// Values are the definition's integers. 16-bit lanes saturate: a best at the ceiling (32767) means a
// score may have been cut, and the caller runs 32-bit lanes. Below it nothing was cut: E and F are
// never below -g after column 0 (H >= 0), H never above the best. 32-bit lanes do not saturate;
// carried F is kept from falling past -infinity.
//
// The first maximum (smallest column, then smallest row) comes from the lane-wise maximum of each
// column: a column whose maximum beats the best so far holds the new best, in the lowest lane that
// reaches it, at that lane's first segment that does. A best can improve at most `best` times, so
// the search costs at most min(best, n) * (seg + W) reads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "kernels/scalar/sw_linear.hpp"
#include "kernels/scalar/sw_traceback.hpp"
#include "kernels/simd/scratch_buffer.hpp"
#include "kernels/simd/sw_striped.hpp"

namespace hyalign::kernels::simd {

// One lane width of one instruction set: sweeps the columns of one target for the query it holds.
//   T::V, T::Elem (signed), T::kLanes
//   set1, adds, subs (saturating where Elem is narrower than int), max, store
//   shift_in<k>(v, fill) (k < W): lane l >= k takes lane l - k of v, lanes below k take fill's (fill:
//     all lanes equal)
//   any_greater(a, b): some lane of a is greater than b's
template <typename T>
class StripedPass {
 public:
  using V = typename T::V;
  using Elem = typename T::Elem;
  static constexpr std::size_t W = T::kLanes;
  static constexpr bool kSaturates = sizeof(Elem) < sizeof(int);
  static constexpr int kMinusInfinity = kSaturates ? std::numeric_limits<Elem>::min() : sw_detail::kMinusInfinity;
  static constexpr int kCeiling = kSaturates ? std::numeric_limits<Elem>::max() : std::numeric_limits<int>::max();

  // Whether scores reaching `at_least` and these gap costs fit the lanes.
  static bool fits(const SwScoring& scoring, int at_least) {
    return at_least < kCeiling && scoring.gap_open + scoring.gap_extend < kCeiling;
  }

  void set_query(std::span<const std::uint8_t> query, const ScoreMatrix& matrix) {
    m_ = query.size();
    seg_ = std::max<std::size_t>(1, (m_ + W - 1) / W);
    Elem* profile = profile_.reserve<Elem>(ScoreMatrix::kMaxCodes * seg_ * W);
    for (std::size_t a = 0; a < ScoreMatrix::kMaxCodes; ++a)
      for (std::size_t s = 0; s < seg_; ++s)
        for (std::size_t l = 0; l < W; ++l) {
          const std::size_t r = l * seg_ + s;
          profile[(a * seg_ + s) * W + l] = static_cast<Elem>(
              r < m_ ? matrix.score(query[r], static_cast<std::uint8_t>(a)) : kMinusInfinity);
        }
  }

  // All columns of `target` (non-empty; the query too): best score, and with `end_cell` its first
  // cell, with `stride` > 0 checkpoints. nullopt when a score reached the ceiling.
  std::optional<SwLocated> sweep(std::span<const std::uint8_t> target, const SwScoring& scoring, bool end_cell,
                                 std::size_t stride) {
    V* h_load = h_load_.reserve<V>(seg_);
    V* h_store = h_store_.reserve<V>(seg_);
    V* e = e_.reserve<V>(seg_);
    std::fill(h_load, h_load + seg_, T::set1(0));
    std::fill(e, e + seg_, T::set1(kMinusInfinity));
    const Gaps gaps{T::set1(scoring.gap_open + scoring.gap_extend), T::set1(scoring.gap_extend), scoring.gap_extend};
    const V* profile = profile_.get<V>();
    SwLocated out;
    out.stride = std::max<std::size_t>(stride, 1);
    if (stride > 0) out.checkpoints.push_back(first_checkpoint());
    for (std::size_t j = 1; j <= target.size(); ++j) {
      const V column_max = column(profile + std::size_t{target[j - 1]} * seg_, h_load, h_store, e, gaps);
      std::swap(h_load, h_store);
      if (T::any_greater(column_max, T::set1(out.best))) {
        out.best = lane_max(column_max);
        if (out.best >= kCeiling) return std::nullopt;
        out.best_j = j;
        if (end_cell) out.best_i = first_row_holding(out.best, column_max, h_load);
      }
      if (stride > 0 && j % stride == 0) out.checkpoints.push_back(checkpoint(h_load, e));
    }
    out.floor = out.best;
    return out;
  }

 private:
  struct Gaps {
    V open_extend, extend;
    int extend_cost;
  };

  // Column j: h_load holds H(., j-1) and e E(., j-1); h_store gets H(., j) and e E(., j). Returns the
  // lane-wise maximum of H(., j).
  V column(const V* profile, const V* h_load, V* h_store, V* e, const Gaps& gaps) const {
    const V zero = T::set1(0), minus_infinity = T::set1(kMinusInfinity);
    V diag = T::template shift_in<1>(h_load[seg_ - 1], zero);  // H(r-1, j-1); row 0 is 0
    V f = minus_infinity;
    V column_max = zero;
    for (std::size_t s = 0; s < seg_; ++s) {
      const V e_s = T::max(T::subs(e[s], gaps.extend), T::subs(h_load[s], gaps.open_extend));
      e[s] = e_s;
      const V h = T::max(T::max(T::adds(diag, profile[s]), zero), T::max(e_s, f));
      h_store[s] = h;
      column_max = T::max(column_max, h);
      f = T::max(T::subs(f, gaps.extend), T::subs(h, gaps.open_extend));
      diag = h_load[s];
    }
    // F leaving each lane's last row enters the next lane's first row. Where none of it beats H - g
    // there (most columns of unrelated sequences), no carry can reach further down: done.
    if (!T::any_greater(T::template shift_in<1>(f, minus_infinity), T::subs(h_store[0], gaps.open_extend)))
      return column_max;
    // The lazy-F loop, with every lane's carry exact from the start, so that one walk down the
    // segments ends it (a carry through several lanes, as below a long similar hit, needs no more).
    f = T::template shift_in<1>(lane_prefix<1>(f, gaps), minus_infinity);
    for (std::size_t s = 0; s < seg_ && T::any_greater(f, T::subs(h_store[s], gaps.open_extend)); ++s) {
      const V h = T::max(h_store[s], f);
      h_store[s] = h;
      column_max = T::max(column_max, h);
      f = T::max(T::subs(f, gaps.extend), minus_infinity);
    }
    return column_max;
  }

  // The F leaving lane l with every lane above carried: max over lanes k <= l of f_out(k) - (l - k)
  // seg extend (F leaving lane l is max(F along it, F entering it - seg extend)), a max-plus prefix
  // over the lanes in log2(W) shifts. A drop is capped where it would leave the lanes: 16 bits at the
  // ceiling, so that from any score below it the capped drop still ends below 0, where a carry
  // changes no H; 32 bits at 2^29, beyond any score.
  template <std::size_t lanes>
  V lane_prefix(V f, const Gaps& gaps) const {
    if constexpr (lanes >= W) {
      return f;
    } else {
      constexpr long long cap = std::min<long long>(kCeiling, -static_cast<long long>(kMinusInfinity));
      const long long drop = std::min(static_cast<long long>(lanes * seg_) * gaps.extend_cost, cap);
      const V shifted = T::template shift_in<lanes>(f, T::set1(kMinusInfinity));
      return lane_prefix<2 * lanes>(T::max(f, T::subs(shifted, T::set1(static_cast<int>(drop)))), gaps);
    }
  }

  static int lane_max(V v) {
    alignas(64) Elem lanes[W];
    T::store(lanes, v);
    return *std::max_element(lanes, lanes + W);
  }

  // The smallest row (1-based) of column h holding `best`, the maximum of column_max.
  std::size_t first_row_holding(int best, V column_max, const V* h) const {
    alignas(64) Elem lanes[W];
    T::store(lanes, column_max);
    const std::size_t lane = static_cast<std::size_t>(std::find(lanes, lanes + W, best) - lanes);
    const Elem* cells = reinterpret_cast<const Elem*>(h);
    std::size_t s = 0;
    while (cells[s * W + lane] != best) ++s;
    return lane * seg_ + s + 1;
  }

  // Column 0 as sw_linear.cpp's sweep starts it: H = 0, E = -infinity (its own, wider one).
  SwCheckpoint first_checkpoint() const {
    return {{1, m_}, std::vector<int>(m_, 0), std::vector<int>(m_, sw_detail::kMinusInfinity)};
  }

  // H and E of rows 1..m, back in row order.
  SwCheckpoint checkpoint(const V* h, const V* e) const {
    SwCheckpoint out{{1, m_}, std::vector<int>(m_), std::vector<int>(m_)};
    const Elem* h_cells = reinterpret_cast<const Elem*>(h);
    const Elem* e_cells = reinterpret_cast<const Elem*>(e);
    for (std::size_t l = 0, r = 0; r < m_; ++l)  // rows in order: lane by lane
      for (std::size_t s = 0; s < seg_ && r < m_; ++s, ++r) {
        out.h[r] = h_cells[s * W + l];
        out.e[r] = e_cells[s * W + l];
      }
    return out;
  }

  std::size_t m_ = 0, seg_ = 1;
  ScratchBuffer profile_, h_load_, h_store_, e_;
};

// Both lane widths behind StripedSw: T16 first, T32 where a score leaves 16 bits.
template <typename T16, typename T32>
class StripedSwKernel final : public StripedSw {
 public:
  explicit StripedSwKernel(const SwScoring& scoring) : scoring_(scoring) {}

  void set_query(std::span<const std::uint8_t> query) override {
    query_ = query;
    narrow_ready_ = wide_ready_ = false;
  }

  int score(std::span<const std::uint8_t> target, int at_least) override {
    return run(target, false, 0, at_least).best;
  }

  SwLocated locate(std::span<const std::uint8_t> target, std::size_t stride, int at_least) override {
    return run(target, true, stride, at_least);
  }

 private:
  SwLocated run(std::span<const std::uint8_t> target, bool end_cell, std::size_t stride, int at_least) {
    if (query_.empty() || target.empty()) return {};
    if (StripedPass<T16>::fits(scoring_, at_least)) {
      if (!narrow_ready_) {
        narrow_.set_query(query_, *scoring_.matrix);
        narrow_ready_ = true;
      }
      if (auto located = narrow_.sweep(target, scoring_, end_cell, stride)) return std::move(*located);
    }
    if (!wide_ready_) {
      wide_.set_query(query_, *scoring_.matrix);
      wide_ready_ = true;
    }
    return *wide_.sweep(target, scoring_, end_cell, stride);  // 32-bit lanes hold every score
  }

  SwScoring scoring_;
  std::span<const std::uint8_t> query_;
  bool narrow_ready_ = false, wide_ready_ = false;  // profiles of query_ built
  StripedPass<T16> narrow_;
  StripedPass<T32> wide_;
};

}  // namespace hyalign::kernels::simd
