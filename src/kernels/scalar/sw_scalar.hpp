#pragma once
// Smith–Waterman local alignment with affine gaps (Gotoh), BLAST gap convention: a gap of length k
// costs gap_open + k·gap_extend, written plainly: the definition every SIMD and GPU kernel is tested
// against, and the traceback of reported hits. Sequences are codes of a ScoreMatrix.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/score_matrix.hpp"

namespace hyalign::kernels {

struct SwScoring {
  const ScoreMatrix* matrix = nullptr;
  int gap_open = 11;
  int gap_extend = 1;
};

// The definition, 32-bit: best local score (0 for empty inputs).
int sw_score_scalar(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target, const SwScoring& scoring);

// A reported alignment, coordinates 1-based inclusive as in BLAST tabular output.
struct SwAlignment {
  int score = 0;
  std::size_t query_start = 0, query_end = 0;
  std::size_t target_start = 0, target_end = 0;
  std::size_t length = 0;      // columns, gaps included
  std::size_t identities = 0;  // columns with equal codes
  std::size_t mismatches = 0;  // aligned columns with different codes
  std::size_t gap_opens = 0;   // number of gaps (runs), BLAST's gapopen
  std::size_t gap_columns = 0;
  std::string cigar;           // M/I/D runs (I = residue in the query only)
};

// Full traceback of the best local alignment; its columns re-score to `score` exactly. Ties: the
// end cell is the first maximum in target-major order (smallest target end, then smallest query end).
SwAlignment sw_align_scalar(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                            const SwScoring& scoring);

}  // namespace hyalign::kernels
