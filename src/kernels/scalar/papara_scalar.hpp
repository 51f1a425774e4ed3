#pragma once
// PaPaRa's scoring recurrence (spec §6) and its traceback (§7), written plainly: the definition every
// optimised kernel is tested against.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/alphabet.hpp"

namespace hyalign::kernels {

struct PaparaScoring {
  int gap_open = -3;     // opening a gap in the query (or inserting a query residue)
  int gap_extend = -1;
  int match = 2;         // reference state set and query residue share a state
  int match_cgap = -3;   // added to the diagonal step in a column carrying the gap signal
};

// One reference (branch) as the kernels see it: a state set and a gap flag per column.
struct BranchView {
  const StateSet* states;
  const std::uint8_t* cgap;
  std::size_t columns;
};

// Best score of the free-shift alignment of `query` against `branch` (max over the last row and last
// column). 32-bit arithmetic.
int papara_score_scalar(std::span<const StateSet> query, BranchView branch, const PaparaScoring& scoring);

// Where each query residue went: an aligned column (>= 0) or an insertion slot s encoded as -(s + 1);
// slot s lies between reference columns s and s+1 (slot 0 before the first column, slot L after the
// last).
struct PaparaAlignment {
  int score = 0;
  std::vector<std::int32_t> residue_place;
  static constexpr std::int32_t slot_code(std::size_t slot) { return -static_cast<std::int32_t>(slot) - 1; }
  static constexpr std::size_t slot_of(std::int32_t code) { return static_cast<std::size_t>(-code - 1); }
};

// One cell of a traceback matrix: which term S took, and whether D and I extended there.
struct PaparaTraceCell {
  enum class From : unsigned char { m, d, ins } from;
  bool d_extends, i_extends;
};

// The end-cell choice and the walk back of §7, shared by every traceback kernel: `last_column(j)`
// is S(n, j), `last_row(i)` is S(i, m), `cell(i, j)` the traceback cell (all 1-based). The end cell
// is the first strict maximum scanning the last column top-down, then the last row left to right.
template <typename LastColumn, typename LastRow, typename Cell>
void papara_walk_back(std::size_t m, std::size_t n, LastColumn last_column, LastRow last_row, Cell cell,
                      PaparaAlignment& result) {
  result.residue_place.assign(m, PaparaAlignment::slot_code(0));
  int best = -2147483647 - 1;
  std::size_t best_i = 0, best_j = 0;
  for (std::size_t j = 1; j < m; ++j)
    if (const int v = last_column(j); v > best) best = v, best_i = n, best_j = j;
  for (std::size_t i = 1; i <= n; ++i)
    if (const int v = last_row(i); v > best) best = v, best_i = i, best_j = m;
  result.score = best;
  // Residues below the end cell follow the last column; those left at the top precede the first.
  for (std::size_t j = best_j + 1; j <= m; ++j) result.residue_place[j - 1] = PaparaAlignment::slot_code(n);
  using From = PaparaTraceCell::From;
  std::size_t i = best_i, j = best_j;
  From state = From::m;  // m: at S, choosing the term
  while (i > 0 && j > 0) {
    const PaparaTraceCell c = cell(i, j);
    if (state == From::m) {
      if (c.from == From::m) {
        result.residue_place[j - 1] = static_cast<std::int32_t>(i - 1);
        --i, --j;
        continue;
      }
      state = c.from;
    }
    if (state == From::d) {
      state = c.d_extends ? From::d : From::m;
      --i;
    } else {
      result.residue_place[j - 1] = PaparaAlignment::slot_code(i);
      state = c.i_extends ? From::ins : From::m;
      --j;
    }
  }
}

// Full matrix with the reference tool's tie rules (§7).
PaparaAlignment papara_align_scalar(std::span<const StateSet> query, BranchView branch, const PaparaScoring& scoring);

}  // namespace hyalign::kernels
