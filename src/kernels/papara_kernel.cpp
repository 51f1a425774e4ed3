#include "kernels/papara_kernel.hpp"

#include "kernels/simd/papara_simd.hpp"

namespace hyalign::kernels {
namespace {

class ScalarScorer final : public PaparaBlockScorer {
 public:
  explicit ScalarScorer(const PaparaProblem& problem) : problem_(problem) {}
  void score_tile(const engine::WorkTile& tile, engine::ScoreSink& sink) override {
    for (std::size_t b = tile.first_target; b < tile.first_target + tile.target_count; ++b)
      for (std::size_t q = tile.first_query; q < tile.first_query + tile.query_count; ++q)
        sink.offer(q, papara_score_scalar(problem_.queries->sequence(q), problem_.targets.branch(b), problem_.scoring),
                   b);
  }

 private:
  const PaparaProblem& problem_;
};

class ScalarKernel final : public PaparaKernel {
 public:
  explicit ScalarKernel(const PaparaProblem& problem) : problem_(problem) {}
  std::size_t block_width() const override { return 8; }
  std::string_view name() const override { return "scalar"; }
  std::unique_ptr<PaparaBlockScorer> make_scorer() const override { return std::make_unique<ScalarScorer>(problem_); }

 private:
  const PaparaProblem& problem_;
};

}  // namespace

std::unique_ptr<PaparaKernel> make_papara_cpu_kernel(engine::KernelChoice choice, const PaparaProblem& problem) {
  switch (engine::resolve_cpu_kernel(choice)) {
#if defined(HYALIGN_X86_KERNELS)
    case engine::KernelChoice::avx512: return simd::make_avx512_kernel(problem);
    case engine::KernelChoice::avx2: return simd::make_avx2_kernel(problem);
#endif
    default: return std::make_unique<ScalarKernel>(problem);
  }
}

}  // namespace hyalign::kernels
