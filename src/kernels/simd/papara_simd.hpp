#pragma once
// Factories of the per-ISA kernels; call one only when the CPU supports its instruction set.
#include <cstddef>
#include <memory>
#include <span>

#include "kernels/papara_kernel.hpp"

namespace hyalign::kernels::simd {

std::unique_ptr<PaparaKernel> make_avx2_kernel(const PaparaProblem& problem);
std::unique_ptr<PaparaKernel> make_avx512_kernel(const PaparaProblem& problem);

// Inter-query traceback (spec §7): aligns up to lanes() queries at once, each against its own branch,
// with exactly papara_align_scalar's results. One aligner per thread (it owns the scratch memory).
class PaparaBatchAligner {
 public:
  virtual ~PaparaBatchAligner() = default;
  virtual std::size_t lanes() const = 0;
  // Bytes of traceback bits a batch whose longest query has `m_max` residues needs.
  virtual std::size_t trace_bytes(std::size_t m_max) const = 0;
  // Aligns query queries[k] against branch branches[k] into out[k], for k < queries.size() <= lanes().
  // Every query must be non-empty and satisfy fits_int16(length, columns, scoring).
  virtual void align(std::span<const std::size_t> queries, std::span<const std::size_t> branches,
                     PaparaAlignment* out) = 0;
};

std::unique_ptr<PaparaBatchAligner> make_avx2_aligner(const PaparaProblem& problem);
std::unique_ptr<PaparaBatchAligner> make_avx512_aligner(const PaparaProblem& problem);

}  // namespace hyalign::kernels::simd
