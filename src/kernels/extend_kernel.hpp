#pragma once
// The narrow interface between `map` and whatever device aligns its reads: a batch of independent
// (read, locus) problems, each scored as extend_score_scalar defines (kernels/scalar/extend_scalar.hpp).
// The tool traces back only the placements it reports, with extend_cpu_aligner's aligner.
#include <functional>
#include <memory>
#include <string>
#include <span>

#include "engine/cpu_features.hpp"
#include "engine/device_kernel.hpp"
#include "kernels/scalar/extend_scalar.hpp"

namespace hyalign::kernels {

// Scores batches of tasks. Exact: every result equals extend_score_scalar's (the SIMD kernels score
// each task in the narrowest lanes extend_lane_bits allows: 8 or 16 bits, or the scalar kernel).
class ExtendScorer {
 public:
  virtual ~ExtendScorer() = default;
  // results[k] = the best cell of tasks[k].
  virtual void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) = 0;
};

// The narrowest unsigned lanes that score `task` exactly: 8 or 16 when the task's max_score (which
// bounds every value its recurrences reach, H, E, F and bonuses) and its row numbers fit them, else
// 32 (the scalar kernel). Scores as make_extend_cpu_kernel accepts them.
int extend_lane_bits(const ExtendTask& task, const ExtendScoring& scoring);

class ExtendKernel : public engine::DeviceKernel {
 public:
  // Tasks per vector; callers hand out batches of many times this many.
  virtual std::size_t lanes() const = 0;
  virtual std::unique_ptr<ExtendScorer> make_scorer() const = 0;  // one per thread
};

// Which tasks of a batch go to the primary (GPU) scorer: those `takes` accepts (all when empty),
// unless fewer than `least` do (a GPU's round trip then costs more than the CPU's work).
struct PrimaryShare {
  std::function<bool(const ExtendTask&)> takes;
  std::size_t least = 0;
};

// A scorer that scores on `primary` (a GPU's) the tasks `share` gives it and the rest on `backup`
// (a CPU kernel's), and everything on `backup` once `primary` fails: the batch that failed is
// scored again there, so no task is lost. `on_failure` hears the error once.
std::unique_ptr<ExtendScorer> with_cpu_fallback(std::unique_ptr<ExtendScorer> primary, std::unique_ptr<ExtendScorer> backup,
                                                std::function<void(const std::string&)> on_failure,
                                                PrimaryShare share = {});

// Throws UsageError for scores the kernels cannot take (negative costs, a match score below 1).
std::unique_ptr<ExtendKernel> make_extend_cpu_kernel(engine::KernelChoice choice, const ExtendScoring& scoring);

// The aligner that traces placements back on this CPU for `choice`: extend_align_scalar, or the
// instruction set's own with the same results. Scores as make_extend_cpu_kernel accepts them.
ExtendAligner extend_cpu_aligner(engine::KernelChoice choice);

}  // namespace hyalign::kernels
