#include "core/sequence_arena.hpp"

#include <algorithm>

namespace hyalign {

std::size_t SequenceArena::add(std::string_view name, std::span<const StateSet> residues) {
  names_.append(name);
  name_offsets_.push_back(names_.size());
  residues_.insert(residues_.end(), residues.begin(), residues.end());
  offsets_.push_back(residues_.size());
  max_length_ = std::max(max_length_, residues.size());
  return size() - 1;
}

}  // namespace hyalign
