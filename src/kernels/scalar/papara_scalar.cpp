#include "kernels/scalar/papara_scalar.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace hyalign::kernels {
namespace {
constexpr int kMinusInfinity = std::numeric_limits<int>::min() / 4;
}

int papara_score_scalar(std::span<const StateSet> query, BranchView branch, const PaparaScoring& sc) {
  const std::size_t m = query.size();
  const std::size_t n = branch.columns;
  if (m == 0 || n == 0) return 0;
  // One line along the query: S and D of the previous column, I carried down the current column.
  std::vector<int> s_prev(m + 1, 0), d(m + 1, kMinusInfinity);
  int best = kMinusInfinity;
  for (std::size_t i = 1; i <= n; ++i) {
    const StateSet a = branch.states[i - 1];
    const bool cgap = branch.cgap[i - 1] != 0;
    const int open_d = cgap ? 0 : sc.gap_open, extend_d = cgap ? 0 : sc.gap_extend;
    const int cgap_bonus = cgap ? sc.match_cgap : 0;
    int diag = 0;  // S(i-1, j-1), with S(i-1, 0) = 0
    int s_up = 0;  // S(i, j-1), with S(i, 0) = 0
    int ins = kMinusInfinity;
    for (std::size_t j = 1; j <= m; ++j) {
      const int mat = diag + ((a & query[j - 1]) ? sc.match : 0) + cgap_bonus;
      d[j] = std::max(s_prev[j] + open_d, d[j] + extend_d);
      ins = std::max(s_up + sc.gap_open, ins + sc.gap_extend);
      const int s = std::max({mat, d[j], ins});
      diag = s_prev[j];
      s_prev[j] = s;
      s_up = s;
    }
    best = std::max(best, s_up);  // last row
    if (i == n)
      for (std::size_t j = 1; j <= m; ++j) best = std::max(best, s_prev[j]);  // last column
  }
  return best;
}

PaparaAlignment papara_align_scalar(std::span<const StateSet> query, BranchView branch, const PaparaScoring& sc) {
  const std::size_t m = query.size();
  const std::size_t n = branch.columns;
  PaparaAlignment result;
  result.residue_place.assign(m, PaparaAlignment::slot_code(0));
  if (m == 0 || n == 0) return result;

  // Per cell: which term S took and whether D and I extended.
  enum : std::uint8_t { kFromD = 1, kFromI = 2, kDExtend = 4, kIExtend = 8 };  // 0 in the low bits: from M
  // Reused between calls of a thread: the matrix is the only large allocation.
  thread_local std::vector<std::uint8_t> trace;
  trace.resize((n + 1) * (m + 1));
  auto at = [m](std::size_t i, std::size_t j) { return i * (m + 1) + j; };

  // One line along the query holds S(i-1, j) until overwritten with S(i, j); same for D.
  std::vector<int> s_line(m + 1, 0), d_line(m + 1, kMinusInfinity), last_row(n + 1);
  int* __restrict s_ln = s_line.data();
  int* __restrict d_ln = d_line.data();
  const StateSet* __restrict q = query.data();
  for (std::size_t i = 1; i <= n; ++i) {
    const StateSet a = branch.states[i - 1];
    const bool cgap = branch.cgap[i - 1] != 0;
    const int open_d = cgap ? 0 : sc.gap_open, extend_d = cgap ? 0 : sc.gap_extend;
    const int cgap_bonus = cgap ? sc.match_cgap : 0;
    std::uint8_t* __restrict tr = trace.data() + at(i, 0);
    int diag = 0, up = 0;  // S(i-1, j-1) and S(i, j-1)
    int ins = 0;           // the reference tool's traceback pass starts I(i,0) at 0
    for (std::size_t j = 1; j <= m; ++j) {
      const int left = s_ln[j];
      const int mat = diag + ((a & q[j - 1]) ? sc.match : 0) + cgap_bonus;
      const int d_open = left + open_d, d_ext = d_ln[j] + extend_d;
      const int del = std::max(d_open, d_ext);
      const int i_open = up + sc.gap_open, i_ext = ins + sc.gap_extend;
      ins = std::max(i_open, i_ext);
      // Branch-free form of the tie rules: I only if strictly above D and M; D if >= I and > M.
      const bool from_i = ins > del && ins > mat;
      const bool from_d = del >= ins && del > mat;
      const int s = std::max(std::max(mat, del), ins);  // keeps the I chain short
      tr[j] = static_cast<std::uint8_t>(from_d * kFromD | from_i * kFromI | (d_ext > d_open) * kDExtend |
                                        (i_ext > i_open) * kIExtend);
      diag = left;
      up = s;
      s_ln[j] = s;
      d_ln[j] = del;
    }
    last_row[i] = up;
  }
  const std::vector<int>& last_column = s_line;  // S(n, j) after the last column
  papara_walk_back(
      m, n, [&](std::size_t j) { return last_column[j]; }, [&](std::size_t i) { return last_row[i]; },
      [&](std::size_t i, std::size_t j) {
        const std::uint8_t bits = trace[at(i, j)];
        using From = PaparaTraceCell::From;
        return PaparaTraceCell{(bits & 3) == kFromD ? From::d : (bits & 3) == kFromI ? From::ins : From::m,
                               (bits & kDExtend) != 0, (bits & kIExtend) != 0};
      },
      result);
  return result;
}

}  // namespace hyalign::kernels
