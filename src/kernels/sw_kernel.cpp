// Smith–Waterman kernel dispatch: the scalar reference kernel and the per-ISA SIMD kernels.
#include "kernels/sw_kernel.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/simd/sw_simd.hpp"

namespace hyalign::kernels {
namespace {

class ScalarSwScorer final : public SwScorer {
 public:
  explicit ScalarSwScorer(const SwScoring& scoring) : scoring_(scoring) {}
  void score(std::span<const std::uint8_t> query, const SwSequences& targets, std::size_t first, std::size_t count,
             int* scores) override {
    for (std::size_t t = 0; t < count; ++t) scores[t] = sw_score_scalar(query, targets.sequence(first + t), scoring_);
  }

 private:
  SwScoring scoring_;
};

class ScalarSwKernel final : public SwKernel {
 public:
  explicit ScalarSwKernel(const SwScoring& scoring) : scoring_(scoring) {}
  std::string_view name() const override { return "scalar"; }
  std::size_t lanes() const override { return 1; }
  std::unique_ptr<SwScorer> make_scorer() const override { return std::make_unique<ScalarSwScorer>(scoring_); }

 private:
  SwScoring scoring_;
};

}  // namespace

std::unique_ptr<SwKernel> make_sw_cpu_kernel(engine::KernelChoice choice, const SwScoring& scoring) {
  if (scoring.matrix == nullptr) throw UsageError("Smith-Waterman kernel: no score matrix");
  if (scoring.gap_open < 0 || scoring.gap_extend < 0)
    throw UsageError(fmt::format("gap costs must be non-negative (open {}, extend {})", scoring.gap_open,
                                 scoring.gap_extend));
  switch (engine::resolve_cpu_kernel(choice)) {
#if defined(HYALIGN_X86_KERNELS)
    case engine::KernelChoice::avx512: return simd::make_sw_avx512_kernel(scoring);
    case engine::KernelChoice::avx2: return simd::make_sw_avx2_kernel(scoring);
#endif
    default: return std::make_unique<ScalarSwKernel>(scoring);
  }
}

}  // namespace hyalign::kernels
