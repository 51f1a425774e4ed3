#include "kernels/papara_kernel.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/simd/papara_simd.hpp"

namespace hyalign::kernels {
namespace {

class ScalarScorer final : public PaparaBlockScorer {
 public:
  explicit ScalarScorer(const PaparaProblem& problem) : problem_(problem) {}
  void score_tile(const WorkTile& tile, ScoreSink& sink) override {
    for (std::size_t b = tile.first_target; b < tile.first_target + tile.target_count; ++b)
      for (std::size_t q = tile.first_query; q < tile.first_query + tile.query_count; ++q)
        sink.offer(q, papara_score_scalar(problem_.queries->residues(q), problem_.targets.branch(b), problem_.scoring),
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

KernelChoice parse_kernel_choice(std::string_view name) {
  for (KernelChoice c : {KernelChoice::automatic, KernelChoice::scalar, KernelChoice::avx2, KernelChoice::avx512})
    if (kernel_name(c) == name) return c;
  throw UsageError(fmt::format("unknown kernel '{}': expected auto, scalar, avx2 or avx512", name));
}

std::string_view kernel_name(KernelChoice choice) {
  switch (choice) {
    case KernelChoice::automatic: return "auto";
    case KernelChoice::scalar: return "scalar";
    case KernelChoice::avx2: return "avx2";
    case KernelChoice::avx512: return "avx512";
  }
  return "?";
}

bool cpu_supports(KernelChoice choice) {
  switch (choice) {
    case KernelChoice::avx2: return __builtin_cpu_supports("avx2");
    case KernelChoice::avx512: return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f");
    default: return true;
  }
}

KernelChoice best_cpu_kernel() {
  if (cpu_supports(KernelChoice::avx512)) return KernelChoice::avx512;
  if (cpu_supports(KernelChoice::avx2)) return KernelChoice::avx2;
  return KernelChoice::scalar;
}

KernelChoice resolve_cpu_kernel(KernelChoice choice) {
  if (choice == KernelChoice::automatic) choice = best_cpu_kernel();
  if (!cpu_supports(choice))
    throw UsageError(fmt::format("kernel '{}' needs an instruction set this CPU lacks", kernel_name(choice)));
  return choice;
}

std::unique_ptr<PaparaKernel> make_papara_cpu_kernel(KernelChoice choice, const PaparaProblem& problem) {
  switch (resolve_cpu_kernel(choice)) {
    case KernelChoice::avx512: return simd::make_avx512_kernel(problem);
    case KernelChoice::avx2: return simd::make_avx2_kernel(problem);
    default: return std::make_unique<ScalarKernel>(problem);
  }
}

}  // namespace hyalign::kernels
