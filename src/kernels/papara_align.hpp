#pragma once
// The alignment phase (spec §7): every query re-aligned against its best branch with a full traceback.
// The SIMD kernels align W queries at once (one per 16-bit lane, each with its own branch and length)
// and give exactly papara_align_scalar's score and residue places.
#include <cstddef>
#include <span>
#include <vector>

#include "kernels/papara_kernel.hpp"

namespace hyalign::kernels {

// Aligns query q against branch branch_of_query[q], for every query of the problem. `choice`
// automatic picks the widest instruction set this CPU has; scalar runs papara_align_scalar for every
// query. Queries that 16-bit lanes cannot hold exactly (and empty ones) always take the scalar path.
std::vector<PaparaAlignment> papara_align_all(engine::KernelChoice choice, const PaparaProblem& problem,
                                              std::span<const std::size_t> branch_of_query, unsigned threads);
// The same for the queries listed in `which` only, into out[q] (out holds every query's place):
// a run aligns the queries already placed while the rest are scored.
void papara_align_queries(engine::KernelChoice choice, const PaparaProblem& problem,
                          std::span<const std::size_t> branch_of_query, std::span<const std::size_t> which,
                          unsigned threads, std::span<PaparaAlignment> out);

}  // namespace hyalign::kernels
