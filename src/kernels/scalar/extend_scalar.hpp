#pragma once
// The alignment of a read against a candidate locus for `map`: local alignment with affine gaps
// inside a diagonal band, with BWA-MEM's clip rule (a bonus for reaching either end of the read, so
// an end is soft-clipped only where clipping scores better). Written plainly: the definition every
// SIMD and GPU kernel is tested against, and the traceback of the placements that are reported.
//
// Letters are codes: 0-3 = a/c/g/t, 4 = any other letter (N, IUPAC), 5 = a wall (outside the
// reference sequence: before its start, after its end, or another sequence). Scores:
//   same base              +match
//   different bases        -mismatch
//   a 4 on either side     -ambiguous
//   a wall                 -kWallPenalty, so no alignment crosses one
//   a gap of k letters     -(gap_open + k * gap_extend)
//
// The band: cell (i, d) aligns query[i] with target[i + d], i in [0, m), d in [0, width); the
// caller lays the target window out so that the read's expected diagonal is in the middle.
// H(i, d) = max(0, H(i-1, d) + s, E(i, d), F(i, d))        (i = 0: the diagonal predecessor is
//                                                           the start bonus clip5; local starts 0)
// E(i, d) = max(H(i, d-1) - open - extend, E(i, d-1) - extend)   (deletion: a target letter)
// F(i, d) = max(H(i-1, d+1) - open - extend, F(i-1, d+1) - extend) (insertion: a query letter;
//                                                                  i = 0 from clip5)
// The score of a cell is H(i, d), plus clip3 when i = m - 1; the result is the best cell, the
// first in (i, d) order on ties.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hyalign::kernels {

inline constexpr std::uint8_t kAmbiguousCode = 4;
inline constexpr std::uint8_t kWallCode = 5;
inline constexpr int kWallPenalty = 1000;

struct ExtendScoring {
  int match = 1;
  int mismatch = 4;
  int ambiguous = 1;
  int gap_open = 6;
  int gap_extend = 1;
  int clip5 = 5;  // bonus for an alignment that starts at the read's first letter
  int clip3 = 5;  // bonus for one that ends at its last letter

  int letter_score(std::uint8_t q, std::uint8_t t) const {
    if (q == kWallCode || t == kWallCode) return -kWallPenalty;
    if (q == kAmbiguousCode || t == kAmbiguousCode) return -ambiguous;
    return q == t ? match : -mismatch;
  }
  // The best score any read of `length` letters can reach.
  long long max_score(std::size_t length) const {
    return static_cast<long long>(length) * match + clip5 + clip3;
  }
};

// One (read, locus) problem. `target` holds query.size() + band_width - 1 codes.
struct ExtendTask {
  std::span<const std::uint8_t> query;
  const std::uint8_t* target = nullptr;
  std::uint32_t band_width = 1;
  std::size_t target_length() const { return query.size() + band_width - 1; }
};

// The best cell: score (bonuses included; 0 when nothing aligns), the query letters up to it and
// the target letters up to it (so query[0, query_end) and target[0, target_end) end the alignment).
struct ExtendScore {
  std::int32_t score = 0;
  std::int32_t query_end = 0;
  std::int32_t target_end = 0;
  friend bool operator==(const ExtendScore&, const ExtendScore&) = default;
};

ExtendScore extend_score_scalar(const ExtendTask& task, const ExtendScoring& scoring);

enum class CigarOp : std::uint8_t { match = 0, insertion = 1, deletion = 2, soft_clip = 4 };  // BAM codes
struct CigarRun {
  CigarOp op;
  std::uint32_t length;
  friend bool operator==(const CigarRun&, const CigarRun&) = default;
};

// The alignment of the best cell, traced back. query [query_begin, query_end) aligns with target
// [target_begin, target_end); the CIGAR covers the whole read (soft clips at both ends).
struct ExtendAlignment {
  ExtendScore best;
  std::int32_t query_begin = 0;
  std::int32_t target_begin = 0;
  std::vector<CigarRun> cigar;
};

// Traceback ties: a cell's H comes from the diagonal first, then a deletion, then an insertion; a
// gap is extended before it is opened.
ExtendAlignment extend_align_scalar(const ExtendTask& task, const ExtendScoring& scoring);
using ExtendAligner = ExtendAlignment (*)(const ExtendTask&, const ExtendScoring&);

// Where a cell's values came from, one byte per cell, row-major (cell (i, d) at i * band_width + d):
// what the traceback walks. Any aligner that records these bytes as extend_align_scalar does gets
// its alignment from extend_walk_back.
namespace extend_sources {
inline constexpr std::uint8_t kEmpty = 0, kDiagonal = 1, kDeletion = 2, kInsertion = 3;  // H's source
inline constexpr std::uint8_t kHSourceMask = 3;
inline constexpr std::uint8_t kDeletionExtends = 4;   // E(i, d) came from E(i, d-1)
inline constexpr std::uint8_t kInsertionExtends = 8;  // F(i, d) came from F(i-1, d+1)
}  // namespace extend_sources
inline constexpr int kExtendMinusInfinity = -(1 << 29);  // below any score, with room to subtract from

// The alignment that ends at `best` (the band's best cell), walked back through the cells' sources.
ExtendAlignment extend_walk_back(const ExtendTask& task, std::span<const std::uint8_t> sources, const ExtendScore& best);

// extend_align_scalar's alignment, given the task's best cell (extend_score_scalar's), traced in the
// diagonals it can reach: an alignment with G gap letters scores at most query letters x match +
// both bonuses - gap_open - G x gap_extend, and strays at most G diagonals from its last cell. Every
// alignment scoring `best` lies there, so the same cells win and the same path is traced; a mate
// rescue window of hundreds of diagonals shrinks to a few dozen.
// `align` computes it (extend_align_scalar, or a faster aligner with the same result).
ExtendAlignment extend_align_near(const ExtendTask& task, const ExtendScoring& scoring, const ExtendScore& best,
                                  ExtendAligner align = extend_align_scalar);

// The score of `cigar` (soft clips included) against the task's letters, from target offset
// `target_begin`, with the clip bonuses: the check that a traceback re-scores to its score.
long long rescore_alignment(const ExtendTask& task, const ExtendScoring& scoring, std::int32_t target_begin,
                            std::span<const CigarRun> cigar);

}  // namespace hyalign::kernels
