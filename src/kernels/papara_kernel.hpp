#pragma once
// The narrow interface between the papara tool and whatever device scores its (query, branch) pairs.
// A kernel is prepared once for a problem (branches, queries, scoring); each worker thread gets its
// own BlockScorer (scratch memory) and asks it to score all queries against one block of branches
// at a time, folding the results into the worker's ScoreSink (a BestHits table).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "core/alphabet.hpp"
#include "core/sequence_batch.hpp"
#include "engine/best_hits.hpp"
#include "engine/cpu_features.hpp"
#include "engine/device_kernel.hpp"
#include "engine/work_queue.hpp"
#include "kernels/scalar/papara_scalar.hpp"

namespace hyalign::kernels {

// Branches, branch-major: `count` rows of `columns` state sets and gap flags.
struct PaparaTargets {
  std::size_t count = 0;
  std::size_t columns = 0;
  const StateSet* states = nullptr;
  const std::uint8_t* cgap = nullptr;
  BranchView branch(std::size_t b) const { return {states + b * columns, cgap + b * columns, columns}; }
};

struct PaparaProblem {
  PaparaTargets targets;
  const StateSequences* queries = nullptr;
  const Alphabet* alphabet = nullptr;
  PaparaScoring scoring;
  unsigned threads = 1;  // for the kernels' set-up passes (query encoding): the user's -j
};

class PaparaBlockScorer {
 public:
  virtual ~PaparaBlockScorer() = default;
  // Offers the score of every (query, target) pair of the tile to the sink, each exactly once.
  virtual void score_tile(const engine::WorkTile& tile, engine::ScoreSink& sink) = 0;
};

class PaparaKernel : public engine::DeviceKernel {
 public:
  // Targets per tile the kernel is built for (a CPU kernel's vector width); tiles may be wider for
  // kernels that take many blocks per call.
  virtual std::size_t block_width() const = 0;
  virtual std::unique_ptr<PaparaBlockScorer> make_scorer() const = 0;
};

// `choice` automatic picks the widest instruction set this CPU has. The problem must outlive the kernel.
std::unique_ptr<PaparaKernel> make_papara_cpu_kernel(engine::KernelChoice choice, const PaparaProblem& problem);

}  // namespace hyalign::kernels
