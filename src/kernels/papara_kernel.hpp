#pragma once
// The narrow interface between the papara tool and whatever device scores its (query, branch) pairs.
// A kernel is prepared once for a problem (branches, queries, scoring); each worker thread gets its
// own BlockScorer (scratch memory) and asks it to score all queries against one block of branches
// at a time, folding the results into the worker's BestPerQuery table.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/alphabet.hpp"
#include "core/sequence_arena.hpp"
#include "kernels/scalar/papara_scalar.hpp"

namespace hyalign::kernels {

enum class KernelChoice { automatic, scalar, avx2, avx512 };

KernelChoice parse_kernel_choice(std::string_view name);  // throws UsageError for an unknown name
std::string_view kernel_name(KernelChoice choice);
bool cpu_supports(KernelChoice choice);
KernelChoice best_cpu_kernel();
// `automatic` becomes the best kernel of this CPU; a kernel the CPU cannot run throws UsageError.
KernelChoice resolve_cpu_kernel(KernelChoice choice);

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
  const SequenceArena* queries = nullptr;
  const Alphabet* alphabet = nullptr;
  PaparaScoring scoring;
};

// Receives every (query, branch) score a scorer computes.
class ScoreSink {
 public:
  virtual ~ScoreSink() = default;
  virtual void offer(std::size_t query, int score, std::size_t branch) = 0;
};

// Best score and branch per query; ties go to the lower branch index, so merging tables in any
// order gives the same result.
class BestPerQuery final : public ScoreSink {
 public:
  struct Entry {
    int score = std::numeric_limits<int>::min();
    std::size_t branch = std::numeric_limits<std::size_t>::max();
  };
  explicit BestPerQuery(std::size_t queries) : entries_(queries) {}
  void offer(std::size_t query, int score, std::size_t branch) override {
    Entry& e = entries_[query];
    if (score > e.score || (score == e.score && branch < e.branch)) e = {score, branch};
  }
  void merge(const BestPerQuery& other) {
    for (std::size_t q = 0; q < entries_.size(); ++q) offer(q, other.entries_[q].score, other.entries_[q].branch);
  }
  const Entry& operator[](std::size_t query) const { return entries_[query]; }
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<Entry> entries_;
};

// A rectangle of work: queries [first_query, first_query + query_count) against targets
// [first_target, first_target + target_count).
struct WorkTile {
  std::size_t first_target = 0, target_count = 0;
  std::size_t first_query = 0, query_count = 0;
};

class PaparaBlockScorer {
 public:
  virtual ~PaparaBlockScorer() = default;
  // Offers the score of every (query, target) pair of the tile to the sink, each exactly once.
  virtual void score_tile(const WorkTile& tile, ScoreSink& sink) = 0;
};

class PaparaKernel {
 public:
  virtual ~PaparaKernel() = default;
  // Targets per tile the kernel is built for (a CPU kernel's vector width); tiles may be wider for
  // kernels that take many blocks per call.
  virtual std::size_t block_width() const = 0;
  virtual std::string_view name() const = 0;
  virtual std::unique_ptr<PaparaBlockScorer> make_scorer() const = 0;
  // Seconds spent inside device kernels so far (GPU kernels; 0 for CPU kernels).
  virtual double device_seconds() const { return 0; }
};

// `choice` automatic picks the widest instruction set this CPU has. The problem must outlive the kernel.
std::unique_ptr<PaparaKernel> make_papara_cpu_kernel(KernelChoice choice, const PaparaProblem& problem);

}  // namespace hyalign::kernels
