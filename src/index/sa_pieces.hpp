#pragma once
// The suffix array in pieces, for a device that cannot hold all of it (a GPU with less memory than
// the index): the text stays whole, and the rows are cut where the suffixes' first letters change,
// so that a search and everything decided from a pattern's occurrences need one piece only.
#include <cstddef>
#include <vector>

#include "index/suffix_index.hpp"

namespace hyalign::index {

// Consecutive row ranges covering the suffix array, each of at most about `most_rows` rows (more
// only where one prefix of `prefix_length` letters has more suffixes). Every cut is the first row
// not below some string of `prefix_length` letters, so the rows of any pattern at least that long
// lie in one piece.
std::vector<SaInterval> split_suffix_array(const SuffixIndex& index, std::size_t most_rows, unsigned prefix_length);

}  // namespace hyalign::index
