// Reference Smith–Waterman (Gotoh, BLAST gap convention) in 32-bit integers: the definition every
// SIMD kernel is checked against, and the traceback used for reported alignments.
//
// Recurrence (query position i = 1..m, target position j = 1..n, g = gap_open + gap_extend):
//   E(i,j) = max(E(i,j-1) - gap_extend, H(i,j-1) - g)      gap in the query (target residue only, 'D')
//   F(i,j) = max(F(i-1,j) - gap_extend, H(i-1,j) - g)      gap in the target (query residue only, 'I')
//   H(i,j) = max(0, H(i-1,j-1) + s(q_i, t_j), E(i,j), F(i,j)),   H(0,·) = H(·,0) = 0
//
// Tie rules of sw_align_scalar (all deterministic):
//   * End cell: the first cell holding the best score in target-major order, i.e. the smallest
//     target end, then the smallest query end (as stated in sw_kernel.hpp).
//   * Start: the traceback stops at the first cell (walking back) whose H is 0, so the reported
//     alignment is the shortest one ending at the end cell: it never begins with a zero-sum prefix.
//   * At a cell with H > 0 reached in state H: diagonal (M) first, then E (D), then F (I).
//   * Inside a gap: opening (coming from H) is preferred over extending when both give the value, so
//     gap runs are as short as the score allows.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/scalar/sw_scalar.hpp"
#include "kernels/scalar/sw_traceback.hpp"

namespace hyalign::kernels {

int sw_score_scalar(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                    const SwScoring& scoring) {
  const std::size_t m = query.size();
  if (m == 0 || target.empty()) return 0;
  const ScoreMatrix& matrix = *scoring.matrix;
  const int extend = scoring.gap_extend, open_extend = scoring.gap_open + scoring.gap_extend;
  constexpr int kMinusInfinity = sw_detail::kMinusInfinity;
  // h[i] = H(i, j-1) before column j, e[i] = E(i, j-1).
  std::vector<int> h(m + 1, 0), e(m + 1, kMinusInfinity);
  int best = 0;
  for (const std::uint8_t t : target) {
    int diag = 0, f = kMinusInfinity, up = 0;  // H(i-1, j-1), F(i, j), H(i-1, j)
    for (std::size_t i = 1; i <= m; ++i) {
      const int left = h[i];
      e[i] = std::max(e[i] - extend, left - open_extend);
      f = std::max(f - extend, up - open_extend);
      int cell = diag + matrix.score(query[i - 1], t);
      cell = std::max(std::max(cell, 0), std::max(e[i], f));
      diag = left;
      h[i] = up = cell;
      best = std::max(best, cell);
    }
  }
  return best;
}

SwAlignment sw_align_scalar(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                            const SwScoring& scoring) {
  using namespace sw_detail;
  const std::size_t m = query.size(), n = target.size();
  if (m == 0 || n == 0) return {};
  const ScoreMatrix& matrix = *scoring.matrix;
  const int extend = scoring.gap_extend, open_extend = scoring.gap_open + scoring.gap_extend;

  // Forward pass, storing one traceback byte per cell (column-major: cell (i, j) at j * (m + 1) + i).
  std::vector<std::uint8_t> trace((m + 1) * (n + 1), kStop);
  std::vector<int> h(m + 1, 0), e(m + 1, kMinusInfinity);
  int best = 0;
  std::size_t best_i = 0, best_j = 0;
  for (std::size_t j = 1; j <= n; ++j) {
    const std::uint8_t t = target[j - 1];
    std::uint8_t* column = trace.data() + j * (m + 1);
    int diag = 0, f = kMinusInfinity, up = 0;
    for (std::size_t i = 1; i <= m; ++i) {
      const int left = h[i];
      const Cell cell = sw_cell(diag, left, up, e[i], f, matrix.score(query[i - 1], t), extend, open_extend);
      column[i] = cell.bits;
      diag = left;
      h[i] = up = cell.h;
      if (cell.h > best) best = cell.h, best_i = i, best_j = j;
    }
  }
  if (best == 0) return {};
  return trace_back(query, target, best, best_i, best_j,
                    [&](std::size_t i, std::size_t j) { return trace[j * (m + 1) + i]; });
}

}  // namespace hyalign::kernels
