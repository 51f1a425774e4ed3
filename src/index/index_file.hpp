#pragma once
// The .hymi file of `hyalign mem index`: a suffix index written once and read back by every run.
// A magic word with the format version, a header with the sizes and its own checksum, then the
// sections with one XXH3 checksum over them; a truncated, damaged or foreign file is refused with
// the reason.
#include <string>

#include "index/suffix_index.hpp"

namespace hyalign::index {

bool is_index_file(const std::string& path);
void write_index(const SuffixIndex& index, const std::string& path);
SuffixIndex read_index(const std::string& path);

}  // namespace hyalign::index
