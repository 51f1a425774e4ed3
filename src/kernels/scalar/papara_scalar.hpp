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

// Full matrix with the reference tool's tie rules (§7).
PaparaAlignment papara_align_scalar(std::span<const StateSet> query, BranchView branch, const PaparaScoring& scoring);

}  // namespace hyalign::kernels
