#pragma once
// One task's band traced back (the placements `map` reports), a row at a time with the row's cells
// side by side in vectors of 32-bit lanes: the same cells, sources and best cell as
// extend_align_scalar, which it is tested against. A 10 kb read's band is hundreds of thousands of
// cells, and the scalar DP over them was most of such a run. Included only by the per-ISA
// translation units; `Isa` is a type of that unit's own, so each keeps its own instance, and its
// lanes set the vectors' width (vector extensions that GCC and clang share, compiled for each unit's
// ISA).
//
// The one dependency along a row is the deletion E(i, d) from H(i, d-1). As a value it needs only
// H without E: where E is what H(i, d-1) took, opening a gap from it (-open-extend) loses to
// extending it (-extend), since open >= 0. So E(i, d) = max(E(i, d-1) - extend, P(i, d-1)) with
// P = max(0, diagonal, F) - open - extend, a running max over P (a prefix max of P + d x extend,
// taken a vector at a time), and the deletion extends exactly when E(i, d-1) - extend >= P(i, d-1).
// Everything else in a row is cell by cell.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/scalar/extend_scalar.hpp"

namespace hyalign::kernels::simd {

// Vectors of `Lanes` 32-bit lanes, and of as many bytes (the attribute takes no template argument).
template <int Lanes>
struct IntLanes;
template <>
struct IntLanes<8> {
  typedef int V __attribute__((vector_size(32)));
  typedef std::uint8_t Bytes __attribute__((vector_size(32)));  // V's bytes
};
template <>
struct IntLanes<16> {
  typedef int V __attribute__((vector_size(64)));
  typedef std::uint8_t Bytes __attribute__((vector_size(64)));
};

template <typename Isa>
class ExtendRows {
  static constexpr int kLanes = static_cast<int>(Isa::kLanes) / 2;  // Isa's 16-bit lanes, as 32-bit ones
  static_assert(kLanes == 8 || kLanes == 16);
  using V = typename IntLanes<kLanes>::V;
  using Bytes = typename IntLanes<kLanes>::Bytes;
  static constexpr int kCodes = 6;  // letter codes: 4 bases, ambiguous, wall

 public:
  ExtendRows(const ExtendTask& task, const ExtendScoring& s)
      : task_(task),
        s_(s),
        m_(static_cast<int>(task.query.size())),
        w_(static_cast<int>(task.band_width)),
        vectors_((w_ + kLanes - 1) / kLanes) {}

  ExtendAlignment align() {
    if (m_ == 0) return extend_align_scalar(task_, s_);
    // Rows of whole vectors: the cells past the band are computed and then set to -infinity, as the
    // band's edge needs. Their sources spill into the next row's bytes, which that row writes over
    // (the last row's, into room at the end).
    const int width = vectors_ * kLanes;
    sources_.resize(static_cast<std::size_t>(m_) * static_cast<std::size_t>(w_) + static_cast<std::size_t>(width));
    letters_.assign(task_.target, task_.target + task_.target_length());  // as ints: loaded as lanes
    letters_.resize(static_cast<std::size_t>(m_ + width), kWallCode);
    set_letter_scores();
    for (int l = 0; l < kLanes; ++l) lane_[l] = l, lane_extend_[l] = (l - 1) * s_.gap_extend;
    // H and F above, H and F of this row, and this row's P, E, diagonal scores and insertion bits,
    // each a vector longer than the row (the insertion reads the cell past it); P and E a cell
    // before it too (P above every score and E -infinity there, so cell 0's deletion never extends).
    const std::size_t n = static_cast<std::size_t>(width) + kLanes;
    cells_.assign(8 * n + 2, 0);
    int* h_above = cells_.data();
    int* f_above = h_above + n;
    int* h_row = f_above + n;
    int* f_row = h_row + n;
    p_ = f_row + n + 1;
    e_ = p_ + n + 1;
    diagonal_ = e_ + n;
    inserted_ = diagonal_ + n;
    p_[-1] = -kExtendMinusInfinity;
    e_[-1] = kExtendMinusInfinity;
    // Row 0's row above: the start bonus as every diagonal predecessor and (one diagonal to the
    // right) as the insertion's open, no insertion to extend.
    std::fill(h_above, h_above + n, s_.clip5);
    std::fill(f_above, f_above + n, kExtendMinusInfinity);
    for (int i = 0; i < m_; ++i) {
      row(i, h_above, f_above, h_row, f_row);
      std::swap(h_above, h_row);
      std::swap(f_above, f_row);
    }
    return extend_walk_back(task_, std::span(sources_).first(sources_.size() - static_cast<std::size_t>(width)), best_);
  }

 private:
  static V load(const int* from) {
    V v;
    std::memcpy(&v, from, sizeof v);
    return v;
  }
  static void store(int* to, V v) { std::memcpy(to, &v, sizeof v); }
  static V broadcast(int x) { return V{} + x; }
  static V max(V a, V b) { return a > b ? a : b; }

  // Lanes moved `k` up, -infinity into the lowest k (lane l takes lane l - k of v, or a lane of the
  // -infinity vector that follows v in the shuffle's numbering).
  template <int k>
  static V shift_up(V v) {
    return [&]<int... l>(std::integer_sequence<int, l...>) {
      return __builtin_shufflevector(v, broadcast(kExtendMinusInfinity), (l >= k ? l - k : kLanes + l)...);
    }(std::make_integer_sequence<int, kLanes>{});
  }

  // Lanes moved `k` down (lane l takes lane l + k; the top k lanes are any of v's).
  template <int k>
  static V shift_down(V v) {
    return [&]<int... l>(std::integer_sequence<int, l...>) {
      return __builtin_shufflevector(v, v, ((l + k) % kLanes)...);
    }(std::make_integer_sequence<int, kLanes>{});
  }

  // The low byte of each lane, stored as kLanes bytes (the cells' sources).
  static void store_low_bytes(std::uint8_t* to, V v) {
    const Bytes bytes = (Bytes)v;
    const auto packed = [&]<int... b>(std::integer_sequence<int, b...>) {
      return __builtin_shufflevector(bytes, bytes, (4 * b)...);
    }(std::make_integer_sequence<int, kLanes>{});
    static_assert(sizeof packed == kLanes);
    std::memcpy(to, &packed, kLanes);
  }

  // Lane l: table's lane index[l] (the per-ISA permute; GCC and clang share no variable shuffle).
  static V lookup(V table, V index) {
    if constexpr (kLanes == 8) {
      return (V)_mm256_permutevar8x32_epi32((__m256i)table, (__m256i)index);
    } else {
      return (V)_mm512_maskz_permutexvar_epi32(0xffff, (__m512i)index, (__m512i)table);  // GCC 12 warns of the unmasked form
    }
  }

  // The prefix max of v's lanes (lane l: the max of lanes 0..l).
  static V prefix_max(V v) {
    v = max(v, shift_up<1>(v));
    v = max(v, shift_up<2>(v));
    v = max(v, shift_up<4>(v));
    if constexpr (kLanes == 16) v = max(v, shift_up<8>(v));
    return v;
  }

  static int horizontal_max(V v) {
    if constexpr (kLanes == 16) v = max(v, shift_down<8>(v));
    v = max(v, shift_down<4>(v));
    v = max(v, shift_down<2>(v));
    return std::max(v[0], v[1]);
  }

  // For each query letter, the scores of the target letters (lane = target code), looked up by a
  // shuffle of the row's query letter's vector.
  void set_letter_scores() {
    for (int q = 0; q < kCodes; ++q)
      for (int t = 0; t < kLanes; ++t)
        letter_scores_[static_cast<std::size_t>(q)][t] = s_.letter_score(static_cast<std::uint8_t>(q), static_cast<std::uint8_t>(t));
  }

  // Row i from the row above: H and F into h_row and f_row, the cells' sources into sources_, and
  // the best cell so far.
  void row(int i, const int* __restrict h_above, const int* __restrict f_above, int* __restrict h_row,
           int* __restrict f_row) {
    using namespace extend_sources;
    int* __restrict p = p_;
    int* __restrict e = e_;
    int* __restrict diagonal = diagonal_;
    int* __restrict inserted = inserted_;
    const V scores = letter_scores_[task_.query[static_cast<std::size_t>(i)]];
    const int* __restrict letters = letters_.data() + i;
    const int extend = s_.gap_extend, open_extend = s_.gap_open + s_.gap_extend;
    std::uint8_t* __restrict bits = sources_.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w_);
    const V lane = lane_, lane_extend = lane_extend_;
    // Insertions, diagonal scores, P, and E as the running max of P + d x extend less (d - 1) x extend.
    V before = broadcast(kExtendMinusInfinity);  // the max of P + d x extend over the vectors so far
    for (int v = 0; v < vectors_; ++v) {
      const int d = v * kLanes;
      const V f_extend = load(f_above + d + 1) - extend, f_open = load(h_above + d + 1) - open_extend;
      const V f = max(f_extend, f_open);
      const V diag = load(h_above + d) + lookup(scores, load(letters + d));
      const V pv = max(max(diag, f), V{}) - open_extend;
      const V raised = prefix_max(pv + (lane_extend + extend + d * extend));  // P + d x extend, then its prefix max
      const V e_value = max(before, shift_up<1>(raised)) - (lane_extend + d * extend);
      before = max(before, broadcast(raised[kLanes - 1]));
      store(f_row + d, f);
      store(diagonal + d, diag);
      store(p + d, pv);
      store(e + d, e_value);
      // Never in row 0: the row above holds -infinity's insertions.
      store(inserted + d, (f_extend >= f_open) & kInsertionExtends);
    }
    e[0] = kExtendMinusInfinity;
    V best = V{};
    for (int v = 0; v < vectors_; ++v) {
      const int d = v * kLanes;
      const V e_value = load(e + d), diag = load(diagonal + d), f = load(f_row + d);
      const V from_deletion = e_value > diag;
      const V h1 = from_deletion ? e_value : diag;
      const V from_insertion = f > h1;
      const V h2 = from_insertion ? f : h1;
      const V source = from_insertion ? broadcast(kInsertion) : from_deletion ? broadcast(kDeletion) : broadcast(kDiagonal);
      const V h = max(h2, V{});
      store(h_row + d, h);
      const V deletion_extends = load(e + d - 1) - extend >= load(p + d - 1);
      store_low_bytes(bits + d, (h2 > 0 ? source : V{}) | (deletion_extends & kDeletionExtends) | load(inserted + d));
      best = max(best, lane + d < w_ ? h : V{});
    }
    store(h_row + w_, broadcast(kExtendMinusInfinity));  // past the band, through the cell after the row
    store(f_row + w_, broadcast(kExtendMinusInfinity));
    const int row_best = horizontal_max(best);
    if (row_best == 0) return;
    const int score = row_best + (i == m_ - 1 ? s_.clip3 : 0);
    if (score <= best_.score) return;
    const int column = static_cast<int>(std::find(h_row, h_row + w_, row_best) - h_row);
    best_ = {score, i + 1, i + column + 1};
  }

  const ExtendTask& task_;
  const ExtendScoring& s_;
  const int m_, w_, vectors_;
  std::array<V, kCodes> letter_scores_{};
  V lane_{}, lane_extend_{};  // lane l: l, and (l - 1) x gap_extend
  std::vector<int> cells_, letters_;  // letters_: the target's codes, walls past its end
  int *p_ = nullptr, *e_ = nullptr, *diagonal_ = nullptr, *inserted_ = nullptr;  // a row's, in cells_
  std::vector<std::uint8_t> sources_;
  ExtendScore best_{};
};

}  // namespace hyalign::kernels::simd
