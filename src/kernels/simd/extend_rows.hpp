#pragma once
// One task's band traced back (the placements `map` reports), a row at a time with the row's cells
// side by side: the same cells, sources and best cell as extend_align_scalar, which it is tested
// against. A 10 kb read's band is hundreds of thousands of cells, and the scalar DP over them was
// most of such a run. Included only by the per-ISA translation units, whose compilers vectorize
// the row loops; `Isa` is a type of that unit's own, so each keeps its own instance.
//
// The one dependency along a row is the deletion E(i, d) from H(i, d-1). As a value it needs only
// H without E: where E is what H(i, d-1) took, opening a gap from it (-open-extend) loses to
// extending it (-extend), since open >= 0. So E(i, d) = max(E(i, d-1) - extend, P(i, d-1)) with
// P = max(0, diagonal, F) - open - extend, a running max over P, and the deletion extends exactly
// when E(i, d-1) - extend >= P(i, d-1). Everything else in a row is cell by cell.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/scalar/extend_scalar.hpp"

namespace hyalign::kernels::simd {

template <typename Isa>
class ExtendRows {
 public:
  ExtendRows(const ExtendTask& task, const ExtendScoring& s)
      : task_(task), s_(s), m_(static_cast<int>(task.query.size())), w_(static_cast<int>(task.band_width)) {}

  ExtendAlignment align() {
    if (m_ == 0) return extend_align_scalar(task_, s_);
    sources_.resize(static_cast<std::size_t>(m_) * static_cast<std::size_t>(w_));
    const std::size_t n = static_cast<std::size_t>(w_) + 1;
    rows_.assign(4 * n, 0);
    scratch_.assign(4 * n + 2, 0);
    scratch_[0] = -kExtendMinusInfinity;
    scratch_[n + 1] = kExtendMinusInfinity;
    int* h_above = rows_.data();
    int* f_above = h_above + n;
    int* h_row = f_above + n;
    int* f_row = h_row + n;
    // Row 0's row above: the start bonus as every diagonal predecessor and (one diagonal to the
    // right) as the insertion's open, no insertion to extend. Past the band: -infinity.
    std::fill(h_above, h_above + n, s_.clip5);
    std::fill(f_above, f_above + n, kExtendMinusInfinity);
    h_row[w_] = f_row[w_] = kExtendMinusInfinity;
    for (int i = 0; i < m_; ++i) {
      row(i, h_above, f_above, h_row, f_row);
      std::swap(h_above, h_row);
      std::swap(f_above, f_row);
      h_row[w_] = kExtendMinusInfinity;  // row 0's row above held the bonus there
    }
    return extend_walk_back(task_, sources_, best_);
  }

 private:
  // Row i from the row above: H and F into h_row and f_row, the cells' sources into sources_, and
  // the best cell so far. Locals and restrict pointers, so the compiler sees the loops' bounds and
  // that their arrays do not overlap.
  void row(int i, const int* __restrict h_above, const int* __restrict f_above, int* __restrict h_row,
           int* __restrict f_row) {
    using namespace extend_sources;
    const int w = w_;
    const std::size_t n = static_cast<std::size_t>(w) + 1;
    int* __restrict p = scratch_.data() + 1;  // p[-1] stays above every score
    int* __restrict e = p + n + 1;            // e[-1] stays -infinity
    int* __restrict raised = e + n;
    int* __restrict diagonal = raised + n;
    const std::uint8_t query = task_.query[static_cast<std::size_t>(i)];
    const std::uint8_t* __restrict letters = task_.target + i;
    const ExtendScoring scoring = s_;  // a local copy: no store in the loops can change it
    const int extend = scoring.gap_extend, open_extend = scoring.gap_open + scoring.gap_extend;
    std::uint8_t* __restrict bits = sources_.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w);
    for (int d = 0; d < w; ++d) {
      const int f_extend = f_above[d + 1] - extend, f_open = h_above[d + 1] - open_extend;
      const int f = std::max(f_extend, f_open);
      diagonal[d] = h_above[d] + scoring.letter_score(query, letters[d]);
      f_row[d] = f;
      p[d] = std::max(std::max(diagonal[d], f), 0) - open_extend;
      raised[d] = p[d] + d * extend;
      // Never in row 0: the row above holds -infinity's insertions.
      bits[d] = static_cast<std::uint8_t>(f_extend >= f_open ? kInsertionExtends : 0);
    }
    // E(i, d) = max over k < d of P(i, k) - (d - 1 - k) x extend = (running max of raised) - (d - 1) x
    // extend: the one loop that goes cell by cell, in blocks of 4 with one max a block on its chain.
    int before = kExtendMinusInfinity, k = 0;  // max of raised[0, k)
    for (; k + 4 <= w; k += 4) {
      const int two = std::max(raised[k], raised[k + 1]), three = std::max(two, raised[k + 2]);
      e[k] = before;
      e[k + 1] = std::max(before, raised[k]);
      e[k + 2] = std::max(before, two);
      e[k + 3] = std::max(before, three);
      before = std::max(before, std::max(three, raised[k + 3]));
    }
    for (; k < w; ++k) {
      e[k] = before;
      before = std::max(before, raised[k]);
    }
    for (int d = 1; d < w; ++d) e[d] -= (d - 1) * extend;
    e[0] = kExtendMinusInfinity;
    int row_best = 0;
    for (int d = 0; d < w; ++d) {
      const int from_deletion = e[d] > diagonal[d];
      const int h1 = from_deletion ? e[d] : diagonal[d];
      const int from_insertion = f_row[d] > h1;
      const int h2 = from_insertion ? f_row[d] : h1;
      const int source = from_insertion ? kInsertion : from_deletion ? kDeletion : kDiagonal;
      const int h = std::max(h2, 0);
      h_row[d] = h;
      const int deletion_extends = e[d - 1] - extend >= p[d - 1] ? kDeletionExtends : 0;  // never at d = 0: p[-1] is above all
      bits[d] |= static_cast<std::uint8_t>((h2 > 0 ? source : kEmpty) | deletion_extends);
      row_best = std::max(row_best, h);
    }
    if (row_best == 0) return;
    const int best = row_best + (i == m_ - 1 ? s_.clip3 : 0);
    if (best <= best_.score) return;
    const int column = static_cast<int>(std::find(h_row, h_row + w, row_best) - h_row);
    best_ = {best, i + 1, i + column + 1};
  }

  const ExtendTask& task_;
  const ExtendScoring& s_;
  const int m_, w_;
  std::vector<int> rows_, scratch_;  // rows_: H and F of the row above and this one
  std::vector<std::uint8_t> sources_;
  ExtendScore best_{};
};

}  // namespace hyalign::kernels::simd
