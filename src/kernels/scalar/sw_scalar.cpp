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
#include <limits>
#include <vector>

#include "kernels/scalar/sw_scalar.hpp"

namespace hyalign::kernels {

int sw_score_scalar(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                    const SwScoring& scoring) {
  const std::size_t m = query.size();
  if (m == 0 || target.empty()) return 0;
  const ScoreMatrix& matrix = *scoring.matrix;
  const int extend = scoring.gap_extend, open_extend = scoring.gap_open + scoring.gap_extend;
  constexpr int kMinusInfinity = std::numeric_limits<int>::min() / 4;
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

namespace {

// Traceback byte of one cell: bits 0-1 the source of H, bit 2 E extends, bit 3 F extends.
enum : std::uint8_t { kStop = 0, kDiag = 1, kFromE = 2, kFromF = 3, kEExtends = 4, kFExtends = 8 };

}  // namespace

SwAlignment sw_align_scalar(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                            const SwScoring& scoring) {
  SwAlignment out;
  const std::size_t m = query.size(), n = target.size();
  if (m == 0 || n == 0) return out;
  const ScoreMatrix& matrix = *scoring.matrix;
  const int extend = scoring.gap_extend, open_extend = scoring.gap_open + scoring.gap_extend;
  constexpr int kMinusInfinity = std::numeric_limits<int>::min() / 4;

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
      std::uint8_t bits = 0;
      const int e_open = left - open_extend, e_ext = e[i] - extend;
      if (e_ext > e_open) bits |= kEExtends;
      e[i] = std::max(e_ext, e_open);
      const int f_open = up - open_extend, f_ext = f - extend;
      if (f_ext > f_open) bits |= kFExtends;
      f = std::max(f_ext, f_open);
      const int match = diag + matrix.score(query[i - 1], t);
      int cell;
      if (match >= e[i] && match >= f) cell = match, bits |= kDiag;
      else if (e[i] >= f) cell = e[i], bits |= kFromE;
      else cell = f, bits |= kFromF;
      if (cell <= 0) cell = 0, bits &= ~std::uint8_t{3};  // H = 0: a start (kStop)
      column[i] = bits;
      diag = left;
      h[i] = up = cell;
      if (cell > best) best = cell, best_i = i, best_j = j;
    }
  }
  out.score = best;
  if (best == 0) return out;

  // Traceback from the end cell; columns are collected backwards, then reversed.
  std::string ops;  // one of M, I, D per column, backwards
  std::size_t i = best_i, j = best_j;
  enum class State { h, e, f } state = State::h;
  for (;;) {
    const std::uint8_t bits = trace[j * (m + 1) + i];
    if (state == State::h) {
      if (i == 0 || j == 0) break;
      const std::uint8_t source = bits & 3;
      if (source == kStop) break;
      if (source == kDiag) {
        ops.push_back('M');
        if (query[i - 1] == target[j - 1]) ++out.identities;
        else ++out.mismatches;
        --i, --j;
      } else {
        state = source == kFromE ? State::e : State::f;
      }
    } else if (state == State::e) {  // target residue j against a gap
      ops.push_back('D');
      state = (bits & kEExtends) ? State::e : State::h;
      --j;
    } else {  // query residue i against a gap
      ops.push_back('I');
      state = (bits & kFExtends) ? State::f : State::h;
      --i;
    }
  }
  out.query_start = i + 1;
  out.target_start = j + 1;
  out.query_end = best_i;
  out.target_end = best_j;
  std::reverse(ops.begin(), ops.end());
  out.length = ops.size();
  for (std::size_t k = 0; k < ops.size();) {
    std::size_t run = 1;
    while (k + run < ops.size() && ops[k + run] == ops[k]) ++run;
    if (ops[k] != 'M') ++out.gap_opens, out.gap_columns += run;
    out.cigar += std::to_string(run);
    out.cigar += ops[k];
    k += run;
  }
  return out;
}

}  // namespace hyalign::kernels
