#include "kernels/papara_align.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>


#include "core/parallel.hpp"
#include "kernels/simd/papara_simd.hpp"
#include "kernels/papara_encoding.hpp"

namespace hyalign::kernels {
namespace {

// Queries whose batch would need more traceback memory than this (per thread) take the scalar path,
// which needs columns × (m + 1) bytes per thread; a SIMD batch needs columns × m_max × 16 bytes for
// 32 lanes (8 for 16 lanes).
constexpr std::size_t kMaxTraceBytes = std::size_t{256} << 20;

std::unique_ptr<simd::PaparaBatchAligner> make_aligner(engine::KernelChoice choice,
                                                       [[maybe_unused]] const PaparaProblem& problem) {
  switch (choice) {
#if defined(HYALIGN_X86_KERNELS)
    case engine::KernelChoice::avx512: return simd::make_avx512_aligner(problem);
    case engine::KernelChoice::avx2: return simd::make_avx2_aligner(problem);
#endif
    default: return nullptr;  // the scalar path
  }
}

}  // namespace

std::vector<PaparaAlignment> papara_align_all(engine::KernelChoice choice, const PaparaProblem& problem,
                                              std::span<const std::size_t> branch_of_query, unsigned threads) {
  std::vector<std::size_t> every(problem.queries->size());
  std::iota(every.begin(), every.end(), std::size_t{0});
  std::vector<PaparaAlignment> out(every.size());
  papara_align_queries(choice, problem, branch_of_query, every, threads, out);
  return out;
}

void papara_align_queries(engine::KernelChoice choice, const PaparaProblem& problem,
                          std::span<const std::size_t> branch_of_query, std::span<const std::size_t> which,
                          unsigned threads, std::span<PaparaAlignment> out) {
  const StateSequences& queries = *problem.queries;
  if (branch_of_query.size() != queries.size() || out.size() != queries.size())
    throw std::invalid_argument("papara_align_queries: one branch and one place per query expected");
  choice = engine::resolve_cpu_kernel(choice);
  threads = std::max(1u, threads);

  auto align_scalar = [&](std::size_t q) {
    out[q] = papara_align_scalar(queries.sequence(q), problem.targets.branch(branch_of_query[q]), problem.scoring);
  };

  // One aligner (scratch memory) per worker.
  std::vector<std::unique_ptr<simd::PaparaBatchAligner>> aligners;
  for (unsigned t = 0; t < threads; ++t)
    if (auto aligner = make_aligner(choice, problem)) aligners.push_back(std::move(aligner));

  // Work items: first the scalar queries (the long ones, or all of them), then SIMD batches of W
  // queries of similar length, longest first.
  std::vector<std::size_t> scalar, simd;
  for (const std::size_t q : which) {
    const std::size_t m = queries.length(q);
    const bool vector_ok = !aligners.empty() && m > 0 && problem.targets.columns > 0 &&
                           fits_int16(m, problem.targets.columns, problem.scoring) &&
                           aligners[0]->trace_bytes(m) <= kMaxTraceBytes;
    (vector_ok ? simd : scalar).push_back(q);
  }
  std::stable_sort(scalar.begin(), scalar.end(),
                   [&](std::size_t a, std::size_t b) { return queries.length(a) > queries.length(b); });
  std::stable_sort(simd.begin(), simd.end(),
                   [&](std::size_t a, std::size_t b) { return queries.length(a) > queries.length(b); });
  const std::size_t lanes = aligners.empty() ? 1 : aligners[0]->lanes();
  const std::size_t batches = (simd.size() + lanes - 1) / lanes;

  parallel_for(scalar.size() + batches, threads, [&](std::size_t item, unsigned worker) {
    if (item < scalar.size()) return align_scalar(scalar[item]);
    const std::size_t first = (item - scalar.size()) * lanes;
    const std::size_t count = std::min(lanes, simd.size() - first);
    const std::span<const std::size_t> batch(simd.data() + first, count);
    std::vector<std::size_t> branch(count);
    std::vector<PaparaAlignment> results(count);
    for (std::size_t k = 0; k < count; ++k) branch[k] = branch_of_query[batch[k]];
    aligners[worker]->align(batch, branch, results.data());
    for (std::size_t k = 0; k < count; ++k) out[batch[k]] = std::move(results[k]);
  });
}

}  // namespace hyalign::kernels
