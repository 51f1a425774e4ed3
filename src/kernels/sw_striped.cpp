// The striped kernels where one pair is worked on at a time: the widest instruction set this CPU
// has, and the choice of locate step for tracebacks.
#include <memory>

#include "kernels/scalar/sw_linear.hpp"
#include "kernels/simd/sw_striped.hpp"
#include "kernels/sw_kernel.hpp"

namespace hyalign::kernels {
namespace {

// nullptr for the scalar choice, without SIMD kernels, and for negative gap costs (the lazy-F loop
// needs them >= 0).
std::unique_ptr<simd::StripedSw> make_striped_sw(const SwScoring& scoring, engine::KernelChoice choice) {
  if (scoring.gap_open < 0 || scoring.gap_extend < 0) return nullptr;
  switch (choice == engine::KernelChoice::automatic ? engine::best_cpu_kernel() : choice) {
#if defined(HYALIGN_X86_KERNELS)
    case engine::KernelChoice::avx512: return simd::make_striped_sw_avx512(scoring);
    case engine::KernelChoice::avx2: return simd::make_striped_sw_avx2(scoring);
#endif
    default: return nullptr;
  }
}

// The pruned route sweeps its kept cells twice (locate, then the traceback's blocks), the striped
// one sweeps every cell 10-30 times faster, then the same pruned blocks: it wins once the pruned
// sweep keeps more than a few percent of the cells. The share kept whatever the values (a lower
// bound) put the crossover at 0.002-0.03 on protein pairs of 2,000-20,000 residues at 2-80 %
// substitutions (long near-copies stay pruned: 0.002 or less; the 35,000-residue hit of
// bench/sw_traceback_bench.cpp too).
constexpr double kStripedLocateShare = 1.0 / 50;

}  // namespace

int sw_score_one(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                 const SwScoring& scoring) {
  const auto striped = make_striped_sw(scoring, engine::KernelChoice::automatic);
  if (!striped) return sw_score_scalar(query, target, scoring);
  striped->set_query(query);
  return striped->score(target);
}

SwAlignment sw_align_hit(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target,
                         const SwScoring& scoring, int score, engine::KernelChoice choice) {
  if (query.empty() || target.empty()) return {};
  const auto striped = make_striped_sw(scoring, choice);
  if (!striped || sw_unprunable_share(query, target, scoring, score) < kStripedLocateShare)
    return sw_align_linear(query, target, scoring, score);
  striped->set_query(query);
  return sw_align_located(query, target, scoring,
                          striped->locate(target, sw_checkpoint_stride(target.size()), score));  // lanes by the score
}

}  // namespace hyalign::kernels
