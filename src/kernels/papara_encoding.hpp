#pragma once
// What the PaPaRa SIMD and GPU kernels share, with no instruction-set flags: query encoding, the
// 16-bit safety bound, and the per-block match masks.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/sequence_batch.hpp"
#include "kernels/papara_kernel.hpp"

namespace hyalign::kernels {

// Queries as indices into alphabet.residue_sets() (the batch's residues), without names.
struct EncodedQueries {
  CodedSequences symbols;
  std::vector<std::uint8_t> fits_int16;  // 1 if every DP value of the query provably fits in int16
  std::size_t symbol_count = 0;          // K: size of the alphabet's residue set list
  std::size_t size() const { return symbols.size(); }
  const std::uint8_t* query(std::size_t q) const { return symbols.sequence(q).data(); }
  std::size_t length(std::size_t q) const { return symbols.length(q); }
};

EncodedQueries encode_queries(const PaparaProblem& problem);

// True when no DP value (nor the -inf sentinel arithmetic, done with saturation) of a query of length
// m against a reference of `columns` columns can leave (-limit, limit): then 16-bit lanes give exactly
// the 32-bit scores. Bounds: S >= -m times the cheaper of a query gap and a diagonal step (see the
// definition); each step adds at most the largest positive increment. With PaPaRa's default scoring
// that is every query of up to 10,664 residues at limit 32000 (the CPU), 4,997 at 15000 (the GPU).
bool fits_int16(std::size_t m, std::size_t columns, const PaparaScoring& scoring, long long limit = 32000);

// For one block of up to 32 branches: per column, a lane mask per residue symbol (bit b set when
// branch b's state set shares a state with the symbol) and the mask of lanes with the gap signal.
// `interleaved` is the block's states position-major (lanes of one column side by side, padded to
// `lanes` with empty sets), the layout the per-ISA code turns into masks with a few vector tests.
struct BlockMasks {
  std::vector<std::uint32_t> match;        // columns × K
  std::vector<std::uint32_t> cgap;         // columns
  std::vector<std::uint32_t> interleaved;  // columns × lanes
  void interleave(const PaparaProblem& problem, std::size_t first, std::size_t count, std::size_t lanes);
};

}  // namespace hyalign::kernels
