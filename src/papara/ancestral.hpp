#pragma once
// Ancestral state vectors: for every branch, the parsimony state set and the gap flag (CGAP) of each
// column at a virtual root placed on that branch (spec §5).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/alphabet.hpp"
#include "papara/inputs.hpp"

namespace hyalign::papara {

enum class GapModel {
  probabilistic,  // PaPaRa 2.x default (§5.1)
  rule_based,     // -c, the seed's CGAP rules (§5.2)
};

struct BranchVectors {
  std::size_t branches = 0;
  std::size_t columns = 0;
  std::vector<StateSet> states;   // branch-major: branches × columns
  std::vector<std::uint8_t> cgap; // 1 where the column carries the gap signal
  const StateSet* branch_states(std::size_t b) const { return states.data() + b * columns; }
  const std::uint8_t* branch_cgap(std::size_t b) const { return cgap.data() + b * columns; }
};

BranchVectors compute_branch_vectors(const PaparaInputs& inputs, const Alphabet& alphabet, GapModel model,
                                     unsigned threads);

}  // namespace hyalign::papara
