#pragma once
// The .hymi file of `hyalign mem index`: a suffix index written once and read back by every run.
// A magic word with the format version, a header with the sizes and its own checksum, a table of
// one XXH3 checksum per 8 MiB block of the sections, then the sections; a truncated, damaged or
// foreign file is refused with the reason.
#include <functional>
#include <string>

#include "index/suffix_index.hpp"

namespace hyalign::index {

bool is_index_file(const std::string& path);
void write_index(const SuffixIndex& index, const std::string& path);
// Reads and checks the blocks on `threads` threads.
SuffixIndex read_index(const std::string& path, unsigned threads);

// An index file read back, or the index of a FASTA file built (`mem` and `map` take either).
SuffixIndex load_or_build_index(const std::string& reference, unsigned threads);
// `hyalign mem index` and `hyalign map index`: builds the index of a FASTA reference and writes it,
// unless `check` (the tool's demands on the reference) throws.
void build_index_file(const std::string& reference, const std::string& out, unsigned threads,
                      const std::function<void(const SuffixIndex&)>& check = {});

}  // namespace hyalign::index
