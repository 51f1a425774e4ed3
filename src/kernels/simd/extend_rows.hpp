#pragma once
// One task's band traced back (the placements `map` reports), a row at a time with the row's cells
// side by side in vectors: the same cells, sources and best cell as extend_align_scalar, which it is
// tested against. A 10 kb read's band is hundreds of thousands of cells, and the scalar DP over them
// was most of such a run. Included only by the per-ISA translation units; `Isa` is a type of that
// unit's own, so each keeps its own instance, and its vector width sets the vectors' (vector
// extensions that GCC and clang share, compiled for each unit's ISA). Lanes are 16-bit where every
// value a task's cells can take fits (reads up to about 16 kb with BWA's scores), else 32-bit.
//
// The one dependency along a row is the deletion E(i, d) from H(i, d-1). As a value it needs only
// H without E: where E is what H(i, d-1) took, opening a gap from it (-open-extend) loses to
// extending it (-extend), since open >= 0. So E(i, d) = max(E(i, d-1) - extend, P(i, d-1)) with
// P = max(0, diagonal, F) - open - extend: within a vector, a prefix max of P(l) + l x extend; across
// vectors, E at each vector's first cell carried on. The deletion extends exactly when
// E(i, d-1) - extend >= P(i, d-1). Everything else in a row is cell by cell.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/scalar/extend_scalar.hpp"
#include "kernels/simd/extend_simd.hpp"

namespace hyalign::kernels::simd {

// A vector of `Bytes` bytes in lanes of `Lane`, and the same bytes one by one. Spelled out for
// each pair: GCC 12 drops vector_size on a dependent typedef, and on an alias template where the
// alias is itself a template argument (std::array<V, ...>).
template <typename Lane, int Bytes>
struct VectorOf;
template <>
struct VectorOf<std::int32_t, 32> {
  typedef std::int32_t V __attribute__((vector_size(32)));
  typedef std::uint8_t Bytes __attribute__((vector_size(32)));
};
template <>
struct VectorOf<std::int32_t, 64> {
  typedef std::int32_t V __attribute__((vector_size(64)));
  typedef std::uint8_t Bytes __attribute__((vector_size(64)));
};
template <>
struct VectorOf<std::int16_t, 32> {
  typedef std::int16_t V __attribute__((vector_size(32)));
  typedef std::uint8_t Bytes __attribute__((vector_size(32)));
};
template <>
struct VectorOf<std::int16_t, 64> {
  typedef std::int16_t V __attribute__((vector_size(64)));
  typedef std::uint8_t Bytes __attribute__((vector_size(64)));
};

template <typename Isa, typename Lane>
class ExtendRows {
  static constexpr int kVectorBytes = static_cast<int>(Isa::kLanes * sizeof(typename Isa::Lane));
  static constexpr int kLanes = kVectorBytes / static_cast<int>(sizeof(Lane));
  using V = typename VectorOf<Lane, kVectorBytes>::V;
  using Bytes = typename VectorOf<Lane, kVectorBytes>::Bytes;
  static constexpr int kCodes = 6;  // letter codes: 4 bases, ambiguous, wall
  static constexpr Lane kMinus = sizeof(Lane) == 2 ? -16000 : kExtendMinusInfinity;  // -infinity

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
    set_letters(width);
    set_lane_constants();
    // H and F above, H and F of this row, and this row's P, E, diagonal scores and insertion bits,
    // each a vector longer than the row (the insertion reads the cell past it); P and E a cell
    // before it too (P above every score and E -infinity there, so cell 0's deletion never extends).
    const std::size_t n = static_cast<std::size_t>(width) + kLanes;
    cells_.assign(8 * n + 2, 0);
    Lane* h_above = cells_.data();
    Lane* f_above = h_above + n;
    Lane* h_row = f_above + n;
    Lane* f_row = h_row + n;
    p_ = f_row + n + 1;
    e_ = p_ + n + 1;
    diagonal_ = e_ + n;
    inserted_ = diagonal_ + n;
    p_[-1] = -kMinus;
    e_[-1] = kMinus;
    // Row 0's row above: the start bonus as every diagonal predecessor and (one diagonal to the
    // right) as the insertion's open, no insertion to extend.
    std::fill(h_above, h_above + n, static_cast<Lane>(s_.clip5));
    std::fill(f_above, f_above + n, kMinus);
    for (int i = 0; i < m_; ++i) {
      row(i, h_above, f_above, h_row, f_row);
      std::swap(h_above, h_row);
      std::swap(f_above, f_row);
    }
    return extend_walk_back(task_, std::span(sources_).first(sources_.size() - static_cast<std::size_t>(width)), best_);
  }

 private:
  static V load(const Lane* from) {
    V v;
    std::memcpy(&v, from, sizeof v);
    return v;
  }
  static void store(Lane* to, V v) { std::memcpy(to, &v, sizeof v); }
  static V broadcast(Lane x) { return V{} + x; }
  static V max(V a, V b) { return a > b ? a : b; }

  // Lanes moved `k` up, -infinity into the lowest k (lane l takes lane l - k of v, or a lane of the
  // -infinity vector that follows v in the shuffle's numbering).
  template <int k>
  static V shift_up(V v) {
    return [&]<int... l>(std::integer_sequence<int, l...>) {
      return __builtin_shufflevector(v, broadcast(kMinus), (l >= k ? l - k : kLanes + l)...);
    }(std::make_integer_sequence<int, kLanes>{});
  }

  // Lanes moved `k` down (lane l takes lane l + k; the top k lanes are any of v's).
  template <int k>
  static V shift_down(V v) {
    return [&]<int... l>(std::integer_sequence<int, l...>) {
      return __builtin_shufflevector(v, v, ((l + k) % kLanes)...);
    }(std::make_integer_sequence<int, kLanes>{});
  }

  // The prefix max of v's lanes (lane l: the max of lanes 0..l).
  static V prefix_max(V v) {
    v = max(v, shift_up<1>(v));
    v = max(v, shift_up<2>(v));
    v = max(v, shift_up<4>(v));
    if constexpr (kLanes >= 16) v = max(v, shift_up<8>(v));
    if constexpr (kLanes >= 32) v = max(v, shift_up<16>(v));
    return v;
  }

  static Lane horizontal_max(V v) {
    if constexpr (kLanes >= 32) v = max(v, shift_down<16>(v));
    if constexpr (kLanes >= 16) v = max(v, shift_down<8>(v));
    v = max(v, shift_down<4>(v));
    v = max(v, shift_down<2>(v));
    return std::max(v[0], v[1]);
  }

  // The low byte of each lane, stored as kLanes bytes (the cells' sources).
  static void store_low_bytes(std::uint8_t* to, V v) {
    const Bytes bytes = (Bytes)v;
    const auto packed = [&]<int... b>(std::integer_sequence<int, b...>) {
      return __builtin_shufflevector(bytes, bytes, (static_cast<int>(sizeof(Lane)) * b)...);
    }(std::make_integer_sequence<int, kLanes>{});
    static_assert(sizeof packed == kLanes);
    std::memcpy(to, &packed, kLanes);
  }

  // Lane l: the score of the row's query letter against target letter l, from `table` (the query
  // letter's scores by target code) and the letters as set_letters stored them. 32-bit lanes:
  // a permute by code. 16-bit lanes: a byte shuffle within each 128 bits, by the bytes of each code's
  // score (there is no 16-bit permute in AVX2).
  static V lookup(V table, V letters) {
    if constexpr (sizeof(Lane) == 2) {
      if constexpr (kVectorBytes == 32) return (V)_mm256_shuffle_epi8((__m256i)table, (__m256i)letters);
      else return (V)_mm512_shuffle_epi8((__m512i)table, (__m512i)letters);
    } else {
      if constexpr (kVectorBytes == 32) return (V)_mm256_permutevar8x32_epi32((__m256i)table, (__m256i)letters);
      else return (V)_mm512_maskz_permutexvar_epi32(0xffff, (__m512i)letters, (__m512i)table);  // GCC 12 warns of the unmasked form
    }
  }

  // The target's letters as lookup() takes them (walls past its end), and for each query letter the
  // scores of the target letters: lane c (and for 16-bit lanes, c of every 8 lanes) is code c's.
  void set_letters(int width) {
    const std::size_t length = task_.target_length();
    letters_.assign(static_cast<std::size_t>(m_ + width), encoded(kWallCode));
    for (std::size_t j = 0; j < length; ++j) letters_[j] = encoded(task_.target[j]);
    for (int q = 0; q < kCodes; ++q)
      for (int l = 0; l < kLanes; ++l)
        letter_scores_[static_cast<std::size_t>(q)][l] = static_cast<Lane>(
            s_.letter_score(static_cast<std::uint8_t>(q), static_cast<std::uint8_t>(sizeof(Lane) == 2 ? l % 8 : l)));
  }
  static Lane encoded(std::uint8_t code) {
    if constexpr (sizeof(Lane) == 2) return static_cast<Lane>((2 * code) | ((2 * code + 1) << 8));  // its score's bytes
    return static_cast<Lane>(code);
  }

  void set_lane_constants() {
    for (int l = 0; l < kLanes; ++l) {
      lane_[l] = static_cast<Lane>(l);
      lane_extend_[l] = static_cast<Lane>(l * s_.gap_extend);
    }
  }

  // Row i from the row above: H and F into h_row and f_row, the cells' sources into sources_, and
  // the best cell so far.
  void row(int i, const Lane* __restrict h_above, const Lane* __restrict f_above, Lane* __restrict h_row,
           Lane* __restrict f_row) {
    using namespace extend_sources;
    Lane* __restrict p = p_;
    Lane* __restrict e = e_;
    Lane* __restrict diagonal = diagonal_;
    Lane* __restrict inserted = inserted_;
    const V scores = letter_scores_[task_.query[static_cast<std::size_t>(i)]];
    const Lane* __restrict letters = letters_.data() + i;
    const auto extend = static_cast<Lane>(s_.gap_extend), open_extend = static_cast<Lane>(s_.gap_open + s_.gap_extend);
    const auto vector_extend = static_cast<Lane>(kLanes * s_.gap_extend);
    const auto last_lane_extend = static_cast<Lane>((kLanes - 1) * s_.gap_extend);
    std::uint8_t* __restrict bits = sources_.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w_);
    const V lane = lane_, lane_extend = lane_extend_;
    // Insertions, diagonal scores, P and E.
    V first_e = broadcast(kMinus);  // E at the vector's first cell (from the cells before it)
    for (int v = 0; v < vectors_; ++v) {
      const int d = v * kLanes;
      const V f_extend = load(f_above + d + 1) - extend, f_open = load(h_above + d + 1) - open_extend;
      const V f = max(f_extend, f_open);
      const V diag = load(h_above + d) + lookup(scores, load(letters + d));
      const V pv = max(max(diag, f), V{}) - open_extend;
      // E at lane l: E at lane 0 less l extensions, or the max of P(k) + k x extend over lanes
      // k < l, less (l - 1) extensions.
      const V raised = prefix_max(pv + lane_extend);
      const V e_value = max(first_e - lane_extend, shift_up<1>(raised) - (lane_extend - extend));
      first_e = max(first_e - vector_extend, broadcast(raised[kLanes - 1]) - last_lane_extend);
      store(f_row + d, f);
      store(diagonal + d, diag);
      store(p + d, pv);
      store(e + d, e_value);
      // Never in row 0: the row above holds -infinity's insertions.
      store(inserted + d, (f_extend >= f_open) & kInsertionExtends);
    }
    e[0] = kMinus;
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
      best = max(best, lane + static_cast<Lane>(d) < static_cast<Lane>(w_) ? h : V{});
    }
    store(h_row + w_, broadcast(kMinus));  // past the band, through the cell after the row
    store(f_row + w_, broadcast(kMinus));
    const int row_best = horizontal_max(best);
    if (row_best == 0) return;
    const int score = row_best + (i == m_ - 1 ? s_.clip3 : 0);
    if (score <= best_.score) return;
    const int column = static_cast<int>(std::find(h_row, h_row + w_, static_cast<Lane>(row_best)) - h_row);
    best_ = {score, i + 1, i + column + 1};
  }

  const ExtendTask& task_;
  const ExtendScoring& s_;
  const int m_, w_, vectors_;
  std::array<V, kCodes> letter_scores_{};
  V lane_{}, lane_extend_{};  // lane l: l, and l x gap_extend
  std::vector<Lane> cells_, letters_;  // letters_: the target's, as lookup() takes them
  Lane *p_ = nullptr, *e_ = nullptr, *diagonal_ = nullptr, *inserted_ = nullptr;  // a row's, in cells_
  std::vector<std::uint8_t> sources_;
  ExtendScore best_{};
};

// The alignment in 16-bit lanes where the task fits them, else in 32-bit lanes.
template <typename Isa>
ExtendAlignment extend_align_rows(const ExtendTask& task, const ExtendScoring& scoring) {
  if (extend_rows_fit_16_bits(task, scoring)) return ExtendRows<Isa, std::int16_t>(task, scoring).align();
  return ExtendRows<Isa, std::int32_t>(task, scoring).align();
}

}  // namespace hyalign::kernels::simd
