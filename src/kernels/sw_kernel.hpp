#pragma once
// Smith–Waterman local alignment with affine gaps (Gotoh), BLAST gap convention: a gap of length k
// costs gap_open + k·gap_extend. Sequences are codes of a ScoreMatrix.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/score_matrix.hpp"
#include "core/sequence_batch.hpp"
#include "engine/cpu_features.hpp"
#include "engine/device_kernel.hpp"
#include "engine/work_queue.hpp"

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

// Sequences as codes of the scoring's matrix, in one buffer.
using SwSequences = PackedSequences<std::uint8_t>;

// Scores queries against targets. Exact: every score equals sw_score_scalar's (the SIMD kernels run
// 8-bit lanes first and re-run saturated lanes in 16 then 32 bits; the GPU re-runs on the CPU the
// pairs whose 16-bit score comes near overflow).
class SwScorer {
 public:
  virtual ~SwScorer() = default;
  // scores[t - first] = score of query against target t, for t in [first, first + count).
  virtual void score(std::span<const std::uint8_t> query, const SwSequences& targets, std::size_t first,
                     std::size_t count, int* scores) = 0;
  // A rectangle: scores[(q - tile.first_query) * tile.target_count + (t - tile.first_target)].
  virtual void score_tile(const SwSequences& queries, const SwSequences& targets, const engine::WorkTile& tile,
                          int* scores) {
    for (std::size_t q = 0; q < tile.query_count; ++q)
      score(queries.sequence(tile.first_query + q), targets, tile.first_target, tile.target_count,
            scores + q * tile.target_count);
  }
};

class SwKernel : public engine::DeviceKernel {
 public:
  // Targets per vector (the inter-sequence width of the 8-bit pass); callers hand out work in
  // multiples of it, sorted by length so lanes finish together.
  virtual std::size_t lanes() const = 0;
  // The targets that scorers will be given until the next call (a GPU copies them to its memory);
  // they must stay alive until then.
  virtual void set_targets(const SwSequences& /*targets*/) {}
  virtual std::unique_ptr<SwScorer> make_scorer() const = 0;  // one per thread
};

std::unique_ptr<SwKernel> make_sw_cpu_kernel(engine::KernelChoice choice, const SwScoring& scoring);

}  // namespace hyalign::kernels
