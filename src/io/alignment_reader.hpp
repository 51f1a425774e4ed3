#pragma once
// Reads a multiple alignment: PHYLIP (strict 10-character or relaxed names; sequential, wrapped or
// interleaved) or aligned FASTA, chosen from the content. gzip input is accepted.
#include <cstddef>
#include <string>
#include <vector>

namespace hyalign {

struct RawAlignment {
  std::vector<std::string> names;
  std::vector<std::string> rows;       // characters exactly as read, whitespace removed
  std::vector<std::size_t> name_lines; // 1-based line where each row's name stands (for errors)
  std::size_t columns() const { return rows.empty() ? 0 : rows.front().size(); }
};

// Throws InputError (file:line: problem) when the file is missing/unreadable/empty/binary, the PHYLIP
// header is malformed or disagrees with the data (row count, row length), rows have unequal lengths,
// or a name is duplicated. Characters are not checked against an alphabet here.
RawAlignment read_alignment(const std::string& path);

}  // namespace hyalign
