#pragma once
// Everything PaPaRa reads, checked and encoded: the masked reference alignment matched to the tree
// leaves, and the queries with gaps and unknown characters removed.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "core/sequence_batch.hpp"
#include "papara/tree.hpp"

namespace hyalign::papara {

struct ReferenceAlignment {
  std::vector<std::string> names;      // reference rows (tree leaves) in input order
  std::vector<std::string> raw_rows;   // masked, characters exactly as read
  std::vector<StateSet> states;        // masked, row-major: rows × columns
  std::size_t columns = 0;
  double gap_fraction = 0.0;           // literal '-' among all masked reference characters
  std::size_t row_count() const { return names.size(); }
  const StateSet* row_states(std::size_t r) const { return states.data() + r * columns; }
};

struct PaparaInputs {
  PaparaTree tree;
  std::vector<int> leaf_row;           // per tree node: reference row of a leaf, -1 for inner nodes
  ReferenceAlignment reference;
  StateSequences queries;               // FASTA queries first, then extra alignment rows
  std::size_t longest_name = 0;
};

struct InputPaths {
  std::string tree;
  std::string alignment;
  std::optional<std::string> queries;
};

PaparaInputs load_inputs(const InputPaths& paths, const Alphabet& alphabet, bool need_branch_lengths);

}  // namespace hyalign::papara
