#pragma once
// The narrow interface between the search tool and whatever device scores its (query, target)
// pairs: Smith–Waterman local alignment scores (kernels/scalar/sw_scalar.hpp defines them).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/sequence_batch.hpp"
#include "engine/cpu_features.hpp"
#include "engine/device_kernel.hpp"
#include "engine/work_queue.hpp"
#include "kernels/scalar/sw_scalar.hpp"

namespace hyalign::kernels {

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

// One pair scored apart from a batch (a GPU's re-runs of scores near 16-bit overflow): the striped
// kernel of the widest instruction set this CPU has, sw_score_scalar without one. Same score.
int sw_score_one(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target, const SwScoring& scoring);

// The traceback of a hit of the given score: sw_align_linear's alignment (sw_align_scalar's), with
// the end cell located by a full striped sweep of the `choice` instruction set (automatic: the
// widest; scalar: none) where the pruned sweep would keep most cells anyway.
SwAlignment sw_align_hit(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                         const SwScoring& scoring, int score,
                         engine::KernelChoice choice = engine::KernelChoice::automatic);

}  // namespace hyalign::kernels
