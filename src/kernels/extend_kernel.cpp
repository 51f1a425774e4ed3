// Extension kernel dispatch: the scalar reference kernel and the per-ISA SIMD kernels.
#include "kernels/extend_kernel.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/simd/extend_simd.hpp"

namespace hyalign::kernels {
namespace {

class ScalarExtendScorer final : public ExtendScorer {
 public:
  explicit ScalarExtendScorer(const ExtendScoring& scoring) : scoring_(scoring) {}
  void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
    for (std::size_t k = 0; k < tasks.size(); ++k) results[k] = extend_score_scalar(tasks[k], scoring_);
  }

 private:
  ExtendScoring scoring_;
};

class ScalarExtendKernel final : public ExtendKernel {
 public:
  explicit ScalarExtendKernel(const ExtendScoring& scoring) : scoring_(scoring) {}
  std::string_view name() const override { return "scalar"; }
  std::size_t lanes() const override { return 1; }
  std::unique_ptr<ExtendScorer> make_scorer() const override {
    return std::make_unique<ScalarExtendScorer>(scoring_);
  }

 private:
  ExtendScoring scoring_;
};

class FallbackScorer final : public ExtendScorer {
 public:
  FallbackScorer(std::unique_ptr<ExtendScorer> primary, std::unique_ptr<ExtendScorer> backup,
                 std::function<void(const std::string&)> on_failure)
      : primary_(std::move(primary)), backup_(std::move(backup)), on_failure_(std::move(on_failure)) {}
  void score(std::span<const ExtendTask> tasks, std::span<ExtendScore> results) override {
    if (primary_) {
      try {
        primary_->score(tasks, results);
        return;
      } catch (const std::exception& e) {
        primary_.reset();
        if (on_failure_) on_failure_(e.what());
      }
    }
    backup_->score(tasks, results);
  }

 private:
  std::unique_ptr<ExtendScorer> primary_, backup_;
  std::function<void(const std::string&)> on_failure_;
};

}  // namespace

std::unique_ptr<ExtendScorer> with_cpu_fallback(std::unique_ptr<ExtendScorer> primary, std::unique_ptr<ExtendScorer> backup,
                                                std::function<void(const std::string&)> on_failure) {
  return std::make_unique<FallbackScorer>(std::move(primary), std::move(backup), std::move(on_failure));
}

std::unique_ptr<ExtendKernel> make_extend_cpu_kernel(engine::KernelChoice choice, const ExtendScoring& scoring) {
  if (scoring.match < 1 || scoring.mismatch < 0 || scoring.ambiguous < 0 || scoring.gap_open < 0 ||
      scoring.gap_extend < 1 || scoring.clip5 < 0 || scoring.clip3 < 0)
    throw UsageError(fmt::format("alignment scores: match must be at least 1, gap extension at least 1 and the "
                                 "others non-negative (match {}, mismatch {}, gap open {}, extend {}, clip {},{})",
                                 scoring.match, scoring.mismatch, scoring.gap_open, scoring.gap_extend,
                                 scoring.clip5, scoring.clip3));
  switch (engine::resolve_cpu_kernel(choice)) {
#if defined(HYALIGN_X86_KERNELS)
    case engine::KernelChoice::avx512: return simd::make_extend_avx512_kernel(scoring);
    case engine::KernelChoice::avx2: return simd::make_extend_avx2_kernel(scoring);
#endif
    default: return std::make_unique<ScalarExtendKernel>(scoring);
  }
}

}  // namespace hyalign::kernels
